# shellcheck shell=bash
# Shared settings of the qemu/ scripts: where the kernel cache lives and
# which kernel a flavor (debug/release) is built into.

RG_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RG_CACHE=${RG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/res_groups}
RG_SRC_PKG=linux-source-6.1

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# rg_wait_job PID: waits for the job PID (started in the background with
# job control on, set -m, so that it has a process group of its own to
# signal) to end, and returns its status. A plain wait returns at the
# job's stop (status 128 + SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU): a build
# paused to leave the machine to another run for a while would be taken
# for a failed one. So while the job is stopped this looks again once a
# second (bash 5.2's wait -f spins on a stopped job, a whole CPU, and
# can still return the stop's status once the job went on and ended). A
# signal the script traps ends a wait at once, and a look's sleep within
# a second; the trap then runs. (qemu/selftest-host checks all three.)
rg_wait_job() {
	local rc

	while :; do
		wait "$1"
		rc=$?
		case $rc in
		147|148|149|150) ;;
		*) return "$rc" ;;
		esac
		# (an exit status of 147-150 of its own: the job is gone)
		kill -0 "$1" 2>/dev/null || return "$rc"
		sleep 1
	done
}

rg_src_version() {
	dpkg-query -W -f='${Version}' "$RG_SRC_PKG" 2>/dev/null
}

# rg_patches FLAVOR: the patches, in series order (none for "unpatched",
# the bench's baseline kernel).
rg_patches() {
	local p
	[ "${1:-}" = unpatched ] && return
	while read -r p; do
		[ -n "$p" ] && [ "${p#\#}" = "$p" ] && echo "$RG_TOP/hooks-patch/$p"
	done < "$RG_TOP/hooks-patch/series"
}

# rg_frags FLAVOR: its config fragments (unpatched: release's; arm64k:
# its own alone, base.config being x86's).
rg_frags() {
	local f=$1
	[ "$f" = unpatched ] && f=release
	[ "$f" = arm64k ] || echo -n "$RG_TOP/hooks-patch/base.config "
	echo "$RG_TOP/hooks-patch/$f.config"
}

# rg_arch FLAVOR: "ARCH CROSS_COMPILE IMAGE" of that flavor's kernel.
rg_arch() {
	case "$1" in
	arm64k) echo "arm64 aarch64-linux-gnu- Image" ;;
	*) echo "x86_64 - bzImage" ;;
	esac
}

# rg_key FLAVOR: what a build depends on (source version, patches, config).
rg_key() {
	{
		rg_src_version
		echo "$1"
		# shellcheck disable=SC2046
		cat $(rg_patches "$1") $(rg_frags "$1")
	} | sha256sum | cut -c1-16
}

# rg_detectors FILE: the detectors that a guest run's verdict lines in
# FILE name ("qemu/run: verdict: DETECTOR[: ...]", qemu/verdict), sorted,
# each once, on one line, each followed by a space.
rg_detectors() {
	sed -nE 's/^qemu\/run: verdict: (splat:[a-z-]+|[a-z_]+).*/\1/p' "$1" |
		sort -u | tr '\n' ' '
}

# rg_kdir FLAVOR: the build tree of that flavor (O= directory).
rg_kdir() {
	echo "$RG_CACHE/build-$1-$(rg_key "$1")"
}

# rg_src_tree FLAVOR: the source tree of that flavor (a pristine extract of
# linux-source-6.1 plus its patch series), extracted once per source
# version and series; its path on stdout, progress on stderr.
rg_src_tree() {
	local ver phash src p
	ver=$(rg_src_version) || true
	[ -n "$ver" ] || die "$RG_SRC_PKG is not installed (run: make deps)"
	phash=$(rg_patches "$1" | xargs -r cat | sha256sum | cut -c1-16)
	src=$RG_CACHE/src-$ver-$phash
	mkdir -p "$RG_CACHE"
	# (set -e does not hold in this subshell: it is the left side of ||,
	# and callers run it in $(...). Each step says if it failed.)
	(
		flock 8 || exit 1
		if [ ! -f "$src/.rg-patched" ]; then
			echo "extracting /usr/src/$RG_SRC_PKG.tar.xz into $src" >&2
			rm -rf "$src" "$src.tmp" || exit 1
			mkdir -p "$src.tmp" || exit 1
			tar -C "$src.tmp" -xf "/usr/src/$RG_SRC_PKG.tar.xz" || exit 1
			for p in $(rg_patches "$1"); do
				echo "applying $(basename "$p")" >&2
				patch -d "$src.tmp/$RG_SRC_PKG" -p1 -s < "$p" ||
					{ echo "$(basename "$p") does not apply" >&2; exit 1; }
			done
			mv "$src.tmp" "$src" || exit 1
			touch "$src/.rg-patched" || exit 1
		fi
	) 8>"$src.lock" || die "could not extract and patch $src"
	echo "$src/$RG_SRC_PKG"
}

# rg_untaken CONFIG FRAGMENT...: each option line of the fragments
# (CONFIG_X=... or "# CONFIG_X is not set") that CONFIG lacks, i.e. that
# did not survive olddefconfig (an unmet dependency).
rg_untaken() {
	local config=$1 f line
	shift
	for f; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*|"# CONFIG_"*" is not set") ;;
			*) continue ;;
			esac
			grep -qxF "$line" "$config" || echo "$line"
		done < "$f"
	done
}

# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by packaging/test-chroot and packaging/e2e.

# The first Debian mirror (not debian-security) in the apt sources.
detect_mirror() {
	# awk reads all of its input (grep -m1 would leave the loop writing
	# into a closed pipe, a failure under pipefail).
	_m=$(for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		 /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		case $f in
		*.sources) sed -n 's/^URIs:[[:space:]]*//p' "$f" | tr ' ' '\n' ;;
		*) sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' "$f" ;;
		esac
	done | awk '/\/debian\/?$/ && !n++')
	echo "${_m:-http://deb.debian.org/debian}"
}

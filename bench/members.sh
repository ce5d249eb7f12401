#!/bin/bash
# Runs inside the release guest (bench/run's "members" part: under
# icount, one vCPU; "members2": plain TCG, two vCPUs): what reading
# members does to forks of the group read. 30,000 parked threads in the
# root; a fork loop (+ exit + wait) in the root for FORKLAT_MS, alone
# ("idle"); then while an unprivileged user (uid 1000) reads the root's
# members in a loop on every CPU ("read"; with two vCPUs the forker is on
# the first CPU, so a reader there shares it, and the other's hold of
# the root's lock is what a fork there waits for); then while the same
# user reads a small file in a loop on every CPU ("busy": what sharing a
# CPU with a busy reader costs, whatever it reads). Prints "RESULT
# <tag>forkmax_<idle|read|busy> rg <round> <longest fork in us>",
# "RESULT <tag>forkmed_<...>" (the median) and "RESULT <tag>read30k rg
# <round> <us per read of members>", tag "m" (MEMBERS_TAG).
#   MODDIR, BIN, ROUNDS; FORKLAT_MS (default 3000); MEMBERS_TASKS
#   (default 30000); MEMBERS_TAG (default m)
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
FORKLAT_MS=${FORKLAT_MS:-3000}
MEMBERS_TASKS=${MEMBERS_TASKS:-30000}
tag=${MEMBERS_TAG:-m}
tmp=${TMPDIR:-/tmp}/members-bench
ncpu=$(nproc)
# user CMD...: CMD as uid 1000, exec'd (only in a subshell: $(...) or &)
user() { exec setpriv --reuid=1000 --regid=1000 --clear-groups "$@"; }

echo 200000 > /proc/sys/kernel/threads-max
echo 200000 > /proc/sys/kernel/pid_max
# result NAME "MAX MEDIAN"
result() {
	set -- "$1" $2
	[ $# = 3 ] || { echo "no fork figures for $1" >&2; exit 1; }
	echo "RESULT ${tag}forkmax_$1 rg $r $2"
	echo "RESULT ${tag}forkmed_$1 rg $r $3"
}

# readers FILE: a user's read loop of FILE on every CPU (children of this
# shell, their pids in rpids, so that they can be waited for).
readers() {
	local c
	rpids=()
	for c in $(seq 0 $((ncpu - 1))); do
		user taskset -c "$c" $BIN read 100000000 "$1" > /dev/null &
		rpids+=($!)
	done
}

# forks WHAT: the fork loop on CPU 0 beside the readers in rpids, which
# must still run at its end; they are then killed and reaped.
forks() {
	local v p
	v=$(taskset -c 0 $BIN forklat "$FORKLAT_MS")
	for p in "${rpids[@]}"; do
		kill -0 "$p" 2> /dev/null || { echo "a reader died" >&2; exit 1; }
	done
	if [ ${#rpids[@]} -gt 0 ]; then
		kill -9 "${rpids[@]}"
		wait "${rpids[@]}" 2> /dev/null
	fi
	result "$1" "$v"
}

for r in $(seq "$ROUNDS"); do
	unload
	insmod $MODDIR/res_groups.ko || exit 1
	rm -f "$tmp" && mkfifo "$tmp"
	$BIN park "$MEMBERS_TASKS" $RG/members > "$tmp" &
	park=$!
	read -r ready < "$tmp"
	[ "$ready" = ready ] || { kill -9 $park; exit 1; }
	rpids=()
	forks idle
	echo "RESULT ${tag}read30k rg $r $(user $BIN read 5 $RG/members)"
	readers $RG/members
	forks read
	readers /proc/loadavg
	forks busy
	kill -9 $park
	wait $park 2> /dev/null
	unload
done
rm -f "$tmp"

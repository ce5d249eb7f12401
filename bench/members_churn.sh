#!/bin/bash
# Runs inside the release guest (bench/run's "churn" part: plain TCG, two
# vCPUs): what an unprivileged user's readers of the root's members, beside
# an exec loop, cost forks of another session. MEMBERS_TASKS parked
# threads in the root; a fork loop (+ exit + wait) in the root, in a
# session of its own, on the first CPU, for FORKLAT_MS: alone ("idle"),
# then while a user (uid 1000) runs READERS reads of the root's members
# in a loop (spread over the CPUs) and an exec loop (a thread that execs
# its program again, over and over: each exec swaps its pid and its
# leader's, and a read that meets one walks the list without notes;
# before issue 46 that walk was one pass under the root's lock, which
# every fork and exit in the root takes), "churn". Prints "RESULT
# xforkmax_<idle|churn> rg <round> <longest fork in us>" and "RESULT
# xforkmed_<...>" (the median).
#   MODDIR, BIN, ROUNDS; FORKLAT_MS (default 3000); MEMBERS_TASKS
#   (default 30000); READERS (default 16)
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
FORKLAT_MS=${FORKLAT_MS:-3000}
MEMBERS_TASKS=${MEMBERS_TASKS:-30000}
READERS=${READERS:-16}
tmp=${TMPDIR:-/tmp}/members-churn-bench
ncpu=$(nproc)
# user CMD...: CMD as uid 1000, exec'd (only in a subshell: $(...) or &)
user() { exec setpriv --reuid=1000 --regid=1000 --clear-groups "$@"; }

echo 200000 > /proc/sys/kernel/threads-max
echo 200000 > /proc/sys/kernel/pid_max
# result NAME "MAX MEDIAN"
result() {
	set -- "$1" $2
	[ $# = 3 ] || { echo "no fork figures for $1" >&2; exit 1; }
	echo "RESULT xforkmax_$1 rg $r $2"
	echo "RESULT xforkmed_$1 rg $r $3"
}

for r in $(seq "$ROUNDS"); do
	unload
	insmod $MODDIR/res_groups.ko || exit 1
	rm -f "$tmp" && mkfifo "$tmp"
	$BIN park "$MEMBERS_TASKS" $RG/members > "$tmp" &
	park=$!
	read -r ready < "$tmp"
	[ "$ready" = ready ] || { kill -9 $park; exit 1; }
	result idle "$(taskset -c 0 setsid -w $BIN forklat "$FORKLAT_MS")"
	pids=()
	for i in $(seq "$READERS"); do
		(user taskset -c $((i % ncpu)) $BIN read 100000000 $RG/members > /dev/null) &
		pids+=($!)
	done
	(user $BIN execloop 0) &
	execer=$!
	sleep 1
	v=$(taskset -c 0 setsid -w $BIN forklat "$FORKLAT_MS")
	kill -0 $execer 2> /dev/null || { echo "the exec loop died" >&2; exit 1; }
	kill -9 $execer
	for p in "${pids[@]}"; do
		kill -0 "$p" 2> /dev/null || { echo "a reader died" >&2; exit 1; }
	done
	kill -9 "${pids[@]}"
	wait "${pids[@]}" 2> /dev/null
	wait $execer 2> /dev/null
	result churn "$v"
	kill -9 $park
	wait $park 2> /dev/null
	unload
done
rm -f "$tmp"

#!/bin/bash
# Runs inside the release guest under icount (bench/run's "rmdir" part,
# one vCPU): what an rmdir of a group holding 10,000 tasks does to forks
# elsewhere. A process with 10,000 parked threads is moved to group g; an
# unrelated loop in the root forks (+ exit + wait) for FORKLAT_MS, alone
# ("idle"), then again while g is removed ("rmdir": its tasks go to the
# root). Prints "RESULT forkmax_<idle|rmdir> <nt|cpu> <round> <longest
# fork in us>", "RESULT forkmed_<...>" (the median) and "RESULT rmdir10k
# <config> <round> <us the rmdir took>". Configurations: nt (res_groups.ko
# and rg_numtasks.ko), cpu (and rg_cpu.ko: each move also changes the task's
# CFS task group).
#   MODDIR, BIN, ROUNDS; RMDIR_CONFIGS (default "nt cpu"); FORKLAT_MS
#   (default 3000); RMDIR_TASKS (default 10000)
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
RMDIR_CONFIGS=${RMDIR_CONFIGS:-nt cpu}
FORKLAT_MS=${FORKLAT_MS:-3000}
RMDIR_TASKS=${RMDIR_TASKS:-10000}
tmp=${TMPDIR:-/tmp}/rmdir-bench

# result NAME CONFIG "MAX MEDIAN"
result() {
	set -- "$1" "$2" $3
	echo "RESULT forkmax_$1 $2 $r $3"
	echo "RESULT forkmed_$1 $2 $r $4"
}

for r in $(seq "$ROUNDS"); do
	for c in $RMDIR_CONFIGS; do
		[ -e /sys/module/rg_cpu ] && rmmod rg_cpu
		unload
		insmod $MODDIR/res_groups.ko && insmod $MODDIR/rg_numtasks.ko || exit 1
		[ $c = nt ] || insmod $MODDIR/rg_cpu.ko || exit 1
		mkdir $RG/g || exit 1
		rm -f "$tmp" && mkfifo "$tmp"
		$BIN park "$RMDIR_TASKS" $RG/g/members > "$tmp" &
		park=$!
		read -r ready < "$tmp"
		[ "$ready" = ready ] || exit 1
		result idle $c "$($BIN forklat "$FORKLAT_MS")"
		$BIN forklat "$FORKLAT_MS" > "$tmp.lat" &
		lat=$!
		# (forks measured before and after the rmdir too)
		sleep 1
		t0=$(date +%s%N)
		rmdir $RG/g || exit 1
		t1=$(date +%s%N)
		wait $lat
		result rmdir $c "$(cat "$tmp.lat")"
		echo "RESULT rmdir10k $c $r $(((t1 - t0) / 1000))"
		kill -9 $park
		wait $park 2> /dev/null
		[ $c = nt ] || rmmod rg_cpu
		unload
	done
done
rm -f "$tmp" "$tmp.lat"

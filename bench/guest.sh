#!/bin/bash
# Runs inside the release guest (bench/run boots it): the configurations
# A B C D interleaved round by round, then the interface benchmarks.
# Prints "RESULT <test> <config> <round> <value>" lines.
#   MODDIR  where res_groups.ko and rg_numtasks.ko (release builds) are
#   BIN     the rg_bench binary
#   ROUNDS, ITERS, CONFIGS (default "A B C D"), TESTS (default
#   "fork thread fork2"; make bench runs "fork thread" under icount)
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-5}
ITERS=${ITERS:-20000}

# run CONFIG TEST ROUND: one measurement, in the configuration's place.
# fork2 does ITERS/4 forks in each of two forkers (TCG is slow).
run() {
	local n=$ITERS
	[ "$2" = fork2 ] && n=$((ITERS / 4))
	v=$(inside "$(place $1)" $BIN $2 $n)
	echo "RESULT $2 $1 $3 $v"
}

echo 100000 > /proc/sys/kernel/threads-max
# CONFIGS=A alone: the hooks-patch cost run (patched vs unpatched kernel).
for r in $(seq "$ROUNDS"); do
	for c in ${CONFIGS:-A B C D}; do
		setup $c
		for t in ${TESTS:-fork thread fork2}; do
			run $c $t "$r"
		done
		teardown $c
	done
done

[ "${CONFIGS:-}" = A ] && exit 0

# Interface throughput: ours vs cgroup v2, interleaved.
insmod $MODDIR/res_groups.ko
mkdir $RG/m1 $RG/m2 $CG/m1 $CG/m2
MOVES=$((ITERS / 4))
for r in $(seq "$ROUNDS"); do
	echo "RESULT moves rg $r $(sh -c "exec $BIN move $MOVES $RG/m1/members $RG/m2/members")"
	echo "RESULT moves cg $r $(sh -c "exec $BIN move $MOVES $CG/m1/cgroup.procs $CG/m2/cgroup.procs")"
	echo "RESULT mkdir rg $r $($BIN mkdir $MOVES $RG/mk)"
	echo "RESULT mkdir cg $r $($BIN mkdir $MOVES $CG/mk)"
done
# park N FILE: a process of N threads in a group; waits until it is ready.
park() {
	local out=$TMPDIR/park.$$.$RANDOM
	$BIN park $(($1 - 1)) "$2" > "$out" &
	local end=$((SECONDS + 300))
	until grep -q ready "$out" 2>/dev/null; do
		[ $SECONDS -lt $end ] || { echo "park $1: not ready" >&2; exit 1; }
		sleep 0.2
	done
	rm -f "$out"
	PARKED="$PARKED $!"
}

# 1k threads in m1, 10k in m2, both parked for the whole run, so that the
# reads of the two sizes interleave round by round.
PARKED=
for g in "1000 m1" "10000 m2"; do
	set -- $g
	park $1 $RG/$2/members
	park $1 $CG/$2/cgroup.procs
	echo "RESULT lines$1 rg 1 $(wc -l < $RG/$2/members)"
	echo "RESULT lines$1 cg 1 $(wc -l < $CG/$2/cgroup.threads)"
done
for r in $(seq "$ROUNDS"); do
	for g in "1000 m1" "10000 m2"; do
		set -- $g
		# About as long for both sizes: a 1k read alone is lost in noise.
		reads=$((200000 / $1))
		echo "RESULT read$1 rg $r $($BIN read $reads $RG/$2/members)"
		echo "RESULT read$1 cg $r $($BIN read $reads $CG/$2/cgroup.threads)"
	done
done
kill -9 $PARKED
wait 2>/dev/null
rmdir $RG/m1 $RG/m2 $CG/m1 $CG/m2
rmmod res_groups

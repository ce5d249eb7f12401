#!/bin/bash
# Runs inside the release guest under icount (bench/run's "peers" part):
# the benchmarks other people use, in a depth-5 group with numtasks and
# rg_cpu.ko loaded (R: a numtasks limit at every level), side by side with
# a depth-5 cgroup v2 with its pids and cpu controllers (G: pids.max at
# every level) and with no module (N), configurations interleaved round
# by round. One vCPU: each figure is the benchmark's instructions (ns).
#   RESULT peer_hackbench CFG ROUND N   hackbench -g 2 -l 50 (its "Time")
#   RESULT peer_messaging CFG ROUND N   perf bench sched messaging -g 2 -l 50
#   RESULT peer_pipe CFG ROUND N        perf bench sched pipe -l 20000
#   RESULT peer_ngfork CFG ROUND N      stress-ng --fork 1 --fork-ops 200
#   RESULT peer_ngclone CFG ROUND N     stress-ng --clone 1 --clone-ops 200
# (stress-ng's whole run, its start included, timed by the guest clock.)
# Single rounds move with the boot's state (hackbench, one round: G 162 or
# 222 million): the report takes the median of the paired ratios.
# A benchmark that is not installed (hackbench: rt-tests) is left out.
#   MODDIR, ROUNDS as for bench/guest.sh
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}

# in_cfg CFG CMD...: CMD run in the configuration's place.
in_cfg() {
	inside "$(place "$1")" "${@:2}"
}

# secs: the seconds a benchmark printed ("Time: 1.234", "Total time: 1.234
# [sec]") as nanoseconds.
secs() { awk '/^Time:|Total time:/ { v = $0; sub(/.*: */, "", v); sub(/ .*/, "", v); printf "%.0f", v * 1e9; exit }'; }

# timed CMD...: the guest clock's nanoseconds for CMD.
timed() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" > /dev/null 2>&1 || return 1
	t1=$(date +%s%N)
	echo $((t1 - t0))
}

run() {	# run CFG ROUND
	local v
	if command -v hackbench > /dev/null; then
		v=$(in_cfg "$1" hackbench -g 2 -l 50 2>&1 | secs)
		echo "RESULT peer_hackbench $1 $2 $v"
	fi
	v=$(in_cfg "$1" perf bench sched messaging -g 2 -l 50 2>&1 | secs)
	echo "RESULT peer_messaging $1 $2 $v"
	v=$(in_cfg "$1" perf bench sched pipe -l 20000 2>&1 | secs)
	echo "RESULT peer_pipe $1 $2 $v"
	v=$(timed in_cfg "$1" stress-ng --fork 1 --fork-ops 200 --quiet --temp-path "${TMPDIR:-/tmp}")
	echo "RESULT peer_ngfork $1 $2 $v"
	v=$(timed in_cfg "$1" stress-ng --clone 1 --clone-ops 200 --quiet --temp-path "${TMPDIR:-/tmp}")
	echo "RESULT peer_ngclone $1 $2 $v"
}

# A round first whose figures are dropped: the binaries' first start
# reads them and their libraries over 9p.
unload
run N 0 > /dev/null
for r in $(seq "$ROUNDS"); do
	for c in N R G; do
		case $c in
		N) unload ;;
		R) unload
		   insmod $MODDIR/res_groups.ko
		   insmod $MODDIR/rg_numtasks.ko
		   insmod $MODDIR/rg_cpu.ko
		   rg_deep ;;
		G) unload
		   cg_deep
		   p=$CG
		   for d in ${DEEP//\// }; do
			   echo +cpu > $p/cgroup.subtree_control
			   p=$p/$d
		   done ;;
		esac
		run $c "$r"
		case $c in
		R) undeep $RG
		   rmmod rg_cpu rg_numtasks res_groups ;;
		G) undeep $CG ;;
		esac
	done
done

#!/bin/bash
# Runs inside the release guest under icount (bench/run's "mkdir" part):
# what one more sibling group costs. Under one parent group p, the mkdir
# of the 1,101st to 1,200th children and of the 10,001st to 10,100th
# (mean ns each), and their rmdirs, in three configurations (neither
# window takes the number of p's children past a power of two, where
# rg_cpu.ko weighs all of them again: docs, "The CPU controller"):
#   cpu  res_groups.ko, rg_numtasks.ko and rg_cpu.ko (each group: two CFS task
#        groups, weighted by the shares)
#   rg   res_groups.ko and rg_numtasks.ko alone
#   cg   cgroup v2, the cpu controller on in p and its parent
# The cost that grows with the number of siblings, and that rg_cpu.ko must
# not add to (docs, "The CPU controller"): configfs looks a new name up
# among every sibling (twice), cgroup's kernfs in a tree.
# Prints "RESULT mkdir<N>|rmdir<N> <cpu|rg|cg> <round> <ns per call>".
#   MODDIR, BIN, ROUNDS; MKDIR_CONFIGS (default "cpu rg cg")
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
MKDIR_CONFIGS=${MKDIR_CONFIGS:-cpu rg cg}

# measure CONFIG DIR: grow DIR's children to 10,100 and back, timing the
# windows after 1,100 and 10,000.
measure() {
	local c=$1 s=$2/s
	$BIN mkdirs 0 1100 "$s" || exit 1
	echo "RESULT mkdir1000 $c $r $($BIN mkdirt 1100 1200 "$s")"
	$BIN mkdirs 1200 10000 "$s" || exit 1
	echo "RESULT mkdir10000 $c $r $($BIN mkdirt 10000 10100 "$s")"
	echo "RESULT rmdir10000 $c $r $($BIN rmdirt 10000 10100 "$s")"
	$BIN rmdirs 1200 10000 "$s" || exit 1
	echo "RESULT rmdir1000 $c $r $($BIN rmdirt 1100 1200 "$s")"
	$BIN rmdirs 0 1100 "$s" || exit 1
	rmdir "$2"
}

for r in $(seq "$ROUNDS"); do
	for c in $MKDIR_CONFIGS; do
		case $c in
		cpu|rg)
			[ -e /sys/module/rg_cpu ] && rmmod rg_cpu
			unload
			insmod $MODDIR/res_groups.ko && insmod $MODDIR/rg_numtasks.ko || exit 1
			[ $c = rg ] || insmod $MODDIR/rg_cpu.ko || exit 1
			mkdir $RG/p || exit 1
			measure $c $RG/p
			[ $c = rg ] || rmmod rg_cpu
			unload ;;
		cg)
			echo +cpu > $CG/cgroup.subtree_control && mkdir $CG/p &&
				echo +cpu > $CG/p/cgroup.subtree_control || exit 1
			measure cg $CG/p ;;
		esac
	done
done

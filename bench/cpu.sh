#!/bin/bash
# Runs inside the release guest (bench/run boots it): the CPU controller
# against cgroup v2's cpu controller. Prints "RESULT <test> <config>
# <round> <value>" lines.
#   MODDIR  where res_groups.ko and rg_cpu.ko (release builds) are
#   CBIN    the cpu_bench binary
#   ROUNDS, ITERS; CPU_CONFIGS (default "N R G"): N no module, R rg_cpu.ko,
#   G cgroup v2 cpu; CPU_TESTS (default "pingpong accuracy")
# pingpong: ns per round trip, both tasks in one depth-5 group (pp_same)
# or in sibling depth-5 groups (pp_sib); pingpong1: the same at depth 1
# (pp_same1, pp_sib1). accuracy: a ceiling of a quarter
# of the machine (ceil25: part of the machine), guarantees 60/20 or
# weights 3:1 (split: the first group's part of the busy time), and the
# same, nested (ceil_nested: 50 of 50 at depths 1 and 5).
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-5}
ITERS=${ITERS:-20000}
SIB=d1/d2/d3/d4/s5
NCPU=$(nproc)

mkpath() {	# mkpath ROOT: ROOT/$DEEP and ROOT/$SIB; for cgroup, +cpu on the way
	local p=$1 d
	for d in ${DEEP//\// }; do
		[ "$1" = "$CG" ] && echo +cpu > $p/cgroup.subtree_control
		p=$p/$d
		mkdir $p
	done
	mkdir $1/$SIB
}

rmpath() {
	rmdir $1/$SIB
	undeep $1
}

cpu_setup() {
	case $1 in
	N) unload ;;
	R) unload; insmod $MODDIR/res_groups.ko; insmod $MODDIR/rg_cpu.ko ;;
	G) unload ;;
	esac
}

cpu_unload() {
	for m in rg_cpu res_groups; do
		[ -e /sys/module/$m ] && rmmod $m
	done
	return 0
}

file() {	# file CONFIG GROUP: where a task is moved
	case $1 in
	R) echo $RG/$2/members ;;
	G) echo $CG/$2/cgroup.procs ;;
	esac
}

pingpong() {	# pingpong CONFIG ROUND
	local root=
	case $1 in
	R) root=$RG ;;
	G) root=$CG ;;
	esac
	[ -n "$root" ] && mkpath $root
	if [ -n "$root" ]; then
		echo "RESULT pp_same $1 $2 $(inside "$(file $1 $DEEP)" $CBIN pingpong $ITERS)"
		echo "RESULT pp_sib $1 $2 $(inside "$(file $1 $DEEP)" $CBIN pingpong $ITERS "$(file $1 $SIB)")"
		rmpath $root
	else
		v=$($CBIN pingpong $ITERS)
		echo "RESULT pp_same N $2 $v"
		echo "RESULT pp_sib N $2 $v"
	fi
}

pingpong1() {	# pingpong1 CONFIG ROUND: pingpong's, in top-level groups
	local root="" v
	case $1 in
	R) root=$RG ;;
	G) root=$CG; echo +cpu > $CG/cgroup.subtree_control ;;
	esac
	if [ -z "$root" ]; then
		v=$($CBIN pingpong $ITERS)
		echo "RESULT pp_same1 N $2 $v"
		echo "RESULT pp_sib1 N $2 $v"
		return
	fi
	mkdir $root/p1 $root/q1
	echo "RESULT pp_same1 $1 $2 $(inside "$(file $1 p1)" $CBIN pingpong $ITERS)"
	echo "RESULT pp_sib1 $1 $2 $(inside "$(file $1 p1)" $CBIN pingpong $ITERS "$(file $1 q1)")"
	rmdir $root/p1 $root/q1
}

accuracy() {	# accuracy CONFIG ROUND (R or G)
	local a b v
	case $1 in
	R)
		mkdir $RG/a $RG/b
		echo res=cpu,max_shares=25 > $RG/a/shares
		echo "RESULT ceil25 R $2 $($CBIN share 3000 $RG/a/members $((2 * NCPU)))"
		echo res=cpu,max_shares=-3 > $RG/a/shares
		echo res=cpu,min_shares=60 > $RG/a/shares
		echo res=cpu,min_shares=20 > $RG/b/shares
		v=$($CBIN share 3000 $RG/a/members $((2 * NCPU)) $RG/b/members $((2 * NCPU)))
		rmdir $RG/a $RG/b
		mkpath $RG
		echo res=cpu,max_shares=50 > $RG/d1/shares
		echo res=cpu,max_shares=50 > $RG/$DEEP/shares
		echo "RESULT ceil_nested R $2 $($CBIN share 3000 $RG/$DEEP/members $((2 * NCPU)))"
		rmpath $RG
		;;
	G)
		echo +cpu > $CG/cgroup.subtree_control
		mkdir $CG/a $CG/b
		echo "$((25000 * NCPU)) 100000" > $CG/a/cpu.max
		echo "RESULT ceil25 G $2 $($CBIN share 3000 $CG/a/cgroup.procs $((2 * NCPU)))"
		echo "max 100000" > $CG/a/cpu.max
		echo 300 > $CG/a/cpu.weight
		echo 100 > $CG/b/cpu.weight
		v=$($CBIN share 3000 $CG/a/cgroup.procs $((2 * NCPU)) $CG/b/cgroup.procs $((2 * NCPU)))
		rmdir $CG/a $CG/b
		mkpath $CG
		echo "$((50000 * NCPU)) 100000" > $CG/d1/cpu.max
		echo "$((25000 * NCPU)) 100000" > $CG/$DEEP/cpu.max
		echo "RESULT ceil_nested G $2 $($CBIN share 3000 $CG/$DEEP/cgroup.procs $((2 * NCPU)))"
		rmpath $CG
		;;
	*) return ;;
	esac
	set -- $1 $2 $v
	echo "RESULT split $1 $2 $(echo "$3 $4" | awk '{ printf "%.4f", $1 / ($1 + $2) }')"
}

for r in $(seq "$ROUNDS"); do
	for c in ${CPU_CONFIGS:-N R G}; do
		cpu_setup $c
		for t in ${CPU_TESTS:-pingpong accuracy}; do
			$t $c "$r"
		done
		cpu_unload
	done
done

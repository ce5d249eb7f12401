#!/bin/bash
# Runs inside the release guest (bench/run boots it, under icount): fork
# +exit+wait of a task in a limited group at depth 1 beside 1, 100, 1000
# and 10,000 groups under the root (the task's own included; the others
# empty, default shares), for numtasks (config "rg") and for cgroup v2's
# pids controller ("cg"). The groups are added as N grows and removed
# after each round. Prints "RESULT sib<N> <rg|cg> <round> <ns per fork>".
#   MODDIR, BIN, ROUNDS, ITERS as for bench/guest.sh; SIBS (default
#   "1 100 1000 10000")
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-2000}
SIBS=${SIBS:-1 100 1000 10000}

# grow ROOT N: ROOT/s0 .. ROOT/s<N-1> exist (s0 made by the setup).
grow() {
	local have
	have=$(ls -d "$1"/s* | wc -l)
	[ "$have" -ge "$2" ] || $BIN mkdirs "$have" "$2" "$1/s" || exit 1
}

for r in $(seq "$ROUNDS"); do
	unload
	insmod $MODDIR/res_groups.ko && insmod $MODDIR/numtasks.ko || exit 1
	mkdir $RG/s0 && echo res=numtasks,max_shares=90 > $RG/s0/shares || exit 1
	echo +pids > $CG/cgroup.subtree_control
	mkdir $CG/s0 && echo 100000 > $CG/s0/pids.max || exit 1
	for n in $SIBS; do
		grow $RG "$n"
		grow $CG "$n"
		echo "RESULT sib$n rg $r $(sh -c "echo \$\$ > $RG/s0/members; exec $BIN fork $ITERS")"
		echo "RESULT sib$n cg $r $(sh -c "echo \$\$ > $CG/s0/cgroup.procs; exec $BIN fork $ITERS")"
	done
	for root in $RG $CG; do
		n=$(ls -d $root/s* | wc -l)
		$BIN rmdirs 0 "$n" "$root/s" || exit 1
	done
	unload
done

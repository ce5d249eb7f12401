#!/bin/bash
# Runs inside the release guest (bench/run boots it, under icount): fork
# +exit+wait of a task in a limited group at depth 1 beside 1, 100, 1000
# and 10,000 groups under the root (the task's own included; the others
# empty, default shares), for numtasks (config "rg") and for cgroup v2's
# pids controller ("cg"). Each kind is measured with only its own groups
# present (the other kind's are removed first), so that the figures tell
# our fork path from the cost of having many directories in the kernel.
# Prints "RESULT sib<N> <rg|cg> <round> <ns per fork>"; with PROFILE=1,
# also a perf profile of each kind at the largest N (top symbols).
#   MODDIR, BIN, ROUNDS, ITERS as for bench/guest.sh; SIBS (default
#   "1 100 1000 10000")
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-2000}
SIBS=${SIBS:-1 100 1000 10000}
PROFILE=${PROFILE:-0}
data=${TMPDIR:-/tmp}/perf.data

# grow ROOT N: ROOT/s0 .. ROOT/s<N-1> exist (s0 made by the setup).
grow() {
	local have
	have=$(ls -d "$1"/s[0-9]* | wc -l)
	[ "$have" -ge "$2" ] || $BIN mkdirs "$have" "$2" "$1/s" || exit 1
}

shrink() {	# shrink ROOT: remove ROOT/s*
	local n
	n=$(ls -d "$1"/s[0-9]* 2>/dev/null | wc -l)
	[ "$n" = 0 ] || $BIN rmdirs 0 "$n" "$1/s" || exit 1
}

# run KIND MEMBERS-FILE: one measurement of fork in that group.
run() {
	sh -c "echo \$\$ > $2; exec $BIN fork $ITERS"
}

profile() {	# profile KIND MEMBERS-FILE: where a fork's time goes
	perf record -q -a -e cpu-clock -F 4000 -o "$data" -- \
		sh -c "echo \$\$ > $2; exec $BIN fork $ITERS" > /dev/null 2>&1
	echo "== profile: $1, $n groups"
	perf report -i "$data" --stdio --no-children --sort sym \
		--percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -20
}

last=${SIBS##* }
for r in $(seq "$ROUNDS"); do
	unload
	insmod $MODDIR/res_groups.ko && insmod $MODDIR/rg_numtasks.ko || exit 1
	mkdir $RG/s0 && echo res=numtasks,max_shares=90 > $RG/s0/shares || exit 1
	for n in $SIBS; do
		grow $RG "$n"
		echo "RESULT sib$n rg $r $(run rg $RG/s0/members)"
	done
	[ "$PROFILE" = 1 ] && [ "$r" = 1 ] && profile rg $RG/s0/members
	shrink $RG
	unload

	echo +pids > $CG/cgroup.subtree_control
	mkdir $CG/s0 && echo 100000 > $CG/s0/pids.max || exit 1
	for n in $SIBS; do
		grow $CG "$n"
		echo "RESULT sib$n cg $r $(run cg $CG/s0/cgroup.procs)"
	done
	[ "$PROFILE" = 1 ] && [ "$r" = 1 ] && profile cg $CG/s0/cgroup.procs
	shrink $CG
done

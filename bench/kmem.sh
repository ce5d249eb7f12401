#!/bin/bash
# Runs inside the release guest under icount (bench/run's "kmem" part, one
# boot per round): the cost of kernel-memory accounting on the same
# allocations. rg_bench pipe: pipe(), one 4 KiB write, close: a charged
# page and slab objects (files, inode, pipe buffers), all freed again.
# Configurations, in this order (memcg's accounting key turns on with the
# first memory cgroup or the first load of kmem.ko, and never off):
#   N  fresh boot: no memory cgroup ever, kmem.ko never loaded (key off)
#   M  cgroup v2 memory controller, the task at depth 5 (memory.max at
#      every level): memcg charges the task's kernel memory
#   R  the task in the root again (key on, memcg's root: charges nobody)
#   K  kmem.ko, the task at depth 5 of ours, max_shares at every level
#   K0 kmem.ko unloaded again, the task in the root: what the key costs
#      after kmem.ko was loaded once
# Prints "RESULT pipe <config> <round> <ns per iteration>".
#   MODDIR, BIN, ITERS, ROUND
set -eu
. "$(dirname "$0")/setup.sh"
ITERS=${ITERS:-2000}
ROUND=${ROUND:-1}

run() {	# run CONFIG [MEMBERS-FILE]
	local v
	v=$(sh -c "[ -z '${2:-}' ] || echo \$\$ > '$2'; exec $BIN pipe $ITERS")
	echo "RESULT pipe $1 $ROUND $v"
}

run N
cg_deep memory memory.max 1073741824
run M $CG/$DEEP/cgroup.procs
run R
undeep $CG
insmod $MODDIR/res_groups.ko
insmod $MODDIR/kmem.ko
rg_deep kmem
run K $RG/$DEEP/members
undeep $RG
rmmod kmem res_groups
run K0

#!/bin/bash
# Runs inside the release guest under icount (bench/run's "kmem" part, one
# boot per round): the cost of kernel-memory accounting on the same
# allocations (bench/rg_bench.c): pipe (pipe(), one 4 KiB write, close: a
# charged page and slab objects), fork (+ exit: task_struct, stack, page
# tables...), open (+ close: a struct file), mmap (64 KiB, each page
# touched, munmap: a vm_area_struct and a page table; memcg also charges
# the user pages, which rg_kmem.ko never does).
# Configurations, in this order (memcg's accounting key turns on with the
# first memory cgroup or the first load of rg_kmem.ko, and never off):
#   N  fresh boot: no memory cgroup ever, rg_kmem.ko never loaded (key off)
#   M  cgroup v2 memory controller, the task at depth 5 (memory.max at
#      every level): memcg charges the task's kernel memory
#   R  the task in the root again (key on, memcg's root: charges nobody)
#   K  rg_kmem.ko, the task at depth 5 of ours, max_shares at every level
#   K0 rg_kmem.ko unloaded again, the task in the root: what the key costs
#      after rg_kmem.ko was loaded once
# KMEM_CONFIGS=U (bench/run, on the unpatched kernel): the workloads
# alone, as N on a kernel without the hooks patches.
# Prints "RESULT k<test> <config> <round> <ns per iteration>".
#   MODDIR, BIN, ITERS, ROUND
set -eu
. "$(dirname "$0")/setup.sh"
ITERS=${ITERS:-2000}
ROUND=${ROUND:-1}

run() {	# run CONFIG [MEMBERS-FILE]: every workload there
	local t v
	for t in pipe fork open mmap; do
		v=$(inside "${2:-}" $BIN $t $ITERS)
		echo "RESULT k$t $1 $ROUND $v"
	done
}

if [ "${KMEM_CONFIGS:-}" = U ]; then
	run U
	exit 0
fi
run N
cg_deep memory memory.max 1073741824
run M $CG/$DEEP/cgroup.procs
run R
undeep $CG
insmod $MODDIR/res_groups.ko
insmod $MODDIR/rg_kmem.ko
rg_deep kmem
run K $RG/$DEEP/members
undeep $RG
rmmod rg_kmem res_groups
run K0

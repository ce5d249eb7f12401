#!/bin/bash
# Runs inside the release guest under icount (bench/run's "memory" part,
# one boot per round: the first configuration needs a boot where no memory
# cgroup was ever made): what charging user memory costs, rg_memory.ko
# against memcg, on three workloads of bench/rg_bench.c:
#   fault  an anonymous page fault (a store into a new page; the page
#          charged)
#   cread  a 4 KiB pread of a cached 1 MiB file (nothing charged: the
#          file's pages were charged when written)
#   pipew  a 4 KiB pipe write (a new page, charged as kernel memory;
#          memcg charges it while rg_kmem.ko is not loaded), its part of
#          the read that empties the pipe every 16 writes
# Configurations, in this order:
#   N   fresh boot: no memory cgroup ever, rg_memory.ko never loaded (the
#       hooks' static branches off, memcg's kmem key off)
#   M   cgroup v2, the task in a depth-5 memory cgroup, memory.max 1 GiB
#       at every level
#   M6  the same at depth 6: a group's shadow is one level deeper than
#       its group (/sys/fs/cgroup/res_groups/d1/.../d5)
#   R0  the task in the root again (memcg's kmem key on, module never
#       loaded)
#   G   res_groups.ko and rg_memory.ko, the task in a depth-5 group with
#       max_shares=90 at every level (each level's shadow a memory.max)
#   R   rg_memory.ko still loaded, the task in the root group (its
#       memory cgroup the root): what a loaded module costs a root task
# MEM_CONFIGS=U (bench/run, on the unpatched kernel): the workloads alone,
# as N on a kernel without the hooks patches.
# Then (MEM_OOM=1, release kernel) the reclaim and OOM figures of memcg
# (cM) and of a group (cG), both a 64 MiB limit at depth 5:
#   reclaim  a 1 GiB buffered read of a null_blk disk (memory_backed=0:
#            its pages are clean page cache, no backing store): memcg's
#            pgscan and pgsteal per second of the CPU's busy time during
#            the read (/proc/stat; its guest time, which includes the
#            idle time icount jumps over, varied fourfold between rounds
#            of the same work), both times
#   oom      a child touching 128 MiB of anonymous memory (no swap):
#            microseconds from its last page to its parent's waitpid
# Prints "RESULT m<test> <config> <round> <value>".
#   MODDIR, BIN, ITERS, ROUND, MEM_STREAM_MIB (1024: the stream's size)
set -eu
. "$(dirname "$0")/setup.sh"
ITERS=${ITERS:-2000}
ROUND=${ROUND:-1}

run() {	# run CONFIG [TASK-FILE]: every workload there
	local v
	v=$(inside "${2:-}" $BIN fault $((ITERS * 8)))
	echo "RESULT mfault $1 $ROUND $v"
	v=$(inside "${2:-}" $BIN cread $((ITERS * 8)) $TMPDIR/cread)
	echo "RESULT mcread $1 $ROUND $v"
	v=$(inside "${2:-}" $BIN pipew $ITERS)
	echo "RESULT mpipew $1 $ROUND $v"
}

if [ "${MEM_CONFIGS:-}" = U ]; then
	run U
	exit 0
fi
GiB=1073741824
run N
cg_deep memory memory.max $GiB
run M $CG/$DEEP/cgroup.procs
echo +memory > $CG/$DEEP/cgroup.subtree_control
mkdir $CG/$DEEP/d6
echo $GiB > $CG/$DEEP/d6/memory.max
run M6 $CG/$DEEP/d6/cgroup.procs
rmdir $CG/$DEEP/d6
run R0
undeep $CG
insmod $MODDIR/res_groups.ko
insmod $MODDIR/rg_memory.ko
rg_deep memory
run G $RG/$DEEP/members
run R
undeep $RG
rmmod rg_memory res_groups

[ "${MEM_OOM:-1}" = 1 ] || exit 0

# A 64 MiB limit at depth 5: memcg's memory.max, or (1 GiB total memory,
# divisor 1024 at d4) a group's max_shares=64 at d5, 1024 of 1024 above.
nb=/sys/kernel/config/nullb/rgbench
mkdir $nb
MIB=${MEM_STREAM_MIB:-1024}
echo $MIB > $nb/size
echo 4096 > $nb/blocksize
echo 1 > $nb/power
dev=$(cat /sys/block/rgbench/dev)
mknod /run/rgbench b ${dev%:*} ${dev#*:}

stat1() {	# stat1 FILE KEY: KEY's value in a memory.stat
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

busy() {	# the CPUs' busy time so far, in USER_HZ ticks (idle and iowait
	# left out: icount's clock jumps over idle time)
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# stream CONFIG TASK-FILE STAT-FILE: the 1 GiB read, then the OOM.
stream() {
	local s0 r0 t0 t1 s1 r1 b0 b1
	echo 3 > /proc/sys/vm/drop_caches
	s0=$(stat1 $3 pgscan) r0=$(stat1 $3 pgsteal)
	t0=$(cut -d' ' -f1 /proc/uptime) b0=$(busy)
	inside $2 dd if=/run/rgbench of=/dev/null bs=1M count=$MIB 2> /dev/null
	t1=$(cut -d' ' -f1 /proc/uptime) b1=$(busy)
	s1=$(stat1 $3 pgscan) r1=$(stat1 $3 pgsteal)
	awk -v c=$1 -v r=$ROUND -v s=$((s1 - s0)) -v p=$((r1 - r0)) \
		-v t0=$t0 -v t1=$t1 -v b=$((b1 - b0)) \
		-v hz=$(getconf CLK_TCK) 'BEGIN {
		t = t1 - t0
		bt = b / hz
		printf "RESULT mstream_s %s %s %.3f\n", c, r, t
		printf "RESULT mstream_busy %s %s %.3f\n", c, r, bt
		printf "RESULT mscan %s %s %.0f\n", c, r, s / bt
		printf "RESULT msteal %s %s %.0f\n", c, r, p / bt
		printf "RESULT mscanned %s %s %d\n", c, r, s
	}'
	echo "RESULT moom $1 $ROUND $(inside $2 $BIN oom 128)"
}

cg_deep memory memory.max $GiB
echo 67108864 > $CG/$DEEP/memory.max
stream cM $CG/$DEEP/cgroup.procs $CG/$DEEP/memory.stat
undeep $CG

insmod $MODDIR/res_groups.ko
insmod $MODDIR/rg_memory.ko total_memory=$GiB
p=$RG
for d in ${DEEP//\// }; do
	p=$p/$d
	mkdir $p
	if [ $d = d5 ]; then
		echo res=memory,max_shares=64 > $p/shares
	elif [ $d = d4 ]; then
		echo res=memory,max_shares=100,child_shares_divisor=1024 > $p/shares
	else
		echo res=memory,max_shares=100 > $p/shares
	fi
done
sh=$CG/res_groups/$DEEP
[ "$(cat $sh/memory.max)" = 67108864 ] || {
	echo "shadow's memory.max: $(cat $sh/memory.max), not 67108864" >&2
	exit 1
}
stream cG $RG/$DEEP/members $sh/memory.stat
undeep $RG
rmmod rg_memory res_groups
rm /run/rgbench
echo 0 > $nb/power
rmdir $nb

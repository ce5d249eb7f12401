#!/bin/bash
# Runs inside the release guest under icount (bench/run's "io" part): 4 KiB
# O_DIRECT reads at random offsets of a memory-backed null_blk disk (64 MiB,
# written once first), no ceiling anywhere (bench/rg_bench.c dread):
#   N  no module, the task in the root
#   C  cgroup v2, the task in a depth-5 cgroup, io enabled at every level,
#      no io.max
#   I  res_groups.ko and rg_io.ko (devices: the disk, no keys: stats only,
#      no ceiling), the task in a depth-5 group with max_shares=90 at
#      every level
# configurations interleaved round by round in one boot. IO_CONFIGS=U
# (bench/run, on the unpatched kernel): N's rounds, as U.
# Prints "RESULT iread <config> <round> <ns per read>".
#   MODDIR, BIN, ITERS, ROUNDS
set -eu
. "$(dirname "$0")/setup.sh"
ITERS=${ITERS:-2000}
ROUNDS=${ROUNDS:-5}

nb=/sys/kernel/config/nullb/rgio
mkdir $nb
echo 64 > $nb/size
echo 4096 > $nb/blocksize
echo 1 > $nb/memory_backed
echo 1 > $nb/power
dev=$(cat /sys/block/rgio/dev)
mknod /run/rgio b ${dev%:*} ${dev#*:}
dd if=/dev/zero of=/run/rgio bs=1M count=64 oflag=direct 2> /dev/null
echo "io: $(cat /sys/block/rgio/queue/scheduler)" >&2

io_deep() {	# the depth-5 cgroups, io enabled at every level
	local p=$CG d
	for d in ${DEEP//\// }; do
		echo +io > $p/cgroup.subtree_control
		p=$p/$d
		mkdir $p
	done
}

for r in $(seq "$ROUNDS"); do
	for c in ${IO_CONFIGS:-N C I}; do
		f=
		case $c in
		C) io_deep; f=$CG/$DEEP/cgroup.procs ;;
		I)
			insmod $MODDIR/res_groups.ko
			insmod $MODDIR/rg_io.ko devices=$dev
			rg_deep io
			f=$RG/$DEEP/members ;;
		esac
		echo "RESULT iread $c $r $(inside "$f" $BIN dread $((ITERS * 8)) /run/rgio)"
		case $c in
		C) undeep $CG ;;
		I) undeep $RG; rmmod rg_io res_groups ;;
		esac
	done
done
rm /run/rgio
echo 0 > $nb/power
rmdir $nb

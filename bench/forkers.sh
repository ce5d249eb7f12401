#!/bin/bash
# Runs inside the release guest on plain TCG with two vCPUs (bench/run
# boots it): a limited parent group with NKIDS limited children; a forking
# task in each of the first NFORK children, released one at a time (fp1)
# or two at a time in different children (fp2); each does ITERS forks.
# Batches of one and of two alternate, twice, in the same setup, so that
# the host's drift falls on both alike. A: no module, the same tasks in
# the root; C: numtasks (parent and children max_shares 90); D: cgroup v2
# pids (pids.max on parent and children). Prints
# "RESULT fp<1|2> <A|C|D> <round>.<batch> <ns per fork of each forker>".
#   MODDIR, BIN, ROUNDS; ITERS (forks per forker, default 100); NKIDS
#   (default 1000); NFORK (default 100)
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-100}
NKIDS=${NKIDS:-1000}
NFORK=${NFORK:-100}
# Two at a time, each in its own child: an even number, at most NKIDS.
if [ $((NFORK % 2)) != 0 ] || [ "$NFORK" -gt "$NKIDS" ]; then
	echo "forkers.sh: NFORK must be even and at most NKIDS" >&2
	exit 1
fi
echo 100000 > /proc/sys/kernel/threads-max
ulimit -n 8192

kids() {	# kids ROOT LIMITFILE VALUE: ROOT/p, ROOT/p/c0..c<NKIDS-1>, limited
	local i
	mkdir $1/p && echo "$3" > $1/p/$2 || exit 1
	[ "$1" = "$CG" ] && echo +pids > $1/p/cgroup.subtree_control
	$BIN mkdirs 0 "$NKIDS" "$1/p/c" || exit 1
	for i in $(seq 0 $((NKIDS - 1))); do
		echo "$3" > $1/p/c$i/$2 || exit 1
	done
}

for r in $(seq "$ROUNDS"); do
	for c in A C D; do
		unload
		case $c in
		A) where=- file=- ;;
		C) insmod $MODDIR/res_groups.ko && insmod $MODDIR/rg_numtasks.ko || exit 1
		   kids $RG shares res=numtasks,max_shares=90
		   where=$RG/p/c file=members ;;
		D) echo +pids > $CG/cgroup.subtree_control
		   kids $CG pids.max 100000
		   where=$CG/p/c file=cgroup.procs ;;
		esac
		for b in 1 2; do
			for k in 1 2; do
				v=$($BIN forkgroups $ITERS $k $NFORK $where $file) || exit 1
				echo "RESULT fp$k $c $r.$b $v"
			done
		done
		case $c in
		C) $BIN rmdirs 0 "$NKIDS" $RG/p/c && rmdir $RG/p ;;
		D) $BIN rmdirs 0 "$NKIDS" $CG/p/c && rmdir $CG/p ;;
		esac
		unload
	done
done

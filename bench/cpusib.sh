#!/bin/bash
# Runs inside the release guest under icount (bench/run's "cpusib" part,
# one vCPU): what one tenant's shares writes among many sibling groups
# cost another tenant. Group d/x has CPUSIB_N (5,000) children without
# a guarantee ("free"; "guar": CPUSIB_GUAR_N, 1,000, each with min_shares
# 1) and d/x/t; another tenant makes and removes o/n in a loop for
# CPUSIB_MS (3000) ms, alone ("idle"), then while a writer toggles
# d/x/t's guarantee (min_shares 1, DONT_CARE, in turns) as fast as it can
# ("toggle"). Prints "RESULT cpusib_<idle|toggle>_<free|guar>_<max|med|
# mean> <tag> <round> <us per mkdir>" (the longest, the median, the
# mean) and "RESULT cpusib_writes_<free|guar> <tag> <round> <writes per
# second>". Each write used to weigh every sibling again (a run-queue
# lock on every possible CPU each) under the framework's global mutex,
# which every mkdir takes (docs, "The CPU controller").
#   MODDIR, BIN, ROUNDS; CPUSIB_TAG (default "cpu"), CPUSIB_KINDS
#   (default "free guar")
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
N=${CPUSIB_N:-5000}
GN=${CPUSIB_GUAR_N:-1000}
MS=${CPUSIB_MS:-3000}
TAG=${CPUSIB_TAG:-cpu}
KINDS=${CPUSIB_KINDS:-free guar}

# result NAME KIND "MAX MEDIAN MEAN"
result() {
	set -- "$1" "$2" $3
	echo "RESULT cpusib_$1_$2_max $TAG $r $3"
	echo "RESULT cpusib_$1_$2_med $TAG $r $4"
	echo "RESULT cpusib_$1_$2_mean $TAG $r $5"
}

for r in $(seq "$ROUNDS"); do
	for k in $KINDS; do
		[ -e /sys/module/rg_cpu ] && rmmod rg_cpu
		unload
		insmod $MODDIR/res_groups.ko && insmod $MODDIR/rg_cpu.ko || exit 1
		mkdir $RG/d $RG/d/x $RG/d/x/t $RG/o || exit 1
		n=$N
		[ $k = guar ] && n=$GN
		echo res=cpu,child_shares_divisor=$((2 * n)) > $RG/d/x/shares ||
			exit 1
		$BIN mkdirs 0 $n $RG/d/x/s || exit 1
		if [ $k = guar ]; then
			for i in $(seq 0 $((n - 1))); do
				echo res=cpu,min_shares=1 > $RG/d/x/s$i/shares ||
					exit 1
			done
		fi
		sleep 1
		result idle $k "$($BIN mkdirlat "$MS" $RG/o/n)"
		$BIN toggle 0 $RG/d/x/t/shares &
		tog=$!
		result toggle $k "$($BIN mkdirlat "$MS" $RG/o/n)"
		kill $tog
		wait $tog 2> /dev/null
		# (writes counted with one more timed batch, alone)
		t0=$(date +%s%N)
		$BIN toggle 200 $RG/d/x/t/shares || exit 1
		t1=$(date +%s%N)
		echo "RESULT cpusib_writes_$k $TAG $r $((200 * 1000000000 / (t1 - t0)))"
		$BIN rmdirs 0 $n $RG/d/x/s || exit 1
		rmdir $RG/d/x/t $RG/d/x $RG/d $RG/o || exit 1
		rmmod rg_cpu
		unload
	done
done

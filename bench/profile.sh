#!/bin/bash
# Runs inside the release guest (bench/run --profile boots it): where a
# fork+exit+wait spends its time, sampled by perf (cpu-clock, all CPUs),
# in configuration A (no module) and C (numtasks, depth-5 group with a
# limit at every level), with one forker and with two. Prints the top
# kernel symbols and, per case, the share of samples in res_groups and
# numtasks code and in the hooks (also as a RESULT line for report.py).
#   MODDIR, BIN, ITERS as for bench/guest.sh
set -u
. "$(dirname "$0")/setup.sh"
ITERS=${ITERS:-20000}
N=$((ITERS / 4))
data=${TMPDIR:-/tmp}/perf.data

# ours FILE: the percentage of the busy (not idle) samples that are in
# our code: the modules and the hooks (__res_group_*) in the kernel.
ours() {
	perf report -i "$1" --stdio --no-children --sort dso,sym 2>/dev/null |
		awk '/^#/ || NF < 4 { next }
		     { p = $1; sub("%", "", p) }
		     /idle|safe_halt/ { idle += p; next }
		     /\[res_groups\]|\[numtasks\]|res_group/ { s += p }
		     END { printf "%.2f", idle < 100 ? 100 * s / (100 - idle) : 0 }'
}

for c in A C; do
	setup $c
	for t in fork fork2 thread; do
		where=
		[ $c = C ] && where=$RG/$DEEP/members
		perf record -q -a -e cpu-clock -F 4000 -o "$data" -- \
			sh -c "[ -z '$where' ] || echo \$\$ > '$where'; exec $BIN $t $N" \
			> /dev/null 2>&1
		pct=$(ours "$data")
		echo "== $c $t: $pct% of the busy samples in res_groups, numtasks and the hooks"
		echo "RESULT profile_$t $c 1 $pct"
		perf report -i "$data" --stdio --no-children --sort dso,sym \
			--percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
		perf report -i "$data" --stdio --no-children --sort dso,sym 2>/dev/null |
			grep -E '\[res_groups\]|\[numtasks\]|res_group' | head -15
	done
	teardown $c
done

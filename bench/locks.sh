#!/bin/bash
# Runs inside the release guest on plain TCG, two vCPUs (bench/run's
# "locks" part): the locks that two forkers in sibling groups contend
# on. Two forkers, one in each of two children of the depth-5 group of
# configuration C (numtasks, a limit at every level), or of D (cgroup
# pids), fork ITERS times each at once; the kernel's lock contention
# tracepoint (lock:contention_begin, with a stack trace) records every
# wait for a lock meanwhile. The two children are siblings of the
# depth-5 group (d1/d2/d3/d4/s1 and s2), below four limited levels.
#   RESULT lockc_ours CFG ROUND N  waits with our code on the stack
#                                  (res_groups, numtasks, the hooks)
#   RESULT lockc_all CFG ROUND N   every wait (any lock, any cause)
# Prints the first stack of ours, if any, and the commonest stacks. Waits
# are rare (a lock is held a few hundred instructions of a fork's
# 200,000): bench/instr.sh counts the spinlocks numtasks takes at all.
#   MODDIR, BIN, ROUNDS, ITERS as for bench/guest.sh
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-2000}
tracefs
out=${TMPDIR:-/tmp}/locks.$$

for r in $(seq "$ROUNDS"); do
	for c in C D; do
		setup $c
		case $c in
		C) p=$RG/${DEEP%/*} f=members ;;
		D) p=$CG/${DEEP%/*} f=cgroup.procs ;;
		esac
		mkdir $p/s1 $p/s2
		echo 0 > $T/tracing_on
		: > $T/trace
		echo 1 > $T/options/stacktrace
		echo 1 > $T/events/lock/contention_begin/enable
		echo 1 > $T/tracing_on
		for s in s1 s2; do
			inside $p/$s/$f $BIN fork $ITERS > /dev/null &
		done
		wait
		echo 0 > $T/tracing_on
		echo 0 > $T/events/lock/contention_begin/enable
		echo 0 > $T/options/stacktrace
		cat $T/trace > "$out"
		# An event's line, then its stack ("=> function"), per wait.
		# The waits' most common stacks (four frames), as comments.
		awk -v c=$c -v r="$r" '
			function done() {
				if (ev) {
					all++; top[key]++
					if (o) { ours++; if (!shown++) printf "%s", st }
				}
				ev = o = n = 0; st = key = ""
			}
			/contention_begin:/ { done(); ev = 1; st = $0 "\n"; next }
			/^ => / {
				st = st $0 "\n"
				if (++n > 2 && n <= 6) key = key " < " $2
				if ($2 ~ /^(nt_|rg_|__res_group|res_group)/) o = 1
				next
			}
			END {
				done()
				for (k in top) printf "# %s %s waits:%s\n", c, top[k], k | "sort -k3 -rn | head -5"
				close("sort -k3 -rn | head -5")
				printf "RESULT lockc_ours %s %s %d\nRESULT lockc_all %s %s %d\n", c, r, ours, c, r, all
			}' "$out"
		rmdir $p/s1 $p/s2
		teardown $c
	done
done
rm -f "$out"

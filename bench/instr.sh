#!/bin/bash
# Runs inside the release (or unpatched) guest under icount (bench/run's
# "instr" part): instructions, counted by the kernel's function profiler
# (CONFIG_FUNCTION_PROFILER, release.config). Under -icount shift=0 the
# guest's clock is its count of instructions (one nanosecond each), so a
# function's profiled time is the instructions it ran, its calls
# included, and a fork's whole time is the fork's instructions.
#
# For each configuration of INSTR_CONFIGS (default "A C D", bench/setup.sh;
# U: the unpatched kernel, no module) and each test (fork: fork + the
# child's _exit + waitpid; thread: pthread_create + join), ROUNDS rounds
# of ITERS operations, run with the profiler off, then on:
#   RESULT i<test> CFG ROUND N   instructions per operation, whole
#                                (the profiler off)
#   RESULT o<test> CFG ROUND N   instructions per operation in our code:
#                                the hooks' entry points in the kernel
#                                (__res_group_*: the module's work is
#                                inside them), as the profiler timed them
#   RESULT k<fn>_<test> CFG ROUND N  instructions per call of a function
#                                the hooks patch changed, its calls
#                                included (they vary with the boot's
#                                memory state)
#   RESULT s<fn>_<test> CFG ROUND N  the same, its own instructions only:
#                                every function profiled (ITERS / 10
#                                operations), each one's calls left out
#                                (graph-time 0): patched vs unpatched,
#                                the static branches' cost
#   RESULT lockacq_<test> C ROUND N  spinlocks numtasks takes per
#                                operation (ftrace's function graph
#                                tracer below its fork, cancel and move
#                                callbacks; ITERS / 10 operations)
#   RESULT n<test> CFG ROUND N   calls of those entry points per operation
#   RESULT cal<test> C ROUND N   instructions the profiler counts in a call
#                                of rg_free (a dozen of its own): the
#                                profiler's own part of each call timed,
#                                which the o and k figures include (so
#                                our code is between o - n x cal and o) (One vCPU: ftrace's patching of every function is safe
# only there under TCG; with two, a vCPU ran a stale int3.)
#   MODDIR, BIN, ROUNDS, ITERS as for bench/guest.sh
set -u
. "$(dirname "$0")/setup.sh"
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-2000}
tracefs
# The hooks' entry points, and the patched functions on the fork and
# exit paths (do_exit never returns: the profiler cannot time it).
HOOKS="__res_group_can_fork __res_group_cancel_fork __res_group_post_fork
__res_group_exit __res_group_release __res_group_free"
PATCHED="copy_process release_task __put_task_struct"
# An interrupt's work on its way out, and a preemption.
IRQWORK="irq_exit_rcu handle_softirqs __do_softirq preempt_schedule_irq"

# profile CFG TEST ROUND WHERE: the profiler on for the functions it
# finds, one run (in WHERE, a group's or cgroup's task file, or none),
# its figures out; then every function, for their own instructions.
profile() {
	local where=$4 f
	: > $T/set_ftrace_filter
	for f in $HOOKS $PATCHED; do
		echo "$f" >> $T/set_ftrace_filter 2>/dev/null
	done
	echo 1 > $T/function_profile_enabled
	inside "$where" $BIN $2 $ITERS > /dev/null
	echo 0 > $T/function_profile_enabled
	# "name hits time us avg us s^2 us": ns = instructions.
	awk -v hooks=" ${HOOKS//$'\n'/ } " -v t="$2" -v c="$1" -v r="$3" \
		-v n="$ITERS" '
		$3 ~ /^[0-9.]+$/ && $4 == "us" {
			ins = $3 * 1000
			if (index(hooks, " " $1 " ")) { ours += ins; calls += $2 }
			else printf "RESULT k%s_%s %s %s %.1f\n", $1, t, c, r, ins / $2
		}
		END {
			printf "RESULT o%s %s %s %.1f\n", t, c, r, ours / n
			printf "RESULT n%s %s %s %.2f\n", t, c, r, calls / n
		}' $T/trace_stat/function0
	# The profiler's own part of a call: rg_free (res_groups' free hook,
	# a dozen instructions) profiled alone.
	if [ "$1" = C ]; then
		echo rg_free > $T/set_ftrace_filter
		echo 1 > $T/function_profile_enabled
		inside "$where" $BIN $2 $((ITERS / 10)) > /dev/null
		echo 0 > $T/function_profile_enabled
		awk -v t="$2" -v r="$3" '$1 == "rg_free" && $4 == "us" {
			printf "RESULT cal%s C %s %.1f\n", t, r, $3 * 1000 / $2 }' \
			$T/trace_stat/function0
	fi
	# Every function, own time only: the patched functions' lines.
	: > $T/set_ftrace_filter
	echo 0 > $T/options/graph-time
	echo 1 > $T/function_profile_enabled
	inside "$where" $BIN $2 $((ITERS / 10)) > /dev/null
	echo 0 > $T/function_profile_enabled
	echo 1 > $T/options/graph-time
	awk -v want=" $PATCHED " -v t="$2" -v c="$1" -v r="$3" '
		index(want, " " $1 " ") && $3 ~ /^[0-9.]+$/ && $4 == "us" {
			printf "RESULT s%s_%s %s %s %.1f\n", $1, t, c, r, $3 * 1000 / $2
		}' $T/trace_stat/function0
	[ "$1" = C ] || return 0
	# The spinlocks numtasks takes, traced below its callbacks; not
	# what an interrupt that came meanwhile does: funcgraph-irqs 0 leaves
	# out the handler, set_graph_notrace the softirqs run on its way out
	# and a preemption on the way back (they took the 0.04 a fork counted
	# before). A name this kernel does not have is left out (the line
	# printed in round 1 says which were set).
	: > $T/trace
	echo 8192 > $T/buffer_size_kb
	echo "nt_can_fork nt_cancel_fork nt_move_task" > $T/set_graph_function
	: > $T/set_graph_notrace
	for f in $IRQWORK; do
		echo "$f" >> $T/set_graph_notrace 2>/dev/null
	done
	[ "$3" != 1 ] || echo "left out of the lock count:" $(cat $T/set_graph_notrace)
	echo 0 > $T/options/funcgraph-irqs
	echo function_graph > $T/current_tracer
	inside "$where" $BIN $2 $((ITERS / 10)) > /dev/null
	# (read before the tracer changes: that empties the buffer)
	echo 0 > $T/tracing_on
	echo "RESULT lockacq_$2 C $3 $(grep -c '_raw_spin_lock\|_raw_spin_trylock' $T/trace |
		awk -v n=$((ITERS / 10)) '{ printf "%.2f", $1 / n }')"
	echo nop > $T/current_tracer
	: > $T/set_graph_function
	: > $T/set_graph_notrace
	echo 1 > $T/options/funcgraph-irqs
	echo 1 > $T/tracing_on
}

echo 100000 > /proc/sys/kernel/threads-max
for r in $(seq "$ROUNDS"); do
	for c in ${INSTR_CONFIGS:-A C D}; do
		setup "${c/U/A}"
		where=$(place $c)
		for t in fork thread; do
			off=$(inside "$where" $BIN $t $ITERS)
			echo "RESULT i$t $c $r $off"
			profile "$c" "$t" "$r" "$where"
		done
		teardown "${c/U/A}"
	done
done

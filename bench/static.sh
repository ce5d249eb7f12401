#!/bin/bash
# bench/static.sh PATCHED_TREE UNPATCHED_TREE (bench/run's instr part, on
# the host): the instructions in each function of the fork and exit paths
# that the hooks patches change, in the two kernels' vmlinux (objdump).
# The patches add no loop to them, so with no module loaded a call runs
# at most the difference more: the static branches' cost, counted without
# a profiler.
#   RESULT static_<function> P|U 1 N
set -euo pipefail
FUNCS="copy_process do_exit release_task __put_task_struct sched_fork"

count() {	# count FUNCTION TREE
	objdump -d --no-show-raw-insn --disassemble="$1" "$2/vmlinux" |
		grep -cE '^[0-9a-f]+:'
}

for f in $FUNCS; do
	echo "RESULT static_$f P 1 $(count "$f" "$1")"
	echo "RESULT static_$f U 1 $(count "$f" "$2")"
done

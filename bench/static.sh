#!/bin/bash
# bench/static.sh PATCHED_TREE UNPATCHED_TREE (bench/run's instr part, on
# the host): the instructions in each function of the fork and exit paths
# that the hooks patches change, in the two kernels' vmlinux (objdump).
# The patches add no loop to them, and with no module loaded their static
# branches jump over the added calls, so the difference in code size
# estimates (from above, as a rule) what the hooks cost without a
# profiler. An estimate, not a bound: the compiler may also allocate
# registers or lay out the rest differently, and hook code inlined into
# other functions, or moved into .cold parts, is not counted.
# (Patch 0005's memcg hooks are not counted here: they run only where
# memcg's kernel-memory accounting does, which the kmem part measures, N
# against U.)
#   RESULT static_<function> P|U 1 N
set -euo pipefail
FUNCS="copy_process do_exit release_task __put_task_struct sched_fork"

count() {	# count FUNCTION TREE: fails if the function is not there
	local n
	n=$(objdump -d --no-show-raw-insn --disassemble="$1" "$2/vmlinux" |
		grep -cE '^[0-9a-f]+:') || true
	if [ "${n:-0}" -eq 0 ]; then
		echo "bench/static.sh: no $1 in $2/vmlinux" >&2
		return 1
	fi
	echo "$n"
}

for f in $FUNCS; do
	p=$(count "$f" "$1")
	u=$(count "$f" "$2")
	echo "RESULT static_$f P 1 $p"
	echo "RESULT static_$f U 1 $u"
done

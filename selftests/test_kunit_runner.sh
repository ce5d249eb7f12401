#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The runner's reading of KUnit results, on planted suites (in the main
# run of both tiers, so no boot of its own is needed): a passing suite
# (selftests/modules/rg_kunit_planted.ko) passes with each case counted,
# and the same suite built to fail a case and a parameter
# (rg_kunit_planted_fail.ko: a module's suites run before its parameters
# are parsed, so the failure is built in) fails the run with both named.
# Also: /proc/self/res_group is empty while res_groups.ko is not loaded.
# TAP output; the inner runs' own TAP is kept out of it (in files).
# Bash builtins and static busybox for the rest: a dynamic binary's start
# (tail, grep, cat...) costs ~0.2 s in the debug guest.
case "$0" in */*) here=${0%/*} ;; *) here=. ;; esac
top=$(cd "$here/.." && pwd)
BB=/bin/busybox
n=0
check() {	# check NAME COMMAND...
	n=$((n + 1))
	if "${@:2}"; then echo "ok $n kunit_runner.$1"; else echo "not ok $n kunit_runner.$1"; fi
}
last() {	# last FILE: L = its last line
	local l
	L=
	while IFS= read -r l || [ -n "$l" ]; do L=$l; done < "$1"
}
w=$($BB mktemp -d "${TMPDIR:-/tmp}/rg-kunit.XXXXXX")
trap '$BB rm -rf "$w"' EXIT

echo "TAP version 13"
echo "1..3"
. "$top/selftests/leftovers.sh"
clean_leftovers

planted=selftests/modules/rg_kunit_planted
RG_KUNIT=$planted.ko "$top/selftests/run_tests.sh" > "$w/pass" 2>&1
r=$?
last "$w/pass"
echo "# passing suite: exit $r, $L"
check a_passing_suite_passes_with_its_4_cases eval \
	'[ "$L" = "# totals: 4 passed, 0 failed, 0 skipped" ]'

RG_KUNIT=${planted}_fail.ko "$top/selftests/run_tests.sh" > "$w/fail" 2>&1
r=$?
last "$w/fail"
echo "# failing suite: exit $r, $L"
while IFS= read -r l; do
	[[ $l == "not ok"* ]] && echo "# $l"
done < "$w/fail"
check a_failing_case_and_parameter_fail_the_run eval \
	'[ $r != 0 ] && [ "$L" = "# totals: 2 passed, 2 failed, 0 skipped" ]'

# (as $(cat ...) would read it: trailing newlines dropped)
own=x
{ IFS= read -r -d '' own < /proc/self/res_group; } 2>/dev/null
while [[ $own == *$'\n' ]]; do own=${own%$'\n'}; done
check proc_res_group_is_empty_without_the_module eval \
	'[ ! -e /sys/module/res_groups ] && [ -r /proc/self/res_group ] && [ -z "$own" ]'

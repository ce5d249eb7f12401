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
top=$(cd "$(dirname "$0")/.." && pwd)
n=0
check() {	# check NAME COMMAND...
	n=$((n + 1))
	if "${@:2}"; then echo "ok $n kunit_runner.$1"; else echo "not ok $n kunit_runner.$1"; fi
}
w=$(mktemp -d "${TMPDIR:-/tmp}/rg-kunit.XXXXXX")
trap 'rm -rf "$w"' EXIT

echo "TAP version 13"
echo "1..3"
. "$top/selftests/leftovers.sh"
clean_leftovers

planted=selftests/modules/rg_kunit_planted
RG_KUNIT=$planted.ko "$top/selftests/run_tests.sh" > "$w/pass" 2>&1
echo "# passing suite: exit $?, $(tail -n 1 "$w/pass")"
check a_passing_suite_passes_with_its_4_cases eval \
	'[ "$(tail -n 1 "$w/pass")" = "# totals: 4 passed, 0 failed, 0 skipped" ]'

RG_KUNIT=${planted}_fail.ko "$top/selftests/run_tests.sh" > "$w/fail" 2>&1
r=$?
echo "# failing suite: exit $r, $(tail -n 1 "$w/fail")"
grep '^not ok' "$w/fail" | sed 's/^/# /'
check a_failing_case_and_parameter_fail_the_run eval \
	'[ $r != 0 ] && [ "$(tail -n 1 "$w/fail")" = "# totals: 2 passed, 2 failed, 0 skipped" ]'

check proc_res_group_is_empty_without_the_module eval \
	'[ ! -e /sys/module/res_groups ] && [ -r /proc/self/res_group ] && [ -z "$(cat /proc/self/res_group)" ]'

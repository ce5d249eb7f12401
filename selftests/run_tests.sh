#!/bin/bash
# Runs each selftest binary (TAP), then any KUnit suites, and ends with a
# line "# totals: N passed, N failed" counting every test case.
cd "$(dirname "$0")" || exit 1
export RG_TOP=${RG_TOP:-$(cd .. && pwd)}
pass=0 fail=0
for t in "$@"; do
	out=$(mktemp)
	"./$t" 2>&1 | tee "$out"
	p=$(grep -cE '^ok [0-9]+ ' "$out")
	f=$(grep -cE '^not ok [0-9]+ ' "$out")
	if [ $((p + f)) -eq 0 ]; then
		echo "not ok - $t produced no test results"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f))
	rm -f "$out"
done
echo "# totals: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

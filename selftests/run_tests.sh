#!/bin/bash
# Runs each selftest binary (TAP), then the KUnit suites, and ends with
# "# totals: N passed, N failed, N skipped" counting every test case.
# A skipped test is not counted as passed.
cd "$(dirname "$0")" || exit 1
export RG_TOP=${RG_TOP:-$(cd .. && pwd)}
pass=0 fail=0 skip=0

count() {	# count FILE: add its TAP results
	local p f s
	p=$(grep -E '^ok [0-9]+ ' "$1" | grep -vc '# SKIP')
	s=$(grep -E '^ok [0-9]+ ' "$1" | grep -c '# SKIP')
	f=$(grep -cE '^not ok [0-9]+ ' "$1")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ $((p + f + s)) -gt 0 ]
}

for t in "$@"; do
	out=$(mktemp)
	start=$SECONDS
	"./$t" 2>&1 | tee "$out"
	echo "# $t took $((SECONDS - start)) s"
	if ! count "$out"; then
		echo "not ok - $t produced no test results"
		fail=$((fail + 1))
	fi
	rm -f "$out"
done

# KUnit: the suite runs at insmod and reports KTAP in the kernel log.
# Every leaf case counts (parameterised cases: each parameter).
for ko in module/res_groups_kunit.ko; do
	out=$(mktemp)
	before=$(dmesg | wc -l)
	if ! insmod "$RG_TOP/$ko"; then
		echo "not ok - insmod $ko"
		fail=$((fail + 1))
		continue
	fi
	rmmod "$(basename "$ko" .ko)"
	dmesg -t | tail -n +"$((before + 1))" | awk '
		/^ *# Subtest: / { sub(/^ *# Subtest: /, ""); parent[$0] = 1; next }
		/^ +(not )?ok [0-9]+ / {
			line = $0; sub(/^ +/, "", line)
			name = line; sub(/^(not )?ok [0-9]+ /, "", name)
			sub(/ # .*$/, "", name)
			if (name in parent) next
			res = (line ~ /^not /) ? "not ok" : "ok"
			print res " " ++n " kunit." name
		}' > "$out"
	cat "$out"
	if ! count "$out"; then
		echo "not ok - $ko reported no KUnit results"
		fail=$((fail + 1))
	fi
	rm -f "$out"
done

echo "# totals: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

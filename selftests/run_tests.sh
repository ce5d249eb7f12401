#!/bin/bash
# run_tests.sh TEST...: runs each selftest (TAP), then the KUnit suites,
# and ends with "# totals: N passed, N failed, N skipped" counting every
# test case. A skipped test is not counted as passed. A test binary fails
# (one more "not ok") if it exits non-zero, is killed, times out, prints
# "Bail out!", reports fewer or more results than its "1..N" plan, or
# leaves processes behind (rg_run_one kills them and says how many).
#
# run_tests.sh --budget TEST...: prints the seconds the run may take at
# most (the sum of the per-test timeouts, plus the KUnit modules'), so
# that the guest's timeout can be set above it. --budget-of TEST prints
# TEST's budget, the sum of its cases' own timeouts (the budget is never
# below that sum) and the number of its cases.
#
# RG_KUNIT: the KUnit modules ("path [params]" separated by ";"), default
# module/res_groups_kunit.ko. RG_TEST_TIMEOUT: per-test seconds (300).
# RG_RUN_ONE: the program that runs one test (./rg_run_one).
# RG_RUN_SECONDS: what the whole run may take (the guest's timeout less
# its boot and end): no test file runs past it (its budget is cut to what
# is left, 10 s at least), so that a hang is reported by its name, the
# later files still run and the KUnit suites keep their time.
# RG_GATE_SECONDS (set by the guest's init under qemu/run --gate): the
# seconds the guest spent before the runner started, taken off it.
# RG_BUILT (set there too): the host's word on its build, which goes on
# beside the run (qemu/check): each test file waits for its line there,
# "built NAME" (a script: "built all"); "failed ..." fails the files not
# built by then.
case "$0" in */*) cd "${0%/*}" || exit 1 ;; esac	# (no dirname process)
export RG_TOP=${RG_TOP:-$(cd .. && pwd)}
RG_KUNIT=${RG_KUNIT-module/res_groups_kunit.ko}
# The runner's small processes are static busybox's (busybox-static, a
# dependency): a dynamic binary's start costs ~0.2 s in the debug guest,
# busybox's ~0.08. Not its awk for the long inputs (the sources, the
# kernel log): mawk reads the test sources in 1.4 s there, busybox's in 9.
BB=/bin/busybox
IFS=';' read -r -a kos <<< "$RG_KUNIT"
kunit_timeout=60

# case_timeouts FILE.c...: a line "FILE.c SUM CASES" for each: the sum
# of its test cases' timeouts, as the kselftest harness gives them
# (TEST_F_TIMEOUT's, else 30 s), and the number of cases, each counted
# once per variant of its fixture; "0 -1" if a TEST_F_TIMEOUT's timeout
# is not a plain number (an expression: the file then fails its run), "0
# 0" for a file that is not there or is empty. A macro's arguments may run over
# several lines: each file is read as one line per top-level statement.
# The number of cases is checked against each file's plan when it runs
# (a parser that missed a case fails the run).
case_timeouts() {
	local f there=()
	for f in "$@"; do
		# (An empty file gives awk no first line: none of it.)
		if [ -s "$f" ]; then there+=("$f"); else echo "$f 0 0"; fi
	done
	[ ${#there[@]} -gt 0 ] || return 0
	# One process for all: each costs ~0.2 s in the debug guest.
	awk '
	function arg(s, i) { split(s, a, /[(),]/); gsub(/[ \t]/, "", a[i]); return a[i] }
	# (It leaves $0 alone: it runs at the first line of the next file.)
	function flush(   nl, line, variants, i, l, f, v, t, sum, n, bad) {
		if (file == "") return
		gsub(/(FIXTURE_VARIANT_ADD|TEST|TEST_SIGNAL|TEST_F|TEST_F_SIGNAL|TEST_F_TIMEOUT)\(/, "\n&", all)
		nl = split(all, line, "\n")
		for (i = 1; i <= nl; i++)
			if (line[i] ~ /^FIXTURE_VARIANT_ADD\(/) variants[arg(line[i], 2)]++
		for (i = 1; i <= nl; i++) {
			l = line[i]
			if (l ~ /^(TEST|TEST_SIGNAL)\(/) { sum += 30; n++ }
			if (l ~ /^(TEST_F|TEST_F_SIGNAL|TEST_F_TIMEOUT)\(/) {
				f = arg(l, 2); v = (f in variants) ? variants[f] : 1
				t = 30
				if (l ~ /^TEST_F_TIMEOUT\(/) {
					t = arg(l, 4)
					if (t !~ /^[0-9]+$/) bad++
				}
				sum += t * v; n += v
			}
		}
		# A timeout that is not a plain number cannot be counted.
		print file, (bad ? 0 : sum + 0), (bad ? -1 : n + 0)
	}
	FNR == 1 { flush(); file = FILENAME; all = "" }
	{ all = all $0 " " }
	END { flush() }' "${there[@]}"
}

# memo_cases TEST...: case_timeouts of each TEST.c into cases_memo[TEST]
# ("SUM CASES"), once per run, the ones not there yet in one awk (call it
# outside a $(...): a subshell's memo is lost).
declare -A cases_memo
memo_cases() {
	local t want=() f sum n
	for t in "$@"; do
		[ -n "${cases_memo[$t]:-}" ] || want+=("$t.c")
	done
	[ ${#want[@]} -gt 0 ] || return 0
	while read -r f sum n; do
		[ -n "$f" ] && cases_memo[${f%.c}]="$sum $n"
	done <<< "$(case_timeouts "${want[@]}")"	# (the guest has no /dev/fd)
}

# budget_of TEST: B = its timeout in seconds (no subshell: a fork of
# this shell costs tens of ms in the debug guest); budget TEST prints it.
budget_of() {
	local own sum
	case "$1" in
	# Past its length: 120 s each for stress-ng and the storms' orphans,
	# and 30 s to reap the orphans it had to kill.
	test_stress) own=$((${STRESS_SECONDS:-30} + 420)) ;;
	*) own=${RG_TEST_TIMEOUT:-300} ;;
	esac
	# Never less than its cases' own timeouts together, plus a minute
	# for the harness's forks and the fixtures' setup and teardown.
	memo_cases "$1"
	read -r sum _ <<< "${cases_memo[$1]}"
	[ "$sum" = 0 ] || sum=$((sum + 60))
	B=$((own > sum ? own : sum))
}
budget() { budget_of "$1"; echo "$B"; }

if [ "${1:-}" = --budget-of ]; then
	memo_cases "$2"
	echo "$(budget "$2") ${cases_memo[$2]}"	# BUDGET SUM CASES
	exit 0
fi
if [ "${1:-}" = --budget ]; then
	shift
	memo_cases "$@"
	total=0
	for t in "$@"; do
		total=$((total + $(budget "$t")))
	done
	echo $((total + ${#kos[@]} * kunit_timeout))
	exit 0
fi

rg_run_one=${RG_RUN_ONE:-./rg_run_one}
[ -x "$rg_run_one" ] || { echo "Bail out! $rg_run_one is not built (make -C selftests)"; exit 1; }

pass=0 fail=0 skip=0
failure() {	# failure MESSAGE: one failed test of the runner's own
	echo "not ok - $1"
	fail=$((fail + 1))
}

# tap_check NAME FILE STATUS: add FILE's results (TAP, no indentation) to
# the totals; a failure for anything that says the results are incomplete.
tap_check() {
	local name=$1 file=$2 status=$3 p f s plan bail left n cases res
	# One awk (a process costs ~0.2 s in the debug guest): each skip by
	# name (the harness fails the ones its tier does not expect:
	# selftests/expected; the kselftest harness names a skipped case only
	# in its "#  RUN  NAME ..." line: "ok N # SKIP reason"), then a last
	# line "PASSED SKIPPED FAILED PLAN BAILED LEFT" (PLAN "-": none; LEFT:
	# the processes rg_run_one killed after it).
	res=$($BB awk -v f="$name" '
	/^#  RUN  / { run = $3 }
	/^ok [0-9]+ / {
		if (!/# SKIP/) { p++; next }
		s++; nm = $3
		if (nm == "#") nm = run
		print "# skipped: " f ":" nm
	}
	/^not ok [0-9]+ / { fl++ }
	plan == "" && match($0, /^1\.\.[0-9]+/) { plan = substr($0, 4, RLENGTH - 3) + 0 }
	/^Bail out!/ { bail = 1 }
	$1 == "#" && $2 == f && $3 == "left" && / processes behind: killed$/ { left = $4 }
	END { print p + 0, s + 0, fl + 0, (plan == "" ? "-" : plan), bail + 0, left + 0 }' "$file")
	[ "${res%$'\n'*}" = "$res" ] || echo "${res%$'\n'*}"
	read -r p s f plan bail left <<< "${res##*$'\n'}"
	[ "$plan" != - ] || plan=
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	n=$((p + f + s))
	if [ "$status" = 124 ]; then
		failure "$name timed out"
	elif [ "$status" -gt 128 ]; then
		failure "$name was killed by signal $((status - 128))"
	elif [ "$status" != 0 ]; then
		failure "$name exited with status $status"
	fi
	[ "$bail" = 0 ] || failure "$name bailed out"
	# (a test must reap what it started: a process left running may
	# hold a group, a module or a count that the next file then sees)
	[ "$left" = 0 ] || failure "$name left $left processes behind (killed)"
	memo_cases "$name"
	read -r _ cases <<< "${cases_memo[$name]}"
	if [ "$cases" = -1 ]; then
		failure "$name.c has a TEST_F_TIMEOUT whose timeout is not a plain number (its budget cannot count it)"
	elif [ "$cases" != 0 ] && [ -n "$plan" ] && [ "$plan" != "$cases" ]; then
		failure "$name planned $plan results, its source has $cases cases (the budget's count is wrong)"
	fi
	if [ -z "$plan" ]; then
		failure "$name printed no plan (1..N)"
	elif [ "$n" != "$plan" ]; then
		failure "$name planned $plan results but reported $n"
	fi
	[ "$n" -gt 0 ] || failure "$name produced no test results"
}

run_end=
if [ -n "${RG_RUN_SECONDS:-}" ]; then
	# (less the seconds the guest waited for a build: qemu/run --gate)
	run_end=$((SECONDS + RG_RUN_SECONDS - ${RG_GATE_SECONDS:-0} - ${#kos[@]} * kunit_timeout))
fi

memo_cases "$@"
# One output file, emptied for each test (no mktemp or rm per test).
out=${TMPDIR:-/tmp}/rg-run-tests.$$
trap '$BB rm -f "$out" "$out.log" "$out.ktap" "$out.nap"' EXIT

nap='' napped=''
built() {	# built TEST: 0 once the host has built it, 1 if it will not be
	local line
	napped=''
	[ -n "${RG_BUILT:-}" ] || return 0
	while :; do
		# (a last line not yet whole is not read)
		while IFS= read -r line; do
			case "$line" in
			"built all"|"built $1") return 0 ;;
			failed*) built_why=$line; return 1 ;;
			esac
		done < "$RG_BUILT"
		if [ -n "$run_end" ] && [ "$SECONDS" -ge "$run_end" ]; then
			built_why="the run's time ran out waiting for it"
			return 1
		fi
		# (a nap: read -t on a fifo no one writes, not a process; a
		# sleep if that fails)
		if [ -z "$nap" ]; then
			{ [ -p "$out.nap" ] || $BB mkfifo "$out.nap"; } &&
				exec {nap}<> "$out.nap" || nap=none
		fi
		if [ "$nap" = none ]; then
			$BB sleep 0.2
		else
			read -r -t 0.2 -u "$nap"
		fi
		napped=1
	done
}

for t in "$@"; do
	: > "$out"
	memo_cases "$t"
	start=$SECONDS
	built "$t"
	built_status=$?
	# (the fifo is not the tests' to inherit)
	if [ -n "$nap" ] && [ "$nap" != none ]; then
		exec {nap}<&-
		nap=''
	fi
	if [ "$built_status" != 0 ]; then
		failure "$t was not built: $built_why"
		continue
	fi
	[ -z "$napped" ] || echo "# waited $((SECONDS - start)) s for the build of $t"
	start=$SECONDS
	# rg_run_one kills the test at its timeout, and then whatever it
	# left behind, wherever that went (its own process group, a new
	# session, a double fork: the runner is their subreaper); its output
	# goes to the file, which rg_run_one copies here as it grows (not a
	# pipe, which a process the test left behind would hold open).
	budget_of "$t"
	limit=$B
	if [ -n "$run_end" ]; then
		left=$((run_end - SECONDS))
		[ "$left" -ge 10 ] || left=10
		[ "$limit" -le "$left" ] || limit=$left
	fi
	"$rg_run_one" --tee "$out" "$limit" "$t" "./$t" < /dev/null
	status=$?
	echo "# $t took $((SECONDS - start)) s, exit status $status"
	tap_check "$t" "$out" "$status"
done

# kunit_count: the KTAP of module suites (stdin) as flat TAP of leaf
# cases (a parameterised case: one result per parameter), with its "1..N".
# Each suite's own plan is checked against its cases, and every suite
# started must end with its result line: else a "not ok" of its own.
kunit_count() {
	awk '
	function indent(s) { match(s, /^ */); return RLENGTH }
	function emit(res, nm) { n++; out[n] = res " " n " kunit." nm }
	function bad(msg) { emit("not ok", msg) }
	/^    # Subtest: / {
		if (open) bad(suite " did not finish")
		suite = $0; sub(/^ *# Subtest: /, "", suite)
		plan = -1; seen = 0; open = 1; params = 0
		next
	}
	/^        # Subtest: / { param = $0; sub(/^ *# Subtest: /, "", param); next }
	/^    1\.\.[0-9]+$/ { plan = substr($0, 8) + 0; next }
	/^ *(not )?ok [0-9]+ / {
		d = indent($0); line = substr($0, d + 1)
		res = (line ~ /^not /) ? "not ok" : "ok"
		nm = line; sub(/^(not )?ok [0-9]+ /, "", nm)
		dir = (nm ~ / # SKIP/) ? " # SKIP" : ""
		sub(/ # .*$/, "", nm)
		if (!open) next
		if (d == 8) {
			emit(res, suite "." param "." nm dir)
			params++; pfail += res == "not ok"
			next
		}
		if (d == 4) {
			seen++
			if (params) {
				if (res == "not ok" && !pfail) bad(suite "." nm)
				params = 0; pfail = 0
			} else {
				emit(res, suite "." nm dir)
			}
			next
		}
		if (d == 0) {
			if (nm != suite) bad(suite " ended as " nm)
			if (plan < 0) bad(suite " printed no plan")
			else if (seen != plan) bad(suite " planned " plan " cases, reported " seen)
			open = 0
		}
	}
	END {
		if (open) bad(suite " did not finish")
		print "1.." n
		for (i = 1; i <= n; i++) print out[i]
	}'
}

for entry in "${kos[@]}"; do
	read -r ko params <<< "$entry"
	[ -n "$ko" ] || continue
	mod=${ko##*/}
	mod=${mod%.ko}
	: > "$out"
	# The results are whatever the log holds after this marker.
	marker="rg-kunit-start $mod $$ $RANDOM$RANDOM"
	echo "$marker" > /dev/kmsg
	# shellcheck disable=SC2086
	if ! $BB timeout "$kunit_timeout" $BB insmod "$RG_TOP/$ko" $params; then
		failure "insmod $ko"
		continue
	fi
	$BB rmmod "$mod" || failure "rmmod $mod"
	# The whole log (up to 16 MiB: the guest's is 8), each line's "[
	# seconds] " dropped (busybox's dmesg has no -t).
	$BB dmesg -s 16777216 > "$out.log"
	if ! awk -v m="$marker" '{ sub(/^\[[ 0-9.]*\] ?/, "") }
		found { print } index($0, m) { found = 1 }
		END { exit !found }' "$out.log" > "$out.ktap"; then
		failure "$mod: the kernel log lost the KUnit start marker"
	fi
	kunit_count < "$out.ktap" > "$out"
	while IFS= read -r line; do echo "$line"; done < "$out"
	tap_check "$mod" "$out" 0
done

echo "# totals: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

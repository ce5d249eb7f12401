#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rgctl (tools/rgctl, docs/res_groups.rst "rgctl") on a real tree, with
# numtasks and the test controller: every subcommand, bad input for each
# (exit status, message, and the whole tree read back unchanged),
# dump/apply round trips, an apply that needs ordering, moves of a
# process that keeps creating threads, classify with different users,
# stats -w without a terminal. TAP output.
RG=/sys/kernel/config/res_groups
top=$(cd "$(dirname "$0")/.." && pwd)
R=${RGCTL:-$top/tools/rgctl/rgctl}	# RGCTL: another build to test
# A dynamic binary takes a second or more to start in the guest (its
# libraries come over 9p): the tools here are busybox's (static), rgctl
# and the helper are static too.
for c in awk cat cmp cp find grep head mkfifo mktemp rm sed seq setsid \
	sleep sort tail tr wc xargs; do
	eval "$c() { /bin/busybox $c \"\$@\"; }"
done
tmp=$(mktemp -d)
n=0 failed=0
pids=()
mkfifo "$tmp/fifo"
exec {sleepfd}<> "$tmp/fifo"	# read -t on it: a sleep without an exec

cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

result() {	# result NAME STATUS [DIAG]
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n rgctl.$1"
	else
		echo "not ok $n rgctl.$1"
		[ -n "$3" ] && echo "# $3"
		failed=1
	fi
}
check() {	# check NAME COMMAND...
	"${@:2}"
	result "$1" $?
}

# The whole tree: every group, its shares, its members (not the root's:
# kernel threads come and go there).
# Builtins only: every exec costs time in the guest.
state() {	# state [DIR]
	local d=${1:-$RG} c
	echo "== $d"
	{ echo "$(< "$d/shares")"; } 2>/dev/null
	[ "$d" != $RG ] && { echo "$(< "$d/members")"; } 2>/dev/null
	for c in "$d"/*/; do
		[ -d "$c" ] && state "${c%/}"
	done
}

# expect NAME STATUS PATTERN COMMAND...: COMMAND exits with STATUS, its
# stderr matches PATTERN (grep -E; "" for none), and the tree is as before.
expect() {
	local name=$1 want=$2 pat=$3 rc before after why=""
	shift 3
	before=$(state)
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	after=$(state)
	[ "$rc" = "$want" ] || why="exit $rc, want $want;"
	if [ -n "$pat" ] && ! grep -qE -- "$pat" "$tmp/err"; then
		why="$why stderr '$(head -c 200 "$tmp/err")' lacks '$pat';"
	fi
	[ "$before" = "$after" ] || why="$why the tree changed;"
	result "$name" "$([ -z "$why" ]; echo $?)" "$why"
}

shares_of() { grep "^res=$2," "$RG/$1/shares"; }

echo "TAP version 13"
for m in numtasks rg_test_ctl rg_test_ctl2 rg_hooks_test res_groups; do
	[ -e /sys/module/$m ] && rmmod $m
done

# Without the module: a clear error, status 1.
expect not_loaded 1 "res_groups: No such file or directory" $R ls

insmod "$top/module/res_groups.ko" && insmod "$top/module/numtasks.ko" &&
	insmod "$top/selftests/modules/rg_test_ctl.ko" || exit 1
echo 1000 > /sys/module/numtasks/parameters/total_numtasks

echo "# at $SECONDS s"
### usage
$R --help > "$tmp/help"
rc=$?
miss=""
for c in ls create set rm exec move stats dump apply classify; do
	grep -q "^  $c " "$tmp/help" || miss="$miss $c"
done
result help_lists_every_command "$([ $rc = 0 ] && [ -z "$miss" ]; echo $?)" "missing:$miss"
expect usage_no_command 2 "no command" $R
expect usage_unknown_command 2 "unknown command 'frob'" $R frob
expect usage_create_no_group 2 "usage" $R create
expect usage_ls_bad_option 2 "usage" $R ls -x
expect usage_set_no_shares 2 "usage" $R set /

echo "# at $SECONDS s"
### create
check create_nested "$R" create a/b numtasks:min=10,max=50 test:divisor=10
check create_read_back grep -q "^res=numtasks,min_shares=10,max_shares=50,child_shares_divisor=100$" $RG/a/b/shares
check create_second_controller grep -q "^res=test,min_shares=-3,max_shares=-3,child_shares_divisor=10$" $RG/a/b/shares
check create_existing_is_ok "$R" create a
check create_dont_care "$R" create a/c numtasks:max=dont_care,min=5
expect create_too_deep 1 "/d1/d2/d3/d4/d5/d6: Too many links" $R create d1/d2/d3/d4/d5/d6
expect create_unknown_controller 1 "group /x: controller 'cpux': Invalid argument" $R create x cpux:min=1
expect create_bad_value 2 "'numtasks:min=abc': min=abc" $R create x numtasks:min=abc
expect create_minus_two 2 "not an int >= 0 or dont_care" $R create x numtasks:max=-2
expect create_unknown_key 2 "unknown key 'bogus'" $R create x numtasks:bogus=1
expect create_no_keys 2 "expected RES:KEY=VALUE" $R create x numtasks
expect create_key_twice 2 "given twice" $R create x numtasks:min=1,min_shares=2
expect create_divisor_zero 2 "divisor is at least 1" $R create x numtasks:divisor=0
expect create_min_above_max 2 "min_shares 9 above max_shares 8" $R create x numtasks:min=9,max=8
# The kernel refuses (min 101 > the root's divisor): x is not left over.
expect create_refused_rolls_back 1 "group /x: numtasks:min=101: Invalid argument" $R create x numtasks:min=101
# The second write fails (a's test divisor is 100): the first is undone.
expect create_partial_rolls_back 1 "group /a/b: test:max=101: Invalid argument" $R create a/b numtasks:max=40 test:max=101
expect create_control_char 1 "Invalid argument" $R create "$(printf 'x\ty')"
expect create_dotdot 1 "Invalid argument" $R create a/../x
expect create_root 1 "File exists" $R create /

echo "# at $SECONDS s"
### set
check set_ok "$R" set a/b numtasks:max=60 test:min=3
check set_read_back grep -q "^res=numtasks,min_shares=10,max_shares=60," $RG/a/b/shares
expect set_unknown_group 1 "group /nope: No such file or directory" $R set nope numtasks:min=1
expect set_min_above_max 1 "group /a/b: numtasks:min=70: Invalid argument" $R set a/b numtasks:min=70
expect set_above_parent_divisor 1 "group /a/b: test:max=101: Invalid argument" $R set a/b test:max=101
expect set_unknown_controller 1 "controller 'nope'" $R set a/b nope:min=1
expect set_bad_syntax 2 "expected KEY=VALUE" $R set a/b numtasks:min

echo "# at $SECONDS s"
### ls
$R ls > "$tmp/ls"
rc=$?
result ls_root "$([ $rc = 0 ] && grep -qE '^  a +[0-9]+ +numtasks +-3|^  a +[0-9]+ +numtasks +dont_care' "$tmp/ls" &&
	! grep -q ' b ' "$tmp/ls"; echo $?)" "$(tr '\n' '|' < "$tmp/ls")"
$R ls -r a > "$tmp/ls"
rc=$?
result ls_recursive "$([ $rc = 0 ] && grep -qE '^  b +0 +numtasks +10 +60 +100$' "$tmp/ls" &&
	grep -qE '^ +test +3 +dont_care +10$' "$tmp/ls"; echo $?)" "$(tr '\n' '|' < "$tmp/ls")"
expect ls_unknown_group 1 "group /nope: No such file or directory" $R ls nope
expect ls_two_groups 2 "usage" $R ls a b

echo "# at $SECONDS s"
### exec
check exec_group_dir "$R" create e
out=$($R exec e -- cat /proc/self/res_group)
result exec_runs_in_group "$([ "$out" = /e ]; echo $?)" "got '$out'"
out=$($R exec /a/b cat /proc/self/res_group)
result exec_without_dashes "$([ "$out" = /a/b ]; echo $?)" "got '$out'"
$R exec e -- sh -c 'exit 7'
result exec_passes_status "$([ $? = 7 ]; echo $?)"
expect exec_unknown_group 1 "group /nope: No such file or directory" $R exec nope -- true
expect exec_no_command 1 "exec /nonexistent/cmd: No such file or directory" $R exec e -- /nonexistent/cmd
expect exec_usage 2 "usage" $R exec e --

echo "# at $SECONDS s"
### move: a process with 50 threads that keeps creating threads
"$top/selftests/rgctl_threads" 50 > "$tmp/py" &
py=$!
pids+=($py)
for _ in $(seq 300); do grep -q ready "$tmp/py" && break; sleep 0.1; done
t1=$(ls /proc/$py/task | wc -l)
tids1=$(ls /proc/$py/task | sort)
sleep 0.3
tids2=$(ls /proc/$py/task | sort)
result move_threads_churn "$([ "$t1" -gt 50 ] && [ "$tids1" != "$tids2" ]; echo $?)" "threads $t1"
check move_group_dir "$R" create m
check move_process "$R" move m $py
bad=$(grep -LxF /m /proc/$py/task/*/res_group 2>/dev/null | wc -l)
sleep 0.5
bad2=$(grep -LxF /m /proc/$py/task/*/res_group 2>/dev/null | wc -l)
result move_every_thread "$([ "$bad" = 0 ] && [ "$bad2" = 0 ]; echo $?)" "not in /m: $bad then $bad2"
result move_members_list_them "$(grep -qx $py $RG/m/members; echo $?)"
one=$(ls /proc/$py/task | sort -n | sed -n 2p)	# one of the 50
check move_one_thread "$R" move -t e "$one"
g1=$(cat /proc/$py/task/$one/res_group 2>/dev/null)
g0=$(cat /proc/$py/res_group)
result move_t_moves_only_it "$([ "$g1" = /e ] && [ "$g0" = /m ]; echo $?)" "$g1 $g0"
kill -9 $py
wait $py 2>/dev/null
# (The tree is read back: with the churn gone.)
expect move_bad_pid 2 "'12x': not a pid" $R move m 12x
expect move_zero_pid 2 "'0': not a pid" $R move m 0
expect move_no_such_pid 1 "move 4000000 to /m: No such process" $R move m 4000000
expect move_no_such_group 1 "group /nope: No such file or directory" $R move nope $$
expect move_kernel_thread 1 "move 2 to /m: Invalid argument" $R move m 2

echo "# at $SECONDS s"
### rm
expect rm_has_children 1 "rm /a: Directory not empty" $R rm a
expect rm_root 1 "rm /: Device or resource busy" $R rm /
expect rm_unknown 1 "group /nope: No such file or directory" $R rm nope
expect rm_usage 2 "usage" $R rm
check rm_leaf "$R" rm m
check rm_leaf_gone [ ! -e $RG/m ]
check rm_recursive "$R" rm -r a
check rm_recursive_gone [ ! -e $RG/a ]

echo "# at $SECONDS s"
### stats
$R create s numtasks:max=50 > /dev/null
$R stats > "$tmp/stats"
rc=$?
result stats_table "$([ $rc = 0 ] &&
	grep -qE '^GROUP +RES +held +maxheld +minheld +limit +guarantee +failcnt +forkrate_failcnt$' "$tmp/stats" &&
	grep -qE '^/s +numtasks +0 +0 +0 +500 +0 +0 +0$' "$tmp/stats" &&
	grep -qE '^GROUP +RES +tasks +fork ' "$tmp/stats"; echo $?)" "$(head -3 "$tmp/stats" | tr '\n' '|')"
expect stats_unknown_group 1 "group /nope: No such file or directory" $R stats nope
expect stats_bad_interval 2 "-w 'x'" $R stats -w x
# -w without a terminal: a table per draw, counters with their change,
# SIGINT ends it with status 0.
$R stats -w 0.3 s > "$tmp/watch" 2>&1 &
w=$!
sleep 1
echo res=numtasks,max_shares=0 > $RG/s/shares
$R exec s -- sh -c '/bin/true; :' 2>/dev/null	# the fork is refused
sleep 1
kill -INT $w
wait $w
rc=$?
draws=$(grep -c '^rgctl stats /s' "$tmp/watch")
result stats_watch_redraws "$([ $rc = 0 ] && [ "$draws" -ge 2 ] &&
	[ "$(grep -cE '^GROUP +RES +held' "$tmp/watch")" = "$draws" ]; echo $?)" "rc $rc, $draws draws"
result stats_watch_counter_change "$(grep -qE '^/s +numtasks +.* [0-9]+ \(\+[0-9]+\) +0$' "$tmp/watch"; echo $?)" \
	"$(grep '^/s' "$tmp/watch" | tail -2 | tr '\n' '|')"
$R rm s

echo "# at $SECONDS s"
### dump / apply
# A depth-5 tree with both controllers, and a sibling.
$R create r numtasks:min=20,max=80,divisor=50 test:divisor=1000 &&
$R create r/a numtasks:min=10,max=40,divisor=10 test:min=100,max=900 &&
$R create r/a/b numtasks:min=2,max=5 test:min=dont_care,max=50,divisor=7 &&
$R create r/a/b/c numtasks:min=50 test:max=7 &&
$R create r/a/b/c/d numtasks:max=1 &&
$R create r/x numtasks:min=30,max=dont_care test:min=500
result dump_tree_built $?
$R dump > "$tmp/d1"
result dump_ok $?
result dump_lists_depth5 "$(grep -qxE '/r/a/b/c/d numtasks:min_shares=dont_care,max_shares=1,child_shares_divisor=100 test:min_shares=dont_care,max_shares=dont_care,child_shares_divisor=100' "$tmp/d1"; echo $?)" \
	"$(grep /r/a/b/c/d "$tmp/d1")"
expect dump_apply_changes_nothing 0 "" $R apply "$tmp/d1"
expect dump_pipe_apply 0 "" sh -c "$R dump | $R apply -"
$R apply -n "$tmp/d1" > "$tmp/plan"
result apply_dry_run_empty "$([ $? = 0 ] && [ ! -s "$tmp/plan" ]; echo $?)"
before=$(state)
$R rm -r r
$R apply "$tmp/d1"
rc=$?
result apply_recreates "$([ $rc = 0 ] && [ "$(state)" = "$before" ]; echo $?)"
$R apply "$tmp/d1"
result apply_twice_is_once "$([ $? = 0 ] && [ "$(state)" = "$before" ]; echo $?)"
$R dump > "$tmp/d2"
result dump_apply_dump_same "$(cmp -s "$tmp/d1" "$tmp/d2"; echo $?)"

# Ordering. The file's first line, written alone, is refused: r/a
# still holds 10 of r's 50 (the min moves from r/a to r/x); r/a/b/e is
# new and needs r/a/b/c's min lowered first.
cat > "$tmp/order" <<'EOF'
/r/x numtasks:min_shares=45      # r/a gives its min to r/x
/r/a numtasks:min_shares=0,max_shares=20
/r/a/b/c numtasks:min_shares=10
/r/a/b/e numtasks:min_shares=90
EOF
expect order_first_line_alone_refused 1 "Invalid argument" $R set r/x numtasks:min=45
$R apply "$tmp/order"
rc=$?
result apply_ordering "$([ $rc = 0 ] &&
	shares_of r/a numtasks | grep -q 'min_shares=0,max_shares=20,' &&
	shares_of r/x numtasks | grep -q 'min_shares=45,' &&
	shares_of r/a/b/c numtasks | grep -q 'min_shares=10,' &&
	shares_of r/a/b/e numtasks | grep -q 'min_shares=90,'; echo $?)" "exit $rc"
before=$(state)
$R apply "$tmp/order"
result apply_ordering_twice "$([ $? = 0 ] && [ "$(state)" = "$before" ]; echo $?)"
# Back (mins and maxes go up again), pruning r/a/b/e.
$R apply --prune "$tmp/d1"
result apply_back_with_prune "$([ $? = 0 ] && [ ! -e $RG/r/a/b/e ] &&
	$R dump | cmp -s - "$tmp/d1"; echo $?)"
# A divisor lowered below what the children take and below r/a's max.
cat > "$tmp/div" <<'EOF'
/r numtasks:child_shares_divisor=20
/r/x numtasks:min_shares=10,max_shares=15
/r/a numtasks:min_shares=5,max_shares=20
EOF
expect div_first_line_alone_refused 1 "Invalid argument" $R set r numtasks:divisor=20
$R apply "$tmp/div"
rc=$?
result apply_lower_divisor "$([ $rc = 0 ] &&
	shares_of r numtasks | grep -q ',child_shares_divisor=20$' &&
	shares_of r/x numtasks | grep -q 'min_shares=10,max_shares=15,' &&
	shares_of r/a numtasks | grep -q 'min_shares=5,max_shares=20,'; echo $?)" "exit $rc"
$R apply "$tmp/d1"
result apply_back_raise_divisor "$([ $? = 0 ] && $R dump | cmp -s - "$tmp/d1"; echo $?)"

# Bad files: nothing changes, the line is named.
bad() {	# bad NAME PATTERN LINES...
	local name=$1 pat=$2
	shift 2
	printf '%s\n' "$@" > "$tmp/bad"
	expect "apply_bad_$name" 1 "$pat" $R apply "$tmp/bad"
}
bad syntax "bad:2: group /r/a: 'numtasks:min=x'" "/r numtasks:min=1" "/r/a numtasks:min=x"
bad unknown_key "bad:1: .*unknown key 'minimum'" "/r numtasks:minimum=1"
bad unknown_controller "bad:3: group /q: controller 'cpu0': Invalid argument" "# c" "" "/q cpu0:min=1"
bad too_deep "bad:1: group /r/a/b/c/d/f: Too many links" "/r/a/b/c/d/f"
bad name "bad:1: group '/r/../q': Invalid argument" "/r/../q numtasks:min=1"
bad duplicate "bad:3: group /r/x: listed again \(first on line 1\)" "/r/x" "/r" "r/x/"
bad sum_of_mins "bad:1: group /r: numtasks: the children's min_shares add up to 60, above child_shares_divisor 50" \
	"/r numtasks:divisor=50" "/r/a numtasks:min=30" "/r/x numtasks:min=30"
bad new_group_sum "bad:1: group /r/x: numtasks: the children's min_shares add up to 101" \
	"/r/x/n1 numtasks:min=51" "/r/x/n2 numtasks:min=50"
bad max_above_divisor "bad:1: group /r/a/b: numtasks: max_shares 11 above the parent's child_shares_divisor 10" \
	"/r/a/b numtasks:max=11"
bad min_above_max "bad:1: group /r/x: numtasks: min_shares 30 above max_shares 20" "/r/x numtasks:max=20"
bad min_above_max_same_line "bad:1: .*min_shares 31 above max_shares 20" "/r/x numtasks:max=20,min=31"
bad many_errors "bad:2: .*unknown key" "/r numtasks:min=1" "/r/a numtasks:zzz=1" "/r/b nope:min=1"
result apply_bad_reports_every_line "$(grep -q 'bad:3: group /r/b: controller' "$tmp/err"; echo $?)"
expect apply_no_file 1 "/nonexistent: No such file or directory" $R apply /nonexistent
expect apply_usage 2 "usage" $R apply
printf '/r\n/r/zz numtasks:min=1\n' > "$tmp/prune"
$R apply --prune "$tmp/prune"
result apply_prune "$([ $? = 0 ] && [ -d $RG/r/zz ] && [ ! -e $RG/r/a ] && [ ! -e $RG/r/x ] &&
	[ "$(find $RG -mindepth 1 -type d | wc -l)" = 2 ] &&
	shares_of r numtasks | grep -q 'min_shares=20,'; echo $?)"
result apply_pruned_e "$([ ! -e $RG/e ]; echo $?)"
$R rm -r r

echo "# at $SECONDS s"
### classify
$R create cu1 && $R create cu2 && $R create cc
cp /bin/sleep "$tmp/rgprobe_sleep"
cat > "$tmp/rules" <<EOF
# users first, then commands
user:daemon -> cu1
user:65534  -> cu2      # nobody, by uid
command:rgprobe_* -> cc
group:nogroup -> cu2
EOF
# A process already running: --scan.
setpriv --reuid=daemon --regid=daemon --clear-groups sleep 600 &
early=$!
pids+=($early)
$R classify --scan -v "$tmp/rules" 2> "$tmp/clog" &
cl=$!
pids+=($cl)
for _ in $(seq 100); do grep -q listening "$tmp/clog" && break; sleep 0.1; done
result classify_starts "$(grep -q 'listening (4 rules)' "$tmp/clog"; echo $?)" "$(head -c 300 "$tmp/clog")"

# lands PID GROUP KEY VALUE: PID is in GROUP within a second of showing
# KEY (uid: its effective uid, comm) VALUE, the change classify acts on.
lands() {
	local pid=$1 want=$2 key=$3 val=$4 start="" g now k a b line
	local deadline=$((${EPOCHREALTIME/./} + 60000000))
	while :; do
		now=${EPOCHREALTIME/./}
		if [ -z "$start" ]; then
			[ $now -gt $deadline ] && { echo "# pid $pid never showed $key $val"; return 1; }
			if [ "$key" = comm ]; then
				read -r line < /proc/$pid/comm && [ "$line" = "$val" ] && start=$now
			else
				while read -r k a b line; do
					[ "$k" = Uid: ] && [ "$b" = "$val" ] && start=$now
				done < /proc/$pid/status
			fi
		fi
		g=$(< /proc/$pid/res_group)
		if [ -n "$start" ] && [ "$g" = "$want" ]; then
			echo "# pid $pid in $want $(((now - start) / 1000)) ms after it showed $key $val"
			return 0
		fi
		if [ -n "$start" ] && [ $((now - start)) -gt 1000000 ]; then
			echo "# pid $pid in '$g', not $want, 1 s after it showed $key $val"
			return 1
		fi
		read -t 0.02 -u $sleepfd
	done
}
setpriv --reuid=daemon --regid=daemon --clear-groups sleep 600 &
p1=$!
setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 600 &
p2=$!
"$tmp/rgprobe_sleep" 600 &
p3=$!
setpriv --reuid=www-data --regid=www-data --clear-groups sleep 600 &
p4=$!
sleep 600 &
p5=$!
pids+=($p1 $p2 $p3 $p4 $p5)
check classify_scan lands $early /cu1 uid 1
check classify_user_name lands $p1 /cu1 uid 1
check classify_user_uid lands $p2 /cu2 uid 65534
check classify_command lands $p3 /cc comm rgprobe_sleep
lands $p4 / uid 33 > /dev/null
sleep 1
result classify_no_match_stays "$([ "$(cat /proc/$p4/res_group)" = / ] && [ "$(cat /proc/$p5/res_group)" = / ]; echo $?)" \
	"$(cat /proc/$p4/res_group) $(cat /proc/$p5/res_group)"
# A group removed under it: it logs and goes on.
kill -9 $p2; wait $p2 2>/dev/null
$R rm cu2
setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 600 &
p6=$!
pids+=($p6)
for _ in $(seq 300); do grep -q "pid $p6 (sleep)" "$tmp/clog" && break; sleep 0.1; done
result classify_group_removed_logged "$(grep -q "classify: pid $p6 (sleep) to /cu2 (rule on line 3): No such file or directory" "$tmp/clog"; echo $?)" \
	"$(tail -3 "$tmp/clog" | tr '\n' '|')"
result classify_survives "$(kill -0 $cl; echo $?)"
$R create cu2
setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 600 &
p7=$!
pids+=($p7)
check classify_group_back lands $p7 /cu2 uid 65534
kill -TERM $cl
for _ in $(seq 20); do kill -0 $cl 2>/dev/null || break; sleep 0.05; done
wait $cl
rc=$?
result classify_sigterm "$([ $rc = 0 ] && grep -q 'stopped (Terminated)' "$tmp/clog"; echo $?)" "exit $rc"
printf 'user:daemon -> cu1\nuser:nosuchuser -> cu1\nfrob:x -> cu1\ncommand:x\n' > "$tmp/badrules"
expect classify_bad_rules 1 "badrules:2: unknown user 'nosuchuser'" $R classify "$tmp/badrules"
result classify_bad_rules_every_line "$(grep -q 'badrules:3:' "$tmp/err" && grep -q 'badrules:4:' "$tmp/err"; echo $?)"
expect classify_usage 2 "usage" $R classify
for p in $early $p1 $p3 $p4 $p5 $p6 $p7; do kill -9 $p 2>/dev/null; done
wait 2>/dev/null
pids=()
$R rm cu1 && $R rm cu2 && $R rm cc
check tree_empty_at_end [ -z "$(find $RG -mindepth 1 -type d)" ]

echo "1..$n"
rmmod rg_test_ctl numtasks res_groups
exit $failed

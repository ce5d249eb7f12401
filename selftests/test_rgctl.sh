#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rgctl (tools/rgctl, docs/res_groups.rst "rgctl") on a real tree, with
# numtasks and the test controller: every subcommand, bad input for each
# (exit status, message, and the whole tree read back unchanged),
# dump/apply round trips (names with '#', a space, a backslash), an apply
# that needs ordering, moves of a process that keeps creating threads,
# classify with different users, stats -w without a terminal. TAP output.
#
# Every process costs ~0.3 s or more in the debug guest (TCG, KASAN), a
# dynamic binary a second or more (its libraries come over 9p). So the
# checks use bash builtins only (read, [[ =~ ]], globs, read -t as a
# sleep); the processes are rgctl (static), the static helper
# rgctl_threads (threads; --as UID GID to be another user) and a few
# busybox (static) calls, insmod and rmmod included (kmod is dynamic).
#
# RG_TIER=quick halves three fixed waits (a draw of stats -w before a
# change, the look for threads left behind by a move, the second in which
# classify must leave unmatched processes alone); every check runs in
# both tiers.
RG=/sys/kernel/config/res_groups
here=${0%/*}
[ "$here" = "$0" ] && here=.
top=$(cd "$here/.." && pwd)
R=${RGCTL:-$top/tools/rgctl/rgctl}	# RGCTL: another build to test
H=$top/selftests/rgctl_threads
BB=/bin/busybox
case "${RG_TIER:-full}" in
full) long=1 short=0.5 ;;
quick) long=0.5 short=0.25 ;;
*) echo "RG_TIER='$RG_TIER': expected quick or full" >&2; exit 2 ;;
esac
tmp=$($BB mktemp -d)
n=0 failed=0
pids=()
$BB mkfifo "$tmp/fifo"
exec {sleepfd}<> "$tmp/fifo"	# read -t on it: a sleep without a process
nap() { read -r -t "$1" -u $sleepfd; }

cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	$BB rm -rf "$tmp"
}
trap cleanup EXIT

# slurp VAR FILE: the whole of FILE ("" if it cannot be read).
slurp() {
	local -n _v=$1
	_v=
	{ IFS= read -r -d '' _v < "$2"; } 2>/dev/null
}

result() {	# result NAME STATUS [DIAG [FILE]]: FILE's head too on failure
	local x
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n rgctl.$1"
		return
	fi
	echo "not ok $n rgctl.$1"
	[ -n "$3" ] && echo "# $3"
	if [ -n "$4" ]; then
		slurp x "$4"
		x=${x//$'\n'/|}
		echo "# ${4##*/}: ${x:0:300}"
	fi
	failed=1
}
check() {	# check NAME COMMAND...
	"${@:2}"
	result "$1" $?
}

# has FILE ERE: a line of FILE matches ERE (as grep -E).
has() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ $2 ]] && return 0
	done < "$1"
	return 1
}
# count FILE ERE: C = the number of lines of FILE that match ERE.
count() {
	local line
	C=0
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ $2 ]] && C=$((C + 1))
	done < "$1"
}
same() {	# same FILE1 FILE2: same content
	local a b
	slurp a "$1"
	slurp b "$2"
	[ "$a" = "$b" ]
}

# The whole tree in S: every group, its shares, its members (not the
# root's: kernel threads come and go there). (Its reads are slurp's
# without the redirection of errors, a quarter of their cost: the files
# of a group that is there are there, and an error would show.)
state() {	# state DIR: appends DIR and its subtree to S
	local d=$1 c x
	S+="== $d"$'\n'
	x=
	IFS= read -r -d '' x < "$d/shares"
	S+=$x
	x=
	IFS= read -r -d '' x < "$d/max_descendants"
	S+="max_descendants $x"
	x=
	IFS= read -r -d '' x < "$d/max_depth"
	S+="max_depth $x"
	if [ "$d" != $RG ]; then
		x=
		IFS= read -r -d '' x < "$d/members"
		S+=$x
	fi
	# Every name but the attributes' is a group (and a glob that matched
	# nothing, with no module loaded, is none): a glob of "$d"/*/ would
	# stat each entry (5.7 ms a group in the debug guest, 1.7 without).
	for c in "$d"/*; do
		case ${c##*/} in
		shares|members|stats|max_descendants|max_depth) ;;
		*) [ -d "$c" ] && state "$c" ;;
		esac
	done
}
snap() { S=; state $RG; }
# ndirs: D = the number of groups below the root.
ndirs() {
	local c
	for c in "${1:-$RG}"/*/; do
		[ -d "$c" ] && D=$((D + 1)) && ndirs "${c%/}"
	done
}

# This script's lines, for expect's look at what ran since the last one.
mapfile -t self < "$0"
# quiet FROM TO: lines FROM..TO of this script (1-based) run nothing that
# could change the tree: only expect and bad calls with no other command
# on their line (no ;, &&, || or |), the continuation lines of a line
# that ends in a backslash, comments and blank lines. False if the script
# could not be read.
quiet() {
	local i l prev=
	[ ${#self[@]} -ge "$2" ] || return 1
	for ((i = $1; i <= $2; i++)); do
		l=${self[i - 1]}
		if [[ $prev == *\\ ]]; then
			:	# a continuation line
		elif [[ $l =~ ^(expect|bad)\  ]]; then
			[[ $l == *';'* || $l == *'&&'* || $l == *'|'* ]] && return 1
		elif ! [[ $l =~ ^[[:space:]]*(#|$) ]]; then
			return 1
		fi
		prev=$l
	done
}
last_line=0 last_S=
expect() {
	local name=$1 want=$2 pat=$3 rc before why="" line
	line=${BASH_LINENO[${#BASH_LINENO[@]} - 2]}
	shift 3
	# Called from the top level, or by bad from there: else no reuse.
	[[ ${FUNCNAME[1]} == main || ${FUNCNAME[1]} == bad ]] || last_line=0
	if [ $last_line -gt 0 ] && [ "$line" -gt $last_line ] &&
		quiet $last_line $((line - 1)); then
		before=$last_S
	else
		snap
		before=$S
	fi
	last_line=0
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	snap
	last_line=$line last_S=$S
	[ "$rc" = "$want" ] || why="exit $rc, want $want;"
	[ -z "$pat" ] || has "$tmp/err" "$pat" || why="$why stderr lacks '$pat';"
	[ "$before" = "$S" ] || why="$why the tree changed;"
	[ -z "$why" ]
	result "$name" $? "$why" "$tmp/err"
}

# uid PID: U = PID's effective uid ("" if gone).
uid() {
	local k a b r
	U=
	while read -r k a b r; do
		[ "$k" = Uid: ] && U=$b
	done 2>/dev/null < /proc/$1/status
}
# wait_uid PID UID: until PID shows effective uid UID (30 s at most).
wait_uid() {
	local i
	for ((i = 0; i < 1500; i++)); do
		uid $1
		[ "$U" = "$2" ] && return 0
		nap 0.02
	done
	return 1
}
# group_of PID: G = PID's group ("gone" if it cannot be read).
group_of() {
	G=gone
	{ read -r G < /proc/$1/res_group; } 2>/dev/null
}
# wait_line FILE STRING [SECONDS]: until a line of FILE contains STRING.
wait_line() {
	local i line
	for ((i = 0; i < ${3:-30} * 50; i++)); do
		while IFS= read -r line; do
			[[ $line == *"$2"* ]] && return 0
		done 2>/dev/null < "$1"	# (it may not exist yet)
		nap 0.02
	done
	return 1
}
# put FILE: standard input (a here-document) to FILE.
put() {
	local x
	IFS= read -r -d '' x
	printf '%s' "$x" > "$1"
}

echo "TAP version 13"
# The plan comes first, counted by hand: one for each check, result,
# expect and bad below (164). A check that is not reached (an early
# exit, a branch that skips it) makes the runner's count fail.
plan=164
echo "1..$plan"
. "$top/selftests/leftovers.sh"
clean_leftovers $BB

# Without the module: a clear error, status 1.
expect not_loaded 1 "res_groups: No such file or directory" $R ls

$BB insmod "$top/module/res_groups.ko" && $BB insmod "$top/module/rg_numtasks.ko" &&
	$BB insmod "$top/selftests/modules/rg_test_ctl.ko" || exit 1
echo 1000 > /sys/module/rg_numtasks/parameters/total_numtasks

echo "# at $SECONDS s"
### usage
$R --help > "$tmp/help"
rc=$?
slurp help "$tmp/help"
miss=""
for c in ls create set rm exec move stats dump apply classify; do
	[[ $'\n'$help == *$'\n'"  $c "* ]] || miss="$miss $c"
done
[ $rc = 0 ] && [ -z "$miss" ]
result help_lists_every_command $? "exit $rc, missing:$miss"
expect usage_no_command 2 "no command" $R
expect usage_unknown_command 2 "unknown command 'frob'" $R frob
expect usage_create_no_group 2 "usage" $R create
expect usage_ls_bad_option 2 "usage" $R ls -x
expect usage_set_no_shares 2 "usage" $R set /
# Versions: every module's MODULE_VERSION is rgctl's; one loaded from
# another version is warned of, once, and rgctl works on.
v=$($R --version)
mv1=$(cat /sys/module/res_groups/version /sys/module/rg_numtasks/version 2>&1 | tr '\n' ' ')
[ "$v" = "rgctl ${mv1%% *}; res_groups module: ${mv1%% *}" ] && [ "$mv1" = "${mv1%% *} ${mv1%% *} " ]
result version_modules_and_rgctl_agree $? "rgctl --version: '$v'; modules: '$mv1'"
$BB mkdir -p "$tmp/sysmod/res_groups"
echo 0.0.1 > "$tmp/sysmod/res_groups/version"
RGCTL_SYS_MODULE=$tmp/sysmod $R ls / > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
	has "$tmp/err" "warning: rgctl ${mv1%% *}, but res_groups 0.0.1 is loaded"
result version_mismatch_warned_once_and_works $? "exit $rc" "$tmp/err"
$BB rm "$tmp/sysmod/res_groups/version"
RGCTL_SYS_MODULE=$tmp/sysmod $R --version > "$tmp/out" 2> "$tmp/err"
has "$tmp/out" "res_groups module: from before 0.3.0$" && [ ! -s "$tmp/err" ]
result version_of_modules_before_0_3_0 $? "" "$tmp/out"

echo "# at $SECONDS s"
### create
check create_nested "$R" create a/b numtasks:min=10,max=50 test:divisor=10
check create_read_back has $RG/a/b/shares "^res=numtasks,min_shares=10,max_shares=50,child_shares_divisor=100$"
check create_second_controller has $RG/a/b/shares "^res=test,min_shares=-3,max_shares=-3,child_shares_divisor=10$"
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
expect create_control_char 1 "Invalid argument" $R create $'x\ty'
expect create_dotdot 1 "Invalid argument" $R create a/../x
expect create_root 1 "File exists" $R create /

echo "# at $SECONDS s"
### set
check set_ok "$R" set a/b numtasks:max=60 test:min=3
check set_read_back has $RG/a/b/shares "^res=numtasks,min_shares=10,max_shares=60,"
expect set_unknown_group 1 "group /nope: No such file or directory" $R set nope numtasks:min=1
# A refused write says which rule refused it, with the numbers (a's
# numtasks divisor 100, a/b min 10 max 60, a/c min 5).
expect set_min_above_max 1 "group /a/b: numtasks:min=70: Invalid argument \(min_shares 70 above max_shares 60\)$" $R set a/b numtasks:min=70
expect set_above_parent_divisor 1 "group /a/b: test:max=101: Invalid argument \(max_shares 101 above the parent's child_shares_divisor 100\)$" $R set a/b test:max=101
expect set_min_above_parent_divisor 1 "\(min_shares 150 above the parent's child_shares_divisor 100\)$" $R set a/b numtasks:min=150
expect set_guarantees_over_divisor 1 "\(the guarantees of the parent's children would add up to 101 of its child_shares_divisor 100 \(min_shares 96 here, 5 elsewhere\)\)$" $R set a/b numtasks:min=96,max=dont_care
expect set_divisor_below_guarantees 1 "group /a: numtasks:divisor=4: Invalid argument \(child_shares_divisor 4 below 15, what the children's min_shares add up to\)$" $R set a numtasks:divisor=4
expect set_divisor_below_a_max 1 "\(child_shares_divisor 50 below a child's max_shares 60\)$" $R set a numtasks:divisor=50
expect set_unknown_controller 1 "controller 'nope'" $R set a/b nope:min=1
expect set_bad_syntax 2 "expected KEY=VALUE" $R set a/b numtasks:min

echo "# at $SECONDS s"
### ls
$R ls > "$tmp/ls"
rc=$?
[ $rc = 0 ] && has "$tmp/ls" '^  a +[0-9]+ +numtasks +-3|^  a +[0-9]+ +numtasks +dont_care' &&
	! has "$tmp/ls" ' b '
result ls_root $? "exit $rc" "$tmp/ls"
$R ls -r a > "$tmp/ls"
rc=$?
[ $rc = 0 ] && has "$tmp/ls" '^  b +0 +numtasks +10 +60 +100$' &&
	has "$tmp/ls" '^ +test +3 +dont_care +10$'
result ls_recursive $? "exit $rc" "$tmp/ls"
expect ls_unknown_group 1 "group /nope: No such file or directory" $R ls nope
expect ls_two_groups 2 "usage" $R ls a b

echo "# at $SECONDS s"
### exec
check exec_group_dir "$R" create e
$R exec e -- $BB cat /proc/self/res_group > "$tmp/out"
read -r out < "$tmp/out"
[ "$out" = /e ]
result exec_runs_in_group $? "got '$out'"
$R exec /a/b $BB cat /proc/self/res_group > "$tmp/out"
read -r out < "$tmp/out"
[ "$out" = /a/b ]
result exec_without_dashes $? "got '$out'"
$R exec e -- $BB sh -c 'exit 7'
rc=$?
[ $rc = 7 ]
result exec_passes_status $? "exit $rc"
expect exec_unknown_group 1 "group /nope: No such file or directory" $R exec nope -- true
expect exec_no_command 1 "exec /nonexistent/cmd: No such file or directory" $R exec e -- /nonexistent/cmd
expect exec_usage 2 "usage" $R exec e --

echo "# at $SECONDS s"
### move: a process with 50 threads that keeps creating threads
"$H" 50 > "$tmp/py" &
py=$!
pids+=($py)
wait_line "$tmp/py" ready
# The churn rests 5 ms between batches of 1-ms threads: two looks may
# both fall in rests; look until the set of threads has changed (2 s).
tids1=(/proc/$py/task/*)
changed=1
for ((i = 0; i < 40 && changed; i++)); do
	nap 0.05
	tids2=(/proc/$py/task/*)
	[ "${tids1[*]}" != "${tids2[*]}" ] && changed=0
done
[ ${#tids1[@]} -gt 50 ] && [ $changed = 0 ]
result move_threads_churn $? "threads ${#tids1[@]}, changed: $((!changed))"
# notin PID GROUP: B = the number of PID's threads not in GROUP (the
# threads that exit meanwhile do not count).
notin() {
	local f g
	B=0
	for f in /proc/$1/task/*/res_group; do
		{ read -r g < "$f"; } 2>/dev/null || continue
		[ "$g" = "$2" ] || B=$((B + 1))
	done
}
check move_group_dir "$R" create m
check move_process "$R" move m $py
notin $py /m
bad=$B
nap $short
notin $py /m
# (A single pass would almost always pass this too: the leader moves
# first and the threads it creates from then on start in /m. What this
# checks is that none of the 50 is left behind.)
[ "$bad" = 0 ] && [ "$B" = 0 ]
result move_every_thread $? "not in /m: $bad then $B"
check move_members_list_them has $RG/m/members "^$py$"
# One of the 50: a thread that was there when the churn was first looked
# at (tids1) and is still there (the churn's threads live 1 ms). Not the
# lowest tid: once pids wrapped (the full tier forks a lot before this
# file), a short-lived thread can have the lowest, and exit before the
# move (ESRCH).
one=""
for f in "${tids1[@]}"; do
	t=${f##*/}
	[ "$t" != $py ] && [ -e "/proc/$py/task/$t" ] && { one=$t; break; }
done
check move_one_thread "$R" move -t e "$one"
g1=gone g0=gone
{ read -r g1 < /proc/$py/task/$one/res_group; } 2>/dev/null
group_of $py
g0=$G
[ "$g1" = /e ] && [ "$g0" = /m ]
result move_t_moves_only_it $? "$g1 $g0"
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
[ $rc = 0 ] &&
	has "$tmp/stats" '^GROUP +RES +held +maxheld +minheld +limit +guarantee +failcnt +forkrate_failcnt$' &&
	has "$tmp/stats" '^/s +numtasks +0 +0 +0 +500 +0 +0 +0$' &&
	has "$tmp/stats" '^GROUP +RES +tasks +fork '
result stats_table $? "exit $rc" "$tmp/stats"
expect stats_unknown_group 1 "group /nope: No such file or directory" $R stats nope
# A controller's own columns: kmem's (loaded for this check alone; its
# group has no members, so its line cannot change between the two reads).
$BB insmod "$top/module/rg_kmem.ko" && $R create k kmem:max_shares=10 > /dev/null
$R stats k > "$tmp/kstats"
rc=$?
slurp x $RG/k/stats
re='res=kmem,held=0,maxheld=0,minheld=0,barrier=([0-9]+),limit=([0-9]+),failcnt=0,killcnt=0'
[ $rc = 0 ] && [[ $x =~ $re ]] && row="^/k +kmem +0 +0 +0 +${BASH_REMATCH[1]} +${BASH_REMATCH[2]} +0 +0\$" &&
	has "$tmp/kstats" '^GROUP +RES +held +maxheld +minheld +barrier +limit +failcnt +killcnt$' &&
	has "$tmp/kstats" "$row"
result stats_kmem_columns $? "exit $rc, stats: ${x//$'\n'/|}" "$tmp/kstats"
$R rm k
$BB rmmod rg_kmem
expect stats_bad_interval 2 "-w 'x'" $R stats -w x
# -w without a terminal: a table per draw, counters with their change,
# SIGINT ends it with status 0.
$R stats -w 0.3 s > "$tmp/watch" 2>&1 &
w=$!
pids+=($w)
nap $long
echo res=numtasks,max_shares=0 > $RG/s/shares
$R exec s -- $BB sh -c "$BB true; :" 2>/dev/null	# the fork is refused
# Until a draw shows the refusal (10 s at most: else the check below
# fails), not a fixed second.
for ((i = 0; i < 500; i++)); do
	has "$tmp/watch" '^/s +numtasks +.* [0-9]+ \(\+[0-9]+\) +0$' && break
	nap 0.02
done
kill -INT $w
for ((i = 0; i < 100; i++)); do
	kill -0 $w 2>/dev/null || break
	nap 0.05
done
kill -9 $w 2>/dev/null	# (if SIGINT did not end it: the check fails)
wait $w
rc=$?
count "$tmp/watch" '^rgctl stats /s'
draws=$C
count "$tmp/watch" '^GROUP +RES +held'
[ $rc = 0 ] && [ "$draws" -ge 2 ] && [ "$C" = "$draws" ]
result stats_watch_redraws $? "rc $rc, $draws draws, $C tables" "$tmp/watch"
has "$tmp/watch" '^/s +numtasks +.* [0-9]+ \(\+[0-9]+\) +0$'
result stats_watch_counter_change $? "" "$tmp/watch"
$R rm s

echo "# at $SECONDS s"
### dump / apply
# A depth-5 tree with both controllers, and a sibling; and groups whose
# names need escaping in a file ('#', a space, a backslash).
$R create r numtasks:min=20,max=80,divisor=50 test:divisor=1000 &&
$R create r/a numtasks:min=10,max=40,divisor=10 test:min=100,max=900 &&
$R create r/a/b numtasks:min=2,max=5 test:min=dont_care,max=50,divisor=7 &&
$R create r/a/b/c numtasks:min=50 test:max=7 &&
$R create r/a/b/c/d numtasks:max=1 &&
$R create r/x numtasks:min=30,max=dont_care test:min=500 &&
$R create 'q#1/a b/c\d' numtasks:max=7
result dump_tree_built $?
$R dump > "$tmp/d1"
result dump_ok $?
has "$tmp/d1" '^/r/a/b/c/d numtasks:min_shares=dont_care,max_shares=1,child_shares_divisor=100 test:min_shares=dont_care,max_shares=dont_care,child_shares_divisor=100$'
result dump_lists_depth5 $? "" "$tmp/d1"
has "$tmp/d1" '^/q\\#1/a\\ b/c\\\\d numtasks:min_shares=dont_care,max_shares=7,'
result dump_escapes_names $? "" "$tmp/d1"
expect dump_apply_changes_nothing 0 "" $R apply "$tmp/d1"
dap() { $R dump | $R apply -; }
expect dump_pipe_apply 0 "" dap
dapp() { $R dump | $R apply --prune -; }
expect dump_pipe_apply_prune 0 "" dapp
$R apply -n "$tmp/d1" > "$tmp/plan"
rc=$?
[ $rc = 0 ] && [ ! -s "$tmp/plan" ]
result apply_dry_run_empty $? "exit $rc" "$tmp/plan"
$R apply -n --prune "$tmp/d1" > "$tmp/plan"
rc=$?
[ $rc = 0 ] && [ ! -s "$tmp/plan" ]
result apply_dry_run_prune_empty $? "exit $rc" "$tmp/plan"
snap
before=$S
$R rm -r r && $R rm -r 'q#1'
$R apply "$tmp/d1"
rc=$?
snap
[ $rc = 0 ] && [ "$S" = "$before" ]
result apply_recreates $? "exit $rc"
$R apply "$tmp/d1"
rc=$?
snap
[ $rc = 0 ] && [ "$S" = "$before" ]
result apply_twice_is_once $? "exit $rc"
$R dump > "$tmp/d2"
check dump_apply_dump_same same "$tmp/d1" "$tmp/d2"
# Escapes in a hand-written file, a comment right after one.
put "$tmp/esc" <<'EOF2'
/q\#1/a\ b/e\\\#f\  numtasks:max=3# a comment
EOF2
$R apply "$tmp/esc"
rc=$?
[ $rc = 0 ] && has "$RG/q#1/a b/e\\#f /shares" '^res=numtasks,min_shares=-3,max_shares=3,'
result apply_unescapes $? "exit $rc"
$R rm "q#1/a b/e\\#f "

# Ordering. The file's first line, written alone, is refused: r/a
# still holds 10 of r's 50 (the min moves from r/a to r/x); r/a/b/e is
# new and needs r/a/b/c's min lowered first.
put "$tmp/order" <<'EOF2'
/r/x numtasks:min_shares=45      # r/a gives its min to r/x
/r/a numtasks:min_shares=0,max_shares=20
/r/a/b/c numtasks:min_shares=10
/r/a/b/e numtasks:min_shares=90
EOF2
expect order_first_line_alone_refused 1 "Invalid argument" $R set r/x numtasks:min=45
$R apply "$tmp/order"
rc=$?
[ $rc = 0 ] &&
	has $RG/r/a/shares '^res=numtasks,min_shares=0,max_shares=20,' &&
	has $RG/r/x/shares '^res=numtasks,min_shares=45,' &&
	has $RG/r/a/b/c/shares '^res=numtasks,min_shares=10,' &&
	has $RG/r/a/b/e/shares '^res=numtasks,min_shares=90,'
result apply_ordering $? "exit $rc"
snap
before=$S
$R apply "$tmp/order"
rc=$?
snap
[ $rc = 0 ] && [ "$S" = "$before" ]
result apply_ordering_twice $? "exit $rc"
# Back (mins and maxes go up again), pruning r/a/b/e.
$R apply --prune "$tmp/d1"
rc=$?
$R dump > "$tmp/d2"
[ $rc = 0 ] && [ ! -e $RG/r/a/b/e ] && same "$tmp/d2" "$tmp/d1"
result apply_back_with_prune $? "exit $rc"
# A divisor lowered below what the children take and below r/a's max.
put "$tmp/div" <<'EOF2'
/r numtasks:child_shares_divisor=20
/r/x numtasks:min_shares=10,max_shares=15
/r/a numtasks:min_shares=5,max_shares=20
EOF2
expect div_first_line_alone_refused 1 "Invalid argument" $R set r numtasks:divisor=20
$R apply "$tmp/div"
rc=$?
[ $rc = 0 ] &&
	has $RG/r/shares '^res=numtasks,.*,child_shares_divisor=20$' &&
	has $RG/r/x/shares '^res=numtasks,min_shares=10,max_shares=15,' &&
	has $RG/r/a/shares '^res=numtasks,min_shares=5,max_shares=20,'
result apply_lower_divisor $? "exit $rc"
$R apply "$tmp/d1"
rc=$?
$R dump > "$tmp/d2"
[ $rc = 0 ] && same "$tmp/d2" "$tmp/d1"
result apply_back_raise_divisor $? "exit $rc"

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
bad escaped_duplicate "bad:2: group /q#1: listed again \(first on line 1\)" '/q\#1' 'q\#1'
bad trailing_backslash "bad:2: .*backslash at the end of the line" "/r" '/r/x\'
bad sum_of_mins "bad:1: group /r: numtasks: the children's min_shares add up to 60, above child_shares_divisor 50" \
	"/r numtasks:divisor=50" "/r/a numtasks:min=30" "/r/x numtasks:min=30"
bad new_group_sum "bad:1: group /r/x: numtasks: the children's min_shares add up to 101" \
	"/r/x/n1 numtasks:min=51" "/r/x/n2 numtasks:min=50"
bad max_above_divisor "bad:1: group /r/a/b: numtasks: max_shares 11 above the parent's child_shares_divisor 10" \
	"/r/a/b numtasks:max=11"
bad min_above_max "bad:1: group /r/x: numtasks: min_shares 30 above max_shares 20" "/r/x numtasks:max=20"
bad min_above_max_same_line "bad:1: .*min_shares 31 above max_shares 20" "/r/x numtasks:max=20,min=31"
bad many_errors "bad:2: .*unknown key" "/r numtasks:min=1" "/r/a numtasks:zzz=1" "/r/b nope:min=1"
check apply_bad_reports_every_line has "$tmp/err" 'bad:3: group /r/b: controller'
expect apply_no_file 1 "/nonexistent: No such file or directory" $R apply /nonexistent
expect apply_usage 2 "usage" $R apply
printf '/r\n/r/zz numtasks:min=1\n' > "$tmp/prune"
$R apply --prune "$tmp/prune"
rc=$?
D=0
ndirs
[ $rc = 0 ] && [ -d $RG/r/zz ] && [ ! -e $RG/r/a ] && [ ! -e $RG/r/x ] &&
	[ "$D" = 2 ] && has $RG/r/shares '^res=numtasks,min_shares=20,'
result apply_prune $? "exit $rc, $D groups"
check apply_pruned_e [ ! -e $RG/e ]
$R rm -r r

echo "# at $SECONDS s"
### caps (max_descendants, max_depth) in dump / apply
$R create k/a/b && $R create k/c &&
	echo 3 > $RG/k/max_descendants && echo 2 > $RG/k/max_depth &&
	echo 0 > $RG/k/c/max_descendants && echo 4 > $RG/max_depth
result caps_tree_built $?
$R dump > "$tmp/c1"
has "$tmp/c1" '^/ max_depth=4 numtasks:' &&
	has "$tmp/c1" '^/k max_descendants=3 max_depth=2 numtasks:' &&
	has "$tmp/c1" '^/k/c max_descendants=0 numtasks:' &&
	has "$tmp/c1" '^/k/a numtasks:' && has "$tmp/c1" '^/k/a/b numtasks:'
result caps_dumped_when_not_max $? "" "$tmp/c1"
expect caps_dump_pipe_apply 0 "" dap
$R apply -n "$tmp/c1" > "$tmp/plan"
rc=$?
[ $rc = 0 ] && [ ! -s "$tmp/plan" ]
result caps_apply_dry_run_empty $? "exit $rc" "$tmp/plan"
# Changed every way (raised, lowered, set where it was max): apply of
# the dump restores them all.
echo max > $RG/k/max_descendants && echo 1 > $RG/k/max_depth &&
	echo 7 > $RG/k/c/max_descendants && echo 0 > $RG/k/a/max_depth &&
	echo max > $RG/max_depth
$R apply "$tmp/c1"
rc=$?
$R dump > "$tmp/c2"
[ $rc = 0 ] && same "$tmp/c1" "$tmp/c2"
result caps_apply_restores $? "exit $rc" "$tmp/c2"
# A cap raised before the mkdirs that need it: k holds 3, gets 5.
put "$tmp/caps" <<'EOF2'
/k/d/e
/k max_descendants=5 max_depth=2
EOF2
$R apply "$tmp/caps"
rc=$?
slurp x $RG/k/max_descendants
[ $rc = 0 ] && [ -d $RG/k/d/e ] && [ "$x" = $'5\n' ]
result caps_raised_before_mkdir $? "exit $rc, cap $x"
# Lowered after the mkdirs, below what is there (the kernel allows it):
# l and its two groups are made, then l's cap set to 1; a dump of that
# applies as it is.
printf '/l max_descendants=1\n/l/x/y\n' > "$tmp/caps"
$R apply "$tmp/caps"
rc=$?
slurp x $RG/l/max_descendants
[ $rc = 0 ] && [ -d $RG/l/x/y ] && [ "$x" = $'1\n' ]
result caps_lowered_after_mkdir $? "exit $rc, cap $x"
expect caps_below_what_exists_dump_pipe_apply 0 "" dap
# Bad caps, and mkdirs the caps would refuse: nothing changes.
bad cap_negative "bad:1: group /k: max_depth=-1: not max or an int from 0 to 2147483647" "/k max_depth=-1"
bad cap_overflow "bad:2: group /k/a: max_descendants=2147483648: not max" "/k" "/k/a max_descendants=2147483648"
bad cap_empty "bad:1: group /k: max_descendants=: not max" "/k max_descendants="
bad cap_junk "bad:1: group /k: max_depth=1x: not max" "/k max_depth=1x"
bad cap_twice "bad:1: group /k: max_depth given twice" "/k max_depth=1 max_depth=2"
bad cap_unknown "bad:1: group /k: 'max_children=1': expected RES:KEY=VALUE, max_descendants=N or max_depth=N" "/k max_children=1"
bad cap_with_bad_line "bad:2: group /k/a: 'numtasks:min=x'" "/k max_descendants=9" "/k/a numtasks:min=x"
bad cap_eagain_descendants "bad:1: group /k/c: 1 groups below it with the new ones, above max_descendants 0: Resource temporarily unavailable" "/k/c/x"
bad cap_eagain_depth "bad:1: group /k: a new group 3 levels below it, above max_depth 2: Resource temporarily unavailable" "/k/a/b/z"
bad cap_eagain_root "bad:1: group /: a new group 5 levels below it, above max_depth 4: Resource temporarily unavailable" "/k/a/b/z/w max_depth=max" "/k max_depth=max"
# Checked on the model, before anything changes: -n refuses it too.
printf '/k/c/x\n' > "$tmp/caps"
expect caps_checked_before_any_change 1 "caps:1: group /k/c: .*above max_descendants 0" \
	$R apply -n "$tmp/caps"
$R rm -r k && $R rm -r l && echo max > $RG/max_depth
result caps_cleanup $?

echo "# at $SECONDS s"
### classify
$R create cu1 && $R create cu2 && $R create cc
$BB cp "$H" "$tmp/rgprobe_sleep"
put "$tmp/rules" <<'EOF2'
# users first, then commands
user:daemon -> cu1
user:65534  -> cu2      # nobody, by uid
command:rgprobe_* -> cc
group:nogroup -> cu2
EOF2
# Processes already running: --scan. They are users daemon (a rule) and
# www-data (none) before the daemon listens, so only the scan can move
# them.
"$H" --as 1 1 &	# daemon
early=$!
"$H" --as 33 33 &	# www-data
early2=$!
pids+=($early $early2)
wait_uid $early 1 && wait_uid $early2 33
result classify_scan_setup $? "uids: $early shows '$U'"
$R classify --scan -v "$tmp/rules" 2> "$tmp/clog" &
cl=$!
pids+=($cl)
wait_line "$tmp/clog" listening
check classify_starts has "$tmp/clog" 'listening \(4 rules\)'
# The scan is over when it says it listens.
group_of $early
g1=$G
group_of $early2
[ "$g1" = /cu1 ] && [ "$G" = / ]
result classify_scan $? "daemon's in '$g1', www-data's in '$G'" "$tmp/clog"

# lands PID GROUP KEY VALUE: PID is in GROUP within a second of showing
# KEY (uid: its effective uid, comm) VALUE, the change classify acts on.
lands() {
	local pid=$1 want=$2 key=$3 val=$4 start="" now line
	local deadline=$((${EPOCHREALTIME/./} + 60000000))
	while :; do
		now=${EPOCHREALTIME/./}
		if [ -z "$start" ]; then
			[ $now -gt $deadline ] && { echo "# pid $pid never showed $key $val"; return 1; }
			if [ "$key" = comm ]; then
				line=
				{ read -r line < /proc/$pid/comm; } 2>/dev/null
				[ "$line" = "$val" ] && start=$now
			else
				uid $pid
				[ "$U" = "$val" ] && start=$now
			fi
		fi
		group_of $pid
		if [ -n "$start" ] && [ "$G" = "$want" ]; then
			echo "# pid $pid in $want $(((now - start) / 1000)) ms after it showed $key $val"
			return 0
		fi
		if [ -n "$start" ] && [ $((now - start)) -gt 1000000 ]; then
			echo "# pid $pid in '$G', not $want, 1 s after it showed $key $val"
			return 1
		fi
		nap 0.02
	done
}
"$H" --as 1 1 &	# daemon
p1=$!
"$H" --as 65534 65534 &	# nobody, nogroup
p2=$!
"$tmp/rgprobe_sleep" --as 0 0 &
p3=$!
"$H" --as 33 33 &	# www-data
p4=$!
"$H" --as 0 0 &
p5=$!
"$H" --as 33 65534 &	# www-data (no rule), nogroup
p8=$!
pids+=($p1 $p2 $p3 $p4 $p5 $p8)
check classify_user_name lands $p1 /cu1 uid 1
check classify_user_uid lands $p2 /cu2 uid 65534
check classify_command lands $p3 /cc comm rgprobe_sleep
# Only the group: rule matches it (by its effective gid).
check classify_group lands $p8 /cu2 uid 33
# A child forked before the daemon moved its parent, that has exec'd
# something no rule matches by the time its fork is read, follows its
# parent. (The daemon is stopped meanwhile: the events wait in order.)
kill -STOP $cl
"$tmp/rgprobe_sleep" --fork "$H" --as 0 0 > "$tmp/fork" &
pf=$!
pids+=($pf)
wait_line "$tmp/fork" ""
read -r pc < "$tmp/fork"
pids+=($pc)
comm=
for ((i = 0; i < 1500; i++)); do
	{ read -r comm < /proc/$pc/comm; } 2>/dev/null
	[ "$comm" = rgctl_threads ] && break
	nap 0.02
done
group_of $pc
gc=$G
group_of $pf
[ "$comm" = rgctl_threads ] && [ "$gc" = / ] && [ "$G" = / ]
result classify_fork_setup $? "child $pc '$comm' in '$gc', parent in '$G'"
kill -CONT $cl
check classify_fork_parent lands $pf /cc comm rgprobe_sleep
check classify_fork_child_follows lands $pc /cc comm rgctl_threads
lands $p4 / uid 33 > /dev/null
lands $p5 / comm rgctl_threads > /dev/null
nap $long
group_of $p4
g4=$G
group_of $p5
[ "$g4" = / ] && [ "$G" = / ]
result classify_no_match_stays $? "www-data's in '$g4', root's in '$G'"
# A group removed under it: it logs and goes on.
kill -9 $p2 $p8
wait $p2 $p8 2>/dev/null
$R rm cu2
"$H" --as 65534 65534 &
p6=$!
pids+=($p6)
msg="classify: pid $p6 (rgctl_threads) to /cu2 (rule on line 3): No such file or directory"
wait_line "$tmp/clog" "$msg"
result classify_group_removed_logged $? "no '$msg'" "$tmp/clog"
check classify_survives kill -0 $cl
$R create cu2
"$H" --as 65534 65534 &
p7=$!
pids+=($p7)
check classify_group_back lands $p7 /cu2 uid 65534
kill -TERM $cl
for ((i = 0; i < 100; i++)); do
	kill -0 $cl 2>/dev/null || break
	nap 0.05
done
kill -9 $cl 2>/dev/null	# (if SIGTERM did not end it: the check fails)
wait $cl
rc=$?
[ $rc = 0 ] && has "$tmp/clog" 'stopped \(Terminated\)'
result classify_sigterm $? "exit $rc" "$tmp/clog"
printf 'user:daemon -> cu1\nuser:nosuchuser -> cu1\nfrob:x -> cu1\ncommand:x\n' > "$tmp/badrules"
expect classify_bad_rules 1 "badrules:2: unknown user 'nosuchuser'" $R classify "$tmp/badrules"
has "$tmp/err" 'badrules:3:' && has "$tmp/err" 'badrules:4:'
result classify_bad_rules_every_line $? "" "$tmp/err"
expect classify_usage 2 "usage" $R classify
# The trust model: an exe rule matches the executable itself (not a copy
# of it run with its path as argv[0], nor another file bound over its path
# in a mount namespace of the user's); group matches a supplementary gid
# too (newgrp cannot shed it), user the real uid too (a set-user-ID
# program); a process placed in a group no rule names stays there.
$R create ce && $R create placed
$BB mkdir "$tmp/exe" "$tmp/copy"
$BB cp "$H" "$tmp/exe/exeprobe" && $BB cp "$H" "$tmp/copy/exeprobe"
put "$tmp/rules2" <<EOF2
user:daemon -> cu1
group:nogroup -> cu2
exe:$tmp/exe/exe* -> ce
command:rgprobe_* -> cc
EOF2
$R classify -v "$tmp/rules2" 2> "$tmp/clog2" &
cl=$!
pids+=($cl)
wait_line "$tmp/clog2" listening
check classify_trust_starts has "$tmp/clog2" 'listening \(4 rules\)'
"$tmp/exe/exeprobe" --as 0 0 &
q1=$!
bash -c 'exec -a "$0" "$1" --as 0 0' "$tmp/exe/exeprobe" "$tmp/copy/exeprobe" &
q2=$!
unshare -m sh -c "mount --bind $tmp/copy/exeprobe $tmp/exe/exeprobe && exec $tmp/exe/exeprobe --as 0 0" &
q3=$!
"$H" --as 33 33 65534 &	# www-data, in nogroup as a supplementary group
q4=$!
$R exec placed -- "$H" --as 1 1 &	# daemon, placed by hand
q5=$!
$R exec cc -- "$H" --as 1 1 &	# daemon, placed in a rule's group
q6=$!
"$H" --ruid 1 &	# real uid daemon, effective root
q7=$!
pids+=($q1 $q2 $q3 $q4 $q5 $q6 $q7)
check classify_exe_rule lands $q1 /ce comm exeprobe
lands $q4 /cu2 uid 33
result classify_group_supplementary_gid $? "" "$tmp/clog2"
check classify_moves_out_of_a_rule_named_group lands $q6 /cu1 uid 1
for ((i = 0; i < 300; i++)); do
	group_of $q7
	[ "$G" = /cu1 ] && break
	nap 0.05
done
x=$($BB awk '/^Uid:/ { print $2, $3 }' /proc/$q7/status)
[ "$G" = /cu1 ] && [ "$x" = "1 0" ]
result classify_user_real_uid $? "real and effective uid '$x', in '$G'" "$tmp/clog2"
lands $q2 / comm exeprobe > /dev/null
lands $q5 /placed uid 1 > /dev/null
wait_line "$tmp/clog2" "pid $q5 (rgctl_threads) kept in /placed"
for ((i = 0; i < 300; i++)); do
	line=
	{ read -r line < /proc/$q3/comm; } 2>/dev/null
	[ "$line" = exeprobe ] && break
	nap 0.05
done
x=$($BB readlink /proc/$q3/exe)
[ "$line" = exeprobe ] && [ "$x" = "$tmp/exe/exeprobe" ]
result classify_exe_bind_setup $? "pid $q3: comm '$line', exe '$x'"
nap $long
group_of $q2
g2=$G
group_of $q3
[ "$g2" = / ] && [ "$G" = / ]
result classify_exe_copy_or_bind_mount_not_matched $? "copy with the path as argv[0] in '$g2', bind-mounted in '$G'" "$tmp/clog2"
group_of $q5
[ "$G" = /placed ]
result classify_keeps_an_explicit_placement $? "daemon placed in /placed is in '$G'" "$tmp/clog2"
kill -TERM $cl
wait $cl
printf 'exe:exeprobe -> ce\n' > "$tmp/badrules2"
expect classify_exe_needs_an_absolute_path 1 "badrules2:1: exe:exeprobe: expected an absolute path" $R classify "$tmp/badrules2"
for p in $q1 $q2 $q3 $q4 $q5 $q6 $q7; do kill -9 $p 2>/dev/null; done
wait $q1 $q2 $q3 $q4 $q5 $q6 $q7 2>/dev/null
$R rm ce && $R rm placed
for p in $early $early2 $p1 $p3 $p4 $p5 $p6 $p7 $pf $pc; do kill -9 $p 2>/dev/null; done
wait 2>/dev/null
pids=()
$R rm cu1 && $R rm cu2 && $R rm cc
D=0
ndirs
check tree_empty_at_end [ "$D" = 0 ]

echo "# at $SECONDS s, $n results of $plan"
$BB rmmod rg_test_ctl rg_numtasks res_groups
exit $failed

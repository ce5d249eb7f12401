#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A shell fork bomb in a group limited to 64 tasks (docs/res_groups.rst, numtasks): the group
# holds exactly 64 at its most (its limit reached, never passed), a task
# elsewhere still forks, and once the bomb's tasks are killed the group
# holds none. TAP output.
#
# RG_TIER=quick lets the bomb run 2 s instead of 10 (both: longer, at
# most 60 s, while it has held fewer than its limit reads); every check
# runs in both tiers.
RG=/sys/kernel/config/res_groups
NT=/sys/module/rg_numtasks/parameters
top=$(cd "$(dirname "$0")/.." && pwd)
BB=/bin/busybox	# (static: kmod's insmod is a dynamic binary, ~0.3 s a start)
n=0 failed=0
case "${RG_TIER:-full}" in
full) secs=10 ;;
quick) secs=2 ;;
*) echo "RG_TIER='$RG_TIER': expected quick or full" >&2; exit 2 ;;
esac
check() {	# check NAME COMMAND...
	n=$((n + 1))
	if "${@:2}"; then echo "ok $n forkbomb.$1"; else echo "not ok $n forkbomb.$1"; failed=1; fi
}
# stat GROUP KEY: V = KEY of numtasks' stats line in GROUP ("" if
# unread). Bash alone, no command substitution: a process costs ~0.1-0.3 s
# in the debug guest, and seconds beside the bomb.
stat() {
	local line
	V=
	while IFS= read -r line; do
		[[ $line == res=numtasks,* && $line =~ ,$2=([0-9]+) ]] && V=${BASH_REMATCH[1]}
	done < "$RG/$1/stats"
}
# nap SECONDS: a sleep without a process (read -t on a fifo no one writes).
fifo=$($BB mktemp -u) && $BB mkfifo "$fifo" &&
	exec {napfd}<> "$fifo" && $BB rm -f "$fifo" || exit 1
nap() { read -r -t "$1" -u $napfd; }

echo "TAP version 13"
echo "1..4"
. "$top/selftests/leftovers.sh"
clean_leftovers $BB
$BB insmod "$top/module/res_groups.ko" && $BB insmod "$top/module/rg_numtasks.ko" || exit 1
echo 1000 > $NT/total_numtasks
echo res=numtasks,child_shares_divisor=1000 > $RG/shares
mkdir $RG/bomb $RG/other
echo res=numtasks,max_shares=64 > $RG/bomb/shares

# The bomb: every function call forks two more, for ever.
setsid bash -c "echo \$\$ > $RG/bomb/members; b() { b | b & }; b" \
	> /dev/null 2>&1 < /dev/null &

over=0 unreadable=0 other_ok=1 other_runs=0
start=$SECONDS
end=$((start + secs))
# below_limit: the bomb has not yet held as many as its limit reads.
below_limit() {
	local mh
	stat bomb maxheld
	mh=$V
	stat bomb limit
	[ -n "$mh" ] && [ -n "$V" ] && [ "$mh" -lt "$V" ]
}
# Past the end only while it is below its limit (a slow guest).
while [ $SECONDS -lt $end ] ||
	{ below_limit && [ $SECONDS -lt $((start + 60)) ]; }; do
	stat bomb held
	held=$V
	if [ -z "$held" ]; then
		unreadable=1
	elif [ "$held" -gt 64 ]; then
		over=1
	fi
	# Elsewhere, forks still work: a subshell moved there forks a real
	# child (in the background: bash would exec a last simple command
	# without forking; a subshell, not a new bash: no exec of a dynamic
	# binary beside the bomb).
	if (echo $BASHPID > $RG/other/members && { $BB true & wait $!; }); then
		other_runs=$((other_runs + 1))
	else
		other_ok=0
	fi
	nap 0.5
done
stat bomb maxheld
maxheld=$V
stat bomb limit
limit=$V
# held_ok: held never read above 64 nor unreadable, and maxheld is 64,
# the limit: a limit worked out too low (or too high) fails.
held_ok() { [ $over = 0 ] && [ $unreadable = 0 ] && [ "$maxheld" = 64 ] && [ "$limit" = 64 ]; }
check held_reaches_64_never_more held_ok
stat bomb failcnt
failcnt=$V
check bomb_hit_the_limit [ "${failcnt:-0}" -gt 0 ]
# The other group held its shell and a forked child at once, refused none.
stat other maxheld
other_max=$V
other_forked() {
	stat other failcnt
	[ $other_ok = 1 ] && [ $other_runs -gt 0 ] &&
		[ "${other_max:-0}" -ge 2 ] && [ "$V" = 0 ]
}
check another_group_forks_meanwhile other_forked
echo "# bomb: limit $limit, maxheld $maxheld, failcnt $failcnt after $((SECONDS - start)) s; other: $other_runs runs, maxheld $other_max"

# Stop it growing (a limit of 0 refuses every fork), then kill it all.
echo res=numtasks,max_shares=0 > $RG/bomb/shares
end=$((SECONDS + 60))
# (members read by bash: its pids, one a line; "" once it is empty or unread)
bomb_members() {
	members=
	IFS= read -r -d '' members < $RG/bomb/members
	[ -n "$members" ]
}
while bomb_members && [ $SECONDS -lt $end ]; do
	# shellcheck disable=SC2086 # one pid a word
	kill -9 $members 2>/dev/null
	nap 0.2
done
wait
stat bomb held
check held_returns_to_zero [ "${V:-unreadable}" = 0 ]

rmdir $RG/bomb $RG/other
$BB rmmod rg_numtasks res_groups || failed=1
exit $failed

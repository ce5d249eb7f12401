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
NT=/sys/module/numtasks/parameters
top=$(cd "$(dirname "$0")/.." && pwd)
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
# stat GROUP KEY: KEY of numtasks' stats line in GROUP (bash alone: a
# process costs ~0.2 s in the debug guest).
stat() {
	local line
	while IFS= read -r line; do
		[[ $line == res=numtasks,* && $line =~ ,$2=([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
	done < "$RG/$1/stats"
}

echo "TAP version 13"
echo "1..4"
. "$top/selftests/leftovers.sh"
clean_leftovers
insmod "$top/module/res_groups.ko" && insmod "$top/module/numtasks.ko" || exit 1
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
	local mh lim
	mh=$(stat bomb maxheld)
	lim=$(stat bomb limit)
	[ -n "$mh" ] && [ -n "$lim" ] && [ "$mh" -lt "$lim" ]
}
# Past the end only while it is below its limit (a slow guest).
while [ $SECONDS -lt $end ] ||
	{ below_limit && [ $SECONDS -lt $((start + 60)) ]; }; do
	held=$(stat bomb held)
	if [ -z "$held" ]; then
		unreadable=1
	elif [ "$held" -gt 64 ]; then
		over=1
	fi
	# Elsewhere, forks still work: a real one (the child in the
	# background; bash would exec a last simple command without forking).
	if bash -c "echo \$\$ > $RG/other/members && { /bin/true & wait \$!; }"; then
		other_runs=$((other_runs + 1))
	else
		other_ok=0
	fi
	sleep 0.5
done
maxheld=$(stat bomb maxheld)
limit=$(stat bomb limit)
# held_ok: held never read above 64 nor unreadable, and maxheld is 64,
# the limit: a limit worked out too low (or too high) fails.
held_ok() { [ $over = 0 ] && [ $unreadable = 0 ] && [ "$maxheld" = 64 ] && [ "$limit" = 64 ]; }
check held_reaches_64_never_more held_ok
failcnt=$(stat bomb failcnt)
check bomb_hit_the_limit [ "${failcnt:-0}" -gt 0 ]
# The other group held its shell and a forked child at once, refused none.
other_forked() {
	[ $other_ok = 1 ] && [ $other_runs -gt 0 ] &&
		[ "$(stat other maxheld)" -ge 2 ] && [ "$(stat other failcnt)" = 0 ]
}
check another_group_forks_meanwhile other_forked
echo "# bomb: limit $limit, maxheld $maxheld, failcnt $failcnt after $((SECONDS - start)) s; other: $other_runs runs, maxheld $(stat other maxheld)"

# Stop it growing (a limit of 0 refuses every fork), then kill it all.
echo res=numtasks,max_shares=0 > $RG/bomb/shares
end=$((SECONDS + 60))
while members=$(< $RG/bomb/members) && [ -n "$members" ] && [ $SECONDS -lt $end ]; do
	# shellcheck disable=SC2086 # one pid a word
	kill -9 $members 2>/dev/null
	sleep 0.2
done
wait
held=$(stat bomb held)
check held_returns_to_zero [ "${held:-unreadable}" = 0 ]

rmdir $RG/bomb $RG/other
rmmod numtasks res_groups
exit $failed

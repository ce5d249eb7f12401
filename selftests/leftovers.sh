# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the shell tests, which run_tests.sh runs after the C tests:
# clean_leftovers undoes what an earlier test that failed may have left,
# so that a test does not fail for another's leftovers. First the
# test-only modules rg_fork_stall (what it holds let go first: a held fork
# or shares write blocks group removals) and rg_kthread, then the groups,
# deepest first (a group pins res_groups; removing one moves its tasks to
# its parent), then every module that uses res_groups (rg_cpu.ko among them:
# unloading it lifts every CPU ceiling), then res_groups.

# rm_groups DIR [BUSYBOX]: DIR's child groups, deepest first.
rm_groups() {
	local c
	for c in "$1"/*/ "$1"/.[!.]*/ "$1"/..?*/; do
		[ -d "$c" ] || continue
		rm_groups "${c%/}" "${@:2}"
		"${@:2}" rmdir "${c%/}" && LEFT="$LEFT ${c%/}"
	done
	return 0
}

# clean_leftovers [BUSYBOX]: with BUSYBOX's rmdir and rmmod if given.
clean_leftovers() {
	local m p
	LEFT=
	for p in hold half_write stall_lock; do
		p=/sys/module/rg_fork_stall/parameters/$p
		if [ -e "$p" ]; then { echo 0 > "$p"; } 2>/dev/null || :; fi
	done
	for m in rg_fork_stall rg_kthread; do
		[ -e "/sys/module/$m" ] && "$@" rmmod "$m" && LEFT="$LEFT $m"
	done
	rm_groups /sys/kernel/config/res_groups "$@"
	LEFT=${LEFT//\/sys\/kernel\/config\/res_groups\//}
	for m in /sys/module/res_groups/holders/* rg_hooks_test res_groups; do
		m=${m##*/}
		[ -e "/sys/module/$m" ] && "$@" rmmod "$m" && LEFT="$LEFT $m"
	done
	[ -z "$LEFT" ] || echo "# left by an earlier test, removed:$LEFT"
	return 0
}

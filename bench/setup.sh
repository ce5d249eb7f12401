# Sourced by the bench scripts that run in the release guest: the
# configurations, where each puts its task (place, inside), tracefs. A: hooks, no module; B: res_groups.ko, task in the
# root; C: + rg_numtasks.ko, task at depth 5 with a limit at every level;
# D: cgroup v2, task at depth 5 with pids.max at every level.
#   MODDIR  where res_groups.ko and rg_numtasks.ko (release builds) are
RG=/sys/kernel/config/res_groups
CG=/sys/fs/cgroup
DEEP=d1/d2/d3/d4/d5
T=/sys/kernel/tracing

# place CONFIG: the task file of the configuration's depth-5 place (C and
# R: a group's members; D and G: a cgroup's cgroup.procs), else nothing.
place() {
	case $1 in
	C|R) echo $RG/$DEEP/members ;;
	D|G) echo $CG/$DEEP/cgroup.procs ;;
	esac
}

# inside FILE CMD...: CMD, run once it wrote its pid to FILE (a group's
# members or a cgroup's cgroup.procs; "": where it is).
inside() {
	sh -c '[ -z "$1" ] || echo $$ > "$1"; shift; exec "$@"' sh "$@"
}

# tracefs: mounted at $T.
tracefs() {
	[ -e $T/trace ] || mount -t tracefs nodev $T
}

unload() {
	for m in rg_numtasks res_groups; do
		[ -e /sys/module/$m ] && rmmod $m
	done
	return 0
}

rg_deep() {	# rg_deep [RES]: nested groups to depth 5, a limit of RES
	local p=$RG d	# (default numtasks) at every level
	for d in ${DEEP//\// }; do
		p=$p/$d
		mkdir $p
		echo res=${1:-numtasks},max_shares=90 > $p/shares
	done
}

undeep() {	# undeep ROOT: remove ROOT/$DEEP, deepest first
	local p=$1/$DEEP
	while [ "$p" != "$1" ]; do
		rmdir $p
		p=${p%/*}
	done
}

cg_deep() {	# cg_deep [CONTROLLER FILE VALUE]: nested cgroups to depth 5,
	local p=$CG d	# FILE set at every level (default pids pids.max 100000)
	for d in ${DEEP//\// }; do
		echo +${1:-pids} > $p/cgroup.subtree_control
		p=$p/$d
		mkdir $p
		echo ${3:-100000} > $p/${2:-pids.max}
	done
}

setup() {
	case $1 in
	A) unload ;;
	B) unload; insmod $MODDIR/res_groups.ko ;;
	C) unload; insmod $MODDIR/res_groups.ko; insmod $MODDIR/rg_numtasks.ko; rg_deep ;;
	D) unload; cg_deep ;;
	esac
}

teardown() {
	case $1 in
	C) undeep $RG; unload ;;
	D) undeep $CG ;;
	*) unload ;;
	esac
}


// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what (docs/res_groups.rst, "members" and "Delegation"): file
 * modes guard mkdir, rmdir and writes; a move needs CAP_SYS_NICE,
 * CAP_SYS_RESOURCE, or the task's real uid and write access to the
 * members file of the common ancestor of both groups; pids in members are
 * those of the reader's or writer's pid namespace. With rg_cpu.ko, a move
 * without CAP_SYS_RESOURCE needs a ceiling that the mover cannot change,
 * and such a writer may not lift it over the tasks it holds (the ceiling
 * rule). The caps max_descendants and max_depth need the parent's file
 * writable too. Writes are judged with the opener's credentials.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define USER 1000
#define OTHER 1001
#define NO_CAP (-1)
#define SNAP 8192

FIXTURE(priv) {
	pid_t root_task;
	pid_t kids[4];		/* a test's own children, killed at the end */
	char before[SNAP], after[SNAP];
};

/* Everything a user could change: the five files of a and b. */
static int state(char *buf)
{
	static const char * const groups[] = { "a", "b" };

	buf[0] = '\0';
	return rg_snapshot_all(groups, ARRAY_SIZE(groups), buf, SNAP);
}

FIXTURE_SETUP(priv)
{
	rg_remove_all_groups();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
	self->root_task = rg_sleeper();
	ASSERT_LT(0, self->root_task);
	ASSERT_EQ(0, rg_move("a", self->root_task));
}

FIXTURE_TEARDOWN(priv)
{
	size_t i;

	/* A fork the stall module holds goes on before anything is removed. */
	rg_stall_release();
	for (i = 0; i < ARRAY_SIZE(self->kids); i++)
		if (self->kids[i] > 0)
			rg_kill(self->kids[i]);
	rg_stall_unload();
	rg_kill(self->root_task);
	rg_remove_all_groups();
	rg_unload_all();
}

/*
 * Become uid USER with no capability but cap (NO_CAP: none at all);
 * 0 or -1.
 */
static int become_user(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (prctl(PR_SET_KEEPCAPS, cap != NO_CAP) ||
	    setresgid(USER, USER, USER) || setresuid(USER, USER, USER))
		return -1;
	if (cap == NO_CAP)
		return 0;
	data[cap / 32].effective = 1u << (cap % 32);
	data[cap / 32].permitted = 1u << (cap % 32);
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

/* Run fn in a child as USER with only cap; its exit status (0: passed). */
static int as_user(int cap, int (*fn)(pid_t), pid_t arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(become_user(cap) ? 100 : fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return rg_exit_code(status);
}

/* The call failed with err. */
static bool failed_with(int ret, int err)
{
	return ret == -1 && errno == err;
}

static int try_mkdir_rmdir(pid_t unused)
{
	char p[256];

	if (!failed_with(mkdir(rg_path(p, sizeof(p), "x", NULL), 0755), EACCES))
		return 1;
	if (!failed_with(mkdir(rg_path(p, sizeof(p), "a/x", NULL), 0755), EACCES))
		return 2;
	if (!failed_with(rmdir(rg_path(p, sizeof(p), "b", NULL)), EACCES))
		return 3;
	return 0;
}

TEST_F(priv, user_cannot_mkdir_or_rmdir)
{
	EXPECT_EQ(0, as_user(NO_CAP, try_mkdir_rmdir, 0));
	EXPECT_FALSE(rg_exists(RG_ROOT "/x"));
	EXPECT_FALSE(rg_exists(RG_ROOT "/a/x"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/b"));
}

static int try_writes(pid_t unused)
{
	static const char * const files[] = { "shares", "stats", "members" };
	static const char * const groups[] = { "", "a", "b" };
	char p[256], buf[4096];
	size_t g, f;

	for (g = 0; g < ARRAY_SIZE(groups); g++)
		for (f = 0; f < ARRAY_SIZE(files); f++) {
			rg_path(p, sizeof(p), groups[g], files[f]);
			if (!failed_with(open(p, O_WRONLY), EACCES))
				return 1 + g * 3 + f;
			/* 0644: reading is for everyone. */
			if (rg_read(p, buf, sizeof(buf)) < 0)
				return 20 + g * 3 + f;
		}
	return 0;
}

TEST_F(priv, user_cannot_write_shares_stats_or_members)
{
	ASSERT_EQ(0, state(self->before));
	EXPECT_EQ(0, as_user(NO_CAP, try_writes, 0));
	ASSERT_EQ(0, state(self->after));
	EXPECT_STREQ(self->before, self->after);
}

static int move_to_b(pid_t pid)
{
	int ret = rg_move("b", pid);

	return ret == 0 ? 0 : ret == -EPERM ? 1 : 2;
}

/*
 * Delegate the subtree d (d, d/x, d/y: members writable by anyone, as a
 * chown to the user would) and put the test, hence the user's children,
 * in d. b's members is writable too, but b is outside d.
 */
static void delegate_d(struct __test_metadata *_metadata)
{
	static const char * const groups[] = { "d", "d/x", "d/y", "b" };
	char p[256];
	size_t i;

	ASSERT_EQ(0, rg_mkdir("d"));
	ASSERT_EQ(0, rg_mkdir("d/x"));
	ASSERT_EQ(0, rg_mkdir("d/y"));
	for (i = 0; i < ARRAY_SIZE(groups); i++)
		ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), groups[i], "members"),
				   0666));
	ASSERT_EQ(0, rg_move("d", getpid()));
}

static int move_own_task_within_d(pid_t unused)
{
	pid_t own = rg_sleeper();
	int ret = 0;

	if (rg_move("d/x", own) || rg_is_member("d/x", own) != 1)
		ret = 1;
	else if (rg_move("d/y", own) || rg_is_member("d/y", own) != 1)
		ret = 2;
	else if (rg_move("d", own) || rg_is_member("d", own) != 1)
		ret = 3;
	rg_kill(own);
	return ret;
}

TEST_F(priv, delegated_user_moves_own_tasks_only)
{
	delegate_d(_metadata);
	ASSERT_EQ(0, rg_move("d", self->root_task));
	ASSERT_EQ(0, state(self->before));
	/* Another uid's task, inside the delegated subtree: EPERM. */
	EXPECT_EQ(1, as_user(NO_CAP, move_to_b, self->root_task));
	ASSERT_EQ(0, state(self->after));
	EXPECT_STREQ(self->before, self->after);
	EXPECT_EQ(1, rg_is_member("d", self->root_task));
	EXPECT_EQ(0, as_user(NO_CAP, move_own_task_within_d, 0));
	rg_move("", getpid());
}

/* The user's own task, from d/x to b (writable, but outside d): EPERM. */
static int leave_d(pid_t unused)
{
	pid_t own = rg_sleeper();
	int ret = 0;

	if (rg_move("d/x", own))
		ret = 1;
	else if (rg_move("b", own) != -EPERM)
		ret = 2;
	else if (rg_is_member("d/x", own) != 1 || rg_is_member("b", own) != 0)
		ret = 3;
	else if (rg_move("", own) != -EACCES)	/* root's members: 0644 */
		ret = 4;
	rg_kill(own);
	return ret;
}

/*
 * Delegation gives a subtree, nothing more: a user with write access to
 * the members of d and its children and of b cannot move their own task
 * from d's subtree into b, because the common ancestor (the root) is not
 * theirs. Before the fix this escaped d's limits.
 */
TEST_F(priv, delegated_user_cannot_leave_the_subtree)
{
	delegate_d(_metadata);
	EXPECT_EQ(0, as_user(NO_CAP, leave_d, 0));
	rg_move("", getpid());
}

TEST_F(priv, cap_sys_nice_alone_moves_any_task)
{
	char p[256];

	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "b", "members"), 0666));
	EXPECT_EQ(0, as_user(CAP_SYS_NICE, move_to_b, self->root_task));
	EXPECT_EQ(1, rg_is_member("b", self->root_task));
}

TEST_F(priv, cap_sys_resource_alone_moves_any_task)
{
	char p[256];

	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "b", "members"), 0666));
	EXPECT_EQ(0, as_user(CAP_SYS_RESOURCE, move_to_b, self->root_task));
	EXPECT_EQ(1, rg_is_member("b", self->root_task));
}

TEST_F(priv, other_capabilities_do_not_allow_a_move)
{
	char p[256];

	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "b", "members"), 0666));
	EXPECT_EQ(1, as_user(CAP_KILL, move_to_b, self->root_task));
	EXPECT_EQ(1, as_user(CAP_SETUID, move_to_b, self->root_task));
	EXPECT_EQ(1, rg_is_member("a", self->root_task));
}

/* chown to USER of the group's directory and of its five files. */
static void chown_group(struct __test_metadata *_metadata, const char *group)
{
	static const char * const files[] = {
		NULL, "shares", "stats", "members", "max_descendants",
		"max_depth",
	};
	char p[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		ASSERT_EQ(0, chown(rg_path(p, sizeof(p), group, files[i]),
				   USER, USER));
}

/* The cap file of a group reads want. */
static bool cap_is(const char *group, const char *file, const char *want)
{
	char p[256], buf[64];

	return rg_read(rg_path(p, sizeof(p), group, file), buf,
		       sizeof(buf)) > 0 && !strcmp(buf, want);
}

/*
 * As USER, given d and d/x (chowned): d's caps are refused (the root's
 * files are not USER's), d/x's allowed, d/x/y's files are not USER's at
 * all. Only max_descendants of d is USER's: so d/x's max_depth is
 * refused, as its parent's max_depth is not writable.
 */
static int write_caps(pid_t unused)
{
	if (rg_set("d", "max_descendants", "max") != -EPERM)
		return 1;
	/* Not the user's file: refused at open. */
	if (rg_set("d", "max_depth", "max") != -EACCES)
		return 2;
	if (rg_set("d/x", "max_descendants", "1") != 0 ||
	    !cap_is("d/x", "max_descendants", "1\n"))
		return 3;
	if (rg_set("d/x", "max_descendants", "max") != 0 ||
	    !cap_is("d/x", "max_descendants", "max\n"))
		return 4;
	/* The user's file, but not the parent's. */
	if (rg_set("d/x", "max_depth", "max") != -EPERM)
		return 5;
	if (rg_set("d/x/y", "max_descendants", "5") != -EACCES)
		return 6;
	/* d's cap holds below whatever d/x's says: 3 below d at most. */
	if (rg_mkdir("d/x/z") != 0)
		return 7;
	if (rg_mkdir("d/w") != -EAGAIN || rg_mkdir("d/x/v") != -EAGAIN)
		return 8;
	return 0;
}

/*
 * As cgroup v2, where the delegated user owns the directory but not the
 * top's cgroup.max.* files: a cap is written only by who may also write
 * the parent's file of the same name, so a user given a subtree cannot
 * raise the caps of its top, only set those below.
 */
TEST_F(priv, delegated_user_sets_caps_below_the_top_only)
{
	static const char * const groups[] = { "d", "d/x", "d/x/y" };
	char before[SNAP], after[SNAP], p[256];

	ASSERT_EQ(0, rg_mkdir("d"));
	ASSERT_EQ(0, rg_mkdir("d/x"));
	ASSERT_EQ(0, rg_mkdir("d/x/y"));
	chown_group(_metadata, "d");
	chown_group(_metadata, "d/x");
	ASSERT_EQ(0, chown(rg_path(p, sizeof(p), "d", "max_depth"), 0, 0));
	ASSERT_EQ(0, rg_set("d", "max_descendants", "3"));
	ASSERT_EQ(0, rg_set("d", "max_depth", "4"));
	ASSERT_EQ(0, rg_set("d/x", "max_depth", "2"));
	before[0] = '\0';
	ASSERT_EQ(0, rg_snapshot_all(groups, ARRAY_SIZE(groups), before,
				     SNAP));
	EXPECT_EQ(0, as_user(NO_CAP, write_caps, 0));
	EXPECT_TRUE(cap_is("d", "max_descendants", "3\n"));
	EXPECT_TRUE(cap_is("d", "max_depth", "4\n"));
	EXPECT_TRUE(cap_is("d/x", "max_depth", "2\n"));
	EXPECT_TRUE(cap_is("d/x/y", "max_descendants", "max\n"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/d/x/z"));
	EXPECT_FALSE(rg_exists(RG_ROOT "/d/w"));
	EXPECT_FALSE(rg_exists(RG_ROOT "/d/x/v"));
	/* The user's refused writes changed nothing else. */
	EXPECT_EQ(0, rg_rmdir("d/x/z"));
	after[0] = '\0';
	ASSERT_EQ(0, rg_snapshot_all(groups, ARRAY_SIZE(groups), after, SNAP));
	EXPECT_STREQ(before, after);
	/* Root (CAP_DAC_OVERRIDE) may write any of them. */
	EXPECT_EQ(0, rg_set("d", "max_depth", "5"));
	EXPECT_TRUE(cap_is("d", "max_depth", "5\n"));
	EXPECT_EQ(0, rg_set("d/x/y", "max_depth", "0"));
	EXPECT_TRUE(cap_is("d/x/y", "max_depth", "0\n"));
}

/* The user's own task, created as USER by the test; its group's path. */
static const char *target;

/* As USER: move the task to target; 0 moved, 1 EPERM, 2 other. */
static int move_to_target(pid_t pid)
{
	int ret = rg_move(target, pid);

	return ret == 0 ? 0 : ret == -EPERM ? 1 : 2;
}

/* /proc/pid/res_group is /group (group "" is the root). */
static bool in_group(pid_t pid, const char *group)
{
	char p[64], buf[256], want[256];

	snprintf(p, sizeof(p), "/proc/%d/res_group", pid);
	snprintf(want, sizeof(want), "/%s\n", group);
	return rg_read(p, buf, sizeof(buf)) > 0 && !strcmp(buf, want);
}

/*
 * The user's move of its own task, from d to group: 0 moved (now there),
 * 1 refused with EPERM (still in d, nothing else changed), 2 otherwise.
 */
static int user_moves(pid_t own, const char *group)
{
	char before[SNAP], after[SNAP];
	int ret;

	if (rg_move("d", own) || state(before))
		return 2;
	target = group;
	ret = as_user(NO_CAP, move_to_target, own);
	if (ret == 0)
		return in_group(own, group) ? 0 : 2;
	if (ret != 1 || !in_group(own, "d") || state(after))
		return 2;
	return strcmp(before, after) ? 2 : 1;
}

static pid_t sleeper_as(uid_t ruid, uid_t euid);

/*
 * The ceiling rule: with rg_cpu.ko loaded, a user may move a task into a
 * non-root group only below a cpu ceiling (max_shares) on that group or
 * an ancestor below the root; the root's own does not count.
 */
TEST_F(priv, ceiling_rule_with_cpu)
{
	pid_t own = sleeper_as(USER, USER);
	char p[256];

	ASSERT_LT(0, own);
	delegate_d(_metadata);
	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "d/x", "members"), 0666));
	ASSERT_EQ(0, rg_mkdir("d/x/1"));
	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "d/x/1", "members"), 0666));
	ASSERT_EQ(0, rg_insmod("module/rg_cpu.ko", NULL));
	EXPECT_EQ(1, user_moves(own, "d/x"));
	EXPECT_EQ(1, user_moves(own, "d/x/1"));
	ASSERT_EQ(0, rg_set("", "shares", "res=cpu,max_shares=50"));
	EXPECT_EQ(1, user_moves(own, "d/x"));
	/* A ceiling on d: everything below it. */
	ASSERT_EQ(0, rg_set("d", "shares", "res=cpu,max_shares=50"));
	EXPECT_EQ(0, user_moves(own, "d/x"));
	EXPECT_EQ(0, user_moves(own, "d/x/1"));
	EXPECT_EQ(0, user_moves(own, "d/y"));
	/* On d/x only: d/x and d/x/1, not d/y. */
	ASSERT_EQ(0, rg_set("d", "shares", "res=cpu,max_shares=-3"));
	ASSERT_EQ(0, rg_set("d/x", "shares", "res=cpu,max_shares=0"));
	EXPECT_EQ(1, user_moves(own, "d/y"));
	EXPECT_EQ(0, user_moves(own, "d/x"));
	EXPECT_EQ(0, user_moves(own, "d/x/1"));
	/* A move to the group the task is in changes nothing: allowed. */
	ASSERT_EQ(0, rg_move("d/y", own));
	target = "d/y";
	EXPECT_EQ(0, as_user(NO_CAP, move_to_target, own));
	EXPECT_TRUE(in_group(own, "d/y"));
	/* Into the root: always (its members made the user's). */
	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "", "members"), 0666));
	EXPECT_EQ(0, user_moves(own, ""));
	/* Root itself needs no ceiling. */
	EXPECT_EQ(0, rg_move("d/y", own));
	EXPECT_TRUE(in_group(own, "d/y"));
	rg_move("", getpid());
	rg_kill(own);
}

/*
 * As USER owning d and d/x: a cpu guarantee or ceiling of d (the top of
 * his subtree) needs the root's shares, d's divisor and d/x's cpu shares
 * only his own; the test controller (not taking precedence over cgroup)
 * only his own too. Each refused write is EPERM. Bit i of the exit status
 * set: check i failed.
 */
static int write_cpu_shares(pid_t unused)
{
	static const struct {
		const char *group, *str;
		int err;
	} w[] = {
		{ "d", "res=cpu,max_shares=-3", -EPERM },
		{ "d", "res=cpu,max_shares=100", -EPERM },
		{ "d", "res=cpu,min_shares=10", -EPERM },
		/* The value it has: nothing changes, nothing to check. */
		{ "d", "res=cpu,max_shares=50", 0 },
		{ "d", "res=cpu,child_shares_divisor=200", 0 },
		{ "d/x", "res=cpu,max_shares=20", 0 },
		{ "d/x", "res=cpu,max_shares=-3", 0 },
		{ "d", "res=test,max_shares=7", 0 },
	};
	int i, bad = 0;

	for (i = 0; i < (int)ARRAY_SIZE(w); i++)
		if (rg_set(w[i].group, "shares", w[i].str) != w[i].err)
			bad |= 1 << i;
	return bad;
}

static int lift_d(pid_t unused)
{
	return !!rg_set("d", "shares", "res=cpu,max_shares=-3");
}

/*
 * Delegation (docs): a delegated user cannot lift the cpu ceiling of his
 * subtree's top (which his moves into it were allowed under): a cpu
 * min_shares or max_shares change needs the parent's shares too, unless
 * the writer has CAP_SYS_RESOURCE. (Before the fix every write below was
 * allowed.)
 */
TEST_F(priv, delegated_user_cannot_lift_the_ceiling_of_his_top)
{
	char p[256], buf[512];

	ASSERT_EQ(0, rg_insmod("module/rg_cpu.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("d"));
	ASSERT_EQ(0, rg_mkdir("d/x"));
	chown_group(_metadata, "d");
	chown_group(_metadata, "d/x");
	ASSERT_EQ(0, rg_set("d", "shares", "res=cpu,max_shares=50"));
	EXPECT_EQ(0, as_user(NO_CAP, write_cpu_shares, 0));
	ASSERT_LT(0, rg_read(rg_path(p, sizeof(p), "d", "shares"), buf,
			     sizeof(buf)));
	EXPECT_NE(NULL,
		  strstr(buf, "res=cpu,min_shares=-3,max_shares=50,child_shares_divisor=200\n"));
	EXPECT_NE(NULL, strstr(buf, "res=test,min_shares=-3,max_shares=7,"));
	EXPECT_EQ(1, as_user(CAP_SYS_NICE, lift_d, 0));
	EXPECT_EQ(0, as_user(CAP_SYS_RESOURCE, lift_d, 0));
	ASSERT_LT(0, rg_read(rg_path(p, sizeof(p), "d", "shares"), buf,
			     sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "res=cpu,min_shares=-3,max_shares=-3,"));
}

/*
 * rg_kmem.ko takes precedence over memory cgroups too: with rg_cpu.ko and
 * rg_kmem.ko loaded, a move needs a ceiling of each (on the group or an
 * ancestor below the root), and one of them is not enough.
 */
TEST_F(priv, ceiling_rule_with_kmem)
{
	pid_t own = sleeper_as(USER, USER);

	ASSERT_LT(0, own);
	delegate_d(_metadata);
	ASSERT_EQ(0, rg_insmod("module/rg_kmem.ko", NULL));
	EXPECT_EQ(1, user_moves(own, "d/x"));
	ASSERT_EQ(0, rg_set("d", "shares", "res=kmem,max_shares=50"));
	EXPECT_EQ(0, user_moves(own, "d/x"));
	ASSERT_EQ(0, rg_move("", own));
	ASSERT_EQ(0, rg_insmod("module/rg_cpu.ko", NULL));
	EXPECT_EQ(1, user_moves(own, "d/x"));
	ASSERT_EQ(0, rg_set("d/x", "shares", "res=cpu,max_shares=50"));
	EXPECT_EQ(0, user_moves(own, "d/x"));
	EXPECT_EQ(1, user_moves(own, "d/y"));
	/* Without a kmem ceiling the cpu one is not enough. */
	ASSERT_EQ(0, rg_move("", own));
	ASSERT_EQ(0, rg_set("d", "shares", "res=kmem,max_shares=-3"));
	EXPECT_EQ(1, user_moves(own, "d/x"));
	rg_move("", getpid());
	rg_kill(own);
}

/* Without rg_cpu.ko (numtasks does not take precedence): no ceiling needed. */
TEST_F(priv, ceiling_rule_needs_cpu_loaded)
{
	pid_t own = sleeper_as(USER, USER);

	ASSERT_LT(0, own);
	delegate_d(_metadata);
	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	EXPECT_EQ(0, user_moves(own, "d/x"));
	EXPECT_EQ(0, user_moves(own, "d/y"));
	/* Unloaded again: the rule is gone with it. */
	ASSERT_EQ(0, rg_insmod("module/rg_cpu.ko", NULL));
	EXPECT_EQ(1, user_moves(own, "d/x"));
	ASSERT_EQ(0, rg_rmmod("rg_cpu"));
	EXPECT_EQ(0, user_moves(own, "d/x"));
	rg_move("", getpid());
	rg_kill(own);
}

/*
 * CAP_SYS_RESOURCE spares the ceiling rule; CAP_SYS_NICE spares the uid
 * and common-ancestor checks, but not this.
 */
TEST_F(priv, ceiling_rule_spared_by_cap_sys_resource_only)
{
	char p[256];

	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "b", "members"), 0666));
	ASSERT_EQ(0, rg_insmod("module/rg_cpu.ko", NULL));
	ASSERT_EQ(0, state(self->before));
	EXPECT_EQ(1, as_user(CAP_SYS_NICE, move_to_b, self->root_task));
	ASSERT_EQ(0, state(self->after));
	EXPECT_STREQ(self->before, self->after);
	EXPECT_TRUE(in_group(self->root_task, "a"));
	EXPECT_EQ(0, as_user(CAP_SYS_RESOURCE, move_to_b, self->root_task));
	EXPECT_TRUE(in_group(self->root_task, "b"));
	/* A ceiling lets CAP_SYS_NICE through. */
	ASSERT_EQ(0, rg_move("a", self->root_task));
	ASSERT_EQ(0, rg_set("b", "shares", "res=cpu,max_shares=100"));
	EXPECT_EQ(0, as_user(CAP_SYS_NICE, move_to_b, self->root_task));
	EXPECT_TRUE(in_group(self->root_task, "b"));
}

/*
 * Run fn(arg) in a child as root (uid 0: it may write every file) with
 * every capability but cap; its exit status (0: passed).
 */
static int as_root_without(int cap, int (*fn)(pid_t), pid_t arg)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (syscall(SYS_capget, &hdr, data))
			_exit(100);
		data[cap / 32].effective &= ~(1u << (cap % 32));
		data[cap / 32].permitted &= ~(1u << (cap % 32));
		data[cap / 32].inheritable &= ~(1u << (cap % 32));
		if (syscall(SYS_capset, &hdr, data))
			_exit(100);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return rg_exit_code(status);
}

/* A cpu field of a group's shares. */
static long cpu_share(const char *group, const char *key)
{
	return rg_get(group, "shares", "cpu", key);
}

/*
 * As USER with CAP_SYS_NICE only, owning d and d/x: a cpu ceiling on d/x
 * (USER's to set, as USER owns d's shares), then a move of root's task
 * into d/x. 0: the move refused with EPERM; 1: moved (and USER lifts the
 * ceiling again: the task is then under no ceiling at all); 2, 3: other.
 */
static int ceiling_then_move(pid_t pid)
{
	int ret;

	if (rg_set("d/x", "shares", "res=cpu,max_shares=50"))
		return 2;
	ret = rg_move("d/x", pid);
	if (ret == 0) {
		rg_set("d/x", "shares", "res=cpu,max_shares=-3");
		return 1;
	}
	return ret == -EPERM ? 0 : 3;
}

/* As USER: d/x's cpu ceiling lifted; 0, 1 EPERM, 2 other. */
static int lift_dx(pid_t unused)
{
	int ret = rg_set("d/x", "shares", "res=cpu,max_shares=-3");

	return ret == 0 ? 0 : ret == -EPERM ? 1 : 2;
}

/*
 * The ceiling rule counts only a ceiling the mover cannot change, one on
 * a group whose parent's shares the mover may not write: a ceiling the
 * mover set itself, and may lift again, is no ceiling. So USER
 * (CAP_SYS_NICE, not CAP_SYS_RESOURCE), given d and d/x, cannot take
 * root's task out of cgroup's cpu control with a ceiling of its own on
 * d/x; it can once the administrator's ceiling is on d, and may then
 * lift d/x's, as d's still holds. (Before the fix the move was allowed,
 * and the lift after it left the task under no ceiling.)
 */
TEST_F(priv, a_ceiling_the_mover_may_lift_does_not_count)
{
	ASSERT_EQ(0, rg_insmod("module/rg_cpu.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("d"));
	ASSERT_EQ(0, rg_mkdir("d/x"));
	chown_group(_metadata, "d");
	chown_group(_metadata, "d/x");
	EXPECT_EQ(0, as_user(CAP_SYS_NICE, ceiling_then_move,
			     self->root_task));
	EXPECT_TRUE(in_group(self->root_task, "a"));
	EXPECT_EQ(50, cpu_share("d/x", "max_shares"));
	/* The administrator's ceiling, on d: USER may not change it. */
	ASSERT_EQ(0, rg_set("d", "shares", "res=cpu,max_shares=50"));
	target = "d/x";
	EXPECT_EQ(0, as_user(CAP_SYS_NICE, move_to_target, self->root_task));
	EXPECT_TRUE(in_group(self->root_task, "d/x"));
	EXPECT_EQ(0, as_user(CAP_SYS_NICE, lift_dx, 0));
	EXPECT_EQ(-3, cpu_share("d/x", "max_shares"));
}

/* lift_as_root()'s write. */
static const char *lift_group, *lift_str;

static int write_lift(pid_t unused)
{
	int ret = rg_set(lift_group, "shares", lift_str);

	return ret == 0 ? 0 : ret == -EPERM ? 1 : 2;
}

/* As root without CAP_SYS_RESOURCE: str to group's shares; as write_lift(). */
static int lift_as_root(const char *group, const char *str)
{
	lift_group = group;
	lift_str = str;
	return as_root_without(CAP_SYS_RESOURCE, write_lift, 0);
}

/*
 * The ceiling rule holds after the move too: a shares write by a writer
 * without CAP_SYS_RESOURCE that lifts a ceiling (max_shares raised or
 * DONT_CARE, or the divisor lowered below a child's ceiling) is refused
 * with EPERM while a task lies below it that would have no ceiling left
 * that the writer cannot change. Root without CAP_SYS_RESOURCE may
 * change every ceiling (the files are its own): it may lower d's or d/x's
 * ceilings, not lift them, while root's task, moved there by USER under
 * d's ceiling, is in d/x; it may once the task is gone. (Before the fix
 * every write below was allowed.)
 */
TEST_F(priv, a_ceiling_tasks_rely_on_cannot_be_lifted)
{
	static const char * const groups[] = { "d", "d/x" };
	char before[SNAP], after[SNAP];

	ASSERT_EQ(0, rg_insmod("module/rg_cpu.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("d"));
	ASSERT_EQ(0, rg_mkdir("d/x"));
	chown_group(_metadata, "d");
	chown_group(_metadata, "d/x");
	ASSERT_EQ(0, rg_set("d", "shares", "res=cpu,max_shares=50"));
	ASSERT_EQ(0, rg_set("d/x", "shares", "res=cpu,max_shares=40"));
	target = "d/x";
	ASSERT_EQ(0, as_user(CAP_SYS_NICE, move_to_target, self->root_task));
	ASSERT_TRUE(in_group(self->root_task, "d/x"));

	ASSERT_EQ(0, rg_snapshot(groups, 2, "shares", before, SNAP));
	EXPECT_EQ(1, lift_as_root("d", "res=cpu,max_shares=-3"));
	EXPECT_EQ(1, lift_as_root("d", "res=cpu,max_shares=80"));
	EXPECT_EQ(1, lift_as_root("d", "res=cpu,child_shares_divisor=50"));
	EXPECT_EQ(1, lift_as_root("d/x", "res=cpu,max_shares=-3"));
	EXPECT_EQ(1, lift_as_root("d/x", "res=cpu,max_shares=45"));
	ASSERT_EQ(0, rg_snapshot(groups, 2, "shares", after, SNAP));
	EXPECT_STREQ(before, after);
	EXPECT_TRUE(in_group(self->root_task, "d/x"));

	/* Lowering a ceiling, or raising a divisor, lifts nothing. */
	EXPECT_EQ(0, lift_as_root("d", "res=cpu,max_shares=30"));
	EXPECT_EQ(0, lift_as_root("d", "res=cpu,child_shares_divisor=200"));
	EXPECT_EQ(0, lift_as_root("d/x", "res=cpu,max_shares=20"));
	EXPECT_EQ(30, cpu_share("d", "max_shares"));
	EXPECT_EQ(200, cpu_share("d", "child_shares_divisor"));
	EXPECT_EQ(20, cpu_share("d/x", "max_shares"));
	/* USER may lift d/x's: d's holds, and USER cannot change it. */
	EXPECT_EQ(0, as_user(NO_CAP, lift_dx, 0));
	EXPECT_EQ(-3, cpu_share("d/x", "max_shares"));

	/* No task below d any more: any lift. */
	ASSERT_EQ(0, rg_move("a", self->root_task));
	EXPECT_EQ(0, lift_as_root("d", "res=cpu,max_shares=-3"));
	EXPECT_EQ(-3, cpu_share("d", "max_shares"));
}

/*
 * A shares write is judged with the credentials of the file's opener, as
 * a members write is: USER, who owns d's shares but not the root's,
 * opens d's shares, becomes root again (a setuid-root program handed the
 * descriptor, or a root process given it as its stdout) and writes: d's
 * cpu ceiling may not be lifted. 0: refused with EPERM, as it must be;
 * 1-3: setup; 4: written.
 */
static int setuid_shares_writer(pid_t unused)
{
	static const char lift[] = "res=cpu,max_shares=-3";
	char p[256];
	int fd, err;

	if (setresgid(USER, USER, 0) || setresuid(USER, USER, 0))
		return 1;
	fd = open(rg_path(p, sizeof(p), "d", "shares"), O_WRONLY);
	if (fd < 0)
		return 2;
	if (setresuid(-1, 0, -1) || geteuid() != 0)
		return 3;
	err = write(fd, lift, strlen(lift)) == (ssize_t)strlen(lift) ?
	      0 : errno;
	close(fd);
	return err == EPERM ? 0 : 4;
}

/*
 * The opener's rights, not the writer's, both ways: opened by USER and
 * written by root, refused; opened by root and written by USER without
 * any capability, allowed. (Before the fix, shares used the writer's:
 * both came out the other way.)
 */
TEST_F(priv, shares_writes_are_judged_by_the_opener)
{
	static const char lift[] = "res=cpu,max_shares=-3";
	pid_t child;
	char p[256];
	int fd, status;

	ASSERT_EQ(0, rg_insmod("module/rg_cpu.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("d"));
	chown_group(_metadata, "d");
	ASSERT_EQ(0, rg_set("d", "shares", "res=cpu,max_shares=50"));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(setuid_shares_writer(0));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, rg_exit_code(status));
	EXPECT_EQ(50, cpu_share("d", "max_shares"));

	ASSERT_EQ(0, rg_set("d", "shares", "res=cpu,max_shares=50"));
	fd = open(rg_path(p, sizeof(p), "d", "shares"), O_WRONLY);
	ASSERT_LE(0, fd);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(become_user(NO_CAP) ? 100 :
		      write(fd, lift, strlen(lift)) == (ssize_t)strlen(lift) ?
		      0 : errno);
	close(fd);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, rg_exit_code(status));
	EXPECT_EQ(-3, cpu_share("d", "max_shares"));
}

/*
 * A child of ours, in a, with real uid ruid and effective (and saved) uid
 * euid and no capability, sleeping until killed; its pid, or -1.
 */
static pid_t sleeper_as(uid_t ruid, uid_t euid)
{
	int pipefd[2];
	pid_t pid;
	char c;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (setresgid(USER, USER, USER) || setresuid(ruid, euid, euid) ||
		    write(pipefd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	if (pid > 0 && read(pipefd[0], &c, 1) != 1) {
		rg_kill(pid);
		pid = -1;
	}
	close(pipefd[0]);
	if (pid > 0 && rg_move("a", pid)) {
		rg_kill(pid);
		pid = -1;
	}
	return pid;
}

/* Run fn(arg) in a child with uids ruid/euid and no capability. */
static int as_uids(uid_t ruid, uid_t euid, int (*fn)(pid_t), pid_t arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(setresgid(USER, USER, USER) || setresuid(ruid, euid, euid) ?
		      100 : fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return rg_exit_code(status);
}

TEST_F(priv, move_needs_the_tasks_real_uid_not_an_effective_one)
{
	pid_t real_user = sleeper_as(USER, OTHER);
	pid_t real_other = sleeper_as(OTHER, USER);
	char p[256];

	ASSERT_LT(0, real_user);
	ASSERT_LT(0, real_other);
	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "b", "members"), 0666));
	/*
	 * a -> b also needs the common ancestor's members (the root's; the
	 * module's reload in the teardown gives it back its 0644).
	 */
	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "", "members"), 0666));
	/* Refused: the writer's effective uid, or the task's, matches. */
	ASSERT_EQ(0, state(self->before));
	EXPECT_EQ(1, as_uids(OTHER, USER, move_to_b, real_user));
	EXPECT_EQ(1, as_uids(USER, USER, move_to_b, real_other));
	ASSERT_EQ(0, state(self->after));
	EXPECT_STREQ(self->before, self->after);
	/* Allowed: the real uids match, whatever the effective ones. */
	EXPECT_EQ(0, as_uids(USER, OTHER, move_to_b, real_user));
	EXPECT_EQ(1, rg_is_member("b", real_user));
	EXPECT_EQ(0, as_uids(OTHER, USER, move_to_b, real_other));
	EXPECT_EQ(1, rg_is_member("b", real_other));
	rg_kill(real_user);
	rg_kill(real_other);
}

/*
 * The init of a new pid namespace: moves a child (pid 2 there) and itself
 * to a by their pids in the namespace, checks what a's members shows
 * there, reports on wfd, then waits to be killed. outside: a task of the
 * parent namespace that is in a too.
 */
static int ns_init(int wfd, pid_t outside)
{
	char buf[256], s[32];
	pid_t kid = rg_sleeper();
	int step = 0;

	if (getpid() != 1 || kid != 2)
		step = 1;
	else if (rg_move("a", 2) || rg_move("a", 1))
		step = 2;
	else if (rg_read(RG_ROOT "/a/members", buf, sizeof(buf)) < 0 ||
		 strcmp(buf, "2\n1\n"))
		step = 3;
	/* The outside task's pid means nothing here. */
	else if (snprintf(s, sizeof(s), "%d", outside) &&
		 rg_set("b", "members", s) != -ESRCH)
		step = 4;
	if (write(wfd, &step, sizeof(step)) != sizeof(step))
		return 1;
	for (;;)
		pause();
}

TEST_F(priv, pid_namespace_sees_and_moves_by_its_own_pids)
{
	char buf[256], line[32];
	int pipefd[2], step = -1;
	pid_t init;

	ASSERT_EQ(0, pipe(pipefd));
	init = syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL,
		       NULL);
	ASSERT_LE(0, init);
	if (init == 0)
		_exit(ns_init(pipefd[1], self->root_task));
	ASSERT_EQ((ssize_t)sizeof(step), read(pipefd[0], &step, sizeof(step)));
	EXPECT_EQ(0, step);
	/* Outside, the same group lists all three by their pids here. */
	ASSERT_LT(0, rg_read(RG_ROOT "/a/members", buf, sizeof(buf)));
	EXPECT_EQ(3, rg_count_lines(buf)) TH_LOG("%s", buf);
	snprintf(line, sizeof(line), "%d\n", init);
	EXPECT_NE(NULL, strstr(buf, line));
	EXPECT_EQ(1, rg_is_member("a", self->root_task));
	/* The write of the outside pid moved nothing. */
	ASSERT_LE(0, rg_read(RG_ROOT "/b/members", buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	kill(init, SIGKILL);
	waitpid(init, NULL, 0);
}

/* Write @pid to @fd; 0, or the errno. */
static int write_pid(int fd, pid_t pid)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%d\n", pid);

	return write(fd, line, n) == n ? 0 : errno;
}

/*
 * A setuid-root program that writes to a members file its user opened:
 * open as USER (saved uid root), become root again, write root's task.
 * 0: refused with EPERM, as it must be; 1-3: setup; 4: moved.
 */
static int setuid_writer(pid_t pid)
{
	char p[256];
	int fd, err;

	if (setresgid(USER, USER, 0) || setresuid(USER, USER, 0))
		return 1;
	fd = open(rg_path(p, sizeof(p), "b", "members"), O_WRONLY);
	if (fd < 0)
		return 2;
	if (setresuid(-1, 0, -1) || geteuid() != 0)
		return 3;
	err = write_pid(fd, pid);
	close(fd);
	return err == EPERM ? 0 : 4;
}

/*
 * A move is judged with the credentials of the members file's opener, as
 * cgroup's writes are: a descriptor passed to a privileged program grants
 * nothing its opener did not have, and one opened by root and passed down
 * to an unprivileged process keeps root's rights.
 */
TEST_F(priv, moves_are_judged_by_the_opener_not_the_writer)
{
	char p[256];
	pid_t child;
	int fd, status;

	ASSERT_EQ(0, chmod(rg_path(p, sizeof(p), "b", "members"), 0666));
	ASSERT_EQ(0, state(self->before));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(setuid_writer(self->root_task));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, rg_exit_code(status));
	ASSERT_EQ(0, state(self->after));
	EXPECT_STREQ(self->before, self->after);
	EXPECT_EQ(1, rg_is_member("a", self->root_task));

	/* Opened by root, written by a user without any capability. */
	fd = open(rg_path(p, sizeof(p), "b", "members"), O_WRONLY);
	ASSERT_LE(0, fd);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(become_user(NO_CAP) ? 100 :
		      write_pid(fd, self->root_task));
	close(fd);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, rg_exit_code(status));
	EXPECT_EQ(1, rg_is_member("b", self->root_task));
}

/* Wait for a byte on @fd: 0 when it came, -1 at end of file. */
static int wait_go(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

/*
 * In a child: close every end still open (not -1) of the @n pipes of
 * @fds but @keep1 and @keep2 (-1: none).
 */
static void close_pipes_but(int (*fds)[2], int n, int keep1, int keep2)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < 2; j++)
			if (fds[i][j] >= 0 && fds[i][j] != keep1 &&
			    fds[i][j] != keep2)
				close(fds[i][j]);
}

/* @pid's state letter in /proc/<pid>/stat, or 0. */
static char proc_state(pid_t pid)
{
	char buf[512];
	const char *st = rg_proc_stat(pid, buf, sizeof(buf));

	return st ? *st : 0;
}

/*
 * The EBUSY of a delegated move (docs: "members"): root's rmdir of d/z
 * holds d's directory lock while it waits for a fork into d/z, which the
 * stall module holds; meanwhile the user's move d -> d/x (common
 * ancestor d) tries d's lock about 100 ticks, gives up with EBUSY, and
 * moves nothing. Once the fork goes on, the rmdir ends and the same move
 * succeeds. The user's task and both writers are forked before the rmdir
 * starts.
 */
TEST_F(priv, delegated_move_is_busy_while_an_rmdir_holds_the_ancestor)
{
	/* go to the user, go to the rmdir, the user's sleeper's pid */
	int p[3][2], status, i, seen, ret;
	pid_t user, rmdirer, straddler, c, own = -1;

	delegate_d(_metadata);
	ASSERT_EQ(0, rg_mkdir("d/z"));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pipe2(p[i], O_CLOEXEC));
	/* The user's sleeper, orphaned when the user exits, comes to us. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	if (rg_module_loaded("rg_fork_stall"))
		ASSERT_EQ(0, rg_rmmod("rg_fork_stall"));
	ASSERT_EQ(0, rg_insmod(RG_STALL_KO, "hold=1"));

	/*
	 * The user: its own sleeper in d (its pipes closed: a failure ends
	 * our reads), then the move when told.
	 */
	user = fork();
	ASSERT_LE(0, user);
	if (user == 0) {
		int go = p[0][0], out = p[2][1];

		close_pipes_but(p, 3, go, out);
		if (become_user(NO_CAP))
			_exit(100);
		own = fork();
		if (own == 0) {
			close(go);
			close(out);
			for (;;)
				pause();
		}
		if (own <= 0 || write(out, &own, sizeof(own)) != sizeof(own))
			_exit(101);
		close(out);
		if (wait_go(go))
			_exit(101);
		ret = rg_move("d/x", own);
		_exit(ret == -EBUSY ? 0 : ret == 0 ? 102 : 103);
	}
	self->kids[0] = user;
	close(p[2][1]);
	p[2][1] = -1;
	ASSERT_EQ((ssize_t)sizeof(own), read(p[2][0], &own, sizeof(own)));
	self->kids[1] = own;
	ASSERT_EQ(1, rg_is_member("d", own));
	rmdirer = fork();
	ASSERT_LE(0, rmdirer);
	if (rmdirer == 0) {
		close_pipes_but(p, 3, p[1][0], -1);
		_exit(wait_go(p[1][0]) ? 100 : rg_rmdir("d/z") ? 1 : 0);
	}
	self->kids[2] = rmdirer;
	/* rg_straddler: in d/z, its fork held (the rmdir waits for it). */
	straddler = fork();
	ASSERT_LE(0, straddler);
	if (straddler == 0) {
		close_pipes_but(p, 3, -1, -1);
		prctl(PR_SET_NAME, "rg_straddler");
		if (rg_move("d/z", getpid()))
			_exit(1);
		c = fork();
		if (c == 0)
			_exit(0);
		_exit(c < 0 || waitpid(c, NULL, 0) != c);
	}
	self->kids[3] = straddler;
	ASSERT_EQ(0, rg_stall_wait(1));
	ASSERT_EQ(1, write(p[1][1], "x", 1));
	/*
	 * The rmdir waits (for the fork into d/z, holding d's lock): asleep in D
	 * at three reads 50 ms apart (not a moment's allocation before it).
	 */
	for (i = 0, seen = 0; i < 1000 && seen < 3; i++) {
		seen = proc_state(rmdirer) == 'D' ? seen + 1 : 0;
		usleep(50000);
	}
	ASSERT_EQ(3, seen);
	ASSERT_EQ(1, write(p[0][1], "x", 1));
	ASSERT_EQ(user, waitpid(user, &status, 0));
	self->kids[0] = 0;
	EXPECT_EQ(0, rg_exit_code(status));	/* EBUSY */
	/* (/proc: a lookup in d would wait for d's lock) */
	EXPECT_TRUE(in_group(own, "d"));
	EXPECT_EQ('D', proc_state(rmdirer));	/* it was busy all along */
	/* The fork goes on, the rmdir ends, the move now succeeds. */
	ASSERT_EQ(0, rg_write(RG_STALL_PARAM "hold", "0"));
	ASSERT_EQ(rmdirer, waitpid(rmdirer, &status, 0));
	self->kids[2] = 0;
	EXPECT_EQ(0, rg_exit_code(status));
	ASSERT_EQ(straddler, waitpid(straddler, &status, 0));
	self->kids[3] = 0;
	EXPECT_EQ(0, rg_exit_code(status));
	EXPECT_EQ(0, rg_stall_get("timeouts"));
	target = "d/x";
	EXPECT_EQ(0, as_user(NO_CAP, move_to_target, own));
	EXPECT_EQ(1, rg_is_member("d/x", own));
	rg_kill(own);
	self->kids[1] = 0;
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	rg_move("", getpid());
}

TEST_HARNESS_MAIN

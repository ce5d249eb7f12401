// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures (failslab and fail_page_alloc, debug kernel): each
 * operation is run with its 1st, 2nd, ... fault point failing, through
 * /proc/thread-self/fail-nth, until it runs through without reaching the
 * armed one. Every run must succeed or fail with ENOMEM; a failed run must
 * leave the state as it was; the next operations must work. kmemleak, at
 * the end of the guest run, finds what a failure path did not free.
 *
 * fail-nth fails only allocations of the arming task, so the fault lands
 * in the syscall under test and nowhere else.
 *
 * Quick tier (RG_TIER=quick): every operation still runs until it gets
 * through, but after its first QUICK_ALL fault points only every
 * QUICK_STRIDE-th is failed (the full tier fails each one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define DEBUGFS "/sys/kernel/debug/"
#define STATE 8192
/* No operation here has nearly this many fault points. */
#define MAX_POINTS 20000
#define QUICK_ALL 10
#define QUICK_STRIDE 24

static const char * const knobs[][3] = {
	/* file, value for the test, value to restore */
	{ "failslab/ignore-gfp-wait", "0", "1" },
	{ "failslab/verbose", "0", "2" },
	{ "fail_page_alloc/ignore-gfp-wait", "0", "1" },
	{ "fail_page_alloc/ignore-gfp-highmem", "0", "1" },
	/* Its default, 1, would spare every single-page allocation. */
	{ "fail_page_alloc/min-order", "0", "1" },
	{ "fail_page_alloc/verbose", "0", "2" },
};

struct ctx {
	int nth;		/* /proc/thread-self/fail-nth */
	int ko;			/* the module to load, opened */
	pid_t sleeper;
	char before[STATE], after[STATE];
};

FIXTURE(faults) {
	struct ctx c;
};

/* Groups, their shares, stats, members and caps; whether numtasks is loaded. */
static void state(char *buf)
{
	static const char * const groups[] = { "a", "a/b" };
	size_t len;

	snprintf(buf, STATE, "groups: %d %d %d, numtasks: %d\n",
		 rg_exists(RG_ROOT), rg_exists(RG_ROOT "/a"),
		 rg_exists(RG_ROOT "/a/b"), rg_module_loaded("rg_numtasks"));
	/* The root's members and stats change with kernel threads. */
	len = strlen(buf);
	if (rg_snapshot((const char * const []){ "" }, 1, "shares", buf + len,
			STATE - len) |
	    rg_snapshot_all(groups, ARRAY_SIZE(groups), buf, STATE))
		fprintf(stderr, "# a snapshot could not be read whole\n");
}

static int set_knob(const char *file, const char *val)
{
	char p[128];

	snprintf(p, sizeof(p), DEBUGFS "%s", file);
	return rg_write(p, val);
}

FIXTURE_SETUP(faults)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		ASSERT_EQ(0, set_knob(knobs[i][0], knobs[i][1]));
	self->c.nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->c.nth);
	self->c.ko = -1;
	rg_remove_all_groups();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl.ko", NULL));
	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,min_shares=10"));
	self->c.sleeper = rg_sleeper();
	ASSERT_LT(0, self->c.sleeper);
	ASSERT_EQ(0, rg_move("a", self->c.sleeper));
}

FIXTURE_TEARDOWN(faults)
{
	size_t i;

	rg_kill(self->c.sleeper);
	rg_remove_all_groups();
	rg_unload_all();
	if (self->c.ko >= 0)
		close(self->c.ko);
	close(self->c.nth);
	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		set_knob(knobs[i][0], knobs[i][2]);
}

/* Make the nth fault point of this thread fail (0: none). */
static void arm(int fd, int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", n);

	if (pwrite(fd, s, len, 0) != len)
		abort();
}

/* The fault points still to go before the armed one; 0 once it failed. */
static int left(int fd)
{
	char s[16] = "";

	if (pread(fd, s, sizeof(s) - 1, 0) <= 0)
		abort();
	return atoi(s);
}

struct op {
	const char *name;
	int (*run)(struct ctx *c);	/* 0 or -errno */
	void (*undo)(struct ctx *c);	/* after a success */
};

/* The fault point to fail after n: each one, or in the quick tier a sample. */
static int next_point(int n)
{
	return n < QUICK_ALL ? n + 1 : n + rg_scaled(1, QUICK_STRIDE);
}

/*
 * Fail each fault point of op in turn (a sample of them in the quick
 * tier) until op runs through without reaching the armed one. The number
 * of fault points found.
 */
static int inject(struct __test_metadata *_metadata,
		  struct ctx *c, const struct op *op)
{
	int n, ret, remaining, failed = 0, tried = 0;
	/* c->before holds the state now (a failed run read it, unchanged). */
	bool fresh = false;

	for (n = 1; n < MAX_POINTS; n = next_point(n)) {
		tried++;
		if (!fresh)
			state(c->before);
		fresh = false;
		arm(c->nth, n);
		ret = op->run(c);
		remaining = left(c->nth);
		arm(c->nth, 0);
		EXPECT_TRUE(ret == 0 || ret == -ENOMEM)
			TH_LOG("%s, fault point %d: %s", op->name, n,
			       strerror(-ret));
		if (ret == 0) {
			/* (Counters in stats may have moved: no compare.) */
			op->undo(c);
		} else {
			failed++;
			state(c->after);
			EXPECT_STREQ(c->before, c->after)
				TH_LOG("%s, fault point %d: state changed",
				       op->name, n);
			fresh = !strcmp(c->before, c->after);
		}
		if (remaining)
			break;
		if (_metadata->passed == 0)
			return n;
	}
	EXPECT_EQ(0, ret) TH_LOG("%s: still failing with no fault", op->name);
	EXPECT_LT(n, MAX_POINTS);
	TH_LOG("%s: about %d fault points (%d failed in turn), %d runs failed with ENOMEM",
	       op->name, n - remaining, tried - 1, failed);
	return n - remaining;
}

static int do_mkdir(struct ctx *c)
{
	return mkdir(RG_ROOT "/a/b", 0755) ? -errno : 0;
}

static void undo_mkdir(struct ctx *c)
{
	rmdir(RG_ROOT "/a/b");
}

TEST_F_TIMEOUT(faults, mkdir_fails_cleanly_when_allocations_fail, 600)
{
	static const struct op op = { "mkdir", do_mkdir, undo_mkdir };

	EXPECT_LT(0, inject(_metadata, &self->c, &op));
	/* Later operations work. */
	ASSERT_EQ(0, rg_mkdir("a/b"));
	ASSERT_EQ(0, rg_move("a/b", self->c.sleeper));
	EXPECT_EQ(1, rg_get("a/b", "stats", "numtasks", "held"));
	EXPECT_EQ(1, rg_get("a", "stats", "numtasks", "held"));
}

/* A module load, from the file opened before arming. */
static int do_load(struct ctx *c)
{
	return syscall(SYS_finit_module, c->ko, "", 0) ? -errno : 0;
}

static void undo_numtasks(struct ctx *c)
{
	rg_rmmod("rg_numtasks");
}

TEST_F_TIMEOUT(faults, controller_registration_fails_cleanly, 900)
{
	static const struct op op = {
		"register numtasks", do_load, undo_numtasks,
	};
	/* Registration allocates shares for every group, at every depth. */
	ASSERT_EQ(0, rg_mkdir("a/b"));
	ASSERT_EQ(0, rg_rmmod("rg_numtasks"));
	self->c.ko = rg_open_module("module/rg_numtasks.ko");
	ASSERT_LE(0, self->c.ko);
	EXPECT_LT(0, inject(_metadata, &self->c, &op));
	ASSERT_EQ(0, do_load(&self->c));
	EXPECT_EQ(1, rg_get("a", "stats", "numtasks", "held"));
	EXPECT_EQ(0, rg_get("a/b", "stats", "numtasks", "held"));
}

static void undo_res_groups(struct ctx *c)
{
	rg_rmmod("res_groups");
}

TEST_F_TIMEOUT(faults, module_load_fails_cleanly, 900)
{
	static const struct op op = {
		"load res_groups", do_load, undo_res_groups,
	};
	char buf[64];

	rg_kill(self->c.sleeper);
	self->c.sleeper = rg_sleeper();
	rg_remove_all_groups();
	rg_unload_all();
	self->c.ko = rg_open_module("module/res_groups.ko");
	ASSERT_LE(0, self->c.ko);
	EXPECT_LT(0, inject(_metadata, &self->c, &op));
	ASSERT_EQ(0, do_load(&self->c));
	ASSERT_LT(0, rg_read("/proc/self/res_group", buf, sizeof(buf)));
	EXPECT_STREQ("/\n", buf);
	ASSERT_EQ(0, rg_mkdir("a"));
	EXPECT_EQ(0, rg_move("a", self->c.sleeper));
}

static void undo_kmem(struct ctx *c)
{
	rg_rmmod("rg_kmem");
}

/*
 * rg_kmem.ko gives every group but the root an objcg: its registration, and
 * a mkdir while it is loaded, fail cleanly at each allocation.
 */
TEST_F_TIMEOUT(faults, kmem_registration_and_mkdir_fail_cleanly, 900)
{
	static const struct op load = {
		"register kmem", do_load, undo_kmem,
	};
	static const struct op mk = { "mkdir with kmem", do_mkdir, undo_mkdir };

	ASSERT_EQ(0, rg_mkdir("a/b"));
	self->c.ko = rg_open_module("module/rg_kmem.ko");
	ASSERT_LE(0, self->c.ko);
	EXPECT_LT(0, inject(_metadata, &self->c, &load));
	ASSERT_EQ(0, do_load(&self->c));
	EXPECT_EQ(0, rg_get("a/b", "stats", "kmem", "held"));
	ASSERT_EQ(0, rg_rmdir("a/b"));
	EXPECT_LT(0, inject(_metadata, &self->c, &mk));
	ASSERT_EQ(0, rg_mkdir("a/b"));
	ASSERT_EQ(0, rg_move("a/b", self->c.sleeper));
	EXPECT_EQ(1, rg_get("a/b", "stats", "numtasks", "held"));
	EXPECT_LT(0, rg_get("a/b", "stats", "kmem", "limit"));
}

static int do_shares(struct ctx *c)
{
	return rg_set("a", "shares", "res=numtasks,min_shares=20,max_shares=90");
}

static void undo_shares(struct ctx *c)
{
	rg_set("a", "shares", "res=numtasks,min_shares=10,max_shares=-3");
}

static int do_move(struct ctx *c)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", c->sleeper);
	return rg_set("", "members", s);
}

static void undo_move(struct ctx *c)
{
	rg_move("a", c->sleeper);
}

TEST_F_TIMEOUT(faults, shares_write_and_move_fail_cleanly, 600)
{
	static const struct op ops[] = {
		{ "shares write", do_shares, undo_shares },
		{ "move", do_move, undo_move },
	};

	EXPECT_LT(0, inject(_metadata, &self->c, &ops[0]));
	EXPECT_LT(0, inject(_metadata, &self->c, &ops[1]));
	EXPECT_EQ(0, do_shares(&self->c));
	EXPECT_EQ(0, do_move(&self->c));
}

TEST_HARNESS_MAIN

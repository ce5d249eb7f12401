// SPDX-License-Identifier: GPL-2.0
/*
 * The memory controller (docs/res_groups.rst, "The memory controller"):
 * shadow cgroups named after their groups and holding the knobs the
 * shares give, a group's OOM killing inside the group only (a memory
 * cgroup OOM, not a global one), the barrier, precedence over memory
 * cgroups, charges staying after a move and going to the parent at
 * rmdir, unloading with charges outstanding, bad input, loading without
 * cgroup2's memory controller, failures of the shadow side (a tmpfs
 * mounted on a shadow's directory) and shadows removed from outside, and
 * the guarantee under a sibling's pressure (page cache of a memory-backed
 * null_blk device), measured with and without it. Then (fixture mem_kept,
 * which keeps the modules loaded from one case to the next): a hog with
 * swap on zram, a buffered write and read-back on ext4 past the limit,
 * kernel memory with and without rg_kmem.ko, fork/exit/move storms, and
 * the mm owner exiting during an allocation.
 *
 * Method: the test (the parent) stays in the root group and in the root
 * memory cgroup; hogs are forked children that place themselves (cgroup,
 * then group), touch anonymous memory and report through their exit
 * status, or hold it until killed. The guest has no swap (but while the
 * swap case runs): a hog above its limit can only be OOM-killed.
 *
 * Numbers: total_memory 1 GiB, the root's divisor 1024: a child of the
 * root with max_shares=64 has a limit of 64 MiB.
 *
 * Quick tier (RG_TIER=quick): every amount a quarter (a 32 MiB hog in a
 * 16 MiB group...): touching memory is what takes the time (about 16 MiB
 * a second in the debug guest under TCG). mem_kept's cases: a sixteenth
 * (new_scale()), the storms 0.3 s; the ext4 case is the full tier's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define MEMORY_KO "module/rg_memory.ko"
#define PARAMS "total_memory=1073741824"
#define IO_KO "module/rg_io.ko"
#define PARAM "/sys/module/rg_memory/parameters/"
#define SHADOWS "/sys/fs/cgroup/res_groups"
#define CGT "/sys/fs/cgroup/rgm_test"
#define MIB (1024L * 1024)

/* 1, or 4 in the quick tier: SM(x) is x MiB scaled down by it. */
static long scale = 1;
#define SM(x) ((x) * MIB / scale)

/* The value of key in the memory line of group's stats. */
static long ms(const char *group, const char *key)
{
	return rg_get(group, "stats", "memory", key);
}

/* Write res=memory,KEY=VAL to group's shares; 0 or -errno. */
static int shares_set(const char *group, const char *key, long val)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "res=memory,%s=%ld", key, val);
	return rg_set(group, "shares", buf);
}

/* A shadow's file as a number ("max": LONG_MAX); -1 if unreadable. */
static long shadow_val(const char *group, const char *file)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), SHADOWS "/%s/%s", group, file);
	if (rg_read(path, buf, sizeof(buf)) < 0)
		return -1;
	if (!strncmp(buf, "max", 3))
		return LONG_MAX;
	return atol(buf);
}

/* Touch @bytes of fresh anonymous memory: where, or MAP_FAILED. */
static char *touch_map(long bytes)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p != MAP_FAILED)
		for (i = 0; i < bytes; i += 4096)
			p[i] = 1;
	return p;
}

/* touch_map(), kept; 0, or -1 if mmap fails. */
static int touch(long bytes)
{
	return touch_map(bytes) == MAP_FAILED ? -1 : 0;
}

/*
 * A child that joins @cgroup (unless NULL), then @group (unless NULL),
 * touches @bytes and exits 0 (or, with @hold, writes a byte to the pipe
 * and sleeps until killed). Exit codes 10-12: a step failed.
 */
static pid_t hog(const char *cgroup, const char *group, long bytes,
		 int hold)
{
	char path[PATH_MAX], pid[32];
	int p[2], ok;
	pid_t child;
	char c;

	if (pipe(p))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		close(p[0]);
		snprintf(pid, sizeof(pid), "%d", getpid());
		if (cgroup) {
			snprintf(path, sizeof(path), "%s/cgroup.procs",
				 cgroup);
			if (rg_write(path, pid))
				_exit(10);
		}
		if (group && rg_move(group, getpid()))
			_exit(11);
		if (touch(bytes))
			_exit(12);
		if (!hold)
			_exit(0);
		if (write(p[1], "x", 1) != 1)
			_exit(13);
		for (;;)
			pause();
	}
	close(p[1]);
	ok = !hold || read(p[0], &c, 1) == 1;
	close(p[0]);
	if (!ok) {
		rg_kill(child);
		return -1;
	}
	return child;
}

/*
 * hog() with @hold that stays told: each byte written to *@cmd makes it
 * touch @bytes more and write a byte back to *@rep (hog_more()). The
 * caller closes both.
 */
static pid_t hog_told(const char *group, long bytes, int *cmd, int *rep)
{
	int c2h[2], h2c[2];
	pid_t child;
	char c;

	if (pipe(c2h))
		return -1;
	if (pipe(h2c)) {
		close(c2h[0]);
		close(c2h[1]);
		return -1;
	}
	child = fork();
	if (child < 0) {
		close(c2h[0]);
		close(c2h[1]);
		close(h2c[0]);
		close(h2c[1]);
		return -1;
	}
	if (!child) {
		close(c2h[1]);
		close(h2c[0]);
		if (rg_move(group, getpid()))
			_exit(11);
		do {
			if (touch(bytes))
				_exit(12);
			if (write(h2c[1], "x", 1) != 1)
				_exit(13);
		} while (read(c2h[0], &c, 1) == 1);
		_exit(0);
	}
	close(c2h[0]);
	close(h2c[1]);
	*cmd = c2h[1];
	*rep = h2c[0];
	if (read(*rep, &c, 1) != 1) {
		rg_kill(child);
		close(*cmd);
		close(*rep);
		return -1;
	}
	return child;
}

/* Make a hog_told() hog touch its amount again; 0 once done, or -1. */
static int hog_more(int cmd, int rep)
{
	char c;

	if (write(cmd, "x", 1) != 1 || read(rep, &c, 1) != 1)
		return -1;
	return 0;
}

static int wait_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* The kernel log from the last occurrence of @mark on, into buf. */
static const char *klog_since(char *buf, int size, const char *mark)
{
	int n = klogctl(3, buf, size - 1);	/* SYSLOG_ACTION_READ_ALL */
	char *p, *last = NULL;

	if (n < 0)
		return "";
	buf[n] = '\0';
	for (p = buf; (p = strstr(p, mark)); p++)
		last = p;
	return last ? last : buf;
}

/* Write a line to the kernel log (as root, through /dev/kmsg). */
static void klog_mark(const char *mark)
{
	rg_write("/dev/kmsg", mark);
}

FIXTURE(mem) {
	pid_t held[2];
};

FIXTURE_SETUP(mem)
{
	char mark[128];

	/* Each test's start in the kernel log (and its time). */
	snprintf(mark, sizeof(mark), "rg_test_memory: %s", _metadata->name);
	klog_mark(mark);
	scale = rg_scaled(1, 4);
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod(MEMORY_KO, PARAMS));
	ASSERT_EQ(0, rg_set("", "shares",
			    "res=memory,child_shares_divisor=1024"));
	ASSERT_EQ(0, rg_mkdir("g"));
	snprintf(mark, sizeof(mark), "res=memory,max_shares=%ld", 64 / scale);
	ASSERT_EQ(0, rg_set("g", "shares", mark));
	self->held[0] = 0;
	self->held[1] = 0;
}

FIXTURE_TEARDOWN(mem)
{
	int i;

	for (i = 0; i < 2; i++)
		if (self->held[i] > 0)
			rg_kill(self->held[i]);
	/* What the failure tests mounted over shadows. */
	umount2(SHADOWS "/g/c", MNT_DETACH);
	umount2(SHADOWS "/g", MNT_DETACH);
	umount2(SHADOWS "/h", MNT_DETACH);
	rg_remove_all_groups();
	rg_unload_all();
	rmdir(CGT);
}

/*
 * Make the shadow of @group fail every write (its files vanish under an
 * empty tmpfs mounted on its directory); 0 or -errno.
 */
static int shadow_break(const char *group)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), SHADOWS "/%s", group);
	return mount("rgm_break", path, "tmpfs", 0, NULL) ? -errno : 0;
}

static int shadow_mend(const char *group)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), SHADOWS "/%s", group);
	return umount2(path, 0) ? -errno : 0;
}

/*
 * Shadows: one directory per group at its path, its knobs from the
 * shares, gone with the group; the stats line's amounts.
 */
TEST_F(mem, shadows_and_knobs)
{
	char buf[4096], line[128];

	EXPECT_EQ(SM(64), shadow_val("g", "memory.max"));
	EXPECT_EQ(LONG_MAX, shadow_val("g", "memory.high"));
	EXPECT_EQ(0, shadow_val("g", "memory.low"));
	EXPECT_EQ(SM(64), ms("g", "limit"));
	EXPECT_EQ(SM(64), ms("g", "barrier"));
	EXPECT_EQ(0, ms("g", "guarantee"));
	EXPECT_EQ(1024 * MIB, ms("", "limit"));

	/* A child: a guarantee, a limit of its own, nested directory. */
	ASSERT_EQ(0, rg_mkdir("g/c"));
	EXPECT_EQ(1, rg_exists(SHADOWS "/g/c"));
	EXPECT_EQ(LONG_MAX, shadow_val("g/c", "memory.max"));
	EXPECT_EQ(SM(64), ms("g/c", "limit"));
	ASSERT_EQ(0, shares_set("g", "min_shares", 32 / scale));
	ASSERT_EQ(0, rg_set("g/c", "shares",
			    "res=memory,min_shares=25,max_shares=50"));
	EXPECT_EQ(SM(32), ms("g", "guarantee"));
	EXPECT_EQ(SM(32), shadow_val("g", "memory.low"));
	EXPECT_EQ(SM(8), ms("g/c", "guarantee"));
	EXPECT_EQ(SM(8), shadow_val("g/c", "memory.low"));
	EXPECT_EQ(SM(32), ms("g/c", "limit"));
	EXPECT_EQ(SM(32), shadow_val("g/c", "memory.max"));
	/* The parent's divisor scales the child's amounts. */
	ASSERT_EQ(0, rg_set("g", "shares",
			    "res=memory,child_shares_divisor=200"));
	EXPECT_EQ(SM(16), shadow_val("g/c", "memory.max"));
	EXPECT_EQ(SM(4), shadow_val("g/c", "memory.low"));

	/* The stats line, exactly these keys in this order. */
	ASSERT_LT(0, rg_read(rg_path(buf, sizeof(buf), "g/c", "stats"), buf,
			     sizeof(buf)));
	EXPECT_EQ(0, strncmp(buf, "res=memory,held=", 16));
	EXPECT_NE(NULL, strstr(buf, ",maxheld="));
	snprintf(line, sizeof(line), ",barrier=%ld,limit=%ld,guarantee=%ld,anon=",
		 SM(16), SM(16), SM(4));
	EXPECT_NE(NULL, strstr(buf, line));
	EXPECT_NE(NULL, strstr(buf, ",file="));
	EXPECT_NE(NULL, strstr(buf, ",kernel="));
	EXPECT_NE(NULL, strstr(buf, ",swap="));
	EXPECT_NE(NULL, strstr(buf, ",failcnt=0,highcnt=0,killcnt=0\n"));

	ASSERT_EQ(0, rg_rmdir("g/c"));
	EXPECT_EQ(0, rg_exists(SHADOWS "/g/c"));

	/* A name cgroup cannot have for a directory: no group either. */
	EXPECT_EQ(-ENOTDIR, rg_mkdir("g/memory.max"));
	EXPECT_EQ(0, rg_exists(RG_ROOT "/g/memory.max"));
	EXPECT_EQ(64 / scale, rg_get("g", "shares", "memory", "max_shares"));
}

/*
 * A 128 MiB hog in a 64 MiB group is killed by a memory-cgroup OOM
 * (never a global one), counted; a root-group task in the same cgroup
 * lives.
 */
TEST_F_TIMEOUT(mem, oom_kills_inside_the_group, 90)
{
	static char log[1 << 20];
	const char *since;
	char line[128];
	pid_t h;
	int st;

	self->held[0] = hog(NULL, NULL, SM(16), 1);
	ASSERT_LT(0, self->held[0]);
	klog_mark("rg_test_memory: oom start");
	h = hog(NULL, "g", SM(128), 0);
	ASSERT_LT(0, h);
	st = wait_status(h);
	ASSERT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(SIGKILL, WTERMSIG(st));
	EXPECT_LE(1, ms("g", "killcnt"));
	EXPECT_LE(1, ms("g", "failcnt"));
	EXPECT_GE(SM(64), ms("g", "maxheld"));
	EXPECT_LT(SM(32), ms("g", "maxheld"));
	/* The root group's task, in the same cgroup, lives. */
	EXPECT_EQ(0, kill(self->held[0], 0));
	since = klog_since(log, sizeof(log), "rg_test_memory: oom start");
	snprintf(line, sizeof(line),
		 "Memory cgroup out of memory: Killed process %d ", h);
	EXPECT_NE(NULL, strstr(since, line));
	EXPECT_NE(NULL, strstr(since, "oom_memcg=/res_groups/g,"));
	EXPECT_EQ(NULL, strstr(since, "global_oom"));
	snprintf(line, sizeof(line), "\nOut of memory: Killed process");
	EXPECT_EQ(NULL, strstr(since, line));
	/* The group's stats reset: maxheld to held, counts to 0. */
	ASSERT_EQ(0, rg_set("g", "stats", "res=memory"));
	EXPECT_EQ(0, ms("g", "killcnt"));
	EXPECT_EQ(0, ms("g", "failcnt"));
	EXPECT_GT(SM(8), ms("g", "maxheld"));
}

/* Above the barrier: highcnt counts, the shadow's memory.high is set. */
TEST_F(mem, barrier)
{
	pid_t h;
	int st;

	ASSERT_EQ(0, rg_write(PARAM "barrier_permille", "500"));
	EXPECT_EQ(SM(32), ms("g", "barrier"));
	/* A parameter write queues; a shares write waits for the queue. */
	ASSERT_EQ(0, shares_set("g", "max_shares", 64 / scale));
	EXPECT_EQ(SM(32), shadow_val("g", "memory.high"));
	EXPECT_EQ(0, ms("g", "highcnt"));
	/* A little above: throttled a little, not killed. */
	h = hog(NULL, "g", SM(33), 0);
	ASSERT_LT(0, h);
	st = wait_status(h);
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	EXPECT_LE(1, ms("g", "highcnt"));
	EXPECT_EQ(0, ms("g", "killcnt"));
	ASSERT_EQ(0, rg_write(PARAM "barrier_permille", "1000"));
	ASSERT_EQ(0, shares_set("g", "max_shares", 64 / scale));
	EXPECT_EQ(LONG_MAX, shadow_val("g", "memory.high"));
}

/*
 * A task of a 160 MiB group in a 32 MiB memory cgroup gets 100 MiB; a
 * root-group task in that cgroup is still held to 32 MiB.
 */
TEST_F_TIMEOUT(mem, precedence_over_memory_cgroups, 90)
{
	char buf[32];
	pid_t h;
	int st;

	if (mkdir(CGT, 0755) && errno != EEXIST)
		SKIP(return, "no cgroup2 at /sys/fs/cgroup");
	snprintf(buf, sizeof(buf), "%ld", SM(32));
	ASSERT_EQ(0, rg_write(CGT "/memory.max", buf));
	ASSERT_EQ(0, rg_mkdir("big"));
	ASSERT_EQ(0, shares_set("big", "max_shares", 160 / scale));
	klog_mark("rg_test_memory: hog in big");
	h = hog(CGT, "big", SM(100), 0);
	ASSERT_LT(0, h);
	st = wait_status(h);
	klog_mark("rg_test_memory: hog in big done");
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	EXPECT_LE(SM(100), ms("big", "maxheld"));
	h = hog(CGT, NULL, SM(100), 0);
	ASSERT_LT(0, h);
	st = wait_status(h);
	klog_mark("rg_test_memory: hog in the root group done");
	ASSERT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(SIGKILL, WTERMSIG(st));
	EXPECT_EQ(0, ms("big", "killcnt"));
	EXPECT_EQ(0, rmdir(CGT));
}

/* Charges stay after a move; an rmdir leaves the parent's held alone. */
TEST_F(mem, charges_stay_and_go_to_the_parent)
{
	long held, before;

	ASSERT_EQ(0, rg_mkdir("g/c"));
	self->held[0] = hog(NULL, "g/c", SM(16), 1);
	ASSERT_LT(0, self->held[0]);
	EXPECT_LE(SM(16), ms("g/c", "held"));
	EXPECT_LE(SM(16), ms("g", "held"));
	/* Moved to the root group: the charges stay. */
	ASSERT_EQ(0, rg_move("", self->held[0]));
	held = ms("g/c", "held");
	EXPECT_LE(SM(16), held);
	before = ms("g", "held");
	ASSERT_EQ(0, rg_rmdir("g/c"));
	EXPECT_EQ(0, rg_exists(SHADOWS "/g/c"));
	/* memcg moved them to the parent's shadow (within a few pages). */
	EXPECT_LE(before - 64 * 4096, ms("g", "held"));
	EXPECT_GE(before + 64 * 4096, ms("g", "held"));
}

/*
 * Unloading with charges outstanding: no splat or leak (the runner
 * checks), the shadows are removed; a reload starts clean.
 */
TEST_F(mem, unload_with_charges_outstanding)
{
	ASSERT_EQ(0, rg_mkdir("g/c"));
	self->held[0] = hog(NULL, "g/c", SM(16), 1);
	ASSERT_LT(0, self->held[0]);
	EXPECT_LE(SM(16), ms("g", "held"));
	ASSERT_EQ(0, rg_rmmod("rg_memory"));
	EXPECT_EQ(0, rg_exists(SHADOWS "/g"));
	EXPECT_EQ(0, rg_exists(SHADOWS "/g/c"));
	/* The task goes on, charged to its own cgroup now. */
	EXPECT_EQ(0, kill(self->held[0], 0));
	ASSERT_EQ(0, rg_insmod(MEMORY_KO, PARAMS));
	EXPECT_EQ(1, rg_exists(SHADOWS "/g/c"));
	EXPECT_GT(1 * MIB, ms("g", "held"));
	EXPECT_GT(1 * MIB, ms("g/c", "held"));
	EXPECT_EQ(0, ms("g", "killcnt"));
	/* The shares start over from the defaults. */
	EXPECT_EQ(LONG_MAX, shadow_val("g", "memory.max"));
	rg_kill(self->held[0]);
	self->held[0] = 0;
}

/* Every bad parameter and shares value refused; nothing changed. */
TEST_F(mem, bad_input_changes_nothing)
{
	static const char * const bad_total[] = {
		"0", "-1", "abc", "1x", "18446744073709551616",
	};
	static const char * const bad_permille[] = {
		"1001", "-1", "abc", "4294967296",
	};
	static const char * const bad_shares[] = {
		"res=memory,max_shares=-2", "res=memory,max_shares=-4",
		"res=memory,max_shares=1025", "res=memory,min_shares=2000",
		"res=memory,min_shares=65,max_shares=64",
		"res=memory,child_shares_divisor=0",
		"res=memory,max_shares=x", "res=memory,bogus=1",
		"res=memory,max_shares=1,max_shares=2",
	};
	static const char * const groups[] = { "", "g" };
	char before[8192], after[8192], buf[64];
	size_t i;

	ASSERT_EQ(0, rg_snapshot(groups, 2, "shares", before,
				 sizeof(before)));
	for (i = 0; i < ARRAY_SIZE(bad_total); i++)
		EXPECT_EQ(-EINVAL, rg_write(PARAM "total_memory",
					    bad_total[i]));
	for (i = 0; i < ARRAY_SIZE(bad_permille); i++)
		EXPECT_EQ(-EINVAL, rg_write(PARAM "barrier_permille",
					    bad_permille[i]));
	for (i = 0; i < ARRAY_SIZE(bad_shares); i++)
		EXPECT_EQ(-EINVAL, rg_set("g", "shares", bad_shares[i]));
	EXPECT_EQ(-EINVAL, rg_set("g", "stats", "res=memory,x"));
	/* Below what the groups hold. */
	self->held[0] = hog(NULL, "g", SM(8), 1);
	ASSERT_LT(0, self->held[0]);
	EXPECT_EQ(-EINVAL, rg_write(PARAM "total_memory", "4096"));
	ASSERT_LT(0, rg_read(PARAM "total_memory", buf, sizeof(buf)));
	EXPECT_STREQ("1073741824\n", buf);
	ASSERT_LT(0, rg_read(PARAM "barrier_permille", buf, sizeof(buf)));
	EXPECT_STREQ("1000\n", buf);
	EXPECT_EQ(SM(64), shadow_val("g", "memory.max"));
	rg_kill(self->held[0]);
	self->held[0] = 0;
	ASSERT_EQ(0, rg_snapshot(groups, 2, "shares", after, sizeof(after)));
	EXPECT_STREQ(before, after);

	/* At load: each refused, nothing left behind. */
	ASSERT_EQ(0, rg_rmmod("rg_memory"));
	EXPECT_EQ(-EINVAL, rg_insmod(MEMORY_KO, "total_memory=0"));
	EXPECT_EQ(-EINVAL, rg_insmod(MEMORY_KO, "total_memory=abc"));
	EXPECT_EQ(-EINVAL, rg_insmod(MEMORY_KO, "barrier_permille=1001"));
	EXPECT_EQ(0, rg_module_loaded("rg_memory"));
	EXPECT_EQ(0, rg_exists(SHADOWS "/g"));
}

/*
 * Without cgroup2's memory controller where shadow_root points, loading
 * fails (ENOENT: no such parent; ENODEV: not cgroup2) and says why.
 */
TEST_F(mem, load_needs_cgroup2_memory)
{
	static char log[1 << 20];
	const char *since;

	rg_remove_all_groups();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko",
			       "shadow_root=/run/rgm_none/x"));
	klog_mark("rg_test_memory: load start");
	EXPECT_EQ(-ENOENT, rg_insmod(MEMORY_KO, NULL));
	ASSERT_EQ(0, rg_rmmod("res_groups"));
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko",
			       "shadow_root=/run/rgm_tmpfs"));
	EXPECT_EQ(-ENODEV, rg_insmod(MEMORY_KO, NULL));
	rmdir("/run/rgm_tmpfs");
	since = klog_since(log, sizeof(log), "rg_test_memory: load start");
	EXPECT_NE(NULL, strstr(since, "rg_memory: "));
	EXPECT_NE(NULL, strstr(since, "no cgroup v2 memory controller"));
	EXPECT_EQ(0, rg_module_loaded("rg_memory"));
}

/*
 * A shares write whose shadow side fails returns the shadow's errno
 * and changes nothing: the shares and every shadow's files read back as
 * before (g's memory.max, written before its child's write failed, is
 * written back). The same write again, the shadow mended, writes.
 */
TEST_F(mem, failed_shadow_write_changes_nothing)
{
	char before[4096], after[4096];
	static const char * const groups[] = { "", "g", "g/c" };

	ASSERT_EQ(0, rg_mkdir("g/c"));
	ASSERT_EQ(0, shares_set("g/c", "max_shares", 50));
	ASSERT_EQ(SM(32), shadow_val("g/c", "memory.max"));
	ASSERT_EQ(0, rg_snapshot(groups, 3, "shares", before,
				 sizeof(before)));
	ASSERT_EQ(0, shadow_break("g/c"));
	EXPECT_EQ(-ENOENT, shares_set("g", "max_shares", 32 / scale));
	ASSERT_EQ(0, rg_snapshot(groups, 3, "shares", after, sizeof(after)));
	EXPECT_STREQ(before, after);
	EXPECT_EQ(SM(64), ms("g", "limit"));
	EXPECT_EQ(SM(32), ms("g/c", "limit"));
	EXPECT_EQ(SM(64), shadow_val("g", "memory.max"));
	ASSERT_EQ(0, shadow_mend("g/c"));
	EXPECT_EQ(SM(32), shadow_val("g/c", "memory.max"));
	/* The same value again: written this time, child and all. */
	EXPECT_EQ(0, shares_set("g", "max_shares", 32 / scale));
	EXPECT_EQ(SM(32), shadow_val("g", "memory.max"));
	EXPECT_EQ(SM(16), shadow_val("g/c", "memory.max"));
	EXPECT_EQ(SM(16), ms("g/c", "limit"));
	/* A guarantee's write fails the same way. */
	ASSERT_EQ(0, shadow_break("g"));
	EXPECT_EQ(-ENOENT, shares_set("g", "min_shares", 16 / scale));
	EXPECT_EQ(-3, rg_get("g", "shares", "memory", "min_shares"));
	EXPECT_EQ(0, ms("g", "guarantee"));
	ASSERT_EQ(0, shadow_mend("g"));
	EXPECT_EQ(0, shadow_val("g", "memory.low"));
	EXPECT_EQ(0, shares_set("g", "min_shares", 16 / scale));
	EXPECT_EQ(SM(16), shadow_val("g", "memory.low"));
}

/*
 * A shadow write that fails belongs to its caller only: one queued by a
 * parameter write (nobody waits for it) fails no later mkdir or shares
 * write of another group, and is written again by the next shares write.
 */
TEST_F(mem, a_failed_write_fails_only_its_own_caller)
{
	ASSERT_EQ(0, shadow_break("g"));
	ASSERT_EQ(0, rg_write(PARAM "barrier_permille", "500"));
	EXPECT_EQ(0, rg_mkdir("h"));
	EXPECT_EQ(1, rg_exists(SHADOWS "/h"));
	EXPECT_EQ(0, shares_set("h", "max_shares", 32 / scale));
	EXPECT_EQ(SM(16), shadow_val("h", "memory.high"));
	ASSERT_EQ(0, shadow_mend("g"));
	/* g's memory.high was not written: the next shares write does. */
	EXPECT_EQ(LONG_MAX, shadow_val("g", "memory.high"));
	EXPECT_EQ(0, shares_set("g", "max_shares", 64 / scale));
	EXPECT_EQ(SM(32), shadow_val("g", "memory.high"));
}

/* A child that writes @key=@val to @group's shares; exits with -errno. */
static pid_t shares_set_child(const char *group, const char *key, long val)
{
	pid_t pid = fork();

	if (!pid)
		_exit(-shares_set(group, key, val));
	return pid;
}

/*
 * Hold the shadow write queue (ordered): a barrier_permille write queues
 * a memory.high write to h's shadow, where a FIFO under a tmpfs makes the
 * worker's open wait for a reader (fifo_release()).
 */
static int queue_hold(const char *permille)
{
	return rg_write(PARAM "barrier_permille", permille);
}

static void fifo_release(void)
{
	int fd = open(SHADOWS "/h/memory.high", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		close(fd);
}

/*
 * A failed shares write undoes itself only if no other write came in
 * between: W1's shadow write fails (g/c broken), W2 writes the same
 * values meanwhile and succeeds (g/c mended before its requests run):
 * W2's write stays, W1's undo does not take it back. The shadow write
 * queue is held (queue_hold()) so that the order is W1's requests, a
 * hold, W2's requests.
 */
TEST_F(mem, a_failed_write_undoes_no_later_write)
{
	pid_t w1, w2;
	int i, st1 = -1, st2 = -1;

	ASSERT_EQ(0, rg_mkdir("g/c"));
	ASSERT_EQ(0, rg_mkdir("h"));
	ASSERT_EQ(0, shares_set("g/c", "max_shares", 50));
	/* A ceiling: h's memory.high follows barrier_permille. */
	ASSERT_EQ(0, shares_set("h", "max_shares", 32 / scale));
	ASSERT_EQ(0, shadow_break("h"));
	ASSERT_EQ(0, mkfifo(SHADOWS "/h/memory.high", 0600));
	ASSERT_EQ(0, queue_hold("500"));
	ASSERT_EQ(0, shadow_break("g/c"));
	w1 = shares_set_child("g", "max_shares", 32 / scale);
	ASSERT_LT(0, w1);
	/* W1 committed (its requests queued behind the hold). */
	for (i = 0; i < 1000; i++) {
		if (rg_get("g", "shares", "memory", "max_shares") ==
		    32 / scale)
			break;
		usleep(10000);
	}
	ASSERT_EQ(32 / scale, rg_get("g", "shares", "memory", "max_shares"));
	ASSERT_EQ(0, queue_hold("400"));
	w2 = shares_set_child("g", "max_shares", 32 / scale);
	ASSERT_LT(0, w2);
	/* Time for W2 to commit (if it did not, W1 undoes before it). */
	usleep(500000);
	/* W1's requests run: g/c's fails; W1 returns or undoes. */
	fifo_release();
	for (i = 0; i < 1000; i++) {
		if (waitpid(w1, &st1, WNOHANG) == w1 ||
		    rg_get("g", "shares", "memory", "max_shares") != 32 / scale)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, shadow_mend("g/c"));
	/* W2's requests (and an undo's) run. */
	fifo_release();
	if (st1 == -1)
		EXPECT_EQ(w1, waitpid(w1, &st1, 0));
	EXPECT_EQ(w2, waitpid(w2, &st2, 0));
	EXPECT_EQ(ENOENT, WEXITSTATUS(st1));
	EXPECT_EQ(0, WEXITSTATUS(st2));
	EXPECT_EQ(32 / scale, rg_get("g", "shares", "memory", "max_shares"));
	EXPECT_EQ(SM(32), shadow_val("g", "memory.max"));
	EXPECT_EQ(SM(16), shadow_val("g/c", "memory.max"));
	ASSERT_EQ(0, shadow_mend("h"));
}

/*
 * Shadows removed from outside (systemd removes a delegated unit's tree
 * when it restarts it): the next shares write, mkdir or move below them
 * makes them again, with their knobs, and the group's tasks charge them:
 * those there before (pointed at the new shadows) and new ones.
 */
TEST_F(mem, shadows_removed_from_outside_are_made_again)
{
	int cmd, rep;

	ASSERT_EQ(0, rg_mkdir("g/c"));
	ASSERT_EQ(0, shares_set("g", "min_shares", 32 / scale));
	ASSERT_EQ(0, shares_set("g/c", "min_shares", 25));
	self->held[0] = hog_told("g/c", SM(4), &cmd, &rep);
	ASSERT_LT(0, self->held[0]);
	ASSERT_EQ(0, rmdir(SHADOWS "/g/c"));
	ASSERT_EQ(0, rmdir(SHADOWS "/g"));
	/* A shares write: made again, with every knob. */
	EXPECT_EQ(0, shares_set("g", "max_shares", 32 / scale));
	EXPECT_EQ(SM(32), shadow_val("g", "memory.max"));
	EXPECT_EQ(1, rg_exists(SHADOWS "/g/c"));
	EXPECT_EQ(SM(32), shadow_val("g", "memory.low"));
	EXPECT_EQ(SM(8), shadow_val("g/c", "memory.low"));
	EXPECT_EQ(LONG_MAX, shadow_val("g/c", "memory.max"));
	EXPECT_EQ(SM(32), ms("g/c", "limit"));
	/* The hog there before charges the new shadow what it touches. */
	EXPECT_EQ(0, hog_more(cmd, rep));
	EXPECT_LE(SM(4), shadow_val("g/c", "memory.current"));
	EXPECT_LE(SM(4), ms("g/c", "held"));
	EXPECT_LE(SM(4), ms("g", "held"));
	/* So does a new task. */
	self->held[1] = hog(NULL, "g/c", SM(4), 1);
	ASSERT_LT(0, self->held[1]);
	EXPECT_LE(SM(8), shadow_val("g/c", "memory.current"));
	EXPECT_LE(SM(8), ms("g/c", "held"));
	/* A mkdir below a removed shadow (the hog_told() one exits too). */
	close(cmd);
	close(rep);
	rg_kill(self->held[0]);
	rg_kill(self->held[1]);
	self->held[0] = 0;
	self->held[1] = 0;
	ASSERT_EQ(0, rmdir(SHADOWS "/g/c"));
	EXPECT_EQ(0, rg_mkdir("g/c/d"));
	EXPECT_EQ(1, rg_exists(SHADOWS "/g/c/d"));
	EXPECT_EQ(0, rg_rmdir("g/c/d"));
	EXPECT_EQ(0, rg_rmdir("g/c"));
	EXPECT_EQ(0, rg_exists(SHADOWS "/g/c"));
}

/* A memory-backed null_blk device of NULLB_MIB MiB (configfs). */
#define NULLB_CFG "/sys/kernel/config/nullb/rgm_nullb"
#define NULLB_DEV "/run/rgm_nullb"
#define NULLB_MIB 512

/* Make it; 0, or -1 (no null_blk configfs: skip). */
static int nullb_make(void)
{
	char buf[64];
	unsigned int maj, min;

	if (mkdir(NULLB_CFG, 0755) && errno != EEXIST)
		return -1;
	snprintf(buf, sizeof(buf), "%d", NULLB_MIB);
	if (rg_write(NULLB_CFG "/size", buf) ||
	    rg_write(NULLB_CFG "/memory_backed", "1") ||
	    rg_write(NULLB_CFG "/power", "1"))
		return -1;
	/* The disk is named after the directory; a node of our own. */
	if (rg_read("/sys/block/rgm_nullb/dev", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%u:%u", &maj, &min) != 2)
		return -1;
	unlink(NULLB_DEV);
	return mknod(NULLB_DEV, S_IFBLK | 0600, makedev(maj, min));
}

static void nullb_remove(void)
{
	unlink(NULLB_DEV);
	rg_write(NULLB_CFG "/power", "0");
	rmdir(NULLB_CFG);
}

/*
 * A child that joins @group and reads @len bytes of NULLB_DEV from @off
 * through the page cache (a block device's cache is page cache, charged
 * as a file's is), then exits 0; 10-12: a step failed.
 */
static pid_t reader(const char *group, long off, long len)
{
	static char buf[1 << 20];
	pid_t child = fork();
	long done;
	int fd;

	if (child)
		return child;
	if (rg_move(group, getpid()))
		_exit(10);
	fd = open(NULLB_DEV, O_RDONLY);
	if (fd < 0)
		_exit(11);
	for (done = 0; done < len; done += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), off + done) != sizeof(buf))
			_exit(12);
	close(fd);
	_exit(0);
}

/*
 * The pair's amounts: an eighth in the quick tier (its reads took 8 s of
 * the tier at a quarter), whole in the full one.
 */
static long pair_scale(void)
{
	return rg_scaled(1, 8);
}

#define PM(x) ((x) * MIB / pair_scale())

/*
 * One half of the guarantee pair: under @parent (limit and guarantee
 * 64 MiB), @parent/keep (guarantee 32 MiB if @guarantee, else none)
 * caches 24 MiB, then @parent/stream reads 128 MiB past the parent's
 * limit. Return: how much of keep's cache is left, in bytes; -1 if a
 * step failed.
 */
static long cache_left(const char *parent, int guarantee, long off)
{
	char keep[64], stream[64], buf[64];
	int st;

	snprintf(keep, sizeof(keep), "%s/keep", parent);
	snprintf(stream, sizeof(stream), "%s/stream", parent);
	snprintf(buf, sizeof(buf), "res=memory,min_shares=%ld,max_shares=%ld",
		 64 / pair_scale(), 64 / pair_scale());
	if (rg_mkdir(parent) || rg_set(parent, "shares", buf) ||
	    rg_mkdir(keep) || rg_mkdir(stream))
		return -1;
	if (guarantee && shares_set(keep, "min_shares", 50))
		return -1;
	st = wait_status(reader(keep, off, PM(24)));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	st = wait_status(reader(stream, off + PM(24), PM(128)));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return ms(keep, "file");
}

/*
 * The guarantee, under pressure: a group with min_shares keeps its page
 * cache while a sibling streams past their parent's limit; the same run
 * without the guarantee loses it. Both measured: the pair is the test.
 * (Page cache of a null_blk device: the guest's root is 9p, and tmpfs
 * pages cannot be reclaimed without swap.)
 */
TEST_F_TIMEOUT(mem, guarantee_keeps_cache_under_a_streaming_sibling, 120)
{
	long with, without;
	int fd;

	if (nullb_make()) {
		nullb_remove();
		SKIP(return, "no null_blk device (CONFIG_BLK_DEV_NULL_BLK)");
	}
	/* The last close of a block device drops its cache: one open. */
	fd = open(NULLB_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	with = cache_left("p", 1, 0);
	without = cache_left("q", 0, PM(256));
	TH_LOG("cache left of %ld: %ld with the guarantee, %ld without",
	       PM(24), with, without);
	EXPECT_LE(PM(24) * 9 / 10, with);
	EXPECT_LE(0, without);
	EXPECT_GE(PM(24) / 2, without);
	EXPECT_EQ(0, ms("p", "killcnt"));
	EXPECT_GE(PM(64), ms("p", "maxheld"));
	rg_remove_all_groups();
	close(fd);
	nullb_remove();
}

/* Whether @group's shadow has @ctl (its cgroup.controllers); -1: none. */
static int shadow_has(const char *group, const char *ctl)
{
	char path[PATH_MAX], buf[256], *w, *save;

	snprintf(path, sizeof(path), SHADOWS "/%s/cgroup.controllers", group);
	if (rg_read(path, buf, sizeof(buf)) < 0)
		return -1;
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (!strcmp(strsep(&w, "\n"), ctl))
			return 1;
	return 0;
}

/*
 * rg_io.ko on the same shadows, in either order: the controller loaded
 * second is enabled in every shadow (one removed from outside gets it
 * when made again); the one unloaded first leaves every shadow, its
 * files set back (memory: shadow_root's memory.low too), while the
 * other's knobs stay; loaded again, it is back.
 */
TEST_F(mem, memory_and_io_share_the_shadows_in_either_order)
{
	ASSERT_EQ(0, rg_mkdir("g/c"));
	ASSERT_EQ(0, rmdir(SHADOWS "/g/c"));
	/* io after memory: in every shadow there, and a load never fails. */
	ASSERT_EQ(0, rg_insmod(IO_KO, NULL));
	EXPECT_EQ(1, shadow_has("", "io"));
	EXPECT_EQ(1, shadow_has("g", "io"));
	EXPECT_EQ(1, shadow_has("g", "memory"));
	EXPECT_EQ(SM(64), shadow_val("g", "memory.max"));
	/* The removed one made again, with both, at its next write. */
	EXPECT_EQ(0, shares_set("g/c", "max_shares", 50));
	EXPECT_EQ(1, shadow_has("g/c", "io"));
	EXPECT_EQ(1, shadow_has("g/c", "memory"));
	EXPECT_EQ(SM(32), shadow_val("g/c", "memory.max"));
	/* io leaves; memory's knobs stay. */
	ASSERT_EQ(0, rg_rmmod("rg_io"));
	EXPECT_EQ(0, shadow_has("g", "io"));
	EXPECT_EQ(0, shadow_has("g/c", "io"));
	EXPECT_EQ(1, shadow_has("g/c", "memory"));
	EXPECT_EQ(SM(32), shadow_val("g/c", "memory.max"));
	ASSERT_EQ(0, rg_insmod(IO_KO, NULL));
	EXPECT_EQ(1, shadow_has("g/c", "io"));
	/* memory leaves while io stays: the shadows stay, without it. */
	ASSERT_EQ(0, rg_rmmod("rg_memory"));
	EXPECT_EQ(1, rg_exists(SHADOWS "/g/c"));
	EXPECT_EQ(0, shadow_has("g/c", "memory"));
	EXPECT_EQ(1, shadow_has("g/c", "io"));
	EXPECT_EQ(0, shadow_val("", "memory.low"));
	/* memory after io: back in every shadow, its shares from the start. */
	ASSERT_EQ(0, rg_insmod(MEMORY_KO, PARAMS));
	EXPECT_EQ(1, shadow_has("g/c", "memory"));
	EXPECT_EQ(LONG_MAX, shadow_val("g/c", "memory.max"));
	EXPECT_EQ(LONG_MAX, shadow_val("", "memory.low"));
	EXPECT_EQ(0, rg_set("", "shares",
			    "res=memory,child_shares_divisor=1024"));
	EXPECT_EQ(0, shares_set("g", "max_shares", 64 / scale));
	EXPECT_EQ(0, shares_set("g/c", "max_shares", 50));
	EXPECT_EQ(SM(32), shadow_val("g/c", "memory.max"));
	/* Both gone: so are the shadows. */
	ASSERT_EQ(0, rg_rmmod("rg_io"));
	EXPECT_EQ(1, rg_exists(SHADOWS "/g/c"));
	ASSERT_EQ(0, rg_rmmod("rg_memory"));
	EXPECT_EQ(0, rg_exists(SHADOWS "/g"));
}

/*
 * The tests below (issue 44's second set) keep res_groups.ko and
 * rg_memory.ko loaded from one to the next (unloading and loading them
 * again is 1-2 s of each test in the debug guest, and the quick tier has
 * no time to spare); each starts with no group but g and ends with no
 * group, no swap, no file system, rg_kmem.ko unloaded.
 */
#define UNDO_SWAP 1
#define UNDO_EXT4 2

FIXTURE(mem_kept) {
	pid_t held;
	int undo;	/* UNDO_SWAP, UNDO_EXT4: what the teardown undoes */
};

static void zram_swap_off(void);
static void ext4_remove(void);
static long new_scale(void);

/*
 * Who loaded the modules mem_kept keeps: the harness's pid (each case
 * runs in a child of it). A later run of the program (or another
 * program's test) loads them anew, from its own RG_TOP.
 */
#define KEPT_MARK "/run/rgm_kept"

/* Note @pid_line in KEPT_MARK; 0 or -1. */
static int kept_mark(const char *pid_line)
{
	int fd = open(KEPT_MARK, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ok = fd >= 0 &&
		 write(fd, pid_line, strlen(pid_line)) == (ssize_t)strlen(pid_line);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* mem_kept's setup: 0, or -1 if a step failed. */
static int kept_setup(const char *name)
{
	char mark[128], buf[32];

	snprintf(mark, sizeof(mark), "rg_test_memory: %s", name);
	klog_mark(mark);
	snprintf(mark, sizeof(mark), "%d\n", getppid());
	if (rg_read(KEPT_MARK, buf, sizeof(buf)) < 0 || strcmp(buf, mark) ||
	    !rg_module_loaded("rg_memory") || rg_module_loaded("rg_io") ||
	    rg_module_loaded("rg_kmem")) {
		rg_remove_all_groups();
		rg_unload_all();
		if (rg_insmod("module/res_groups.ko", NULL) ||
		    rg_insmod(MEMORY_KO, PARAMS) || kept_mark(mark))
			return -1;
	}
	rg_remove_all_groups();
	snprintf(mark, sizeof(mark), "res=memory,max_shares=%ld",
		 64 / new_scale());
	if (rg_set("", "shares", "res=memory,child_shares_divisor=1024") ||
	    rg_mkdir("g") || rg_set("g", "shares", mark))
		return -1;
	return 0;
}

static void kept_teardown(pid_t held, int undo)
{
	if (held > 0)
		rg_kill(held);
	if (undo & UNDO_SWAP)
		zram_swap_off();
	if (undo & UNDO_EXT4)
		ext4_remove();
	rg_remove_all_groups();
	if (rg_module_loaded("rg_kmem"))
		rg_rmmod("rg_kmem");
}

FIXTURE_SETUP(mem_kept)
{
	self->held = 0;
	self->undo = 0;
	ASSERT_EQ(0, kept_setup(_metadata->name));
}

FIXTURE_TEARDOWN(mem_kept)
{
	kept_teardown(self->held, self->undo);
}

/* mem_kept for the full tier only: in the quick one it sets up nothing. */
FIXTURE(mem_full) {
	pid_t held;
	int undo;
};

FIXTURE_SETUP(mem_full)
{
	self->held = 0;
	self->undo = 0;
	if (!rg_quick())
		ASSERT_EQ(0, kept_setup(_metadata->name));
}

FIXTURE_TEARDOWN(mem_full)
{
	if (!rg_quick())
		kept_teardown(self->held, self->undo);
}

/*
 * Their amounts: whole in the full tier, a sixteenth in the quick one (g
 * has 4 MiB there), where the whole set may add only a few seconds. One
 * share of g (the root's divisor 1024 of 1 GiB) is a MiB.
 */
static long new_scale(void)
{
	return rg_scaled(1, 16);
}

#define NM(x) ((x) * MIB / new_scale())

/*
 * ms() with memcg's statistics of @group's shadow flushed first: anon,
 * file and kernel come from memcg's per-CPU counters, which it folds
 * in only every 2 s or after enough updates (up to ~1 MiB behind with 2
 * CPUs); reading the shadow's cpu.stat folds in its subtree's now
 * (cgroup_rstat_flush()).
 */
static long msf(const char *group, const char *key)
{
	char path[PATH_MAX], buf[512];

	snprintf(path, sizeof(path), SHADOWS "/%s/cpu.stat", group);
	rg_read(path, buf, sizeof(buf));
	return ms(group, key);
}

/* Poll @cond (an expression) every ms for up to @sec seconds. */
#define WAIT_FOR(cond, sec)						\
	do {								\
		int __i;						\
		for (__i = 0; __i < (sec) * 1000 && !(cond); __i++)	\
			usleep(1000);					\
	} while (0)

#define ZRAM "/sys/block/zram0"
#define ZRAM_DEV "/run/rgm_zram"

/*
 * Swap on zram0, @bytes of it (the swap header written here: no mkswap
 * process, which costs a fraction of a second in the debug guest); 0, or
 * -1 (no zram0: CONFIG_ZRAM).
 */
static void zram_swap_off(void)
{
	swapoff(ZRAM_DEV);
	rg_write(ZRAM "/reset", "1");
	unlink(ZRAM_DEV);
}

static int zram_swap_on(long bytes)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned int maj, min;
	char buf[64], *hdr;
	int fd, ok;

	/* Swap left on by a case cut short (its teardown did not run). */
	zram_swap_off();
	snprintf(buf, sizeof(buf), "%ld", bytes);
	if (rg_write(ZRAM "/disksize", buf) ||
	    rg_read(ZRAM "/dev", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%u:%u", &maj, &min) != 2)
		return -1;
	unlink(ZRAM_DEV);
	if (mknod(ZRAM_DEV, S_IFBLK | 0600, makedev(maj, min)))
		return -1;
	/* union swap_header: version 1, last_page, the magic at the end. */
	hdr = calloc(1, pg);
	if (!hdr)
		return -1;
	*(uint32_t *)(hdr + 1024) = 1;
	*(uint32_t *)(hdr + 1028) = bytes / pg - 1;
	memcpy(hdr + pg - 10, "SWAPSPACE2", 10);
	fd = open(ZRAM_DEV, O_WRONLY);
	ok = fd >= 0 && pwrite(fd, hdr, pg, 0) == pg && !fsync(fd);
	if (fd >= 0)
		close(fd);
	free(hdr);
	if (!ok)
		return -1;
	return swapon(ZRAM_DEV, 0) ? -1 : 0;
}

/*
 * With swap (zram): a 128 MiB hog in a 64 MiB group is not killed but
 * swapped: it lives, held stays within the limit, the group's swap
 * column (and its shadow's memory.swap.current) holds the rest.
 */
TEST_F_TIMEOUT(mem_kept, with_swap_a_hog_lives_within_its_limit, 300)
{
	/* 128 MiB; 5 MiB (in 4) in the quick tier: swapping out is slow. */
	long bytes = rg_quick() ? 5 * MIB : NM(128), swap, shadow_swap;

	if (zram_swap_on(NM(256))) {
		zram_swap_off();
		SKIP(return, "no swap on zram0 (CONFIG_ZRAM, CONFIG_SWAP)");
	}
	self->undo |= UNDO_SWAP;
	ASSERT_EQ(NM(64), shadow_val("g", "memory.max"));
	/* hog() returns once it touched it all (and holds it). */
	self->held = hog(NULL, "g", bytes, 1);
	ASSERT_LT(0, self->held);
	EXPECT_EQ(0, kill(self->held, 0));
	EXPECT_EQ(0, ms("g", "killcnt"));
	EXPECT_GE(NM(64), ms("g", "held"));
	EXPECT_GE(NM(64), ms("g", "maxheld"));
	/* What is not in memory is in swap: at least 128 - 64 MiB. */
	swap = ms("g", "swap");
	shadow_swap = shadow_val("g", "memory.swap.current");
	TH_LOG("held %ld, swap %ld (shadow %ld), anon %ld", ms("g", "held"),
	       swap, shadow_swap, msf("g", "anon"));
	EXPECT_LE(bytes - NM(64), swap);
	EXPECT_GE(bytes + MIB, swap);
	EXPECT_LE(bytes - NM(64), shadow_swap);
	EXPECT_LE(1, ms("g", "failcnt"));
	/* The root's line is all groups': the swap is in it too. */
	EXPECT_LE(bytes - NM(64), ms("", "swap"));
	rg_kill(self->held);
	self->held = 0;
}

#define MNT "/run/rgm_mnt"

/*
 * ext4 (no journal, nothing initialised later) on the null_blk device of
 * nullb_make(), mounted at MNT; 0, -1 (no null_blk: skip), -2 (mkfs or
 * mount failed).
 */
static int ext4_make(void)
{
	/* One left by a case that timed out would refuse a new size. */
	umount(MNT);
	nullb_remove();
	if (nullb_make())
		return -1;
	if (system("/sbin/mkfs.ext4 -q -F -O ^has_journal -E nodiscard,lazy_itable_init=1 "
		   NULLB_DEV " >/dev/null 2>&1"))
		return -2;
	if (mkdir(MNT, 0755) && errno != EEXIST)
		return -2;
	return mount(NULLB_DEV, MNT, "ext4", 0, "noinit_itable") ? -2 : 0;
}

static void ext4_remove(void)
{
	umount(MNT);
	rmdir(MNT);
	nullb_remove();
}

/*
 * A child that joins @group, writes @len bytes to @path through the page
 * cache (each 4 KiB block starting with its offset), closes it, reads it
 * back and checks each block; exits 0, or 10-14 at a failed step.
 */
static pid_t write_read(const char *group, const char *path, long len)
{
	static long buf[(256 << 10) / sizeof(long)];
	const long blk = 4096 / sizeof(long);
	pid_t child = fork();
	long off, i;
	int fd;

	if (child)
		return child;
	if (rg_move(group, getpid()))
		_exit(10);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		_exit(11);
	for (off = 0; off < len; off += sizeof(buf)) {
		for (i = 0; i < (long)ARRAY_SIZE(buf); i += blk)
			buf[i] = off + i * sizeof(long);
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			_exit(12);
	}
	close(fd);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		_exit(11);
	for (off = 0; off < len; off += sizeof(buf)) {
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			_exit(13);
		for (i = 0; i < (long)ARRAY_SIZE(buf); i += blk)
			if (buf[i] != off + i * (long)sizeof(long))
				_exit(14);
	}
	close(fd);
	_exit(0);
}

/*
 * A 200 MiB buffered write and read-back in a 64 MiB group (ext4 on a
 * memory-backed null_blk device): both finish, the data reads back,
 * nothing is killed, the page cache is charged to the group (held within
 * its limit all along).
 */
TEST_F_TIMEOUT(mem_full, buffered_write_and_read_back_past_the_limit, 300)
{
	long file;
	int st, ret;

	if (rg_quick())
		SKIP(return, RG_FULL_TIER_ONLY);
	ret = ext4_make();
	self->undo |= UNDO_EXT4;
	if (ret == -1)
		SKIP(return, "no null_blk device (CONFIG_BLK_DEV_NULL_BLK)");
	ASSERT_EQ(0, ret);
	st = wait_status(write_read("g", MNT "/f", NM(200)));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, ms("g", "killcnt"));
	EXPECT_GE(NM(64), ms("g", "maxheld"));
	/* The last part read is still cached, charged to the group. */
	file = msf("g", "file");
	TH_LOG("file %ld, held %ld, maxheld %ld, failcnt %ld", file,
	       ms("g", "held"), ms("g", "maxheld"), ms("g", "failcnt"));
	EXPECT_LE(NM(32), file);
	EXPECT_GE(NM(64), file);
	EXPECT_LE(1, ms("g", "failcnt"));
	EXPECT_EQ(0, unlink(MNT "/f"));
}

/*
 * A child that joins @group, fills a pipe of 1 MiB (256 pipe pages, each
 * an accounted page of kernel memory) and holds it; its pid, or -1.
 */
static pid_t pipe_holder(const char *group)
{
	static char page[4096];
	int p[2], r[2], ok;
	pid_t child;
	long n = 0;
	char c;

	if (pipe(r))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		close(r[0]);
		if (rg_move(group, getpid()) || pipe2(p, O_NONBLOCK) ||
		    fcntl(p[1], F_SETPIPE_SZ, 1 << 20) != 1 << 20)
			_exit(10);
		while (write(p[1], page, sizeof(page)) == sizeof(page))
			n++;
		if (n != 256 || write(r[1], "x", 1) != 1)
			_exit(11);
		for (;;)
			pause();
	}
	close(r[1]);
	ok = read(r[0], &c, 1) == 1;
	close(r[0]);
	if (!ok) {
		rg_kill(child);
		return -1;
	}
	return child;
}

/*
 * Kernel memory goes to rg_kmem.ko when it is loaded, else to memory's
 * kernel column: a 1 MiB pipe of a task of g raises memory's kernel by
 * its 256 pages without kmem; with kmem loaded, kmem's held instead
 * (memory's kernel column stays where it was).
 */
TEST_F(mem_kept, kernel_memory_goes_to_kmem_when_it_is_loaded)
{
	long k0, k1, h0, h1;

	k0 = msf("g", "kernel");
	self->held = pipe_holder("g");
	ASSERT_LT(0, self->held);
	k1 = msf("g", "kernel");
	TH_LOG("without kmem: kernel %ld -> %ld", k0, k1);
	EXPECT_LE(k0 + MIB, k1);
	rg_kill(self->held);
	self->held = 0;

	ASSERT_EQ(0, rg_insmod("module/rg_kmem.ko", "total_kmem=1073741824"));
	k0 = msf("g", "kernel");
	h0 = rg_get("g", "stats", "kmem", "held");
	ASSERT_LE(0, h0);
	self->held = pipe_holder("g");
	ASSERT_LT(0, self->held);
	k1 = msf("g", "kernel");
	h1 = rg_get("g", "stats", "kmem", "held");
	TH_LOG("with kmem: kernel %ld -> %ld, kmem held %ld -> %ld", k0, k1,
	       h0, h1);
	EXPECT_LE(h0 + MIB, h1);
	EXPECT_GT(k0 + MIB / 4, k1);
	rg_kill(self->held);
	self->held = 0;
}

/* touch_map() @bytes, then unmap them; 0 or -1. */
static int touch_free(long bytes)
{
	char *p = touch_map(bytes);

	return p == MAP_FAILED ? -1 : munmap(p, bytes);
}

/* Words the test shares with its children and their threads. */
#define SH_GET(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define SH_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/* What the storm's processes share: the words that start and end it. */
struct storm {
	int go;
	int stop;
};

static const char * const storm_groups[] = { "g/a", "g/b", "g", "" };

/*
 * One of the storm's workers: from the word go until told to stop,
 * forks a child that moves itself to one of the storm's groups (drawn
 * here, before the fork, so that each child draws anew), touches
 * @bytes and exits (every other one forks a grandchild that touches as
 * much and exits first), and touches and frees @bytes itself; exits 0,
 * or 20-22 at the first failure (10-12: its child's).
 */
static void storm_worker(struct storm *sh, int n, long bytes)
{
	unsigned int seed = n;
	const char *to;
	int st, i;
	pid_t c;

	while (!SH_GET(sh->go))
		usleep(1000);
	for (i = 0; !SH_GET(sh->stop); i++) {
		to = storm_groups[rand_r(&seed) % 4];
		c = fork();
		if (c < 0)
			_exit(20);
		if (!c) {
			if (rg_move(to, getpid()))
				_exit(10);
			if (i & 1) {
				c = fork();
				if (c < 0)
					_exit(11);
				if (!c)
					_exit(touch(bytes) ? 12 : 0);
				if (wait_status(c))
					_exit(11);
			}
			_exit(touch(bytes) ? 12 : 0);
		}
		if (touch_free(bytes))
			_exit(21);
		st = wait_status(c);
		if (st)
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 22);
	}
	_exit(0);
}

/*
 * Fork, exit and move storms with allocations in groups with memory
 * shares (g with a limit, g/a with a limit of its own, g/b with a
 * guarantee): workers fork children that move themselves and touch
 * memory, while the test moves the workers between the groups. Nothing
 * fails or is killed, the charges land in the groups; once all exited,
 * nothing is held but a little page cache and the CPUs' stocks, and the
 * groups go.
 */
TEST_F_TIMEOUT(mem_kept, fork_exit_move_storms_end_consistent, 120)
{
	const int nw = rg_scaled(4, 3);
	long msecs = rg_scaled(10000, 300), maxheld, anon, kernel;
	struct storm *sh;
	pid_t w[4];
	struct timespec t0, t;
	int i, n = 0, moves = 0, st;

	ASSERT_EQ(0, rg_mkdir("g/a"));
	ASSERT_EQ(0, rg_mkdir("g/b"));
	ASSERT_EQ(0, shares_set("g/a", "max_shares", 50));
	ASSERT_EQ(0, shares_set("g/b", "min_shares", 25));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	SH_SET(sh->go, 0);
	SH_SET(sh->stop, 0);
	for (i = 0; i < nw; i++) {
		w[i] = fork();
		ASSERT_LE(0, w[i]);
		if (!w[i])
			storm_worker(sh, i, NM(2));
		/* Each of g/a and g/b has a worker from the start. */
		ASSERT_EQ(0, rg_move(storm_groups[i % 2], w[i]));
	}
	SH_SET(sh->go, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < nw; i++, n++)
			moves += !rg_move(storm_groups[n % 4], w[i]);
		usleep(2000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < msecs);
	SH_SET(sh->stop, 1);
	for (i = 0; i < nw; i++) {
		st = wait_status(w[i]);
		EXPECT_TRUE(WIFEXITED(st));
		EXPECT_EQ(0, WEXITSTATUS(st));
	}
	munmap(sh, sizeof(*sh));
	EXPECT_EQ(n, moves);
	maxheld = ms("g", "maxheld");
	TH_LOG("%d moves; g's maxheld %ld, g/a's %ld, g/b's %ld", moves,
	       maxheld, ms("g/a", "maxheld"), ms("g/b", "maxheld"));
	EXPECT_LE(NM(2), ms("g/a", "maxheld"));
	EXPECT_LE(NM(2), ms("g/b", "maxheld"));
	EXPECT_GE(NM(64), maxheld);
	EXPECT_EQ(0, ms("g", "killcnt"));
	/* All gone: no anon left, kernel memory within the CPUs' stocks. */
	anon = msf("g", "anon");
	kernel = msf("g", "kernel");
	TH_LOG("after: held %ld, anon %ld, file %ld, kernel %ld",
	       ms("g", "held"), anon, msf("g", "file"), kernel);
	EXPECT_EQ(0, anon);
	EXPECT_GE(MIB, kernel);
	EXPECT_GE(msf("g", "file") + MIB, ms("g", "held"));
	EXPECT_EQ(0, rg_rmdir("g/a"));
	EXPECT_EQ(0, rg_rmdir("g/b"));
	EXPECT_GE(msf("g", "file") + MIB, ms("g", "held"));
	EXPECT_EQ(0, rg_exists(SHADOWS "/g/a"));
}

/*
 * The mm owner's process: a leader and two threads that touch CHUNK at a
 * time until each touched @go chunks (the test raises it), never freed.
 */
struct owner {
	long go;
	long done[2];
	int tid[2];
	int leader_exit;
	long chunk;
};

struct owner_arg {
	struct owner *sh;
	int i;
};

static void *owner_toucher(void *arg)
{
	struct owner_arg *a = arg;
	struct owner *sh = a->sh;

	SH_SET(sh->tid[a->i], syscall(SYS_gettid));
	for (;;) {
		if (SH_GET(sh->done[a->i]) < SH_GET(sh->go)) {
			if (touch(sh->chunk))
				_exit(12);
			SH_SET(sh->done[a->i], sh->done[a->i] + 1);
		} else {
			usleep(1000);
		}
	}
	return NULL;
}

/* The process: its leader exits (the thread only) when told to. */
static void owner_process(struct owner *sh, const char *group)
{
	static struct owner_arg a[2];
	pthread_t t;
	int i;

	if (rg_move(group, getpid()))
		_exit(10);
	for (i = 0; i < 2; i++) {
		a[i].sh = sh;
		a[i].i = i;
		if (pthread_create(&t, NULL, owner_toucher, &a[i]))
			_exit(11);
	}
	while (!SH_GET(sh->leader_exit))
		usleep(1000);
	syscall(SYS_exit, 0);
}

/* Whether both threads touched as many chunks as the test said. */
static int owner_done(struct owner *sh)
{
	return SH_GET(sh->done[0]) == sh->go && SH_GET(sh->done[1]) == sh->go;
}

/* Whether @pid (a thread group's leader) is a zombie. */
static int is_zombie(pid_t pid)
{
	char buf[512];
	const char *s = rg_proc_stat(pid, buf, sizeof(buf));

	return s && *s == 'Z';
}

/*
 * The mm owner exits during an allocation: a process's leader exits
 * while its two threads keep touching memory in g/a; the mm's owner is
 * then a thread, and the charges stay with g/a. The threads moved to g/b
 * charge g/b from then on, g/a keeps what it had. No splat (the runner);
 * the counters add up; once the process is killed, nothing is left.
 */
TEST_F_TIMEOUT(mem_kept, mm_owner_exits_during_an_allocation, 90)
{
	long a0, a1, b1, total;
	struct owner *sh;
	pid_t p;
	int i;

	ASSERT_EQ(0, rg_mkdir("g/a"));
	ASSERT_EQ(0, rg_mkdir("g/b"));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset((void *)sh, 0, sizeof(*sh));
	sh->chunk = NM(1) / 4;
	p = fork();
	ASSERT_LE(0, p);
	if (!p)
		owner_process(sh, "g/a");
	self->held = p;
	WAIT_FOR(SH_GET(sh->tid[0]) && SH_GET(sh->tid[1]), 10);
	ASSERT_TRUE(SH_GET(sh->tid[0]) && SH_GET(sh->tid[1]));
	/* The threads touch 32 chunks each; the leader exits meanwhile. */
	SH_SET(sh->go, 32);
	WAIT_FOR(SH_GET(sh->done[0]) + SH_GET(sh->done[1]) >= 2, 10);
	SH_SET(sh->leader_exit, 1);
	WAIT_FOR(is_zombie(p), 10);
	ASSERT_TRUE(is_zombie(p));
	TH_LOG("the leader exited after %ld and %ld chunks of 32",
	       SH_GET(sh->done[0]), SH_GET(sh->done[1]));
	WAIT_FOR(owner_done(sh), 30);
	ASSERT_TRUE(owner_done(sh));
	/* And 16 more each, the leader gone for all of them. */
	SH_SET(sh->go, 48);
	WAIT_FOR(owner_done(sh), 30);
	ASSERT_TRUE(owner_done(sh));
	total = 2 * sh->go * sh->chunk;
	a0 = msf("g/a", "anon");
	TH_LOG("g/a: anon %ld, held %ld; %ld touched", a0, ms("g/a", "held"),
	       total);
	EXPECT_LE(total, a0);
	EXPECT_GE(total + MIB, a0);
	EXPECT_GT(MIB / 2, ms("g/b", "held"));
	/* The threads moved to g/b (the leader, a zombie, cannot be). */
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, rg_move("g/b", sh->tid[i]));
	EXPECT_EQ(-ESRCH, rg_move("g/b", p));
	SH_SET(sh->go, 64);
	WAIT_FOR(owner_done(sh), 30);
	ASSERT_TRUE(owner_done(sh));
	a1 = msf("g/a", "anon");
	b1 = msf("g/b", "anon");
	TH_LOG("then g/a: anon %ld; g/b: anon %ld, held %ld", a1, b1,
	       ms("g/b", "held"));
	EXPECT_LE(2 * 16 * sh->chunk, b1);
	EXPECT_GE(2 * 16 * sh->chunk + MIB / 4, b1);
	EXPECT_GE(a0 + MIB / 4, a1);
	EXPECT_LE(a0 - MIB / 4, a1);
	/* g's line is its subtree's. */
	EXPECT_EQ(a1 + b1, msf("g", "anon"));
	EXPECT_LE(ms("g/a", "held") + ms("g/b", "held"), ms("g", "held"));
	EXPECT_EQ(0, ms("g", "killcnt"));
	rg_kill(p);
	self->held = 0;
	EXPECT_EQ(0, msf("g", "anon"));
	EXPECT_EQ(0, rg_rmdir("g/a"));
	EXPECT_EQ(0, rg_rmdir("g/b"));
	EXPECT_GT(MIB, ms("g", "held") - msf("g", "file"));
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN

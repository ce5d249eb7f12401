// SPDX-License-Identifier: GPL-2.0
/*
 * Controllers (docs/res_groups.rst: depth, tasks, stats, the controller
 * API): registration with groups and tasks
 * already there, depth limits, the 8-controller limit, stats and reset,
 * refused forks, load/unload while tasks fork, and registration and
 * unregistration beside many root tasks, some of them exiting meanwhile
 * (128 in the quick tier, where a thread takes some 10 ms to start in
 * the debug guest under TCG, beside the root's kernel threads; 10,000 in
 * the full one: 40,000 took more than 10 minutes to start on one vCPU):
 * no lock held across more than a batch of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define CTL "selftests/modules/rg_test_ctl.ko"
#define CTL2 "selftests/modules/rg_test_ctl2.ko"

FIXTURE(ctl) {
	char buf[8192];
};

FIXTURE_SETUP(ctl)
{
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/b"));
}

FIXTURE_TEARDOWN(ctl)
{
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
}

static long param(const char *mod, const char *name)
{
	char p[256], buf[64];

	snprintf(p, sizeof(p), "/sys/module/%s/parameters/%s", mod, name);
	if (rg_read(p, buf, sizeof(buf)) < 0)
		return -1;
	return atol(buf);
}

TEST_F(ctl, register_sees_existing_groups_and_tasks)
{
	pid_t pid = rg_sleeper();

	ASSERT_EQ(0, rg_move("a/b", pid));
	ASSERT_EQ(0, rg_insmod(CTL, NULL));
	EXPECT_EQ(1, rg_get("a/b", "stats", "test", "tasks"));
	EXPECT_EQ(1, rg_get("a/b", "stats", "test", "attach"));
	EXPECT_EQ(0, rg_get("a", "stats", "test", "tasks"));
	EXPECT_LT(1, rg_get("", "stats", "test", "tasks"));
	EXPECT_EQ(3, param("rg_test_ctl", "allocs"));
	rg_kill(pid);
}

TEST_F(ctl, unregister_removes_its_lines_and_frees_its_shares)
{
	ASSERT_EQ(0, rg_insmod(CTL, NULL));
	ASSERT_EQ(0, rg_insmod(CTL2, "name=other"));
	ASSERT_EQ(0, rg_rmmod("rg_test_ctl"));
	ASSERT_LT(0, rg_read(RG_ROOT "/a/shares", self->buf, sizeof(self->buf)));
	EXPECT_STREQ("res=other,min_shares=-3,max_shares=-3,child_shares_divisor=100\n",
		     self->buf);
	ASSERT_EQ(0, rg_rmmod("rg_test_ctl2"));
	EXPECT_EQ(0, rg_read(RG_ROOT "/a/shares", self->buf, sizeof(self->buf)));
	EXPECT_EQ(0, rg_read(RG_ROOT "/a/stats", self->buf, sizeof(self->buf)));
}

TEST_F(ctl, new_groups_get_shares_for_every_controller)
{
	ASSERT_EQ(0, rg_insmod(CTL, NULL));
	ASSERT_EQ(0, rg_mkdir("c"));
	EXPECT_EQ(-3, rg_get("c", "shares", "test", "min_shares"));
	EXPECT_EQ(4, param("rg_test_ctl", "allocs"));
	ASSERT_EQ(0, rg_rmdir("c"));
	EXPECT_EQ(1, param("rg_test_ctl", "frees"));
}

TEST_F(ctl, shares_listed_in_registration_order)
{
	ASSERT_EQ(0, rg_insmod(CTL2, "name=zeta"));
	ASSERT_EQ(0, rg_insmod(CTL, "name=alpha"));
	ASSERT_LT(0, rg_read(RG_ROOT "/shares", self->buf, sizeof(self->buf)));
	EXPECT_STREQ("res=zeta,min_shares=-3,max_shares=-3,child_shares_divisor=100\n"
		     "res=alpha,min_shares=-3,max_shares=-3,child_shares_divisor=100\n",
		     self->buf);
}

TEST_F(ctl, deeper_groups_count_in_nearest_ancestor_with_shares)
{
	pid_t pid = rg_sleeper();

	ASSERT_EQ(0, rg_insmod(CTL, "depth=1"));
	EXPECT_EQ(-3, rg_get("a", "shares", "test", "min_shares"));
	EXPECT_EQ(LONG_MIN, rg_get("a/b", "shares", "test", "min_shares"));
	ASSERT_EQ(0, rg_read(RG_ROOT "/a/b/stats", self->buf, sizeof(self->buf)));
	EXPECT_EQ(-EINVAL, rg_set("a/b", "shares", "res=test,min_shares=1"));
	ASSERT_EQ(0, rg_move("a/b", pid));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "tasks"));
	/* Moving between a and a/b changes nothing for this controller. */
	ASSERT_EQ(0, rg_move("a", pid));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "move_in"));
	EXPECT_EQ(0, rg_get("a", "stats", "test", "move_out"));
	rg_kill(pid);
	EXPECT_EQ(0, rg_get("a", "stats", "test", "tasks"));
}

TEST_F(ctl, ninth_controller_enospc_duplicate_eexist)
{
	ASSERT_EQ(0, rg_insmod(CTL, "name=c count=8"));
	EXPECT_EQ(-ENOSPC, rg_insmod(CTL2, "name=ninth"));
	ASSERT_EQ(0, rg_rmmod("rg_test_ctl"));
	ASSERT_EQ(0, rg_insmod(CTL, "name=same"));
	EXPECT_EQ(-EEXIST, rg_insmod(CTL2, "name=same"));
	EXPECT_FALSE(rg_module_loaded("rg_test_ctl2"));
}

/* A NULL controller: register says EINVAL, unregister does nothing. */
TEST_F(ctl, null_controller_einval)
{
	EXPECT_EQ(-EINVAL, rg_insmod(CTL, "null_ctl=1"));
	EXPECT_FALSE(rg_module_loaded("rg_test_ctl"));
	/* The framework still works. */
	ASSERT_EQ(0, rg_insmod(CTL, NULL));
	EXPECT_EQ(0, rg_move("a", getpid()));
}

TEST_F(ctl, stats_reset_by_name_unknown_or_without_reset_einval)
{
	pid_t pid = rg_sleeper();

	ASSERT_EQ(0, rg_insmod(CTL, NULL));
	ASSERT_EQ(0, rg_insmod(CTL2, "name=noreset no_reset=1"));
	ASSERT_EQ(0, rg_move("a", pid));
	ASSERT_EQ(1, rg_get("a", "stats", "test", "move_in"));
	EXPECT_EQ(-EINVAL, rg_set("a", "stats", "res=nope"));
	EXPECT_EQ(-EINVAL, rg_set("a", "stats", "res=noreset"));
	EXPECT_EQ(-EINVAL, rg_set("a", "stats", "test"));
	EXPECT_EQ(-EINVAL, rg_set("a", "stats", "res=test,junk"));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "move_in"));
	EXPECT_EQ(0, rg_set("a", "stats", "res=test\n"));
	EXPECT_EQ(0, rg_get("a", "stats", "test", "move_in"));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "tasks"));
	rg_kill(pid);
}

TEST_F(ctl, stats_lines_each_start_with_res_name)
{
	char *line, *save;
	int lines = 0;

	ASSERT_EQ(0, rg_insmod(CTL, NULL));
	ASSERT_EQ(0, rg_insmod(CTL2, "name=two"));
	ASSERT_LT(0, rg_read(RG_ROOT "/a/stats", self->buf, sizeof(self->buf)));
	for (line = strtok_r(self->buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), lines++)
		if (strncmp(line, "res=test,", 9) && strncmp(line, "res=two,", 8))
			break;
	EXPECT_EQ(NULL, line);
	EXPECT_EQ(2, lines);
}

TEST_F(ctl, refused_fork_fails_with_errno_and_cancels_the_others)
{
	pid_t pid;

	ASSERT_EQ(0, rg_insmod(CTL, NULL));
	ASSERT_EQ(0, rg_insmod(CTL2, "name=refuser fail_fork=11"));
	ASSERT_EQ(0, rg_move("a", getpid()));
	pid = fork();
	if (pid == 0)
		_exit(0);
	EXPECT_EQ(-1, pid);
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(1, rg_get("a", "stats", "refuser", "can_fork"));
	/* test charged first (registered first), then had it cancelled. */
	EXPECT_EQ(1, rg_get("a", "stats", "test", "can_fork"));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "cancel_fork"));
	EXPECT_EQ(0, rg_get("a", "stats", "test", "fork"));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "tasks"));
	ASSERT_EQ(0, rg_move("", getpid()));
}

/* Sum of a key over the groups (root, a, a/b). */
static long sum(const char *key)
{
	return rg_get("", "stats", "test", key) +
	       rg_get("a", "stats", "test", key) +
	       rg_get("a/b", "stats", "test", key);
}

static long count_lines(const char *group)
{
	char p[256], *buf = malloc(1 << 20);
	long n = 0;

	if (buf && rg_read(rg_path(p, sizeof(p), group, "members"), buf,
			   1 << 20) >= 0)
		n = rg_count_lines(buf);
	free(buf);
	return n;
}

TEST_F_TIMEOUT(ctl, load_and_unload_while_tasks_fork, 300)
{
	long listed = 0, counted = -1;
	pid_t loopers[2];
	int i;

	loopers[0] = rg_fork_loop_start("a");
	ASSERT_LT(0, loopers[0]);
	loopers[1] = rg_fork_loop_start("a/b");
	ASSERT_LT(0, loopers[1]);
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, rg_insmod(CTL, NULL));
		usleep(50000);
		ASSERT_EQ(0, rg_rmmod("rg_test_ctl"));
	}
	ASSERT_EQ(0, rg_insmod(CTL, NULL));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, rg_fork_loop_stop(loopers[i]));
	/*
	 * Quiet now: the controller's count matches the members files. Kernel
	 * threads come and go in the root between two reads: read again
	 * until two readings agree; a lost count never would.
	 */
	for (i = 0; i < 20; i++) {
		listed = count_lines("") + count_lines("a") + count_lines("a/b");
		counted = sum("tasks");
		if (listed == counted)
			break;
		usleep(100000);
	}
	EXPECT_EQ(listed, counted);
	EXPECT_EQ(0, rg_get("a", "stats", "test", "tasks"));
	EXPECT_EQ(0, rg_get("a/b", "stats", "test", "tasks"));
}

/*
 * The many tasks: a process in the root that starts @n - 1 threads, of
 * which every 8th waits to read a byte of @leave[0] and then exits; it
 * writes a byte to @ready once all are started ('x', or '!' if a thread
 * could not be started).
 */
static int many_leave_fd;

static void *many_thread(void *arg)
{
	char c;

	if (arg && read(many_leave_fd, &c, 1) == 1)
		return NULL;
	for (;;)
		pause();
	return NULL;
}

static void many_tasks(int n, int ready, int leave)
{
	pthread_attr_t attr;
	pthread_t t;
	int i;

	many_leave_fd = leave;
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 16384))
		_exit(2);
	for (i = 1; i < n; i++)
		if (pthread_create(&t, &attr, many_thread,
				   (void *)(long)(i % 8 == 0)))
			break;
	if (write(ready, i == n ? "x" : "!", 1) != 1)
		_exit(3);
	for (;;)
		pause();
}

/* Threads of @pid now; -1 if unknown. */
static long threads_of(pid_t pid)
{
	char p[64], buf[4096], *s;

	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	if (rg_read(p, buf, sizeof(buf)) < 0)
		return -1;
	s = strstr(buf, "\nThreads:");
	return s ? atol(s + 9) : -1;
}

/* The line rg_test_ctl logs as it unloads: the longest row of calls. */
static long unbroken_logged(int kmsg)
{
	/* (a record longer than the buffer fails its read with EINVAL) */
	static char rec[8192];
	ssize_t len;
	char *s;

	while ((len = read(kmsg, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE) {
		if (len <= 0)
			continue;
		rec[len] = '\0';
		s = strstr(rec, "rg_test_ctl: unbroken ");
		if (s)
			return atol(s + strlen("rg_test_ctl: unbroken "));
	}
	return -1;
}

/*
 * A controller's registration tells every task of a group, and its
 * unregistration too: with N tasks in the root, the old walk held the
 * root's lock (and, on one vCPU, the CPU) across all N move_task()
 * calls, which every fork and exit in the root waits for. The test
 * controller's resched_probe counts the calls made in a row without a
 * reschedule: at most a batch (64) now, on registration and
 * unregistration alike, while an eighth of the threads exit meanwhile;
 * and the controller's count of the root's tasks is still its members.
 * (Run on one vCPU as well: RG_SMP=1.)
 */
TEST_F_TIMEOUT(ctl, registration_beside_many_root_tasks_holds_no_lock_long, 600)
{
	/* (quick: 64 and the root's other tasks, ~90, are past a batch) */
	const int n = rg_scaled(10000, 64), leavers = (n - 1) / 8;
	char threads_max[32], pid_max[32], c;
	long listed = 0, counted = -1, row;
	int ready[2], leave[2], kmsg, i;
	struct timespec t0, t1;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	ASSERT_LT(0, rg_read("/proc/sys/kernel/threads-max", threads_max,
			     sizeof(threads_max)));
	ASSERT_LT(0, rg_read("/proc/sys/kernel/pid_max", pid_max,
			     sizeof(pid_max)));
	if (n > 1000) {
		ASSERT_EQ(0, rg_write("/proc/sys/kernel/threads-max", "200000"));
		ASSERT_EQ(0, rg_write("/proc/sys/kernel/pid_max", "4194304"));
	}
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(leave));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(ready[0]);
		close(leave[1]);
		many_tasks(n, ready[1], leave[0]);
	}
	close(ready[1]);
	close(leave[0]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	EXPECT_EQ('x', c) TH_LOG("could not start %d threads", n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%d threads started: %.1f s", n, t1.tv_sec - t0.tv_sec +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9);

	/* Registration, with an eighth of the threads leaving meanwhile. */
	for (i = 0; i < leavers; i++)
		ASSERT_EQ(1, write(leave[1], "", 1));
	ASSERT_EQ(0, rg_insmod(CTL, "resched_probe=1"));
	row = param("rg_test_ctl", "max_unbroken");
	TH_LOG("registration: at most %ld calls in a row, %ld us", row,
	       param("rg_test_ctl", "max_unbroken_us"));
	EXPECT_GE(64, row);
	EXPECT_LE(1, row);
	for (i = 0; i < 100 && threads_of(pid) > n - leavers; i++)
		usleep(100000);
	EXPECT_EQ(n - leavers, threads_of(pid));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("registered, leavers gone: %.1f s", t1.tv_sec - t0.tv_sec +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9);
	/* Kernel threads come and go in the root: until two reads agree. */
	for (i = 0; i < 20; i++) {
		listed = count_lines("");
		counted = rg_get("", "stats", "test", "tasks");
		if (listed == counted)
			break;
		usleep(100000);
	}
	EXPECT_EQ(listed, counted);
	EXPECT_LT(n - leavers, listed);

	/* Unregistration: the row is logged as the module goes. */
	ASSERT_EQ(0, rg_write("/sys/module/rg_test_ctl/parameters/max_unbroken",
			      "0"));
	ASSERT_EQ(0, rg_write("/sys/module/rg_test_ctl/parameters/max_unbroken_us",
			      "0"));
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg);
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	ASSERT_EQ(0, rg_rmmod("rg_test_ctl"));
	row = unbroken_logged(kmsg);
	close(kmsg);
	TH_LOG("unregistration: at most %ld calls in a row", row);
	EXPECT_GE(64, row);
	EXPECT_LE(1, row);

	close(leave[1]);
	rg_kill(pid);
	rg_write("/proc/sys/kernel/pid_max", pid_max);
	rg_write("/proc/sys/kernel/threads-max", threads_max);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%d tasks: %.1f s", n, t1.tv_sec - t0.tv_sec +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9);
}

TEST_HARNESS_MAIN

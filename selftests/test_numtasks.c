// SPDX-License-Identifier: GPL-2.0
/*
 * The numtasks controller (SPEC 7). Counts are made absolute by setting
 * total_numtasks to 1000 and the root's divisor to 1000: then a child of
 * the root with max_shares=N may hold N tasks.
 */
#define _GNU_SOURCE
#include <errno.h>
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

#define TOTAL "/sys/module/numtasks/parameters/total_numtasks"
#define FORKRATE "/sys/module/numtasks/parameters/forkrate"
#define FORKRATE_INTERVAL "/sys/module/numtasks/parameters/forkrate_interval"
#define MAXKIDS 256

/* Sleeping children this test forked (each test runs in its own process). */
static struct {
	pid_t pid[MAXKIDS];
	int n;
} kids;

FIXTURE(nt) {
	int unused;
};

FIXTURE_SETUP(nt)
{
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("module/numtasks.ko", NULL));
	ASSERT_EQ(0, rg_write(TOTAL, "1000"));
	ASSERT_EQ(0, rg_set("", "shares", "res=numtasks,child_shares_divisor=1000"));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
	kids.n = 0;
}

FIXTURE_TEARDOWN(nt)
{
	int i;

	for (i = 0; i < kids.n; i++)
		if (kids.pid[i] > 0)
			rg_kill(kids.pid[i]);
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
}

#define NT(g, key)	rg_get(g, "stats", "numtasks", key)

/* Fork a sleeping child of the current process; -errno if refused. */
static int add_kid(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		for (;;)
			pause();
	}
	kids.pid[kids.n++] = pid;
	return 0;
}

/* Fork sleeping children until refused; how many were allowed. */
static int fill(int *err)
{
	int n = 0, ret;

	while (kids.n < MAXKIDS && !(ret = add_kid()))
		n++;
	*err = ret;
	return n;
}

TEST_F(nt, limit_of_a_group_caps_its_tasks)
{
	int err;

	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=5"));
	EXPECT_EQ(5, NT("a", "limit"));
	ASSERT_EQ(0, rg_move("a", getpid()));
	EXPECT_EQ(4, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(5, NT("a", "held"));
	EXPECT_EQ(1, NT("a", "failcnt"));
	ASSERT_EQ(0, rg_move("", getpid()));
	/* Another group is not limited by a's limit. */
	ASSERT_EQ(0, add_kid());
}

TEST_F(nt, limit_of_an_ancestor_caps_its_whole_subtree)
{
	int err;

	ASSERT_EQ(0, rg_mkdir("a/x"));
	ASSERT_EQ(0, rg_mkdir("a/y"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=6"));
	/* DONT_CARE below: the children inherit a's limit. */
	EXPECT_EQ(6, NT("a/x", "limit"));
	/* Us and two children in a/x, then us in a/y: 3 more fit there. */
	ASSERT_EQ(0, rg_move("a/x", getpid()));
	ASSERT_EQ(0, add_kid());
	ASSERT_EQ(0, add_kid());
	ASSERT_EQ(0, rg_move("a/y", getpid()));
	EXPECT_EQ(3, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(6, NT("a", "held"));
	EXPECT_EQ(4, NT("a/y", "held"));
	EXPECT_EQ(1, NT("a/y", "failcnt"));
	EXPECT_EQ(0, NT("a", "failcnt"));
}

TEST_F(nt, guarantee_of_a_group_is_kept_from_its_sibling)
{
	int err;

	ASSERT_EQ(0, rg_mkdir("a/x"));
	ASSERT_EQ(0, rg_mkdir("a/y"));
	ASSERT_EQ(0, rg_set("a", "shares",
			    "res=numtasks,min_shares=10,max_shares=10,child_shares_divisor=10"));
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=numtasks,min_shares=4"));
	EXPECT_EQ(4, NT("a/x", "guarantee"));
	/* y may use what x does not reserve: 10 - 4. */
	ASSERT_EQ(0, rg_move("a/y", getpid()));
	EXPECT_EQ(5, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(6, NT("a/y", "held"));
	/* x still gets its 4: us, moved there, and 4 children (y shrank). */
	ASSERT_EQ(0, rg_move("a/x", getpid()));
	EXPECT_EQ(4, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(5, NT("a/x", "held"));
	EXPECT_EQ(5, NT("a/y", "held"));
	EXPECT_EQ(10, NT("a", "held"));
}

TEST_F(nt, total_numtasks_rejects_zero_and_below_the_tasks_counted)
{
	char before[32], after[32], val[32];
	long held = NT("", "held");

	ASSERT_LT(1, held);
	rg_read(TOTAL, before, sizeof(before));
	EXPECT_EQ(-EINVAL, rg_write(TOTAL, "0"));
	EXPECT_EQ(-EINVAL, rg_write(TOTAL, "-5"));
	EXPECT_EQ(-EINVAL, rg_write(TOTAL, "abc"));
	/* Well below: kernel threads may come and go meanwhile. */
	snprintf(val, sizeof(val), "%ld", held / 2);
	EXPECT_EQ(-EINVAL, rg_write(TOTAL, val));
	rg_read(TOTAL, after, sizeof(after));
	EXPECT_STREQ(before, after);
	EXPECT_EQ(1000, NT("", "limit"));
	ASSERT_EQ(0, rg_write(TOTAL, "2000"));
	EXPECT_EQ(2000, NT("", "limit"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=5"));
	EXPECT_EQ(10, NT("a", "limit"));
}

static void *park(void *arg)
{
	pause();
	return NULL;
}

TEST_F(nt, threads_count_as_tasks)
{
	pid_t pid;
	int status;

	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=4"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pthread_t t;
		int i, ret = 0;

		if (rg_move("a", getpid()))
			_exit(1);
		for (i = 0; i < 3; i++)
			if (pthread_create(&t, NULL, park, NULL))
				_exit(2);
		ret = pthread_create(&t, NULL, park, NULL);
		_exit(ret == EAGAIN ? 0 : 3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, NT("a", "held"));
	EXPECT_EQ(4, NT("a", "maxheld"));
}

TEST_F(nt, zombies_count_until_reaped)
{
	siginfo_t si;
	pid_t pid;

	ASSERT_EQ(0, rg_move("a", getpid()));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(0, waitid(P_PID, pid, &si, WEXITED | WNOWAIT));
	EXPECT_EQ(2, NT("a", "held"));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	EXPECT_EQ(1, NT("a", "held"));
}

TEST_F(nt, moves_are_never_refused_forks_are_until_below_limit)
{
	int i, err;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, add_kid());
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=2"));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, rg_move("a", kids.pid[i]));
	ASSERT_EQ(0, rg_move("a", getpid()));
	EXPECT_EQ(4, NT("a", "held"));
	EXPECT_EQ(0, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	for (i = 0; i < 3; i++) {
		rg_kill(kids.pid[i]);
		kids.pid[i] = -1;
	}
	EXPECT_EQ(1, NT("a", "held"));
	EXPECT_EQ(1, fill(&err));
}

TEST_F(nt, fork_rate_limits_forks_per_interval)
{
	int err;

	ASSERT_EQ(0, rg_write(FORKRATE_INTERVAL, "1000"));
	ASSERT_EQ(0, rg_write(FORKRATE, "3"));
	ASSERT_EQ(0, rg_move("a", getpid()));
	EXPECT_EQ(3, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(1, NT("a", "forkrate_failcnt"));
	EXPECT_EQ(0, NT("a", "failcnt"));
	/* Per group: b has its own budget. */
	ASSERT_EQ(0, rg_move("b", getpid()));
	EXPECT_EQ(0, add_kid());
	ASSERT_EQ(0, rg_write(FORKRATE, "0"));
}

TEST_F(nt, stats_line_format_and_reset)
{
	static const char * const want[] = {
		"res=numtasks,held=2,maxheld=3,minheld=0,limit=3,guarantee=2,failcnt=1,forkrate_failcnt=0\n",
		"res=numtasks,held=2,maxheld=2,minheld=2,limit=3,guarantee=2,failcnt=0,forkrate_failcnt=0\n",
	};
	char buf[512];
	int err;

	ASSERT_EQ(0, rg_set("a", "shares",
			    "res=numtasks,min_shares=2,max_shares=3"));
	ASSERT_EQ(0, rg_move("a", getpid()));
	fill(&err);
	rg_kill(kids.pid[--kids.n]);
	ASSERT_LT(0, rg_read(RG_ROOT "/a/stats", buf, sizeof(buf)));
	EXPECT_STREQ(want[0], buf);
	EXPECT_EQ(-EINVAL, rg_set("a", "stats", "res=numtasks,now"));
	ASSERT_EQ(0, rg_set("a", "stats", "res=numtasks"));
	ASSERT_LT(0, rg_read(RG_ROOT "/a/stats", buf, sizeof(buf)));
	EXPECT_STREQ(want[1], buf);
}

TEST_F(nt, load_counts_tasks_already_in_groups)
{
	ASSERT_EQ(0, add_kid());
	ASSERT_EQ(0, add_kid());
	ASSERT_EQ(0, rg_rmmod("numtasks"));
	ASSERT_EQ(0, rg_move("a", kids.pid[0]));
	ASSERT_EQ(0, rg_move("a", kids.pid[1]));
	ASSERT_EQ(0, rg_insmod("module/numtasks.ko", NULL));
	EXPECT_EQ(2, NT("a", "held"));
}

TEST_F_TIMEOUT(nt, unload_and_reload_while_tasks_fork, 300)
{
	pid_t loopers[2];
	int i;

	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=50"));
	for (i = 0; i < 2; i++) {
		loopers[i] = rg_fork_loop_start(i ? "b" : "a");
		ASSERT_LT(0, loopers[i]);
	}
	for (i = 0; i < 5; i++) {
		usleep(50000);
		ASSERT_EQ(0, rg_rmmod("numtasks"));
		usleep(50000);
		ASSERT_EQ(0, rg_insmod("module/numtasks.ko", NULL));
	}
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, rg_fork_loop_stop(loopers[i]));
	/* Quiet again: the counts match the members files. */
	EXPECT_EQ(0, NT("a", "held"));
	EXPECT_EQ(0, NT("b", "held"));
}

/*
 * Fork children that sleep until refused, report how many through @wfd,
 * then sleep too: no task leaves the group while the others still fork.
 */
static void forker(int wfd)
{
	int n = 0;

	for (;;) {
		pid_t pid = fork();

		if (pid < 0) {
			if (errno != EAGAIN)
				n = -1;
			if (write(wfd, &n, sizeof(n)) != sizeof(n))
				_exit(1);
			for (;;)
				pause();
		}
		if (pid == 0) {
			for (;;)
				pause();
		}
		n++;
	}
}

/* SIGKILL every task of a group. */
static void kill_members(const char *group)
{
	char p[256], *buf = malloc(65536), *line, *save;

	if (buf && rg_read(rg_path(p, sizeof(p), group, "members"), buf, 65536) > 0)
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			kill(atoi(line), SIGKILL);
	free(buf);
}

TEST_F_TIMEOUT(nt, concurrent_forks_stop_exactly_at_the_limit, 120)
{
	enum { L = 40, FORKERS = 4 };
	int i, n, total = 0, pipefd[2];
	pid_t f[FORKERS];
	char lim[64];

	snprintf(lim, sizeof(lim), "res=numtasks,max_shares=%d", L);
	ASSERT_EQ(0, rg_set("a", "shares", lim));
	ASSERT_EQ(0, pipe(pipefd));
	for (i = 0; i < FORKERS; i++) {
		f[i] = fork();
		ASSERT_LE(0, f[i]);
		if (f[i] == 0) {
			if (rg_move("a", getpid()))
				_exit(1);
			/* Start together, both vCPUs busy. */
			usleep(200000);
			forker(pipefd[1]);
		}
	}
	for (i = 0; i < FORKERS; i++) {
		ASSERT_EQ((ssize_t)sizeof(n), read(pipefd[0], &n, sizeof(n)));
		ASSERT_LE(0, n);
		total += n;
	}
	EXPECT_EQ(L - FORKERS, total);
	EXPECT_EQ(L, NT("a", "held"));
	EXPECT_EQ(L, NT("a", "maxheld"));
	kill_members("a");
	for (i = 0; i < FORKERS; i++)
		waitpid(f[i], NULL, 0);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Races between membership changes (docs/res_groups.rst, "Tasks" and
 * "The configfs interface"): moves aimed at tasks still being forked,
 * members and stats read while they grow, load and unload while tasks
 * fork. Each test ends by checking that every list and count agrees.
 *
 * RG_RACE_SECONDS sets how long the fork/move race runs (default 15).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define BIG (1 << 20)

static int race_seconds(void)
{
	const char *s = getenv("RG_RACE_SECONDS");

	return s ? atoi(s) : 15;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Lines of a group's members file; -1 if unreadable. */
static int members_count(const char *group, char *buf)
{
	char p[256];

	if (rg_read(rg_path(p, sizeof(p), group, "members"), buf, BIG) < 0)
		return -1;
	return rg_count_lines(buf);
}

/*
 * Move every task the kernel announces as forked (process-events
 * connector) into @group at once: the classifier's way, which lands
 * while the child is still inside fork().
 */
static void connector_mover(const char *group)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC,
		.nl_pid = getpid(),
	};
	struct __attribute__((packed)) {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} req = {
		.nl = { .nlmsg_len = sizeof(req), .nlmsg_type = NLMSG_DONE,
			.nlmsg_pid = getpid() },
		.cn = { .id = { CN_IDX_PROC, CN_VAL_PROC },
			.len = sizeof(enum proc_cn_mcast_op) },
		.op = PROC_CN_MCAST_LISTEN,
	};
	char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	int sk = socket(PF_NETLINK, SOCK_DGRAM, NETLINK_CONNECTOR);

	if (sk < 0 || bind(sk, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(sk, &req, sizeof(req), 0) != sizeof(req))
		_exit(10);
	for (;;) {
		ssize_t n = recv(sk, buf, sizeof(buf), 0);
		struct nlmsghdr *nl = (struct nlmsghdr *)buf;

		if (n <= 0)
			continue;
		for (; NLMSG_OK(nl, n); nl = NLMSG_NEXT(nl, n)) {
			struct cn_msg *cn = NLMSG_DATA(nl);
			struct proc_event *ev = (struct proc_event *)cn->data;

			if (ev->what == PROC_EVENT_FORK)
				rg_move(group, ev->event_data.fork.child_pid);
		}
	}
}

/* Write the next pids to be allocated into @group's members, forever. */
static void pid_guesser(const char *group)
{
	char buf[128], *p;
	int last, i;

	for (;;) {
		/* The last field of /proc/loadavg is the last pid given. */
		if (rg_read("/proc/loadavg", buf, sizeof(buf)) <= 0)
			_exit(11);
		p = strrchr(buf, ' ');
		if (!p)
			_exit(12);
		last = atoi(p + 1);
		for (i = 1; i <= 3; i++)
			rg_move(group, last + i);
	}
}

static pid_t start(void (*fn)(const char *), const char *group)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(group);
		_exit(0);
	}
	return pid;
}

FIXTURE(races) {
	char *buf;
};

FIXTURE_SETUP(races)
{
	rg_unload_all();
	self->buf = malloc(BIG);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
}

FIXTURE_TEARDOWN(races)
{
	rg_remove_all_groups();
	rg_unload_all();
	free(self->buf);
}

/*
 * Tasks in a fork are found by pid (and announced by the connector)
 * before their fork is over. Moves aimed at them must wait for it: the
 * task is then on exactly one list, and the controller's count of each
 * group matches its members file. Before the fix, this corrupted the
 * task lists (KASAN use-after-free in release, members spinning).
 */
TEST_F_TIMEOUT(races, moves_aimed_at_forking_tasks_wait_for_the_fork, 300)
{
	static const char * const groups[] = { "", "a", "b" };
	pid_t forker[2], mover[3];
	double end = now() + race_seconds();
	int i, members, tasks;

	ASSERT_EQ(0, rg_insmod("module/numtasks.ko", NULL));
	for (i = 0; i < 2; i++) {
		forker[i] = rg_fork_loop_start("a");
		ASSERT_LT(0, forker[i]);
	}
	mover[0] = start(connector_mover, "b");
	mover[1] = start(pid_guesser, "b");
	mover[2] = start(pid_guesser, "a");
	while (now() < end) {
		/* Reads walk the lists while they change. */
		ASSERT_LE(0, members_count("a", self->buf));
		ASSERT_LE(0, members_count("b", self->buf));
		usleep(100000);
	}
	for (i = 0; i < 3; i++) {
		int status;

		/* A mover that died early moved nothing. */
		ASSERT_EQ(0, waitpid(mover[i], &status, WNOHANG));
		rg_kill(mover[i]);
	}
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, rg_fork_loop_stop(forker[i]));

	/*
	 * Every group: as many members as the controllers count (not the
	 * root, where kernel threads come and go).
	 */
	for (i = 1; i < 3; i++) {
		members = members_count(groups[i], self->buf);
		tasks = rg_get(groups[i], "stats", "test", "tasks");
		EXPECT_EQ(members, tasks) TH_LOG("group %s", groups[i]);
		EXPECT_EQ(members, rg_get(groups[i], "stats", "numtasks",
					  "held"))
			TH_LOG("group %s", groups[i]);
	}
	/* Some moves must have happened, or the test proved nothing. */
	EXPECT_LT(0, rg_get("b", "stats", "test", "move_in"));
}

/* Threads that join @group (the test's leader is in it) until stopped. */
static atomic_int spawned;
static atomic_int stop_spawning;

static void *sleeper_thread(void *arg)
{
	pause();
	return NULL;
}

static void *spawner(void *arg)
{
	pthread_t t;

	while (!atomic_load(&stop_spawning) &&
	       !pthread_create(&t, NULL, sleeper_thread, NULL))
		atomic_fetch_add(&spawned, 1);
	return NULL;
}

/* Parse a members listing: every line a positive pid, none twice. */
static int members_wellformed(const char *s, int *n)
{
	static char seen[1 << 22];
	const char *p = s;
	int ok = 1;

	memset(seen, 0, sizeof(seen));
	*n = 0;
	while (*p) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p || *end != '\n' || pid <= 0 ||
		    pid >= (long)sizeof(seen) || seen[pid]) {
			ok = 0;
			break;
		}
		seen[pid] = 1;
		(*n)++;
		p = end + 1;
	}
	return ok;
}

/*
 * members is never cut: while threads keep joining, every read lists at
 * least the threads that existed when it began, each pid once.
 */
TEST_F_TIMEOUT(races, members_read_while_the_group_grows_is_whole, 300)
{
	pthread_t sp[2];
	int i, n, before;

	ASSERT_EQ(0, rg_move("a", getpid()));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&sp[i], NULL, spawner, NULL));
	for (i = 0; i < 200 && atomic_load(&spawned) < 3000; i++) {
		/* The leader and the two spawners are members too. */
		before = atomic_load(&spawned) + 3;
		ASSERT_LE(0, members_count("a", self->buf));
		ASSERT_TRUE(members_wellformed(self->buf, &n));
		ASSERT_LE(before, n) TH_LOG("read %d of at least %d", n, before);
	}
	atomic_store(&stop_spawning, 1);
	for (i = 0; i < 2; i++)
		pthread_join(sp[i], NULL);
	ASSERT_LE(0, members_count("a", self->buf));
	ASSERT_TRUE(members_wellformed(self->buf, &n));
	EXPECT_EQ(atomic_load(&spawned) + 1, n);
	/* The sleepers stay until the test's process exits. */
}

/* stats longer than a page comes whole: every line of every controller. */
TEST_F(races, stats_longer_than_a_page_is_whole)
{
	char p[256], line[64];
	ssize_t len;

	ASSERT_EQ(0, rg_write("/sys/module/rg_test_ctl/parameters/stats_pad",
			      "500"));
	len = rg_read(rg_path(p, sizeof(p), "a", "stats"), self->buf, BIG);
	ASSERT_LT(8192, len);
	EXPECT_EQ(501, rg_count_lines(self->buf));
	snprintf(line, sizeof(line), "\nres=test,pad=499\n");
	EXPECT_NE(NULL, strstr(self->buf, line));
	EXPECT_EQ('\n', self->buf[len - 1]);
	ASSERT_EQ(0, rg_write("/sys/module/rg_test_ctl/parameters/stats_pad",
			      "0"));
}

/*
 * Load and unload res_groups.ko while tasks fork: after every load,
 * every task of the system is in the root (no group but the root
 * exists), none left pointing into a module that went away.
 */
TEST_F_TIMEOUT(races, load_and_unload_while_forking_leave_no_task_out, 300)
{
	pid_t forker[2];
	int round, i, missing;

	rg_remove_all_groups();
	rg_unload_all();
	for (i = 0; i < 2; i++) {
		forker[i] = rg_fork_loop_start(NULL);
		ASSERT_LT(0, forker[i]);
	}
	for (round = 0; round < 15; round++) {
		ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
		/* The forker itself must be listed (its children come and go). */
		for (i = 0, missing = 0; i < 2; i++)
			missing += !rg_is_member("", forker[i]);
		EXPECT_EQ(0, missing) TH_LOG("round %d", round);
		EXPECT_EQ(0, rg_rmmod("res_groups"));
	}
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, rg_fork_loop_stop(forker[i]));
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
}

TEST_HARNESS_MAIN

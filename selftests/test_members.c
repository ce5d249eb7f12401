// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks in groups (docs/res_groups.rst: "Tasks", "members"): moves, inheritance at fork,
 * exit, write errors (state read back), permissions, a large listing (10,000
 * threads; the full tier only: RG_FULL_TIER_ONLY, a skip selftests/expected
 * lists; the quick tier's test_races reads a members file of 1,000 threads,
 * several pages, while it grows), and the root's members read beside fork
 * churn and an exec loop (2,000 stayers for 10 s; 100 for 1 s in the
 * quick tier).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

FIXTURE(members) {
	char before[1 << 16], after[1 << 16];
	int skip;
};

/* The tests the quick tier skips (RG_FULL_TIER_ONLY): no setup for them. */
static const char * const full_tier_only[] = {
	"listing_is_not_truncated_at_ten_thousand_threads", NULL
};

FIXTURE_SETUP(members)
{
	self->skip = rg_quick_skips(_metadata->name, full_tier_only);
	if (self->skip)
		return;
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
}

FIXTURE_TEARDOWN(members)
{
	if (self->skip)
		return;
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
}

/*
 * The members of a and b. Not the root's: kernel threads come and go
 * there; a task wrongly moved out of the root would show up in a or b.
 */
static int members_of_all(char *buf, size_t size)
{
	static const char * const groups[] = { "a", "b" };

	return rg_snapshot(groups, ARRAY_SIZE(groups), "members", buf, size);
}

#define EXPECT_MOVE_REJECTED(str, err) do {				\
	const char *s_ = (str);						\
	ASSERT_EQ(0, members_of_all(self->before, sizeof(self->before))); \
	EXPECT_EQ(-(err), rg_set("a", "members", s_)) TH_LOG("'%s'", s_); \
	ASSERT_EQ(0, members_of_all(self->after, sizeof(self->after))); \
	EXPECT_STREQ(self->before, self->after);			\
} while (0)

TEST_F(members, moved_task_is_listed_in_its_new_group_only)
{
	pid_t pid = rg_sleeper();

	ASSERT_EQ(1, rg_is_member("", pid));
	ASSERT_EQ(0, rg_move("a", pid));
	EXPECT_EQ(1, rg_is_member("a", pid));
	EXPECT_EQ(0, rg_is_member("", pid));
	EXPECT_EQ(0, rg_is_member("b", pid));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "tasks"));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "move_in"));
	rg_kill(pid);
}

TEST_F(members, move_to_own_group_succeeds_and_tells_no_one)
{
	pid_t pid = rg_sleeper();

	ASSERT_EQ(0, rg_move("a", pid));
	ASSERT_EQ(0, rg_move("a", pid));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "move_in"));
	EXPECT_EQ(0, rg_get("a", "stats", "test", "move_out"));
	rg_kill(pid);
}

TEST_F(members, write_accepts_whitespace_around_pid)
{
	pid_t pid = rg_sleeper();
	char s[64];

	snprintf(s, sizeof(s), "  %d\x20\n", pid);
	EXPECT_EQ(0, rg_set("a", "members", s));
	EXPECT_EQ(1, rg_is_member("a", pid));
	rg_kill(pid);
}

TEST_F(members, bad_pids_rejected_and_nothing_moves)
{
	char s[64];

	EXPECT_MOVE_REJECTED("\n", EINVAL);
	EXPECT_MOVE_REJECTED("   ", EINVAL);
	EXPECT_MOVE_REJECTED("abc", EINVAL);
	EXPECT_MOVE_REJECTED("0", EINVAL);
	EXPECT_MOVE_REJECTED("-1", EINVAL);
	EXPECT_MOVE_REJECTED("0x10", EINVAL);
	EXPECT_MOVE_REJECTED("12x", EINVAL);
	EXPECT_MOVE_REJECTED("1 2", EINVAL);
	EXPECT_MOVE_REJECTED("2147483648", EINVAL);
	/* A pid no task has. */
	EXPECT_MOVE_REJECTED("4194000", ESRCH);
	/* kthreadd, a kernel thread. */
	EXPECT_MOVE_REJECTED("2", EINVAL);
	snprintf(s, sizeof(s), "%d", getpid());
	EXPECT_EQ(0, rg_set("a", "members", s));
}

TEST_F(members, fork_joins_the_forking_task_group)
{
	pid_t pid;
	int status;

	ASSERT_EQ(0, rg_move("a", getpid()));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char buf[64];

		rg_read("/proc/self/res_group", buf, sizeof(buf));
		_exit(strcmp(buf, "/a\n") != 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, rg_exit_code(status));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "fork"));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "exit"));
}

static int clone_parent_child(void *arg)
{
	char buf[64];

	rg_read("/proc/self/res_group", buf, sizeof(buf));
	return strcmp(buf, "/b\n") != 0;
}

TEST_F(members, clone_parent_joins_the_forking_task_group_not_the_parents)
{
	static char stack[65536];
	pid_t helper;
	int status;

	/* We (in a) start a helper in b that clones with CLONE_PARENT. */
	ASSERT_EQ(0, rg_move("a", getpid()));
	helper = fork();
	ASSERT_LE(0, helper);
	if (helper == 0) {
		pid_t c;

		if (rg_move("b", getpid()))
			_exit(3);
		c = clone(clone_parent_child, stack + sizeof(stack),
			  CLONE_PARENT | SIGCHLD, NULL);
		_exit(c < 0 ? 4 : 0);
	}
	ASSERT_EQ(helper, waitpid(helper, &status, 0));
	ASSERT_EQ(0, rg_exit_code(status));
	/* The CLONE_PARENT child is ours to reap. */
	ASSERT_LT(0, waitpid(-1, &status, 0));
	EXPECT_EQ(0, rg_exit_code(status));
}

/* The groups of the creating thread (after its move) and of its child. */
struct thread_groups {
	char mover[64], created[64];
};

static void *report_group(void *buf)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/task/%d/res_group", gettid());
	rg_read(p, buf, 64);
	return NULL;
}

/* A thread (moved to b) creates a thread: it joins the leader's group a. */
static void *thread_in_b(void *arg)
{
	struct thread_groups *g = arg;
	pthread_t t;

	if (rg_move("b", gettid()) == 0) {
		report_group(g->mover);
		if (pthread_create(&t, NULL, report_group, g->created) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

TEST_F(members, new_thread_joins_its_leaders_group)
{
	struct thread_groups g = { "", "" };
	char leader[64];
	pthread_t t;

	ASSERT_EQ(0, rg_move("a", getpid()));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_in_b, &g));
	pthread_join(t, NULL);
	/* The move happened, to the mover alone. */
	EXPECT_STREQ("/b\n", g.mover);
	ASSERT_LT(0, rg_read("/proc/self/res_group", leader, sizeof(leader)));
	EXPECT_STREQ("/a\n", leader);
	EXPECT_STREQ("/a\n", g.created);
}

TEST_F(members, zombie_stays_until_reaped)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (rg_move("a", getpid()))
			_exit(1);
		_exit(0);
	}
	/* Wait until it is a zombie without reaping it. */
	{
		siginfo_t si;

		ASSERT_EQ(0, waitid(P_PID, pid, &si, WEXITED | WNOWAIT));
		ASSERT_EQ(0, si.si_status);
	}
	EXPECT_EQ(1, rg_is_member("a", pid));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "tasks"));
	/* An exiting task cannot be moved. */
	EXPECT_EQ(-ESRCH, rg_move("b", pid));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	EXPECT_EQ(0, rg_is_member("a", pid));
	EXPECT_EQ(0, rg_get("a", "stats", "test", "tasks"));
	EXPECT_EQ(1, rg_get("a", "stats", "test", "exit"));
}

static void *park(void *arg)
{
	pause();
	return NULL;
}

/* Where each creator reports: "x" when its threads are up, "!" if not. */
static int created_fd;

/*
 * Start n parked threads, report, then park too: a creator that exited
 * could still be listed while its exit completes after pthread_join().
 */
static void *start_parked(void *n)
{
	pthread_attr_t attr;
	pthread_t t;
	long i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 16384);
	for (i = 0; i < (long)n; i++)
		if (pthread_create(&t, &attr, park, NULL))
			break;
	if (write(created_fd, i == (long)n ? "x" : "!", 1) != 1)
		_exit(6);
	return park(NULL);
}

TEST_F_TIMEOUT(members, listing_is_not_truncated_at_ten_thousand_threads, 600)
{
	const int N = 10000;
	pid_t pid;
	int pipefd[2], status;
	char c[2], p[256], *buf;
	ssize_t len;

	if (rg_quick())
		SKIP(return, RG_FULL_TIER_ONLY);

	ASSERT_EQ(0, rg_write("/proc/sys/kernel/threads-max", "100000"));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pthread_t a, b;

		if (rg_move("a", getpid()))
			_exit(1);
		created_fd = pipefd[1];
		/*
		 * Two creators, one per vCPU, each parked with its threads:
		 * the leader + 2 creators + (N / 2 - 2) + (N / 2 - 1) = N.
		 */
		if (pthread_create(&a, NULL, start_parked, (void *)(long)(N / 2 - 2)) ||
		    pthread_create(&b, NULL, start_parked, (void *)(long)(N / 2 - 1)))
			_exit(2);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	/* One byte from each creator (they may come one read apart). */
	ASSERT_EQ(1, read(pipefd[0], &c[0], 1));
	ASSERT_EQ(1, read(pipefd[0], &c[1], 1));
	EXPECT_EQ(0, memcmp(c, "xx", 2)) TH_LOG("could not start %d threads", N);
	buf = malloc(1 << 20);
	ASSERT_NE(NULL, buf);
	len = rg_read(rg_path(p, sizeof(p), "a", "members"), buf, 1 << 20);
	ASSERT_LT(4096, len);
	EXPECT_EQ(N, rg_count_lines(buf));
	EXPECT_EQ(N, rg_get("a", "stats", "test", "tasks"));
	free(buf);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/*
 * The exec loop: started as this program with RG_EXEC_LOOP set, a process
 * that starts a thread, which execs this program again (a thread's exec
 * swaps its pid and its leader's), and so on until it is killed.
 */
static void *exec_again(void *arg)
{
	static char * const argv[] = { "test_members", NULL };

	execv("/proc/self/exe", argv);
	_exit(9);
}

__attribute__((constructor)) static void exec_loop(void)
{
	pthread_t t;

	if (!getenv("RG_EXEC_LOOP"))
		return;
	if (pthread_create(&t, NULL, exec_again, NULL))
		_exit(8);
	for (;;)
		pause();
}

static pid_t exec_loop_start(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		setenv("RG_EXEC_LOOP", "1", 1);
		exec_loop();
		_exit(7);
	}
	return pid;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The tids of @pid's threads into @tids (sorted); how many, or -1. */
static int tids_of(pid_t pid, int *tids, int max)
{
	struct dirent *d;
	char p[64];
	DIR *dir;
	int n = 0;

	snprintf(p, sizeof(p), "/proc/%d/task", pid);
	dir = opendir(p);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < max)
		if (d->d_name[0] != '.')
			tids[n++] = atoi(d->d_name);
	closedir(dir);
	qsort(tids, n, sizeof(*tids), cmp_int);
	return n;
}

/*
 * Is the listing @s well formed (positive pids, none twice) and does it
 * list each of the @n stayers @stay (sorted)? Why not, in @why.
 */
static int lists_stayers_once(char *s, const int *stay, int n, int *got,
			      int max, char *why, size_t size)
{
	int i, k = 0, found = 0;
	char *end;

	for (; *s; s = end + 1) {
		if (k == max) {
			snprintf(why, size, "more than %d lines", max);
			return 0;
		}
		got[k] = strtol(s, &end, 10);
		if (end == s || *end != '\n' || got[k++] <= 0) {
			snprintf(why, size, "a line is not a pid");
			return 0;
		}
	}
	qsort(got, k, sizeof(*got), cmp_int);
	for (i = 1; i < k; i++)
		if (got[i] == got[i - 1]) {
			snprintf(why, size, "pid %d twice", got[i]);
			return 0;
		}
	for (i = 0; i < n; i++)
		found += !!bsearch(&stay[i], got, k, sizeof(*got), cmp_int);
	snprintf(why, size, "%d lines, %d of %d stayers", k, found, n);
	return found == n;
}

/*
 * The root's members, read while tasks fork and exit there and a
 * process's threads exec in a loop (which swaps pids: each read that
 * meets one walks the list without notes, a batch per hold of the
 * root's lock, and lists each task present the whole read once). Every
 * read: well formed, no pid twice, every stayer (a process of parked
 * threads in the root) listed.
 */
TEST_F_TIMEOUT(members, root_read_beside_fork_and_exec_churn_lists_every_stayer_once, 300)
{
	const int nstay = rg_scaled(2000, 100);
	const double secs = rg_quick() ? 1 : 10;
	const int max = 200000;
	int *stay, *got, pipefd[2], reads = 0, bad = 0, status;
	pid_t stayers, forker, execer;
	char c, why[256], first[256] = "", *buf;
	double end;
	ssize_t len;

	stay = malloc(nstay * sizeof(*stay));
	got = malloc(max * sizeof(*got));
	buf = malloc(8 << 20);
	ASSERT_TRUE(stay && got && buf);
	ASSERT_EQ(0, pipe(pipefd));
	stayers = fork();
	ASSERT_LE(0, stayers);
	if (stayers == 0) {
		close(pipefd[0]);
		created_fd = pipefd[1];
		start_parked((void *)(long)(nstay - 1));
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	ASSERT_EQ('x', c) TH_LOG("could not start %d threads", nstay);
	ASSERT_EQ(nstay, tids_of(stayers, stay, nstay));
	forker = rg_fork_loop_start(NULL);
	ASSERT_LT(0, forker);
	execer = exec_loop_start();
	ASSERT_LT(0, execer);
	for (end = now_s() + secs; now_s() < end; reads++) {
		len = rg_read(RG_ROOT "/members", buf, 8 << 20);
		ASSERT_LE(0, len);
		if (!lists_stayers_once(buf, stay, nstay, got, max, why,
					sizeof(why)) && !bad++)
			snprintf(first, sizeof(first), "%s", why);
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d reads wrong, the first: %s", bad,
				 reads, first);
	TH_LOG("%d reads of %d stayers and more in %.1f s", reads, nstay, secs);
	EXPECT_EQ(0, waitpid(execer, &status, WNOHANG))
		TH_LOG("the exec loop stopped: %d", rg_exit_code(status));
	rg_kill(execer);
	EXPECT_EQ(0, rg_fork_loop_stop(forker));
	rg_kill(stayers);
	free(stay);
	free(got);
	free(buf);
}

TEST_HARNESS_MAIN

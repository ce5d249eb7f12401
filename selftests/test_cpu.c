// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU controller (docs/res_groups.rst, "The CPU controller"):
 * guarantees, ceilings, work conservation, nesting to depth 5, moves,
 * fork inheritance, rmdir and module reload while the machine is
 * saturated, and the stats line.
 *
 * CPU time is measured as the kernel accounts it to the busy processes
 * themselves (utime + stime of /proc/<pid>/stat), over windows of a few
 * seconds, with more busy threads than CPUs. Margins are wide enough for
 * a noisy machine and far from what the same test sees without the
 * controller: RG_CPU_ABSENT=1 runs every test without cpu.ko (shares
 * writes for it are then ignored), and every timing test must fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define MAXBUSY 16
#define WINDOW_MS 2500
#define SETTLE_MS 500

/* Busy processes this test started (each test runs in its own process). */
static struct {
	pid_t pid[MAXBUSY];
	int n;
} busy;

static int cpu_absent(void)
{
	const char *s = getenv("RG_CPU_ABSENT");

	return s && *s == '1';
}

static int ncpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time of process pid and all its threads, in seconds; -1 if gone. */
static double cputime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (rg_read(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	/* After ")": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime (fields 3..15).
	 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

/* Shares write for the cpu controller; ignored without it (RG_CPU_ABSENT). */
static int cpu_set(const char *group, const char *fields)
{
	char s[256];
	int ret;

	snprintf(s, sizeof(s), "res=cpu,%s", fields);
	ret = rg_set(group, "shares", s);
	return cpu_absent() ? 0 : ret;
}

static void *spin(void *arg)
{
	for (;;)
		;
	return arg;
}

/*
 * A process in group (NULL: stays where it is) running threads busy
 * threads (itself included); returns once they all run. Its pid, or -1.
 */
static pid_t busy_start(const char *group, int threads)
{
	int fds[2], i;
	pthread_t t;
	char c = 0;
	pid_t pid;

	if (busy.n == MAXBUSY || pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* Gone with the test, even if the harness kills it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		if (group && rg_move(group, getpid()))
			_exit(1);
		for (i = 1; i < threads; i++)
			if (pthread_create(&t, NULL, spin, NULL))
				_exit(1);
		if (write(fds[1], &c, 1) != 1)
			_exit(1);
		spin(NULL);
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1) {
		close(fds[0]);
		rg_kill(pid);
		return -1;
	}
	close(fds[0]);
	busy.pid[busy.n++] = pid;
	return pid;
}

static void busy_stop(pid_t pid)
{
	int i;

	for (i = 0; i < busy.n; i++)
		if (busy.pid[i] == pid) {
			rg_kill(pid);
			busy.pid[i] = busy.pid[--busy.n];
			return;
		}
}

/*
 * Measure n processes over one window (after settling): each one's part
 * of the whole machine (CPU seconds / (CPUs x wall seconds)) into part[].
 */
static int measure(const pid_t *pids, int n, double *part)
{
	double t0[MAXBUSY], w0, w1, t;
	int i;

	sleep_ms(SETTLE_MS);
	w0 = now();
	for (i = 0; i < n; i++)
		t0[i] = cputime(pids[i]);
	sleep_ms(WINDOW_MS);
	w1 = now();
	for (i = 0; i < n; i++) {
		t = cputime(pids[i]);
		if (t < 0 || t0[i] < 0)
			return -1;
		part[i] = (t - t0[i]) / (ncpus() * (w1 - w0));
	}
	return 0;
}

/* One process's part of the machine over one window. */
static double measure1(pid_t pid)
{
	double part;

	return measure(&pid, 1, &part) ? -1 : part;
}

#define CPU(g, key)	rg_get(g, "stats", "cpu", key)

static int write_pid(const char *path, pid_t pid)
{
	char s[32];

	snprintf(s, sizeof(s), "%d\n", pid);
	return rg_write(path, s);
}

FIXTURE(cpu) {
	int unused;
};

FIXTURE_SETUP(cpu)
{
	/* What a test the harness killed (timeout) may have left. */
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	if (!cpu_absent())
		ASSERT_EQ(0, rg_insmod("module/cpu.ko", NULL));
	busy.n = 0;
}

FIXTURE_TEARDOWN(cpu)
{
	while (busy.n)
		busy_stop(busy.pid[0]);
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
	rmdir("/sys/fs/cgroup/rg_cpu_test");
}

/* Guarantees 60 and 20, both groups saturated: a 3:1 split. */
TEST_F_TIMEOUT(cpu, guarantee_split, 120)
{
	double part[2], share;
	pid_t p[2];

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
	ASSERT_EQ(0, cpu_set("a", "min_shares=60"));
	ASSERT_EQ(0, cpu_set("b", "min_shares=20"));
	p[0] = busy_start("a", 2 * ncpus());
	p[1] = busy_start("b", 2 * ncpus());
	ASSERT_GT(p[0], 0);
	ASSERT_GT(p[1], 0);
	ASSERT_EQ(0, measure(p, 2, part));
	share = part[0] / (part[0] + part[1]);
	TH_LOG("a %.3f b %.3f: a's part of the busy time %.3f", part[0],
	       part[1], share);
	EXPECT_GT(share, 0.70);
	EXPECT_LT(share, 0.80);
}

/* A third, unguaranteed busy group does not eat into the guarantees. */
TEST_F_TIMEOUT(cpu, guarantee_with_unguaranteed_group, 120)
{
	double part[3], sum;
	pid_t p[3];

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
	ASSERT_EQ(0, rg_mkdir("c"));
	ASSERT_EQ(0, cpu_set("a", "min_shares=60"));
	ASSERT_EQ(0, cpu_set("b", "min_shares=20"));
	p[0] = busy_start("a", 2 * ncpus());
	p[1] = busy_start("b", 2 * ncpus());
	p[2] = busy_start("c", 4 * ncpus());
	ASSERT_GT(p[2], 0);
	ASSERT_EQ(0, measure(p, 3, part));
	sum = part[0] + part[1] + part[2];
	TH_LOG("a %.3f b %.3f c %.3f", part[0], part[1], part[2]);
	EXPECT_GE(part[0] / sum, 0.55);
	EXPECT_GE(part[1] / sum, 0.15);
}

/*
 * Work-conserving: while the group with the bigger guarantee idles, the
 * other takes the whole machine; once both are busy, the split is 3:1
 * again (the same test without the controller fails there).
 */
TEST_F_TIMEOUT(cpu, work_conserving, 120)
{
	double part[2];
	pid_t p[2];

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
	ASSERT_EQ(0, cpu_set("a", "min_shares=60"));
	ASSERT_EQ(0, cpu_set("b", "min_shares=20"));
	p[1] = busy_start("b", 2 * ncpus());
	ASSERT_GT(p[1], 0);
	part[1] = measure1(p[1]);
	TH_LOG("b alone %.3f", part[1]);
	EXPECT_GE(part[1], 0.90);
	p[0] = busy_start("a", 2 * ncpus());
	ASSERT_GT(p[0], 0);
	ASSERT_EQ(0, measure(p, 2, part));
	TH_LOG("a %.3f b %.3f", part[0], part[1]);
	EXPECT_GT(part[0] / (part[0] + part[1]), 0.70);
}

/*
 * A parent's own tasks and its children without a guarantee share its
 * unused part equally: one busy thread per CPU in a against four per CPU
 * in a/c still splits a's time in halves (by threads, 1:4).
 */
TEST_F_TIMEOUT(cpu, own_tasks_and_unguaranteed_children_share_equally, 120)
{
	double part[2], share;
	pid_t p[2];

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/c"));
	ASSERT_EQ(0, cpu_set("a", "min_shares=50"));
	p[0] = busy_start("a", ncpus());
	p[1] = busy_start("a/c", 4 * ncpus());
	ASSERT_GT(p[0], 0);
	ASSERT_GT(p[1], 0);
	ASSERT_EQ(0, measure(p, 2, part));
	share = part[0] / (part[0] + part[1]);
	TH_LOG("a %.3f a/c %.3f: a's own part %.3f", part[0], part[1], share);
	EXPECT_GT(share, 0.43);
	EXPECT_LT(share, 0.57);
}

/* max_shares=25 holds on an idle machine. */
TEST_F_TIMEOUT(cpu, ceiling, 120)
{
	double part;
	pid_t p;

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=25"));
	p = busy_start("a", 2 * ncpus());
	ASSERT_GT(p, 0);
	part = measure1(p);
	TH_LOG("a %.3f of the machine", part);
	EXPECT_GT(part, 0.22);
	EXPECT_LT(part, 0.28);
}

/* Ceilings multiply: 50 of 50 is a quarter of the machine. */
TEST_F_TIMEOUT(cpu, nested_ceilings, 120)
{
	double part;
	pid_t p;

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/b"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=50"));
	ASSERT_EQ(0, cpu_set("a/b", "max_shares=50"));
	p = busy_start("a/b", 2 * ncpus());
	ASSERT_GT(p, 0);
	part = measure1(p);
	TH_LOG("a/b %.3f of the machine", part);
	EXPECT_GT(part, 0.22);
	EXPECT_LT(part, 0.28);
}

#define D4 "a/b/c/d"

/*
 * Depth 5: a ceiling of 50 at depth 1 and 50 at depth 4 bound a task at
 * depth 5 to a quarter; below that, siblings at depth 5 with guarantees
 * 60 and 20 split 3:1.
 */
TEST_F_TIMEOUT(cpu, depth5, 120)
{
	double part[2], share;
	pid_t p[2];

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/b"));
	ASSERT_EQ(0, rg_mkdir("a/b/c"));
	ASSERT_EQ(0, rg_mkdir(D4));
	ASSERT_EQ(0, rg_mkdir(D4 "/x"));
	ASSERT_EQ(0, rg_mkdir(D4 "/y"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=50"));
	ASSERT_EQ(0, cpu_set(D4, "max_shares=50"));
	p[0] = busy_start(D4 "/x", 2 * ncpus());
	ASSERT_GT(p[0], 0);
	part[0] = measure1(p[0]);
	TH_LOG("depth 5 under 50 of 50: %.3f", part[0]);
	EXPECT_GT(part[0], 0.22);
	EXPECT_LT(part[0], 0.28);

	ASSERT_EQ(0, cpu_set("a", "max_shares=-3"));
	ASSERT_EQ(0, cpu_set(D4, "max_shares=-3"));
	ASSERT_EQ(0, cpu_set(D4 "/x", "min_shares=60"));
	ASSERT_EQ(0, cpu_set(D4 "/y", "min_shares=20"));
	p[1] = busy_start(D4 "/y", 2 * ncpus());
	ASSERT_GT(p[1], 0);
	ASSERT_EQ(0, measure(p, 2, part));
	share = part[0] / (part[0] + part[1]);
	TH_LOG("x %.3f y %.3f: x's part %.3f", part[0], part[1], share);
	EXPECT_GT(part[0] + part[1], 0.90);
	EXPECT_GT(share, 0.70);
	EXPECT_LT(share, 0.80);
}

/* A shares write takes effect at once, on tasks already running. */
TEST_F_TIMEOUT(cpu, shares_write_takes_effect, 120)
{
	double part;
	pid_t p;

	ASSERT_EQ(0, rg_mkdir("a"));
	p = busy_start("a", 2 * ncpus());
	ASSERT_GT(p, 0);
	ASSERT_EQ(0, cpu_set("a", "max_shares=25"));
	part = measure1(p);
	TH_LOG("max 25: %.3f", part);
	EXPECT_LT(part, 0.28);
	ASSERT_EQ(0, cpu_set("a", "max_shares=75"));
	part = measure1(p);
	TH_LOG("max 75: %.3f", part);
	EXPECT_GT(part, 0.72);
	EXPECT_LT(part, 0.78);
	ASSERT_EQ(0, cpu_set("a", "max_shares=-3"));
	part = measure1(p);
	TH_LOG("no max: %.3f", part);
	EXPECT_GT(part, 0.90);
}

/* A running process moved out of and back into a capped group. */
TEST_F_TIMEOUT(cpu, moves, 120)
{
	double part;
	pid_t p;

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=25"));
	/* One thread: a move is per task. */
	p = busy_start("a", 1);
	ASSERT_GT(p, 0);
	part = measure1(p);
	TH_LOG("in a: %.3f", part);
	EXPECT_LT(part, 0.28);
	ASSERT_EQ(0, rg_move("b", p));
	part = measure1(p);
	TH_LOG("in b: %.3f", part);
	EXPECT_GT(part, 0.80 / ncpus());
	ASSERT_EQ(0, rg_move("a", p));
	part = measure1(p);
	TH_LOG("back in a: %.3f", part);
	EXPECT_LT(part, 0.28);
	EXPECT_GT(part, 0.22);
}

/* Threads and child processes forked in a capped group stay capped. */
TEST_F_TIMEOUT(cpu, fork_inherits, 120)
{
	char path[PATH_MAX], buf[4096];
	double part[2];
	pid_t p, k, *kids;
	pthread_t t;
	int i;

	kids = mmap(NULL, 2 * sizeof(*kids), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, kids);
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=25"));
	/* A process in a forks 2 busy children of 2 threads each. */
	p = fork();
	ASSERT_GE(p, 0);
	if (p == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (rg_move("a", getpid()))
			_exit(1);
		for (i = 0; i < 2; i++) {
			/* kids is shared: only the parent may store to it. */
			k = fork();
			if (k < 0)
				_exit(1);
			if (k == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				if (pthread_create(&t, NULL, spin, NULL))
					_exit(1);
				spin(NULL);
			}
			kids[i] = k;
		}
		for (;;)
			pause();
	}
	busy.pid[busy.n++] = p;
	for (i = 0; i < 1000 && (!kids[0] || !kids[1]); i++)
		sleep_ms(10);
	/* Never a pid of -1 or 0 to kill in the teardown. */
	ASSERT_GT(kids[0], 0);
	ASSERT_GT(kids[1], 0);
	busy.pid[busy.n++] = kids[0];
	busy.pid[busy.n++] = kids[1];
	/* p, and each child with its second thread. */
	for (i = 0; i < 200; i++) {
		ASSERT_GT(rg_read(rg_path(path, sizeof(path), "a", "members"),
				  buf, sizeof(buf)), 0);
		if (rg_count_lines(buf) == 5)
			break;
		sleep_ms(10);
	}
	EXPECT_EQ(5, rg_count_lines(buf));
	ASSERT_EQ(0, measure(kids, 2, part));
	TH_LOG("forked children in a: %.3f + %.3f", part[0], part[1]);
	EXPECT_GT(part[0] + part[1], 0.22);
	EXPECT_LT(part[0] + part[1], 0.28);
	munmap(kids, 2 * sizeof(*kids));
}

#define CGROUP "/sys/fs/cgroup"

/*
 * A task in a non-root cgroup v2 cpu cgroup is under cgroup's control, not
 * ours; back in cgroup's root, it is ours again.
 */
TEST_F_TIMEOUT(cpu, cgroup_keeps_its_tasks, 120)
{
	double part;
	pid_t p;

	ASSERT_EQ(0, rg_write(CGROUP "/cgroup.subtree_control", "+cpu"));
	rmdir(CGROUP "/rg_cpu_test");
	ASSERT_EQ(0, mkdir(CGROUP "/rg_cpu_test", 0755));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=25"));
	p = busy_start("a", 2 * ncpus());
	ASSERT_GT(p, 0);
	part = measure1(p);
	TH_LOG("in a: %.3f", part);
	EXPECT_LT(part, 0.28);
	ASSERT_EQ(0, write_pid(CGROUP "/rg_cpu_test/cgroup.procs", p));
	EXPECT_EQ(1, rg_is_member("a", p));
	part = measure1(p);
	TH_LOG("in a and in a cpu cgroup: %.3f", part);
	EXPECT_GT(part, 0.90);
	ASSERT_EQ(0, write_pid(CGROUP "/cgroup.procs", p));
	part = measure1(p);
	TH_LOG("back in cgroup's root: %.3f", part);
	EXPECT_LT(part, 0.28);
	busy_stop(p);
	EXPECT_EQ(0, rmdir(CGROUP "/rg_cpu_test"));
}

/* A real-time task ignores the ceiling (CFS bandwidth is not for it). */
TEST_F_TIMEOUT(cpu, realtime_not_controlled, 120)
{
	struct sched_param sp = { .sched_priority = 1 };
	double part;
	pid_t p;

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=10"));
	p = busy_start("a", 1);
	ASSERT_GT(p, 0);
	part = measure1(p);
	TH_LOG("SCHED_OTHER: %.3f", part);
	EXPECT_LT(part, 0.13);
	ASSERT_EQ(0, sched_setscheduler(p, SCHED_FIFO, &sp));
	part = measure1(p);
	TH_LOG("SCHED_FIFO: %.3f", part);
	/* Well above the ceiling: up to one CPU of ncpus(). */
	EXPECT_GT(part, 0.20);
	sp.sched_priority = 0;
	ASSERT_EQ(0, sched_setscheduler(p, SCHED_OTHER, &sp));
	part = measure1(p);
	TH_LOG("SCHED_OTHER again: %.3f", part);
	EXPECT_LT(part, 0.13);
}

/* rmdir of a saturated capped group: its tasks run uncapped in the root. */
TEST_F_TIMEOUT(cpu, rmdir_while_saturated, 120)
{
	double part;
	pid_t p;

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=25"));
	p = busy_start("a", 2 * ncpus());
	ASSERT_GT(p, 0);
	part = measure1(p);
	EXPECT_LT(part, 0.28);
	ASSERT_EQ(0, rg_rmdir("a"));
	EXPECT_EQ(1, rg_is_member("", p));
	part = measure1(p);
	TH_LOG("after rmdir: %.3f", part);
	EXPECT_GT(part, 0.90);
}

/*
 * Unload cpu.ko while capped groups are saturated (every task back in the
 * root task group, uncapped), load it again and cap them again.
 */
TEST_F_TIMEOUT(cpu, reload_while_saturated, 120)
{
	double part[2];
	pid_t p[2];
	int i;

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/b"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=50"));
	ASSERT_EQ(0, cpu_set("a/b", "max_shares=50"));
	p[0] = busy_start("a", ncpus());
	p[1] = busy_start("a/b", ncpus());
	ASSERT_GT(p[1], 0);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, measure(p, 2, part));
		TH_LOG("round %d loaded: a %.3f a/b %.3f", i, part[0], part[1]);
		EXPECT_LT(part[0] + part[1], 0.53);
		EXPECT_LT(part[1], 0.28);
		if (cpu_absent())
			continue;
		ASSERT_EQ(0, rg_rmmod("cpu"));
		ASSERT_EQ(0, measure(p, 2, part));
		TH_LOG("round %d unloaded: a %.3f a/b %.3f", i, part[0],
		       part[1]);
		EXPECT_GT(part[0] + part[1], 0.90);
		ASSERT_EQ(0, rg_insmod("module/cpu.ko", NULL));
		ASSERT_EQ(0, cpu_set("a", "max_shares=50"));
		ASSERT_EQ(0, cpu_set("a/b", "max_shares=50"));
	}
}

/* numtasks and cpu together, loaded in either order, both enforced. */
TEST_F_TIMEOUT(cpu, with_numtasks, 120)
{
	double part;
	pid_t p;

	ASSERT_EQ(0, rg_insmod("module/numtasks.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=25"));
	ASSERT_EQ(0, rg_set("", "shares", "res=numtasks,child_shares_divisor=1000"));
	ASSERT_EQ(0, rg_write("/sys/module/numtasks/parameters/total_numtasks",
			      "1000"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=40"));
	p = busy_start("a", 2 * ncpus());
	ASSERT_GT(p, 0);
	EXPECT_EQ(2 * ncpus(), rg_get("a", "stats", "numtasks", "held"));
	part = measure1(p);
	TH_LOG("a %.3f", part);
	EXPECT_GT(part, 0.22);
	EXPECT_LT(part, 0.28);
	if (!cpu_absent()) {
		ASSERT_EQ(0, rg_rmmod("cpu"));
		ASSERT_EQ(0, rg_insmod("module/cpu.ko", NULL));
		ASSERT_EQ(0, cpu_set("a", "max_shares=25"));
		part = measure1(p);
		EXPECT_LT(part, 0.28);
	}
	EXPECT_EQ(2 * ncpus(), rg_get("a", "stats", "numtasks", "held"));
}

#define EMPTY_LINE \
	"res=cpu,usage_usec=0,nr_periods=0,nr_throttled=0,throttled_usec=0,guarantee_permille=0,limit_permille=1000\n"

/*
 * The stats line: its exact form, usage_usec against the tasks' own CPU
 * time, the throttling counters once a ceiling bites, and reset.
 */
TEST_F_TIMEOUT(cpu, stats, 120)
{
	char path[PATH_MAX], buf[512], want[512];
	long u0, u1;
	double t0, t1, own, usage;
	pid_t p;

	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
	ASSERT_EQ(0, cpu_set("a", "min_shares=30,max_shares=40"));
	ASSERT_GT(rg_read(rg_path(path, sizeof(path), "b", "stats"), buf,
			  sizeof(buf)), 0);
	ASSERT_STREQ(EMPTY_LINE, buf);
	ASSERT_GT(rg_read(rg_path(path, sizeof(path), "", "stats"), buf,
			  sizeof(buf)), 0);
	EXPECT_EQ(1000, CPU("", "guarantee_permille"));
	EXPECT_EQ(1000, CPU("", "limit_permille"));
	EXPECT_EQ(300, CPU("a", "guarantee_permille"));
	EXPECT_EQ(400, CPU("a", "limit_permille"));
	EXPECT_EQ(0, CPU("a", "nr_throttled"));

	p = busy_start("a", 2 * ncpus());
	ASSERT_GT(p, 0);
	sleep_ms(SETTLE_MS);
	t0 = cputime(p);
	u0 = CPU("a", "usage_usec");
	sleep_ms(WINDOW_MS);
	t1 = cputime(p);
	u1 = CPU("a", "usage_usec");
	own = t1 - t0;
	usage = (u1 - u0) / 1e6;
	TH_LOG("own %.3f s, usage_usec says %.3f s", own, usage);
	EXPECT_GT(usage, own * 0.95);
	EXPECT_LT(usage, own * 1.05);
	EXPECT_GT(CPU("a", "nr_periods"), 10);
	EXPECT_GT(CPU("a", "nr_throttled"), 10);
	EXPECT_GT(CPU("a", "throttled_usec"), 100000);
	/* The root's usage covers its subtree. */
	EXPECT_GE(CPU("", "usage_usec"), u1);

	busy_stop(p);
	sleep_ms(300);
	ASSERT_EQ(0, rg_set("a", "stats", "res=cpu"));
	ASSERT_GT(rg_read(rg_path(path, sizeof(path), "a", "stats"), buf,
			  sizeof(buf)), 0);
	EXPECT_EQ(0, CPU("a", "usage_usec"));
	EXPECT_LE(CPU("a", "nr_periods"), 1);
	EXPECT_EQ(0, CPU("a", "nr_throttled"));
	EXPECT_EQ(0, CPU("a", "throttled_usec"));
	EXPECT_EQ(300, CPU("a", "guarantee_permille"));
	EXPECT_EQ(400, CPU("a", "limit_permille"));
	/* The root's reset, too, and only the group written to. */
	EXPECT_GT(CPU("", "usage_usec"), 0);
	ASSERT_EQ(0, rg_set("", "stats", "res=cpu"));
	EXPECT_LT(CPU("", "usage_usec"), 100000);
	/* Reset takes no arguments; a refused one changes nothing. */
	ASSERT_GT(rg_read(rg_path(path, sizeof(path), "a", "stats"), buf,
			  sizeof(buf)), 0);
	EXPECT_EQ(-EINVAL, rg_set("a", "stats", "res=cpu,all"));
	EXPECT_EQ(-EINVAL, rg_set("a", "stats", "res=cpu,"));
	EXPECT_EQ(-EINVAL, rg_set("a", "stats", "res=cpux"));
	ASSERT_GT(rg_read(rg_path(path, sizeof(path), "a", "stats"), want,
			  sizeof(want)), 0);
	EXPECT_STREQ(buf, want);
}

/*
 * The scheduler's debug output lists every task group: ours have no
 * cgroup to name them, and must still be listed, not crash the reader.
 */
TEST_F_TIMEOUT(cpu, sched_debug_lists_our_task_groups, 120)
{
	static char buf[1 << 20];
	pid_t p;

	if (cpu_absent())
		SKIP(return, "the cpu controller is not loaded");
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, cpu_set("a", "max_shares=50"));
	p = busy_start("a", 2);
	ASSERT_GT(p, 0);
	ASSERT_LT(0, rg_read("/sys/kernel/debug/sched/debug", buf,
			     sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "/(res_groups)"));
}

TEST_HARNESS_MAIN

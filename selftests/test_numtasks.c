// SPDX-License-Identifier: GPL-2.0
/*
 * The numtasks controller (docs/res_groups.rst, numtasks). Counts are made absolute by setting
 * total_numtasks to 1000 and the root's divisor to 1000: then a child of
 * the root with max_shares=N may hold N tasks.
 *
 * Quick tier (RG_TIER=quick): the forks racing at a limit race for 1 s
 * instead of 5, the forkers released together race to a limit of 44
 * tasks instead of 100, and the shares writes racing with forks are 250,
 * not 2000.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define TOTAL "/sys/module/rg_numtasks/parameters/total_numtasks"
#define FORKRATE "/sys/module/rg_numtasks/parameters/forkrate"
#define FORKRATE_INTERVAL "/sys/module/rg_numtasks/parameters/forkrate_interval"
#define MAXKIDS 256
#define KTHREAD_SPAWN "/sys/module/rg_kthread/parameters/spawn"
#define TEST_CTL_FAIL "/sys/module/rg_test_ctl/parameters/fail_fork"
#define TEST_CTL_STRADDLE "/sys/module/rg_test_ctl/parameters/straddle_ms"

/* Sleeping children this test forked (each test runs in its own process). */
static struct {
	pid_t pid[MAXKIDS];
	int n;
} kids;

#define MODPROBE "/proc/sys/kernel/modprobe"
#define UMH_SCRIPT "/run/rg_umh.sh"
#define UMH_RAN "/run/rg_umh.ran"
/* The modprobe helper before a test set it, else empty. */
static char modprobe_was[256];

FIXTURE(nt) {
	int unused;
};

FIXTURE_SETUP(nt)
{
	/* What a killed test (no teardown) may have left. */
	rg_stall_unload();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	ASSERT_EQ(0, rg_write(TOTAL, "1000"));
	ASSERT_EQ(0, rg_set("", "shares", "res=numtasks,child_shares_divisor=1000"));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
	kids.n = 0;
}

FIXTURE_TEARDOWN(nt)
{
	int i;

	/* A held shares write goes on before its writer is killed. */
	rg_stall_release();
	for (i = 0; i < kids.n; i++)
		if (kids.pid[i] > 0)
			rg_kill(kids.pid[i]);
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
	if (rg_module_loaded("rg_kthread"))
		rg_rmmod("rg_kthread");
	rg_stall_unload();
	if (modprobe_was[0]) {
		rg_write(MODPROBE, modprobe_was);
		modprobe_was[0] = 0;
		unlink(UMH_SCRIPT);
		unlink(UMH_RAN);
	}
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
	int i, ret;

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
	/*
	 * One below the count is refused too. A kernel thread may exit
	 * between our read and write: then the write may pass; try again.
	 */
	for (i = 0, ret = 0; i < 10 && ret != -EINVAL; i++) {
		snprintf(val, sizeof(val), "%ld", NT("", "held") - 1);
		ret = rg_write(TOTAL, val);
		if (!ret)
			rg_write(TOTAL, "1000");
	}
	EXPECT_EQ(-EINVAL, ret);
	rg_read(TOTAL, after, sizeof(after));
	EXPECT_STREQ(before, after);
	ASSERT_EQ(0, rg_write(TOTAL, "2000"));
	EXPECT_EQ(2000, NT("", "limit"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=5"));
	EXPECT_EQ(10, NT("a", "limit"));
}

/* Move @n sleeping children of ours (forked in the root) into @group. */
static int move_kids(const char *group, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (add_kid() || rg_move(group, kids.pid[kids.n - 1]))
			return -1;
	}
	return 0;
}

/* A forker's shared page: what it saw, and the test's word to stop. */
struct fork_tries {
	int in_spin;	/* tries refused while the test-only module spun */
	int stop;	/* set by the test: stop trying */
};

/* Run the calling task on CPU @cpu only: 0, or -1. */
static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Try to fork in @group for @secs seconds, or until @ft->stop, each child
 * exiting at once, on CPU 1; exits with the number of forks allowed (at
 * most 255). @ft->in_spin counts the tries refused while the test-only
 * module was seen spinning (stalled 4) both before and after the try.
 */
static pid_t start_fork_tries(const char *group, int secs,
			      struct fork_tries *ft)
{
	pid_t pid = fork();
	time_t end;
	int n = 0, spin;

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pin_to(1))
		_exit(254);
	if (rg_move(group, getpid()))
		_exit(255);
	end = time(NULL) + secs;
	while (time(NULL) < end && n < 254 &&
	       !__atomic_load_n(&ft->stop, __ATOMIC_RELAXED)) {
		spin = rg_stall_get("stalled") == 4;
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			n++;
		else if (pid < 0 && errno == EAGAIN && spin &&
			 rg_stall_get("stalled") == 4)
			__atomic_add_fetch(&ft->in_spin, 1, __ATOMIC_RELAXED);
	}
	_exit(n);
}

/*
 * A move between two children of a full group never lets a fork in a
 * third child through: the moved task is counted at their common
 * ancestor all along. (Before the fix a move uncharged the old path up to
 * the root before it charged the new one, and a fork that came between
 * passed: a held 11 of its limit 10.) The test-only module spins the
 * move where it enters the new group (numtasks' nt_charge_at(): after
 * the old path was uncharged, before the fix), while another process
 * tries to fork in z all along: it must be seen refused during the spin
 * (the module seen spinning before and after a refused try), not only
 * before it (a forker that had stopped trying passed). The mover spins
 * on CPU 0, the forker and the test on CPU 1 (a forker on the spinning
 * CPU does not run until the spin ends), and the test ends the spin once
 * the forker was refused 3 times during it (at most 5 s: under a loaded
 * host's TCG a fixed 500 ms spin saw no refusal, or one).
 */
TEST_F_TIMEOUT(nt, moves_never_open_a_full_ancestor, 120)
{
	int status, reaped = 0;
	struct fork_tries *ft;
	long failcnt;
	pid_t mover, forker;
	double t;

	/* The forker runs while the mover spins, with preemption off. */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_fork_stall.ko", NULL));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=10"));
	ASSERT_EQ(0, rg_mkdir("a/x"));
	ASSERT_EQ(0, rg_mkdir("a/y"));
	ASSERT_EQ(0, rg_mkdir("a/z"));
	/* 9 in x and the forker in z: a is full. */
	ASSERT_EQ(0, move_kids("a/x", 9));
	ft = mmap(NULL, sizeof(*ft), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ft);
	memset(ft, 0, sizeof(*ft));
	/* (until the move is done: 30 s at most) */
	forker = start_fork_tries("a/z", 30, ft);
	ASSERT_LT(0, forker);
	kids.pid[kids.n++] = forker;
	/* The forker is in z and trying. */
	for (t = 0; t < 10 && NT("a/z", "failcnt") < 1; t += 0.01)
		usleep(10000);
	failcnt = NT("a/z", "failcnt");
	ASSERT_LT(0, failcnt);
	ASSERT_EQ(0, pin_to(1));
	ASSERT_EQ(0, rg_write(RG_STALL_PARAM "spin_charge", "5000"));
	mover = fork();
	ASSERT_LE(0, mover);
	if (mover == 0) {
		prctl(PR_SET_NAME, "rg_straddler");
		if (pin_to(0))
			_exit(2);
		_exit(rg_move("a/y", kids.pid[0]) ? 1 : 0);
	}
	/* 3 refusals seen during the spin, or its end; then it ends. */
	for (t = 0; t < 6 && !reaped &&
	     __atomic_load_n(&ft->in_spin, __ATOMIC_RELAXED) < 3; t += 0.001) {
		usleep(1000);
		reaped = waitpid(mover, &status, WNOHANG) == mover;
	}
	ASSERT_EQ(0, rg_write(RG_STALL_PARAM "spin_charge", "0"));
	if (!reaped)
		ASSERT_EQ(mover, waitpid(mover, &status, 0));
	EXPECT_EQ(0, rg_exit_code(status));
	EXPECT_EQ(1, rg_stall_get("spins"));
	EXPECT_EQ(1, rg_is_member("a/y", kids.pid[0]));
	__atomic_store_n(&ft->stop, 1, __ATOMIC_RELAXED);
	ASSERT_EQ(forker, waitpid(forker, &status, 0));
	kids.pid[kids.n - 1] = -1;
	ASSERT_TRUE(WIFEXITED(status));
	TH_LOG("forks allowed in z while a was full: %d; refused in the spin: %d (end %d: 2 cut)",
	       WEXITSTATUS(status), ft->in_spin, rg_stall_get("spin_end"));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Tried, and refused, while the move was half done. */
	EXPECT_LT(0, ft->in_spin);
	EXPECT_LE(failcnt + ft->in_spin, NT("a/z", "failcnt"));
	munmap(ft, sizeof(*ft));
	EXPECT_GE(10, NT("a", "maxheld"));
	/* The 9 sleepers: the forker is gone. */
	EXPECT_EQ(9, NT("a", "held"));
}

/*
 * A child process named rg_straddler (the test-only module holds its
 * calls), moved to @group, that forks once when a byte comes on @fd and
 * exits 0 if the fork was allowed, 1 if refused (EAGAIN).
 */
static pid_t start_straddler(const char *group, int fd[2])
{
	pid_t pid;
	char c;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "rg_straddler");
		close(fd[1]);
		if (read(fd[0], &c, 1) != 1)
			_exit(3);
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			_exit(waitpid(pid, NULL, 0) == pid ? 0 : 4);
		_exit(errno == EAGAIN ? 1 : 2);
	}
	close(fd[0]);
	if (pid > 0 && rg_move(group, pid)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	return pid;
}

/*
 * Let the straddler fork, held at nt_charge_parent(); wait until it is. It
 * spins there until straddler_end() (3 s at most): the test's own steps
 * meanwhile may take what they take.
 */
static int straddler_go(int fd)
{
	double t;
	char c = 0;

	if (rg_write(RG_STALL_PARAM "spin_parent", "3000") ||
	    write(fd, &c, 1) != 1)
		return -1;
	for (t = 0; t < 10 && rg_stall_get("stalled") != 5; t += 0.001)
		usleep(1000);
	if (rg_stall_get("stalled") == 5)
		return 0;
	printf("# the straddler was never seen held: spins %d, spin_end %d\n",
	       rg_stall_get("spins"), rg_stall_get("spin_end"));
	return -1;
}

/* The straddler's spin ends: its fork goes on. */
static int straddler_end(void)
{
	return rg_write(RG_STALL_PARAM "spin_parent", "0");
}

/* a limit 10, a/x guarantee 4 (docs, "Worked example"). */
static void guarantee_setup(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_fork_stall.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a/x"));
	ASSERT_EQ(0, rg_mkdir("a/y"));
	ASSERT_EQ(0, rg_set("a", "shares",
			    "res=numtasks,min_shares=10,max_shares=10,child_shares_divisor=10"));
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=numtasks,min_shares=4"));
	ASSERT_EQ(4, NT("a/x", "guarantee"));
}

/*
 * A fork held on its way up never lets a sibling group's fork through a
 * full parent, nor does an exit meanwhile, and it is not refused for a
 * rise it no longer makes. a (limit 10) is full: x, with a guarantee of
 * 4, holds 3 sleepers and the straddler (4), y holds 5 sleepers and us
 * (6). The straddler forks in x and is held where x's raise of a is being
 * made (numtasks' nt_charge_parent()); meanwhile a sleeper of x exits
 * and we fork in y. y may hold 10 - 4 = 6 at most, so our fork is
 * refused. (Before the fix x showed the straddler's child before a
 * counted it: the exit then took one off a that a had never added, our
 * fork passed, and the refused straddler gave its raise back: a at 11, y
 * at 7, x's guarantee eaten.) x being below its guarantee after the
 * exit, the straddler's fork raises a no more and is allowed. (It was
 * refused for the rise it had worked out before the exit, until a
 * second fix.) Once all is done, x still gets its guarantee and a its
 * limit, exactly.
 */
TEST_F_TIMEOUT(nt, a_fork_on_its_way_up_opens_no_full_parent, 60)
{
	int fd[2], status, err;
	pid_t straddler;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	guarantee_setup(_metadata);
	ASSERT_EQ(0, move_kids("a/x", 3));
	ASSERT_EQ(0, move_kids("a/y", 5));
	straddler = start_straddler("a/x", fd);
	ASSERT_LT(0, straddler);
	ASSERT_EQ(0, rg_move("a/y", getpid()));
	EXPECT_EQ(4, NT("a/x", "held"));
	EXPECT_EQ(6, NT("a/y", "held"));
	ASSERT_EQ(0, straddler_go(fd[1]));
	/* x's sleeper exits; we fork in y: both while the straddler is held. */
	rg_kill(kids.pid[0]);
	kids.pid[0] = -1;
	EXPECT_EQ(-EAGAIN, add_kid());
	EXPECT_EQ(5, rg_stall_get("stalled"))
		TH_LOG("the spin ended early: spin_end %d", rg_stall_get("spin_end"));
	ASSERT_EQ(0, straddler_end());
	ASSERT_EQ(straddler, waitpid(straddler, &status, 0));
	close(fd[1]);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the straddler's fork was refused (1) or failed");
	EXPECT_EQ(1, rg_stall_get("spins"));
	EXPECT_EQ(6, NT("a/y", "held"));
	EXPECT_GE(10, NT("a", "maxheld"));
	/* All done: x (2 sleepers and us) may grow to 5, y staying at 5. */
	ASSERT_EQ(0, rg_move("a/x", getpid()));
	EXPECT_EQ(2, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(10, NT("a", "held"));
}

/*
 * A fork whose rise of its parent comes only after it was checked there
 * is checked again. a (limit 10) is full: x (guarantee 4) holds a
 * sleeper, the straddler and us (3, its part of a still 4), y 6
 * sleepers. The straddler forks in x: that raises a by nothing, and a
 * allows it; it is held there, and meanwhile we fork in x, to 4, which
 * raises a by nothing too and is allowed. The straddler's fork, now x's
 * fifth task, would raise a to 11: it is refused.
 */
TEST_F_TIMEOUT(nt, a_rise_that_comes_late_is_checked, 60)
{
	int fd[2], status, err;
	pid_t straddler;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	guarantee_setup(_metadata);
	ASSERT_EQ(0, move_kids("a/x", 1));
	ASSERT_EQ(0, move_kids("a/y", 6));
	straddler = start_straddler("a/x", fd);
	ASSERT_LT(0, straddler);
	ASSERT_EQ(0, rg_move("a/x", getpid()));
	EXPECT_EQ(3, NT("a/x", "held"));
	ASSERT_EQ(0, straddler_go(fd[1]));
	EXPECT_EQ(0, add_kid());
	EXPECT_EQ(5, rg_stall_get("stalled"))
		TH_LOG("the spin ended early: spin_end %d", rg_stall_get("spin_end"));
	ASSERT_EQ(0, straddler_end());
	ASSERT_EQ(straddler, waitpid(straddler, &status, 0));
	close(fd[1]);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(1, WEXITSTATUS(status)) TH_LOG("the straddler's fork was allowed (0) or failed");
	EXPECT_EQ(1, rg_stall_get("spins"));
	EXPECT_GE(10, NT("a", "maxheld"));
	/* The straddler gone, x (3) may grow to its guarantee, not past. */
	EXPECT_EQ(9, NT("a", "held"));
	EXPECT_EQ(1, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(10, NT("a", "held"));
}

/*
 * A group over its limit (by moves) refuses forks in its whole subtree,
 * even a fork that would only use a child's unused guarantee.
 */
TEST_F(nt, over_limit_group_refuses_forks_in_its_whole_subtree)
{
	int i, err;

	ASSERT_EQ(0, rg_mkdir("a/c"));
	ASSERT_EQ(0, rg_mkdir("a/c/d"));
	ASSERT_EQ(0, rg_set("a", "shares",
			    "res=numtasks,min_shares=10,max_shares=10,child_shares_divisor=10"));
	ASSERT_EQ(0, rg_set("a/c", "shares", "res=numtasks,min_shares=5"));
	EXPECT_EQ(5, NT("a/c", "guarantee"));
	EXPECT_EQ(10, NT("a/c", "limit"));
	/* 11 children and us: 12 tasks in a, moves are never refused. */
	ASSERT_EQ(0, move_kids("a", 11));
	ASSERT_EQ(0, rg_move("a", getpid()));
	EXPECT_EQ(12, NT("a", "held"));
	EXPECT_EQ(-EAGAIN, add_kid());
	EXPECT_EQ(1, NT("a", "failcnt"));
	/* a/c has 4 of its guarantee unused, but a is over its limit. */
	ASSERT_EQ(0, rg_move("a/c", getpid()));
	EXPECT_EQ(-EAGAIN, add_kid());
	EXPECT_EQ(1, NT("a/c", "failcnt"));
	ASSERT_EQ(0, rg_move("a/c/d", getpid()));
	EXPECT_EQ(-EAGAIN, add_kid());
	EXPECT_EQ(1, NT("a/c/d", "failcnt"));
	EXPECT_EQ(12, NT("a", "held"));
	EXPECT_EQ(12, NT("a", "maxheld"));
	/*
	 * Down to 4 own tasks in a: eff(a) = 4 + max(1, 5) = 9. a/c's
	 * subtree may then grow to 6 (eff 10), not further.
	 */
	for (i = 0; i < 7; i++) {
		rg_kill(kids.pid[i]);
		kids.pid[i] = -1;
	}
	EXPECT_EQ(5, NT("a", "held"));
	EXPECT_EQ(5, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(6, NT("a/c", "held"));
	EXPECT_EQ(10, NT("a", "held"));
	/* a's own tasks may not fork either: a is at its limit. */
	ASSERT_EQ(0, rg_move("a", getpid()));
	EXPECT_EQ(-EAGAIN, add_kid());
}

/* A removed group's guarantee is no longer reserved in its parent. */
TEST_F(nt, removed_group_gives_back_its_guarantee)
{
	int err;

	ASSERT_EQ(0, rg_mkdir("a/x"));
	ASSERT_EQ(0, rg_set("a", "shares",
			    "res=numtasks,max_shares=10,child_shares_divisor=10"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,min_shares=10"));
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=numtasks,min_shares=4"));
	ASSERT_EQ(0, rg_move("a", getpid()));
	EXPECT_EQ(5, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	/* A guarantee lowered, then the group removed: room at once. */
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=numtasks,min_shares=2"));
	EXPECT_EQ(2, fill(&err));
	ASSERT_EQ(0, rg_rmdir("a/x"));
	EXPECT_EQ(2, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(10, NT("a", "held"));
	/* A guarantee raised over tasks already there: no fork fits. */
	ASSERT_EQ(0, rg_mkdir("a/y"));
	ASSERT_EQ(0, rg_set("a/y", "shares", "res=numtasks,min_shares=1"));
	EXPECT_EQ(-EAGAIN, add_kid());
}

/* Limits and guarantees of every value class, at every level. */
TEST_F(nt, limits_and_guarantees_follow_the_shares_at_every_level)
{
	ASSERT_EQ(0, rg_mkdir("a/x"));
	ASSERT_EQ(0, rg_mkdir("a/x/y"));
	/* DONT_CARE everywhere: the root's amount, no guarantee. */
	EXPECT_EQ(1000, NT("a/x/y", "limit"));
	EXPECT_EQ(0, NT("a/x/y", "guarantee"));
	EXPECT_EQ(1000, NT("", "guarantee"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=100"));
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=numtasks,max_shares=50"));
	EXPECT_EQ(100, NT("a", "limit"));
	EXPECT_EQ(50, NT("a/x", "limit"));
	EXPECT_EQ(50, NT("a/x/y", "limit"));
	/* A parent's divisor and max reach the whole subtree. */
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,child_shares_divisor=200"));
	EXPECT_EQ(25, NT("a/x", "limit"));
	EXPECT_EQ(25, NT("a/x/y", "limit"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,max_shares=200"));
	EXPECT_EQ(50, NT("a/x/y", "limit"));
	/* Guarantees come from the parent's guarantee, not its limit. */
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=numtasks,min_shares=50"));
	EXPECT_EQ(0, NT("a/x", "guarantee"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,min_shares=100"));
	EXPECT_EQ(100, NT("a", "guarantee"));
	EXPECT_EQ(25, NT("a/x", "guarantee"));
	EXPECT_EQ(0, NT("a/x/y", "guarantee"));
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=numtasks,child_shares_divisor=3"));
	ASSERT_EQ(0, rg_set("a/x/y", "shares", "res=numtasks,min_shares=1,max_shares=1"));
	EXPECT_EQ(8, NT("a/x/y", "guarantee"));	/* 25 / 3, rounded down */
	EXPECT_EQ(16, NT("a/x/y", "limit"));		/* 50 / 3 */
	ASSERT_EQ(0, rg_set("a", "shares", "res=numtasks,min_shares=-3"));
	EXPECT_EQ(0, NT("a/x", "guarantee"));
	EXPECT_EQ(0, NT("a/x/y", "guarantee"));
	/* total_numtasks reaches every level. */
	ASSERT_EQ(0, rg_write(TOTAL, "2000"));
	EXPECT_EQ(400, NT("a", "limit"));
	EXPECT_EQ(33, NT("a/x/y", "limit"));
	/* max_shares=0: no fork at all, but moves in still succeed. */
	ASSERT_EQ(0, rg_set("b", "shares", "res=numtasks,min_shares=0,max_shares=0"));
	EXPECT_EQ(0, NT("b", "limit"));
	EXPECT_EQ(0, NT("b", "guarantee"));
	ASSERT_EQ(0, rg_move("b", getpid()));
	EXPECT_EQ(1, NT("b", "held"));
	EXPECT_EQ(-EAGAIN, add_kid());
	/* Limit equal to the parent's: the root's whole amount. */
	ASSERT_EQ(0, rg_set("b", "shares", "res=numtasks,max_shares=1000"));
	EXPECT_EQ(2000, NT("b", "limit"));
	EXPECT_EQ(0, add_kid());
}

/*
 * Forks at a group's limit while its parent's max and divisor change
 * together, so that the group's limit is 5 before and after each write:
 * the fork path must use the old or the new limit, never a mix of old
 * max and new divisor (10: a fork would pass) or the reverse (2). Every
 * fork is refused, by numtasks at a/c's limit, and every write succeeds.
 * A smoke test: it cannot hit a window of a few instructions (the first
 * numtasks, which read max and the divisor apart on each fork, passed
 * it too). The next test holds a write in that window.
 */
TEST_F_TIMEOUT(nt, forks_at_the_limit_during_shares_writes_are_refused, 120)
{
	static const char * const w[2] = {
		"res=numtasks,max_shares=20,child_shares_divisor=20",
		"res=numtasks,max_shares=10,child_shares_divisor=10",
	};
	int i, err, go[2], tries = 0, passed = 0, other = 0, status;
	long failcnt;
	pid_t writer, pid;

	ASSERT_EQ(0, rg_mkdir("a/c"));
	ASSERT_EQ(0, rg_set("a", "shares", w[1]));
	ASSERT_EQ(0, rg_set("a/c", "shares", "res=numtasks,max_shares=5"));
	ASSERT_EQ(5, NT("a/c", "limit"));
	/* The writer first, in the root: a/c will refuse every fork. */
	ASSERT_EQ(0, pipe(go));
	writer = fork();
	ASSERT_LE(0, writer);
	if (writer == 0) {
		close(go[1]);
		if (read(go[0], &i, 1) != 1)
			_exit(2);
		for (i = 0; i < rg_scaled(2000, 250); i++)
			if (rg_set("a", "shares", w[i & 1]))
				_exit(1);
		_exit(0);
	}
	close(go[0]);
	ASSERT_EQ(0, rg_move("a/c", getpid()));
	ASSERT_EQ(4, fill(&err));	/* with us, 5 */
	ASSERT_EQ(-EAGAIN, err);
	failcnt = NT("a/c", "failcnt");
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	while (waitpid(writer, &status, WNOHANG) == 0) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		tries++;
		if (pid > 0) {
			passed++;
			waitpid(pid, NULL, 0);
		} else if (errno != EAGAIN) {
			other++;
		}
	}
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	TH_LOG("%d forks tried during the writes", tries);
	EXPECT_LT(0, tries);
	EXPECT_EQ(0, passed);
	EXPECT_EQ(0, other);
	/* Each refusal was numtasks' own, counted where the fork was. */
	EXPECT_EQ(failcnt + tries, NT("a/c", "failcnt"));
	EXPECT_EQ(5, NT("a/c", "held"));
	/* The last write was w[1]. */
	EXPECT_EQ(10, NT("a", "limit"));
	EXPECT_EQ(5, NT("a/c", "limit"));
}

/*
 * rg_straddler (the name the stall module holds), in the root: for each
 * byte i read from *cmd, writes w[i] to a's shares and sends back the
 * result, 0 or -errno, on *res. It dies with us.
 */
static pid_t start_shares_writer(const char * const *w, int *cmd, int *res)
{
	int c[2], r[2], ret;
	unsigned char i;
	pid_t pid;

	if (pipe2(c, O_CLOEXEC))
		return -1;
	if (pipe2(r, O_CLOEXEC)) {
		close(c[0]);
		close(c[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		/* Not ours to keep; it ends when killed (or by PDEATHSIG). */
		close(c[1]);
		close(r[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "rg_straddler");
		while (read(c[0], &i, 1) == 1) {
			ret = rg_set("a", "shares", w[i]);
			if (write(r[1], &ret, sizeof(ret)) != sizeof(ret))
				_exit(1);
		}
		_exit(0);
	}
	close(c[0]);
	close(r[1]);
	if (pid < 0) {
		close(c[1]);
		close(r[0]);
		return -1;
	}
	*cmd = c[1];
	*res = r[0];
	return pid;
}

/* Start the write of w[i] and wait until it is held half stored; 0 or -1. */
static int hold_half_write(int cmd, unsigned char i)
{
	if (rg_write(RG_STALL_PARAM "half_write", "1") ||
	    write(cmd, &i, 1) != 1)
		return -1;
	return rg_stall_wait(3);
}

/* Let the held write go on; its result, or -1 after 40 s. */
static int finish_half_write(int res)
{
	struct pollfd pfd = { .fd = res, .events = POLLIN };
	int ret;

	if (rg_write(RG_STALL_PARAM "half_write", "0") ||
	    poll(&pfd, 1, 40000) != 1 ||
	    read(res, &ret, sizeof(ret)) != sizeof(ret))
		return -1;
	return ret;
}

/*
 * A fork while a shares write is half stored: a's max_shares new, its
 * divisor still old, as the commit's plain stores leave them for a
 * moment (the stall module holds the write there, rg_mutex held). a/c's
 * limit is 5 with either whole version of a's shares, but 2 (max 10 over
 * divisor 20) or 10 (max 20 over divisor 10) with the half-stored ones.
 * The fork must meet a/c's old limit: allowed at 4 tasks, refused at 5.
 * numtasks that worked limits out from the live shares on each fork
 * failed both.
 */
TEST_F_TIMEOUT(nt, fork_during_a_half_stored_shares_write_meets_the_old_limit, 120)
{
	static const char * const w[2] = {
		"res=numtasks,max_shares=20,child_shares_divisor=20",
		"res=numtasks,max_shares=10,child_shares_divisor=10",
	};
	int cmd = -1, res = -1;
	long failcnt;
	char buf[256];

	ASSERT_EQ(0, rg_mkdir("a/c"));
	ASSERT_EQ(0, rg_set("a", "shares", w[0]));
	ASSERT_EQ(0, rg_set("a/c", "shares", "res=numtasks,max_shares=5"));
	ASSERT_EQ(5, NT("a/c", "limit"));
	ASSERT_EQ(0, rg_insmod(RG_STALL_KO, NULL));
	kids.pid[kids.n] = start_shares_writer(w, &cmd, &res);
	ASSERT_LT(0, kids.pid[kids.n++]);
	ASSERT_EQ(0, rg_move("a/c", getpid()));
	ASSERT_EQ(0, add_kid());
	ASSERT_EQ(0, add_kid());
	ASSERT_EQ(0, add_kid());
	ASSERT_EQ(4, NT("a/c", "held"));
	failcnt = NT("a/c", "failcnt");

	/* 20/20 to 10/10, held at 10/20: the fork fits the old 5. */
	ASSERT_EQ(0, hold_half_write(cmd, 1));
	EXPECT_EQ(0, add_kid());
	/* The fork was inside the hold: it was still there after it. */
	EXPECT_EQ(3, rg_stall_get("stalled"));
	ASSERT_EQ(0, finish_half_write(res));
	EXPECT_EQ(failcnt, NT("a/c", "failcnt"));
	/* Whatever that fork did, a/c holds 5 for the next half. */
	if (NT("a/c", "held") == 4)
		ASSERT_EQ(0, add_kid());
	ASSERT_EQ(5, NT("a/c", "held"));
	failcnt = NT("a/c", "failcnt");

	/* 10/10 to 20/20, held at 20/10: at the old 5, refused. */
	ASSERT_EQ(0, hold_half_write(cmd, 0));
	EXPECT_EQ(-EAGAIN, add_kid());
	EXPECT_EQ(3, rg_stall_get("stalled"));
	ASSERT_EQ(0, finish_half_write(res));
	EXPECT_EQ(5, NT("a/c", "held"));
	EXPECT_EQ(failcnt + 1, NT("a/c", "failcnt"));

	/* Both writes were whole in the end. */
	ASSERT_LT(0, rg_read(RG_ROOT "/a/shares", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "max_shares=20,child_shares_divisor=20"));
	EXPECT_EQ(20, NT("a", "limit"));
	EXPECT_EQ(5, NT("a/c", "limit"));
	EXPECT_EQ(0, rg_stall_get("timeouts"));
	close(cmd);
	close(res);
}

/* insmod checks total_numtasks as a write would: below the count, EINVAL. */
TEST_F(nt, insmod_with_total_below_the_tasks_counted_fails)
{
	char val[64];
	long held = NT("", "held");

	ASSERT_LT(1, held);
	ASSERT_EQ(0, add_kid());
	ASSERT_EQ(0, rg_move("a", kids.pid[0]));
	ASSERT_EQ(0, rg_rmmod("rg_numtasks"));
	/* Kernel threads may come and go: well below, then well above. */
	snprintf(val, sizeof(val), "total_numtasks=%ld", held / 2);
	EXPECT_EQ(-EINVAL, rg_insmod("module/rg_numtasks.ko", val));
	EXPECT_FALSE(rg_module_loaded("rg_numtasks"));
	EXPECT_EQ(-EINVAL, rg_insmod("module/rg_numtasks.ko", "total_numtasks=0"));
	EXPECT_FALSE(rg_module_loaded("rg_numtasks"));
	/* Nothing is refused meanwhile: we can fork. */
	ASSERT_EQ(0, add_kid());
	snprintf(val, sizeof(val), "total_numtasks=%ld", held + 100);
	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", val));
	EXPECT_EQ(held + 100, NT("", "limit"));
	EXPECT_EQ(1, NT("a", "held"));
}

/*
 * Set total_numtasks to the root's held, until our own fork is refused
 * (tasks come and go meanwhile): true then, with that held in *held.
 */
static bool root_full(long *held)
{
	char val[32];
	int i;

	for (i = 0; i < 20; i++) {
		*held = NT("", "held");
		snprintf(val, sizeof(val), "%ld", *held);
		if (rg_write(TOTAL, val))
			continue;
		if (add_kid() == -EAGAIN)
			return true;
		if (kids.n)
			rg_kill(kids.pid[--kids.n]);
	}
	return false;
}

/* Kernel threads are counted in the root, and never refused. */
TEST_F(nt, kernel_threads_are_never_refused)
{
	char val[32];
	long held = 0;

	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_kthread.ko", NULL));
	/* The root exactly at its limit: our own fork is refused. */
	ASSERT_TRUE(root_full(&held));
	EXPECT_EQ(0, rg_write(KTHREAD_SPAWN, "1"));
	EXPECT_EQ(0, rg_write(KTHREAD_SPAWN, "1"));
	snprintf(val, sizeof(val), "%ld", held + 100);
	ASSERT_EQ(0, rg_write(TOTAL, val));
}

/*
 * Nor are the user-mode helpers the kernel starts itself: a mount of an
 * unknown filesystem type asks for its module, and a kworker starts the
 * modprobe helper (here a script that leaves a file), with the root at
 * its limit. (Before the fix the helper was refused: no file, and a
 * failure counted in the root.)
 */
TEST_F(nt, user_mode_helpers_are_never_refused)
{
	char val[32];
	long held = 0;
	int fd;

	ASSERT_LT(0, rg_read(MODPROBE, modprobe_was, sizeof(modprobe_was)));
	unlink(UMH_RAN);
	fd = open(UMH_SCRIPT, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, dprintf(fd, "#!/bin/sh\necho ran > " UMH_RAN "\n"));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, rg_write(MODPROBE, UMH_SCRIPT));
	/* The root exactly at its limit: our own fork is refused. */
	ASSERT_TRUE(root_full(&held));
	EXPECT_EQ(-1, mount("none", "/run", "rg_no_such_fs", 0, NULL));
	EXPECT_EQ(ENODEV, errno);
	/* Not the root's failcnt: any other fork in the root may count. */
	EXPECT_EQ(0, access(UMH_RAN, F_OK));
	snprintf(val, sizeof(val), "%ld", held + 100);
	ASSERT_EQ(0, rg_write(TOTAL, val));
}

/* A fork another controller refuses does not use up the fork rate. */
TEST_F(nt, fork_rate_not_used_by_a_cancelled_fork)
{
	int err;

	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl.ko", NULL));
	ASSERT_EQ(0, rg_write(FORKRATE_INTERVAL, "1000"));
	ASSERT_EQ(0, rg_write(FORKRATE, "3"));
	ASSERT_EQ(0, rg_move("a", getpid()));
	ASSERT_EQ(0, rg_write(TEST_CTL_FAIL, "11"));
	EXPECT_EQ(-EAGAIN, add_kid());
	EXPECT_EQ(-EAGAIN, add_kid());
	ASSERT_EQ(0, rg_write(TEST_CTL_FAIL, "0"));
	EXPECT_EQ(1, NT("a", "held"));
	EXPECT_EQ(0, NT("a", "failcnt"));
	EXPECT_EQ(0, NT("a", "forkrate_failcnt"));
	EXPECT_EQ(3, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(1, NT("a", "forkrate_failcnt"));
	ASSERT_EQ(0, rg_write(FORKRATE, "0"));
}

/*
 * Nor does a fork cancelled after the interval restarted give one back to
 * the new interval. rate 3 per 2 s: a fork by rg_straddler is allowed
 * here in the first interval, then held 2.5 s in the test controller's
 * can_fork and refused there; at 2.2 s our fork starts the second
 * interval; once the straddler's fork is cancelled, 2 more forks are
 * allowed, not 3. (Before the fix the cancel took one off the new
 * interval's count: 3 more.)
 */
TEST_F(nt, fork_rate_cancel_after_the_interval_gives_nothing_back)
{
	pid_t straddler;
	int err, status;

	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl.ko", NULL));
	ASSERT_EQ(0, rg_write(FORKRATE_INTERVAL, "2"));
	ASSERT_EQ(0, rg_write(FORKRATE, "3"));
	ASSERT_EQ(0, rg_write(TEST_CTL_STRADDLE, "2500"));
	ASSERT_EQ(0, rg_move("a", getpid()));
	straddler = fork();
	ASSERT_LE(0, straddler);
	if (straddler == 0) {
		prctl(PR_SET_NAME, "rg_straddler");
		/* The interval starts here: the first fork in a. */
		_exit(fork() < 0 && errno == EAGAIN ? 0 : 1);
	}
	kids.pid[kids.n++] = straddler;
	usleep(2200 * 1000);
	ASSERT_EQ(0, add_kid());
	ASSERT_EQ(straddler, waitpid(straddler, &status, 0));
	kids.pid[kids.n - 2] = -1;
	EXPECT_EQ(0, rg_exit_code(status));
	EXPECT_EQ(2, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(1, NT("a", "forkrate_failcnt"));
	ASSERT_EQ(0, rg_write(TEST_CTL_STRADDLE, "0"));
	ASSERT_EQ(0, rg_write(FORKRATE, "0"));
}

TEST_F(nt, fork_rate_interval_is_validated_and_never_wraps)
{
	char before[32], after[32];
	int err;

	rg_read(FORKRATE_INTERVAL, before, sizeof(before));
	EXPECT_EQ(-EINVAL, rg_write(FORKRATE_INTERVAL, "0"));
	EXPECT_EQ(-EINVAL, rg_write(FORKRATE_INTERVAL, "-1"));
	EXPECT_EQ(-EINVAL, rg_write(FORKRATE_INTERVAL, "x"));
	EXPECT_EQ(-EINVAL, rg_write(FORKRATE_INTERVAL, "4294967296"));
	rg_read(FORKRATE_INTERVAL, after, sizeof(after));
	EXPECT_STREQ(before, after);
	/*
	 * 17179870 s: times HZ (250 or 1000) in 32 bits is 0.8 s. The
	 * interval must still be the whole of it.
	 */
	ASSERT_EQ(0, rg_write(FORKRATE_INTERVAL, "17179870"));
	ASSERT_EQ(0, rg_write(FORKRATE, "1"));
	ASSERT_EQ(0, rg_move("a", getpid()));
	EXPECT_EQ(1, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	usleep(1000000);
	EXPECT_EQ(-EAGAIN, add_kid());
	EXPECT_EQ(2, NT("a", "forkrate_failcnt"));
	ASSERT_EQ(0, rg_write(FORKRATE, "0"));
	EXPECT_EQ(0, add_kid());
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
	ASSERT_TRUE(WIFEXITED(status));
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

/*
 * The next interval admits exactly the rate again, and each refusal is
 * counted. The first interval is made long (1000 s) so that no boundary
 * falls within it, then 1 s: 1.1 s later the next fork opens a new
 * interval, which is made long again before the rest of it is used up.
 * (With the count never reset at a new interval, all four tests above
 * passed.)
 */
TEST_F(nt, fork_rate_admits_the_rate_again_in_the_next_interval)
{
	int err;

	ASSERT_EQ(0, rg_write(FORKRATE_INTERVAL, "1000"));
	ASSERT_EQ(0, rg_write(FORKRATE, "3"));
	ASSERT_EQ(0, rg_move("a", getpid()));
	EXPECT_EQ(3, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(1, NT("a", "forkrate_failcnt"));
	ASSERT_EQ(0, rg_write(FORKRATE_INTERVAL, "1"));
	usleep(1100 * 1000);
	/* The first fork of the second interval, then the rest of it. */
	EXPECT_EQ(0, add_kid());
	ASSERT_EQ(0, rg_write(FORKRATE_INTERVAL, "1000"));
	EXPECT_EQ(2, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(2, NT("a", "forkrate_failcnt"));
	EXPECT_EQ(0, NT("a", "failcnt"));
	EXPECT_EQ(7, NT("a", "held"));
	ASSERT_EQ(0, rg_write(FORKRATE, "0"));
}

/*
 * minheld follows held down, and keeps its lowest value once held rises
 * again (the stats line shows it no higher than held: only a rise after
 * a fall tells that it was kept). From a reset at 4 tasks, down to 1,
 * then up to 5.
 */
TEST_F(nt, minheld_follows_held_down_and_keeps_its_lowest)
{
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, add_kid());
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, rg_move("a", kids.pid[i]));
	ASSERT_EQ(0, rg_set("a", "stats", "res=numtasks"));
	EXPECT_EQ(4, NT("a", "minheld"));
	/* Two exits and a move out. */
	for (i = 0; i < 2; i++) {
		rg_kill(kids.pid[i]);
		kids.pid[i] = -1;
	}
	ASSERT_EQ(0, rg_move("", kids.pid[2]));
	EXPECT_EQ(1, NT("a", "held"));
	EXPECT_EQ(1, NT("a", "minheld"));
	/* Up again: two moves in and two forks. */
	ASSERT_EQ(0, rg_move("a", kids.pid[2]));
	ASSERT_EQ(0, rg_move("a", getpid()));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, add_kid());
	EXPECT_EQ(5, NT("a", "held"));
	EXPECT_EQ(5, NT("a", "maxheld"));
	EXPECT_EQ(1, NT("a", "minheld"));
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
	ASSERT_EQ(0, rg_rmmod("rg_numtasks"));
	ASSERT_EQ(0, rg_move("a", kids.pid[0]));
	ASSERT_EQ(0, rg_move("a", kids.pid[1]));
	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
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
		ASSERT_EQ(0, rg_rmmod("rg_numtasks"));
		usleep(50000);
		ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	}
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, rg_fork_loop_stop(loopers[i]));
	/* Quiet again: the counts match the members files. */
	EXPECT_EQ(0, NT("a", "held"));
	EXPECT_EQ(0, NT("b", "held"));
}

/* What a forker reports: forks allowed, and when its loop began and ended. */
struct forked {
	int n;
	long long start, end;
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * In a child: join @group, say so on @ready, wait until @go is closed,
 * then fork children that sleep until refused, report through @wfd and
 * sleep too: no task leaves the group while the others still fork.
 */
static void forker(const char *group, int ready, int go, int wfd)
{
	struct forked r = { 0 };
	char c;

	if (rg_move(group, getpid()) || write(ready, "r", 1) != 1 ||
	    read(go, &c, 1) != 0)
		_exit(1);
	r.start = now_ns();
	for (;;) {
		pid_t pid = fork();

		if (pid < 0) {
			r.end = now_ns();
			if (errno != EAGAIN)
				r.n = -1;
			if (write(wfd, &r, sizeof(r)) != sizeof(r))
				_exit(1);
			for (;;)
				pause();
		}
		if (pid == 0) {
			for (;;)
				pause();
		}
		r.n++;
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

#define FORKERS 4

/*
 * Start a forker in each of @groups, released together by a barrier;
 * the forks they were allowed in all, or -1 if one failed otherwise.
 * Fails the test unless every forker was still forking when every other
 * one had begun (they overlapped).
 */
static int race_forkers(struct __test_metadata *_metadata,
			const char * const groups[FORKERS], pid_t f[FORKERS])
{
	int i, total = 0, ready[2], go[2], res[2];
	long long last_start = 0, first_end = LLONG_MAX;
	struct forked r;
	char c;

	if (pipe(ready) || pipe(go) || pipe(res))
		return -1;
	for (i = 0; i < FORKERS; i++) {
		f[i] = fork();
		if (f[i] < 0)
			return -1;
		if (f[i] == 0) {
			close(go[1]);
			forker(groups[i], ready[1], go[0], res[1]);
		}
	}
	close(go[0]);
	for (i = 0; i < FORKERS; i++)
		if (read(ready[0], &c, 1) != 1)
			return -1;
	close(go[1]);		/* go */
	for (i = 0; i < FORKERS; i++) {
		if (read(res[0], &r, sizeof(r)) != sizeof(r) || r.n < 0)
			return -1;
		total += r.n;
		if (r.start > last_start)
			last_start = r.start;
		if (r.end < first_end)
			first_end = r.end;
	}
	EXPECT_LT(last_start, first_end) {
		TH_LOG("the forkers did not overlap");
	}
	close(ready[0]);
	close(ready[1]);
	close(res[0]);
	close(res[1]);
	return total;
}

/*
 * The limit the forkers of race_forkers() race to: 100 tasks, the quick
 * tier's 44 (still ten forks each to overlap in; race_forkers() fails the
 * test if they did not).
 */
static int race_limit(void)
{
	return rg_scaled(100, 44);
}

TEST_F_TIMEOUT(nt, concurrent_forks_stop_exactly_at_the_limit, 300)
{
	static const char * const groups[FORKERS] = { "a", "a", "a", "a" };
	const int L = race_limit();
	pid_t f[FORKERS];
	char lim[64];
	int i;

	snprintf(lim, sizeof(lim), "res=numtasks,max_shares=%d", L);
	ASSERT_EQ(0, rg_set("a", "shares", lim));
	EXPECT_EQ(L - FORKERS, race_forkers(_metadata, groups, f));
	EXPECT_EQ(L, NT("a", "held"));
	EXPECT_EQ(L, NT("a", "maxheld"));
	EXPECT_EQ(FORKERS, NT("a", "failcnt"));
	kill_members("a");
	for (i = 0; i < FORKERS; i++)
		waitpid(f[i], NULL, 0);
}

/* Forkers in sibling groups, limited by their common parent only. */
TEST_F_TIMEOUT(nt, concurrent_forks_in_sibling_groups_stop_at_the_parent_limit,
	       300)
{
	static const char * const groups[FORKERS] = {
		"a/f0", "a/f1", "a/f2", "a/f3",
	};
	const int L = race_limit();
	pid_t f[FORKERS];
	char lim[64];
	int i, sum = 0;

	snprintf(lim, sizeof(lim), "res=numtasks,max_shares=%d", L);
	ASSERT_EQ(0, rg_set("a", "shares", lim));
	for (i = 0; i < FORKERS; i++)
		ASSERT_EQ(0, rg_mkdir(groups[i]));
	EXPECT_EQ(L - FORKERS, race_forkers(_metadata, groups, f));
	EXPECT_EQ(L, NT("a", "held"));
	EXPECT_EQ(L, NT("a", "maxheld"));
	for (i = 0; i < FORKERS; i++) {
		sum += NT(groups[i], "held");
		EXPECT_EQ(1, NT(groups[i], "failcnt"));
		EXPECT_EQ(L, NT(groups[i], "limit"));
	}
	EXPECT_EQ(L, sum);
	EXPECT_EQ(0, NT("a", "failcnt"));
	for (i = 0; i < FORKERS; i++)
		kill_members(groups[i]);
	for (i = 0; i < FORKERS; i++)
		waitpid(f[i], NULL, 0);
}

/*
 * In a child: join @group, say so on @ready, wait until @go is closed,
 * then fork children that exit at once and reap them until @secs have
 * passed; report forks allowed and refused through @wfd.
 */
static void churner(const char *group, int ready, int go, int wfd, int secs)
{
	long long end;
	int r[2] = { 0, 0 };
	char c;

	if (rg_move(group, getpid()) || write(ready, "r", 1) != 1 ||
	    read(go, &c, 1) != 0)
		_exit(1);
	end = now_ns() + secs * 1000000000LL;
	while (now_ns() < end) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			r[0]++;
		else if (pid < 0 && errno == EAGAIN)
			r[1]++;
		else
			_exit(1);
	}
	if (write(wfd, r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

/* Churners started by churn_start(), until churn_end(). */
struct churn {
	pid_t f[FORKERS];
	int first;	/* the first churner's place in kids */
	int go;		/* closed: they start */
	int res;	/* their results */
};

/*
 * A churner() in each of @groups, for @secs seconds once released; each
 * is one of kids until reaped, so that teardown kills it should the test
 * stop early. Returns once all are in their groups: 0, or -1.
 */
static int churn_start(struct churn *ch, const char * const groups[FORKERS],
		       int secs)
{
	int ready[2], go[2], res[2], i, ret = 0;
	char c;

	if (pipe(ready))
		return -1;
	if (pipe(go) || pipe(res))
		return -1;
	ch->first = kids.n;
	for (i = 0; i < FORKERS && !ret; i++) {
		ch->f[i] = fork();
		if (ch->f[i] == 0) {
			close(go[1]);
			churner(groups[i], ready[1], go[0], res[1], secs);
		}
		if (ch->f[i] < 0)
			ret = -1;
		else
			kids.pid[kids.n++] = ch->f[i];
	}
	/* A churner that dies early then ends our reads, not the timeout. */
	close(go[0]);
	close(ready[1]);
	close(res[1]);
	ch->go = go[1];
	ch->res = res[0];
	for (i = 0; i < FORKERS && !ret; i++)
		if (read(ready[0], &c, 1) != 1)
			ret = -1;
	close(ready[0]);
	return ret;
}

/*
 * Release the churners and wait for them: 0, or -1 if one failed. Fails
 * the test unless some of their forks were allowed and some refused (so
 * that they did race for the last places).
 */
static int churn_end(struct __test_metadata *_metadata, struct churn *ch)
{
	int i, status, got[2], r[2], ret = 0;

	close(ch->go);
	r[0] = 0;
	r[1] = 0;
	for (i = 0; i < FORKERS && !ret; i++) {
		if (read(ch->res, got, sizeof(got)) != sizeof(got)) {
			ret = -1;
			break;
		}
		r[0] += got[0];
		r[1] += got[1];
	}
	close(ch->res);
	for (i = 0; i < FORKERS; i++) {
		if (waitpid(ch->f[i], &status, 0) != ch->f[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ret = -1;
		kids.pid[ch->first + i] = -1;
	}
	TH_LOG("%d forks allowed, %d refused", r[0], r[1]);
	EXPECT_LT(0, r[0]);
	EXPECT_LT(0, r[1]);
	return ret;
}

/*
 * A group one task below its limit; forkers in it and in its children
 * fork and reap, all at once, for seconds: thousands of forks racing
 * for the last place, and it is never passed.
 */
TEST_F_TIMEOUT(nt, racing_forks_at_the_limit_never_pass_it, 300)
{
	static const char * const groups[FORKERS] = {
		"a", "a/f1", "a/f2", "a/f3",
	};
	enum { L = 24 };
	const int secs = rg_scaled(5, 1);
	struct churn ch;
	char lim[64];
	int i;

	snprintf(lim, sizeof(lim), "res=numtasks,max_shares=%d", L);
	ASSERT_EQ(0, rg_set("a", "shares", lim));
	for (i = 1; i < FORKERS; i++)
		ASSERT_EQ(0, rg_mkdir(groups[i]));
	ASSERT_EQ(0, move_kids("a", L - 1 - FORKERS));
	ASSERT_EQ(0, churn_start(&ch, groups, secs));
	EXPECT_EQ(L - 1, NT("a", "held"));
	ASSERT_EQ(0, churn_end(_metadata, &ch));
	EXPECT_EQ(L, NT("a", "maxheld"));
	EXPECT_EQ(L - 1 - FORKERS, NT("a", "held"));
}

/*
 * Forks and exits race where a guarantee turns a group's rise on and off,
 * from two levels below the limit: a (limit and guarantee L) holds x
 * (guarantee G) with its child w, and y. Churners in w, x and y fork and
 * reap while x sits at its guarantee and a one task below its limit, so
 * the rise a fork in w or x makes at a comes and goes under it: the walk
 * above the group meets a full a, sees its rise fall and tries again, and
 * a level's cmpxchg redoes its part of the parent. a is never passed, and
 * once all is done every count is exact: y, then x, fill to the last task.
 */
TEST_F_TIMEOUT(nt, racing_forks_across_a_guarantee_stay_exact, 300)
{
	static const char * const groups[FORKERS] = {
		"a/x/w", "a/x/w", "a/x", "a/y",
	};
	enum { L = 24, G = 8 };
	const int secs = rg_scaled(5, 1);
	struct churn ch;
	int err;

	ASSERT_EQ(0, rg_set("a", "shares",
			    "res=numtasks,min_shares=24,max_shares=24,child_shares_divisor=24"));
	ASSERT_EQ(0, rg_mkdir("a/x"));
	ASSERT_EQ(0, rg_mkdir("a/x/w"));
	ASSERT_EQ(0, rg_mkdir("a/y"));
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=numtasks,min_shares=8"));
	ASSERT_EQ(G, NT("a/x", "guarantee"));
	ASSERT_EQ(L, NT("a", "limit"));
	/* With the churners: x at G (5 + 3), y at 15 (14 + 1), a at L - 1. */
	ASSERT_EQ(0, move_kids("a/x/w", G - 3));
	ASSERT_EQ(0, move_kids("a/y", L - G - 2));
	ASSERT_EQ(0, churn_start(&ch, groups, secs));
	EXPECT_EQ(G, NT("a/x", "held"));
	EXPECT_EQ(L - G - 1, NT("a/y", "held"));
	EXPECT_EQ(L - 1, NT("a", "held"));
	ASSERT_EQ(0, churn_end(_metadata, &ch));
	EXPECT_EQ(L, NT("a", "maxheld"));
	EXPECT_EQ(G - 3, NT("a/x", "held"));
	EXPECT_EQ(L - G - 2, NT("a/y", "held"));
	/*
	 * Exact counts: we join y (15), whose part with x's reserved G
	 * leaves one place; then w, where x grows from 6 past its guarantee
	 * to 9, filling a (15 + 9).
	 */
	ASSERT_EQ(0, rg_move("a/y", getpid()));
	EXPECT_EQ(1, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(L - G, NT("a/y", "held"));
	ASSERT_EQ(0, rg_move("a/x/w", getpid()));
	EXPECT_EQ(3, fill(&err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(L, NT("a", "held"));
	EXPECT_EQ(L, NT("a", "maxheld"));
}

TEST_HARNESS_MAIN

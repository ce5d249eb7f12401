// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetimes: files held open across rmdir and rmmod, modules pinned while
 * they are in use, a controller unloaded under a fork storm, the module
 * loaded and unloaded in the middle of a fork. KASAN and kmemleak in the
 * debug guest catch what the asserts cannot see.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

FIXTURE(life) {
	int unused;
};

FIXTURE_SETUP(life)
{
	rg_remove_all_groups();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
}

FIXTURE_TEARDOWN(life)
{
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
}

static int open_file(const char *group, const char *file, int flags)
{
	char p[256];

	return open(rg_path(p, sizeof(p), group, file), flags | O_CLOEXEC);
}

TEST_F(life, files_open_across_rmdir_fail_cleanly)
{
	static const char * const files[] = { "shares", "stats", "members" };
	int fd[3], i;
	char buf[64];

	ASSERT_EQ(0, rg_move("a", getpid()));
	for (i = 0; i < 3; i++) {
		fd[i] = open_file("a", files[i], O_RDWR);
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, rg_rmdir("a"));
	EXPECT_EQ(1, rg_is_member("", getpid()));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(-1, read(fd[i], buf, sizeof(buf)));
		EXPECT_EQ(ENOENT, errno) TH_LOG("read %s", files[i]);
		EXPECT_EQ(-1, write(fd[i], "res=numtasks\n", 13));
		EXPECT_EQ(ENOENT, errno) TH_LOG("write %s", files[i]);
		close(fd[i]);
	}
	/* A new group of the same name starts afresh. */
	ASSERT_EQ(0, rg_mkdir("a"));
	EXPECT_EQ(0, rg_get("a", "stats", "numtasks", "held"));
}

TEST_F(life, file_read_before_rmdir_then_read_again)
{
	char buf[4096];
	int fd = open_file("a", "stats", O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, buf, 16));
	ASSERT_EQ(0, rg_rmdir("a"));
	/* The rest of what was read before the rmdir, then the end. */
	EXPECT_LT(0, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	close(fd);
}

TEST_F(life, rmmod_refused_while_a_group_exists)
{
	/* A controller may go any time; the framework not under a group. */
	ASSERT_EQ(0, rg_rmmod("rg_numtasks"));
	EXPECT_EQ(-EWOULDBLOCK, rg_rmmod("res_groups"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a"));
	ASSERT_EQ(0, rg_rmdir("a"));
	EXPECT_EQ(0, rg_rmmod("res_groups"));
}

TEST_F(life, rmmod_refused_while_a_file_is_open)
{
	int fd;

	ASSERT_EQ(0, rg_rmdir("a"));
	ASSERT_EQ(0, rg_rmmod("rg_numtasks"));
	fd = open_file("", "members", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EWOULDBLOCK, rg_rmmod("res_groups"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/members"));
	close(fd);
	EXPECT_EQ(0, rg_rmmod("res_groups"));
}

TEST_F(life, controller_unloaded_while_its_stats_file_is_open)
{
	char buf[4096];
	int fd = open_file("a", "stats", O_RDONLY);
	ssize_t n;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rg_rmmod("rg_numtasks"));
	/* Read after the unload: the controller's line is gone with it. */
	n = read(fd, buf, sizeof(buf) - 1);
	ASSERT_LE(0, n);
	buf[n] = '\0';
	EXPECT_EQ(NULL, strstr(buf, "numtasks")) TH_LOG("%s", buf);
	close(fd);
	EXPECT_EQ(LONG_MIN, rg_get("a", "stats", "numtasks", "held"));
}

TEST_F(life, proc_file_open_across_rmmod_reads_empty)
{
	char buf[64];
	int fd;

	ASSERT_EQ(0, rg_move("a", getpid()));
	fd = open("/proc/self/res_group", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rg_move("", getpid()));
	ASSERT_EQ(0, rg_rmdir("a"));
	ASSERT_EQ(0, rg_rmmod("rg_numtasks"));
	ASSERT_EQ(0, rg_rmmod("res_groups"));
	/* Empty: end of file at once, not an error. */
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	close(fd);
}

/*
 * A fork in the middle of a load or an unload. The test module holds the
 * fork of a task named rg_straddler where we need it: see its header.
 */
FIXTURE(straddle) {
	pid_t forker;		/* rg_straddler, or -1 */
	pid_t child;		/* its child, once known, or -1 */
	int from_forker;	/* where it writes the child's pid */
};

FIXTURE_SETUP(straddle)
{
	self->forker = -1;
	self->child = -1;
	self->from_forker = -1;
	rg_remove_all_groups();
	rg_unload_all();
	if (rg_module_loaded("rg_fork_stall"))
		ASSERT_EQ(0, rg_rmmod("rg_fork_stall"));
	ASSERT_EQ(0, rg_insmod(RG_STALL_KO, "hold=1"));
}

FIXTURE_TEARDOWN(straddle)
{
	/* Let a held call go before anything it runs in can go away. */
	rg_stall_release();
	if (self->child > 0)
		kill(self->child, SIGKILL);
	if (self->forker > 0)
		rg_kill(self->forker);
	if (self->from_forker >= 0)
		close(self->from_forker);
	rg_remove_all_groups();
	rg_unload_all();
	rg_stall_unload();
}

/*
 * rg_straddler: forks one child that waits until killed, writes the
 * child's pid to *rd's pipe once the fork is over, and reaps it. Both die
 * with their parent.
 */
static pid_t start_straddler(int *rd)
{
	int p[2];
	pid_t pid, c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "rg_straddler");
		pid = getpid();
		c = fork();
		if (c == 0) {
			prctl(PR_SET_NAME, "rg_straddled");
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			/* Its parent may have been killed while it was held. */
			if (getppid() != pid)
				_exit(1);
			for (;;)
				pause();
		}
		if (c < 0 || write(p[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		waitpid(c, NULL, 0);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*rd = p[0];
	return pid;
}

/* The child's pid, once the straddler's fork is over; -1 after 40 s. */
static pid_t read_child(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	pid_t c;

	if (poll(&pfd, 1, 40000) != 1 || read(fd, &c, sizeof(c)) != sizeof(c))
		return -1;
	return c;
}

/* The child of @parent (the held one: it has no other); -1 if none. */
static pid_t child_of(pid_t parent)
{
	char buf[512];
	const char *p;
	struct dirent *d;
	pid_t found = -1;
	DIR *proc = opendir("/proc");

	while (proc && (d = readdir(proc))) {
		if (atoi(d->d_name) <= 0)
			continue;
		/* The state, then the ppid. */
		p = rg_proc_stat(atoi(d->d_name), buf, sizeof(buf));
		if (p && atoi(p + 2) == parent) {
			found = atoi(d->d_name);
			break;
		}
	}
	if (proc)
		closedir(proc);
	return found;
}

/* How many times @pid is listed in the group's members; -1 on error. */
static int times_listed(const char *group, pid_t pid)
{
	static char buf[1 << 20];
	char p[256], *line, *save;
	int n = 0;

	if (rg_read(rg_path(p, sizeof(p), group, "members"), buf,
		    sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		n += atoi(line) == pid;
	return n;
}

/*
 * @op(@arg) in a child process, since an unload or an rmdir may wait for
 * a held fork: the child's pid (it exits 0 if @op returned 0), or -1.
 */
static pid_t start_child(int (*op)(const char *), const char *arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(op(arg) ? 1 : 0);
	return pid;
}

/* Child @pid's exit code once it ends; -1 if it is still running after @ms. */
static int wait_child(pid_t pid, int ms)
{
	int i, status;

	for (i = 0; i < ms / 10; i++) {
		switch (waitpid(pid, &status, WNOHANG)) {
		case 0:
			break;
		case -1:
			return -1;	/* not ours, or reaped already */
		default:
			return rg_exit_code(status);
		}
		usleep(10000);
	}
	return -1;
}

/*
 * Reads of @pid's state 50 ms apart, at most @tries: how many in a row
 * found it asleep in D (3 once it is; fewer if it never was).
 */
static int asleep(pid_t pid, int tries)
{
	char buf[512];
	const char *st;
	int i, seen;

	for (i = 0, seen = 0; i < tries && seen < 3; i++) {
		st = rg_proc_stat(pid, buf, sizeof(buf));
		seen = st && *st == 'D' ? seen + 1 : 0;
		usleep(50000);
	}
	return seen;
}

/*
 * Start the straddler, its fork held with the child on the task list,
 * and load res_groups.ko meanwhile: the held child's pid once the load
 * has listed it in the root (the precondition of both tests), else -1.
 */
static pid_t hold_fork_across_load(struct _test_data_straddle *self)
{
	pid_t held;

	self->forker = start_straddler(&self->from_forker);
	if (self->forker <= 0 || rg_stall_wait(1))
		return -1;
	held = child_of(self->forker);
	if (held <= 0 || rg_insmod("module/res_groups.ko", NULL) ||
	    times_listed("", held) != 1)
		return -1;
	return held;
}

/* Its own waits add up to less: a timeout would skip the teardown. */
TEST_F_TIMEOUT(straddle, fork_straddling_the_load_joins_the_root_once, 150)
{
	pid_t held, rmmod;

	/* The child is on the task list already: the load puts it in the root. */
	held = hold_fork_across_load(self);
	ASSERT_LT(0, held);
	ASSERT_EQ(0, rg_write(RG_STALL_PARAM "hold", "0"));
	self->child = read_child(self->from_forker);
	ASSERT_EQ(held, self->child);
	EXPECT_EQ(0, rg_stall_get("timeouts"));
	/* post_fork does not add it a second time. */
	EXPECT_EQ(1, times_listed("", self->child));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_move("a", self->child));
	EXPECT_EQ(0, times_listed("", self->child));
	EXPECT_EQ(1, times_listed("a", self->child));
	/*
	 * Killed and reaped (by the straddler or, once it is gone, by init),
	 * it leaves a; nothing holds the rmdir or the unload.
	 */
	kill(self->child, SIGKILL);
	rg_kill(self->forker);
	self->forker = -1;
	self->child = -1;
	EXPECT_EQ(0, rg_rmdir("a"));
	rmmod = start_child(rg_rmmod, "res_groups");
	ASSERT_LT(0, rmmod);
	EXPECT_EQ(0, wait_child(rmmod, 40000));
}

TEST_F_TIMEOUT(straddle, unload_inside_post_fork_leaves_the_child_in_no_group, 150)
{
	char p[64], buf[64];
	pid_t held, rmmod;

	held = hold_fork_across_load(self);
	ASSERT_LT(0, held);
	ASSERT_EQ(0, rg_write(RG_STALL_PARAM "stall_lock", "1"));
	ASSERT_EQ(0, rg_write(RG_STALL_PARAM "hold", "0"));
	/* post_fork, about to lock a group: unload now. */
	ASSERT_EQ(0, rg_stall_wait(2));
	rmmod = start_child(rg_rmmod, "res_groups");
	ASSERT_LT(0, rmmod);
	self->child = read_child(self->from_forker);
	ASSERT_EQ(held, self->child);
	ASSERT_EQ(0, wait_child(rmmod, 40000));
	/* Held until the unload had emptied every group, not by the 30 s limit. */
	EXPECT_EQ(0, rg_stall_get("timeouts"));
	/* Loaded again: a task that points at no group joins the root. */
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	EXPECT_EQ(1, times_listed("", self->child));
	snprintf(p, sizeof(p), "/proc/%d/res_group", self->child);
	ASSERT_EQ(2, rg_read(p, buf, sizeof(buf)));
	EXPECT_STREQ("/\n", buf);
}

/* 1 if ftrace sends calls of @fn to an ops now, 0 if not, -1 unknown. */
static int traced(const char *fn)
{
	size_t len = strlen(fn);
	char line[512];
	int found = 0;
	FILE *f;

	/* tracefs where mounted, or where debugfs mounts it by itself. */
	f = fopen("/sys/kernel/tracing/enabled_functions", "re");
	if (!f)
		f = fopen("/sys/kernel/debug/tracing/enabled_functions", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, fn, len) && line[len] == ' ')
			found = 1;
	fclose(f);
	return found;
}

/* Where res_groups' text is loaded (0 if that cannot be read). */
static unsigned long res_groups_text(void)
{
	char buf[64];

	if (rg_read("/sys/module/res_groups/sections/.text", buf,
		    sizeof(buf)) <= 0)
		return 0;
	return strtoul(buf, NULL, 16);
}

/*
 * rg_straddler writes @req to the root's shares while half_write holds
 * it: 0 if it was held (stalled 3), let go and succeeded, else -1.
 */
static int held_shares_write(const char *req)
{
	int status, held;
	pid_t pid;

	if (rg_write(RG_STALL_PARAM "half_write", "1"))
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "rg_straddler");
		_exit(rg_set("", "shares", req) ? 1 : 0);
	}
	if (pid < 0)
		return -1;
	held = rg_stall_wait(3);
	rg_write(RG_STALL_PARAM "half_write", "0");
	if (waitpid(pid, &status, 0) != pid || rg_exit_code(status))
		return -1;
	return held;
}

/* The straddler started in @group (we go there and back), its fork held. */
static int hold_fork_in(struct _test_data_straddle *self, const char *group)
{
	if (rg_move(group, getpid()))
		return -1;
	self->forker = start_straddler(&self->from_forker);
	if (rg_move("", getpid()) || self->forker <= 0)
		return -1;
	return rg_stall_wait(1);
}

/*
 * An rmdir waits for no fork but those into its own group: with a fork
 * in a held (pinned to a), the rmdir of b ends at once. (Before, every
 * rmdir took a lock that every fork on the machine holds, and waited
 * here for the held fork.) The held child then joins a.
 */
TEST_F_TIMEOUT(straddle, rmdir_does_not_wait_for_forks_into_other_groups, 120)
{
	pid_t rmdirer;

	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
	ASSERT_EQ(0, hold_fork_in(self, "a"));
	rmdirer = start_child(rg_rmdir, "b");
	ASSERT_LT(0, rmdirer);
	EXPECT_EQ(0, wait_child(rmdirer, 10000));
	EXPECT_EQ(1, rg_stall_get("stalled"));
	rg_stall_release();
	self->child = read_child(self->from_forker);
	ASSERT_LT(0, self->child);
	EXPECT_EQ(1, times_listed("a", self->child));
	EXPECT_EQ(1, times_listed("a", self->forker));
	/* (if it waited: now that the fork went on; -1 once reaped) */
	wait_child(rmdirer, 20000);
}

/*
 * An rmdir waits for the forks into its group, asleep, then moves the
 * forked child with the other tasks: the held child ends up in the
 * parent (the root), listed once, and the group is gone.
 */
TEST_F_TIMEOUT(straddle, rmdir_waits_for_a_fork_into_its_group, 120)
{
	pid_t rmdirer;

	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("z"));
	ASSERT_EQ(0, hold_fork_in(self, "z"));
	rmdirer = start_child(rg_rmdir, "z");
	ASSERT_LT(0, rmdirer);
	EXPECT_EQ(3, asleep(rmdirer, 400));
	EXPECT_EQ(-1, wait_child(rmdirer, 100));
	rg_stall_release();
	EXPECT_EQ(0, wait_child(rmdirer, 20000));
	self->child = read_child(self->from_forker);
	ASSERT_LT(0, self->child);
	EXPECT_EQ(1, times_listed("", self->child));
	EXPECT_EQ(1, times_listed("", self->forker));
	EXPECT_FALSE(rg_exists(RG_ROOT "/z"));
}

/* The group /proc/<pid>/res_group names ("" for the root); 0, or -1. */
static int proc_group(pid_t pid, char *buf, size_t size)
{
	char p[64];
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/%d/res_group", pid);
	n = rg_read(p, buf, size);
	if (n <= 0 || buf[n - 1] != '\n')
		return -1;
	buf[n - 1] = 0;
	return 0;
}

/*
 * While an rmdir of z waits for a fork into z (held), another task of z
 * forks: z no longer takes new forks, so that child joins the parent at
 * once (the root), while its own parent is still in z (the rmdir moves it
 * later). A fork that pinned z regardless would be waited for by the
 * rmdir, its child listed in z until then.
 */
TEST_F_TIMEOUT(straddle, fork_in_a_group_being_removed_joins_the_parent, 120)
{
	int go[2], back[2];
	char buf[512], g[256];
	pid_t rmdirer, other, c = -1;
	int i;

	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("z"));
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(back, O_CLOEXEC));
	/* The other task of z: forks a sleeper when told, sends its pid. */
	other = fork();
	ASSERT_LE(0, other);
	if (other == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (rg_move("z", getpid()) || read(go[0], buf, 1) != 1)
			_exit(1);
		c = fork();
		if (c == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
		if (c < 0 || write(back[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		waitpid(c, NULL, 0);
		_exit(0);
	}
	for (i = 0; i < 500 && rg_is_member("z", other) != 1; i++)
		usleep(10000);
	ASSERT_EQ(1, rg_is_member("z", other));
	ASSERT_EQ(0, hold_fork_in(self, "z"));
	rmdirer = start_child(rg_rmdir, "z");
	ASSERT_LT(0, rmdirer);
	EXPECT_EQ(3, asleep(rmdirer, 400));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ((ssize_t)sizeof(c), read(back[0], &c, sizeof(c)));
	ASSERT_EQ(0, proc_group(c, g, sizeof(g)));
	EXPECT_STREQ("/", g);
	ASSERT_EQ(0, proc_group(other, g, sizeof(g)));
	EXPECT_STREQ("/z", g);
	EXPECT_EQ(-1, wait_child(rmdirer, 100));
	rg_stall_release();
	EXPECT_EQ(0, wait_child(rmdirer, 20000));
	ASSERT_EQ(0, proc_group(other, g, sizeof(g)));
	EXPECT_STREQ("/", g);
	kill(c, SIGKILL);
	rg_kill(other);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
}

/*
 * The stall module itself: its redirects into res_groups end with
 * res_groups, so that none is left on a function loaded later at the
 * same address (ftrace keeps the freed text's address in the filter of
 * an ops still registered); they cannot be armed while it is gone, and
 * work again once it is back; one hold at a time.
 */
TEST_F_TIMEOUT(straddle, stall_redirects_into_res_groups_end_with_its_unload, 120)
{
	unsigned long text;
	char buf[8];

	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	text = res_groups_text();
	ASSERT_EQ(0, rg_write(RG_STALL_PARAM "stall_lock", "1"));
	EXPECT_EQ(-EBUSY, rg_write(RG_STALL_PARAM "stall_lock", "1"));
	ASSERT_EQ(0, rg_write(RG_STALL_PARAM "half_write", "1"));
	EXPECT_EQ(-EBUSY, rg_write(RG_STALL_PARAM "half_write", "1"));
	ASSERT_EQ(1, traced("rg_lock_task_group"));
	ASSERT_EQ(1, traced("rg_shares_commit"));
	ASSERT_EQ(0, rg_rmmod("res_groups"));
	ASSERT_LT(0, rg_read(RG_STALL_PARAM "stall_lock", buf, sizeof(buf)));
	EXPECT_STREQ("N\n", buf);
	EXPECT_EQ(-ENODEV, rg_write(RG_STALL_PARAM "stall_lock", "1"));
	EXPECT_EQ(-ENODEV, rg_write(RG_STALL_PARAM "half_write", "1"));
	ASSERT_LT(0, rg_read(RG_STALL_PARAM "half_write", buf, sizeof(buf)));
	EXPECT_STREQ("N\n", buf);

	/* Loaded again, most likely at the same address: nothing traced. */
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	TH_LOG("res_groups' text at %#lx, loaded again at %#lx", text,
	       res_groups_text());
	EXPECT_EQ(0, traced("rg_lock_task_group"));
	EXPECT_EQ(0, traced("rg_shares_commit"));
	/* Armed anew, they hold calls of the new text. */
	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	EXPECT_EQ(0, held_shares_write("res=numtasks,child_shares_divisor=50"));
	EXPECT_EQ(50, rg_get("", "shares", "numtasks", "child_shares_divisor"));
	EXPECT_EQ(0, rg_write(RG_STALL_PARAM "stall_lock", "1"));
	EXPECT_EQ(1, traced("rg_lock_task_group"));
	EXPECT_EQ(0, rg_write(RG_STALL_PARAM "stall_lock", "0"));
	ASSERT_LT(0, rg_read(RG_STALL_PARAM "stall_lock", buf, sizeof(buf)));
	EXPECT_STREQ("N\n", buf);
	EXPECT_EQ(0, rg_stall_get("stalled"));
	EXPECT_EQ(0, rg_stall_get("timeouts"));
}

TEST_HARNESS_MAIN

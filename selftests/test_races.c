// SPDX-License-Identifier: GPL-2.0
/*
 * Races between membership changes (docs/res_groups.rst, "Tasks" and
 * "The configfs interface"): moves aimed at tasks still being forked,
 * members and stats read while they grow, load and unload while tasks
 * fork, rmdir of a group whose tasks fork. Each test ends by checking
 * that every list and count agrees.
 *
 * RG_RACE_SECONDS sets how long the fork/move race runs (default 15 s,
 * 2 s in the quick tier, RG_TIER=quick). The quick tier also starts fewer
 * threads, unloads fewer times and moves 200 tasks instead of 1,000, a
 * fifth as often (members_read_is_the_group_of_one_moment): the same
 * checks, on less; and it leaves both cut runs
 * (members_read_is_one_moment_never_cut_by_moves, 10 s or more, and
 * members_read_longer_than_a_buffer_is_one_moment: 1,000 stayers) to the
 * full tier (RG_FULL_TIER_ONLY, skips selftests/expected lists).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define BIG (1024 * 1024)

static int race_seconds(void)
{
	const char *s = getenv("RG_RACE_SECONDS");

	return s ? atoi(s) : rg_scaled(15, 2);
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
	union {
		struct nlmsghdr nl;
		char raw[4096];
	} req = {}, buf;
	struct cn_msg *cn = NLMSG_DATA(&req.nl);
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	int sk = socket(PF_NETLINK, SOCK_DGRAM, NETLINK_CONNECTOR);

	req.nl.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	req.nl.nlmsg_type = NLMSG_DONE;
	req.nl.nlmsg_pid = getpid();
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (sk < 0 || bind(sk, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(sk, &req, req.nl.nlmsg_len, 0) != req.nl.nlmsg_len)
		_exit(10);
	for (;;) {
		ssize_t n = recv(sk, &buf, sizeof(buf), 0);
		struct nlmsghdr *nl = &buf.nl;

		if (n <= 0)
			continue;
		for (; NLMSG_OK(nl, n); nl = NLMSG_NEXT(nl, n)) {
			struct cn_msg *msg = NLMSG_DATA(nl);
			struct proc_event *ev = (struct proc_event *)msg->data;

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
	int skip;
};

/* The tests the quick tier skips (RG_FULL_TIER_ONLY): no setup for them. */
static const char * const full_tier_only[] = {
	"members_read_is_one_moment_never_cut_by_moves",
	"members_read_longer_than_a_buffer_is_one_moment", NULL
};

FIXTURE_SETUP(races)
{
	self->skip = rg_quick_skips(_metadata->name, full_tier_only);
	if (self->skip)
		return;
	rg_unload_all();
	self->buf = malloc(BIG);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("b"));
}

static void cut_cleanup(void);

FIXTURE_TEARDOWN(races)
{
	if (self->skip)
		return;
	cut_cleanup();
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

	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	for (i = 0; i < 2; i++) {
		forker[i] = rg_fork_loop_start("a");
		ASSERT_LT(0, forker[i]);
	}
	mover[0] = start(connector_mover, "b");
	mover[1] = start(pid_guesser, "b");
	mover[2] = start(pid_guesser, "a");
	/*
	 * Until some moves into b happened too (the check at the end), up
	 * to five times the length: on a busy host 2 s once saw none.
	 */
	while (now() < end ||
	       (rg_get("b", "stats", "test", "move_in") <= 0 &&
		now() < end + 4 * race_seconds())) {
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

/*
 * An rmdir of a group whose tasks keep forking: the forks pinned to it
 * end before its tasks are moved (they are moved with them), and those
 * that begin once it is being removed join the parent. Nothing is left
 * in the removed group (a task there would be found by the group's
 * free, or use it after it), and the parent's counts agree with its
 * members at the end.
 */
TEST_F_TIMEOUT(races, rmdir_while_its_tasks_fork_leaves_none_behind, 300)
{
	double end = now() + race_seconds();
	int i, rounds = 0, missing = 0, members;
	pid_t forker[2];

	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	while (now() < end) {
		ASSERT_EQ(0, rg_mkdir("a/c"));
		for (i = 0; i < 2; i++) {
			forker[i] = rg_fork_loop_start("a/c");
			ASSERT_LT(0, forker[i]);
		}
		/* (each moves itself there: in a/c before the rmdir) */
		for (i = 0; i < 2; i++)
			while (now() < end + 10 &&
			       rg_is_member("a/c", forker[i]) != 1)
				usleep(1000);
		usleep(rounds % 5 * 20000);
		ASSERT_EQ(0, rg_rmdir("a/c"));
		for (i = 0; i < 2; i++) {
			missing += rg_is_member("a", forker[i]) != 1;
			EXPECT_EQ(0, rg_fork_loop_stop(forker[i]));
		}
		rounds++;
	}
	TH_LOG("%d rounds", rounds);
	EXPECT_EQ(0, missing);
	EXPECT_LT(2, rounds);
	members = members_count("a", self->buf);
	EXPECT_EQ(0, members);
	EXPECT_EQ(members, rg_get("a", "stats", "test", "tasks"));
	EXPECT_EQ(members, rg_get("a", "stats", "numtasks", "held"));
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
 * least the threads that existed when it began, each pid once; and the
 * reads saw the group grow.
 */
TEST_F_TIMEOUT(races, members_read_while_the_group_grows_is_whole, 300)
{
	const int target = rg_scaled(3000, 1000);
	int i, n = 0, before, first = -1, reads = 0;
	pthread_t sp[2];

	ASSERT_EQ(0, rg_move("a", getpid()));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&sp[i], NULL, spawner, NULL));
	for (i = 0; i < 200 && atomic_load(&spawned) < target; i++) {
		/* The leader and the two spawners are members too. */
		before = atomic_load(&spawned) + 3;
		ASSERT_LE(0, members_count("a", self->buf));
		ASSERT_TRUE(members_wellformed(self->buf, &n));
		ASSERT_LE(before, n) TH_LOG("read %d of at least %d", n, before);
		if (first < 0)
			first = n;
		reads++;
	}
	/* Read while it grew (twice at least): from the first read to the last. */
	EXPECT_LE(2, reads);
	EXPECT_LE(0, first);
	EXPECT_LT(first, n) TH_LOG("%d reads, from %d to %d members", reads,
				   first, n);
	atomic_store(&stop_spawning, 1);
	for (i = 0; i < 2; i++)
		pthread_join(sp[i], NULL);
	/* A joined thread may take a moment more to be reaped. */
	for (i = 0; i < 50; i++) {
		ASSERT_LE(0, members_count("a", self->buf));
		ASSERT_TRUE(members_wellformed(self->buf, &n));
		if (n == atomic_load(&spawned) + 1)
			break;
		usleep(100000);
	}
	EXPECT_EQ(atomic_load(&spawned) + 1, n);
	/* The sleepers stay until the test's process exits. */
}

/* Pin the caller to CPU 0 with @policy (priority @prio). */
static int on_cpu0(int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return sched_setscheduler(0, policy, &sp);
}

/* Write @pid to the open members file @fd; 0 or -errno. */
static int move_fd(int fd, pid_t pid)
{
	char s[32];
	int n = snprintf(s, sizeof(s), "%d\n", pid);

	return write(fd, s, n) == n ? 0 : -errno;
}

#define CUT_BURST	250	/* past the old slack: 64 more pids of 12 bytes */
#define CUT_MAX_STAY	1000
#define CUT_HITS	3	/* bursts wholly inside a read, at least */

/*
 * What the mover, the reader and the stayers share (MAP_SHARED). The
 * stayers are the threads of one process that never leaves a; the two
 * markers and the burst are processes that the mover moves.
 */
struct cut_shared {
	atomic_int stop;
	atomic_int armed;	/* the mover waits for the next read */
	atomic_long read_ns;	/* the shortest read(2) of members seen */
	atomic_int begun;	/* bursts begun */
	atomic_int done;	/* bursts done */
	atomic_int reads;
	atomic_int hits;	/* reads with a whole burst inside */
	atomic_int grown;	/* reads that list the whole burst */
	atomic_int bad;
	atomic_int nclaimed;	/* stayers that took a slot */
	atomic_int nready;	/* stayers that stored their tid */
	int nstay;
	pid_t stay[CUT_MAX_STAY];
	pid_t mark[2];
	pid_t burst[CUT_BURST];
	char first_bad[256];
};

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

static void *cut_stay_thread(void *arg)
{
	struct cut_shared *sh = arg;
	pid_t tid = gettid();

	/* Stored before it is counted: whoever sees the count sees it. */
	sh->stay[atomic_fetch_add(&sh->nclaimed, 1)] = tid;
	atomic_fetch_add(&sh->nready, 1);
	for (;;)
		pause();
	return NULL;
}

/*
 * The stayers: a process that joins a, then becomes @sh->nstay threads
 * (new threads join their leader's group), each storing its tid.
 */
static void cut_stayers(struct cut_shared *sh)
{
	pthread_attr_t attr;
	pthread_t t;
	int i;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || rg_move("a", getpid()) ||
	    pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 64 * 1024))
		_exit(2);
	for (i = 1; i < sh->nstay; i++)
		if (pthread_create(&t, &attr, cut_stay_thread, sh))
			_exit(3);
	cut_stay_thread(sh);
}

/*
 * Is the listing @s whole: positive pids, none twice, every stayer and
 * at least one marker? @got has room for every task there can be.
 * @burst: how many of the burst it lists.
 */
static int cut_whole(struct cut_shared *sh, const char *s, pid_t *got,
		     int *n, int *burst, char *why, size_t size)
{
	const int max = sh->nstay + CUT_BURST + 2;
	int i, missing = 0, marks = 0;
	char *end;

	*burst = 0;
	for (*n = 0; *s && *n < max; s = end + 1) {
		got[*n] = strtol(s, &end, 10);
		if (end == s || *end != '\n' || got[(*n)++] <= 0) {
			snprintf(why, size, "a line is not a pid");
			return 0;
		}
	}
	if (*s) {
		snprintf(why, size, "more than %d lines", max);
		return 0;
	}
	qsort(got, *n, sizeof(*got), cmp_pid);
	for (i = 1; i < *n; i++)
		if (got[i] == got[i - 1]) {
			snprintf(why, size, "pid %d twice", got[i]);
			return 0;
		}
	for (i = 0; i < sh->nstay; i++)
		missing += !bsearch(&sh->stay[i], got, *n, sizeof(*got),
				    cmp_pid);
	for (i = 0; i < 2; i++)
		marks += !!bsearch(&sh->mark[i], got, *n, sizeof(*got),
				   cmp_pid);
	for (i = 0; i < CUT_BURST; i++)
		*burst += !!bsearch(&sh->burst[i], got, *n, sizeof(*got),
				    cmp_pid);
	snprintf(why, size, "%d pids listed: %d of %d stayers missing, %d of 2 markers",
		 *n, missing, sh->nstay, marks);
	return !missing && marks;
}

/*
 * The reader: reads a's members until told to stop, and counts the reads
 * that are not whole, those that a whole burst fell into, and those that
 * list the whole burst (the group grown by CUT_BURST). Right
 * before a read(2) it wakes the mover if the mover waits for one (@go),
 * and it keeps the shortest read's duration, so that the mover can aim
 * at the middle of a read.
 */
static void cut_reader(struct cut_shared *sh, int go, char *buf)
{
	pid_t *got = malloc((sh->nstay + CUT_BURST + 2) * sizeof(*got));
	char p[256], why[256];
	int fd, n, begun, inside;
	ssize_t len;
	double t;
	long ns;

	/* Not left reading if the test dies. */
	if (!got || prctl(PR_SET_PDEATHSIG, SIGKILL) ||
	    on_cpu0(SCHED_OTHER, 0))
		_exit(2);
	rg_path(p, sizeof(p), "a", "members");
	while (!atomic_load(&sh->stop)) {
		fd = open(p, O_RDONLY);
		if (fd < 0)
			_exit(3);
		if (atomic_exchange(&sh->armed, 0) && write(go, "", 1) != 1)
			_exit(4);
		t = now();
		begun = atomic_load(&sh->begun);
		len = read(fd, buf, BIG - 1);
		if (atomic_load(&sh->done) > begun)
			atomic_fetch_add(&sh->hits, 1);
		ns = (now() - t) * 1e9;
		close(fd);
		if (len < 0)
			_exit(5);
		buf[len] = '\0';
		if (ns < atomic_load(&sh->read_ns))
			atomic_store(&sh->read_ns, ns);
		if (!cut_whole(sh, buf, got, &n, &inside, why, sizeof(why)) &&
		    atomic_fetch_add(&sh->bad, 1) == 0)
			snprintf(sh->first_bad, sizeof(sh->first_bad), "%s",
				 why);
		if (inside == CUT_BURST)
			atomic_fetch_add(&sh->grown, 1);
		atomic_fetch_add(&sh->reads, 1);
	}
	_exit(0);
}

/*
 * What a cut_run() leaves to undo, also when an ASSERT ends it early
 * (then the fixture's teardown undoes it, before it unloads the module).
 */
static struct {
	struct cut_shared *sh;
	pid_t pids[CUT_BURST + 4];	/* stayers, markers, burst, reader */
	int npids;
	int fds[3];
} cut = { .fds = { -1, -1, -1 } };

static pid_t cut_track(pid_t pid)
{
	if (pid > 0)
		cut.pids[cut.npids++] = pid;
	return pid;
}

static void cut_cleanup(void)
{
	struct sched_param sp = {};
	int i;

	sched_setscheduler(0, SCHED_OTHER, &sp);
	if (cut.sh)
		atomic_store(&cut.sh->stop, 1);
	for (i = 0; i < cut.npids; i++)
		if (cut.pids[i] > 0)
			rg_kill(cut.pids[i]);
	cut.npids = 0;
	for (i = 0; i < 3; i++) {
		if (cut.fds[i] >= 0)
			close(cut.fds[i]);
		cut.fds[i] = -1;
	}
	if (cut.sh)
		munmap(cut.sh, sizeof(*cut.sh));
	cut.sh = NULL;
}

/* A sleeping process that dies with the test. */
static pid_t cut_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	return pid;
}

/*
 * Share a new cut_shared (cut.sh) and start the stayers: a process of
 * @nstay threads in a (cut_stayers()). Returns its pid; the caller waits
 * for them with cut_stayers_ready().
 */
static pid_t cut_stayers_start(struct __test_metadata *_metadata, int nstay)
{
	pid_t stayers;

	cut.sh = mmap(NULL, sizeof(*cut.sh), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cut.sh);
	cut.sh->nstay = nstay;
	stayers = fork();
	ASSERT_LE(0, stayers);
	if (stayers == 0)
		cut_stayers(cut.sh);
	return cut_track(stayers);
}

/*
 * Wait until every stayer stored its tid (by @end), then open a's and b's
 * members for moves: cut.fds[0] and cut.fds[1].
 */
static void cut_stayers_ready(struct __test_metadata *_metadata,
			      pid_t stayers, double end)
{
	char p[256];
	int status;

	while (atomic_load(&cut.sh->nready) < cut.sh->nstay && now() < end) {
		ASSERT_EQ(0, waitpid(stayers, &status, WNOHANG))
			TH_LOG("the stayers exited: %d", rg_exit_code(status));
		usleep(10000);
	}
	ASSERT_EQ(cut.sh->nstay, atomic_load(&cut.sh->nready));
	cut.fds[0] = open(rg_path(p, sizeof(p), "a", "members"), O_WRONLY);
	ASSERT_LE(0, cut.fds[0]);
	cut.fds[1] = open(rg_path(p, sizeof(p), "b", "members"), O_WRONLY);
	ASSERT_LE(0, cut.fds[1]);
}

/*
 * A read of members is one moment of the group, never a cut one. A
 * reader announces each read(2); a SCHED_FIFO mover on the same CPU
 * wakes at a random point inside it (preempting the read) and moves
 * CUT_BURST tasks in, then two markers out and back in (so they end the
 * list). At every moment every stayer and at least one marker is in a:
 * every read must list them. @nstay stayers: 10 make the list short (the
 * old read sized it, plus 64 pids of slack, before filling the buffer, and
 * a burst in between cut the markers off); 1000 make it longer than the
 * first buffer, so that bursts fall between the retries of a read.
 * @bursts at least, and more until CUT_HITS fell wholly inside a read
 * (most wake-ups land before or after one) and as many reads listed a
 * whole burst (the group did grow): within 150 s, or the test fails.
 */
static void cut_run(struct __test_metadata *_metadata, char *buf, int nstay,
		    int bursts)
{
	pid_t *burst, stayers, reader;
	int go[2], i, status, cycles = 0;
	double end = now() + 150;
	char c, shortest[32] = "10 ms or more";
	struct timespec at = {};
	struct cut_shared *sh;

	stayers = cut_stayers_start(_metadata, nstay);
	sh = cut.sh;
	burst = sh->burst;
	atomic_store(&sh->read_ns, 10000000L);
	for (i = 0; i < 2; i++) {
		sh->mark[i] = cut_track(cut_sleeper());
		ASSERT_EQ(0, rg_move("a", sh->mark[i]));
	}
	for (i = 0; i < CUT_BURST; i++) {
		burst[i] = cut_track(cut_sleeper());
		ASSERT_EQ(0, rg_move("b", burst[i]));
	}
	cut_stayers_ready(_metadata, stayers, end);
	ASSERT_EQ(0, pipe(go));
	cut.fds[2] = go[0];

	reader = fork();
	if (reader == 0) {
		close(go[0]);
		cut_reader(sh, go[1], buf);
	}
	close(go[1]);
	ASSERT_LT(0, cut_track(reader));
	/* A reader that dies ends the mover's wait (EOF). */
	ASSERT_EQ(0, on_cpu0(SCHED_FIFO, 1));
	/* At least @bursts, and on until CUT_HITS fell inside reads. */
	while ((cycles < bursts || atomic_load(&sh->hits) < CUT_HITS ||
		atomic_load(&sh->grown) < CUT_HITS) && now() < end &&
	       !atomic_load(&sh->bad)) {
		/* Wait for a read to begin, and wake up inside it. */
		atomic_store(&sh->armed, 1);
		if (read(go[0], &c, 1) != 1)
			break;
		at.tv_nsec = rand() % (2 * atomic_load(&sh->read_ns) %
				       999999999 + 1);
		nanosleep(&at, NULL);
		atomic_fetch_add(&sh->begun, 1);
		for (i = 0; i < CUT_BURST; i++)
			ASSERT_EQ(0, move_fd(cut.fds[0], burst[i]));
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, move_fd(cut.fds[1], sh->mark[i]));
			ASSERT_EQ(0, move_fd(cut.fds[0], sh->mark[i]));
		}
		atomic_fetch_add(&sh->done, 1);
		/* Let that read end, then take the burst out again. */
		usleep(20000);
		for (i = 0; i < CUT_BURST; i++)
			ASSERT_EQ(0, move_fd(cut.fds[1], burst[i]));
		cycles++;
	}
	ASSERT_EQ(0, on_cpu0(SCHED_OTHER, 0));
	atomic_store(&sh->stop, 1);
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	cut.pids[--cut.npids] = 0;	/* the reader, reaped */
	EXPECT_EQ(0, rg_exit_code(status));
	EXPECT_EQ(0, atomic_load(&sh->bad))
		TH_LOG("%d of %d reads cut, the first: %s", sh->bad, sh->reads,
		       sh->first_bad);
	if (atomic_load(&sh->read_ns) < 10000000L)
		snprintf(shortest, sizeof(shortest), "%ld us",
			 atomic_load(&sh->read_ns) / 1000);
	TH_LOG("%d bursts, %d reads, %d with a burst inside, %d listing one; shortest read %s",
	       cycles, atomic_load(&sh->reads), atomic_load(&sh->hits),
	       atomic_load(&sh->grown), shortest);
	/*
	 * Bursts must have fallen inside reads, or this proved nothing. (The
	 * old read was cut in each of 5 runs, at the 2nd, 2nd, 3rd, 18th and
	 * 46th burst.) And reads must have seen the group grow by a burst:
	 * reads that never see one (a stale listing, moves that went
	 * elsewhere) would pass every other check.
	 */
	EXPECT_LE(CUT_HITS, atomic_load(&sh->hits));
	EXPECT_LE(CUT_HITS, atomic_load(&sh->grown));
	cut_cleanup();
}

TEST_F_TIMEOUT(races, members_read_is_one_moment_never_cut_by_moves, 300)
{
	/* (members_read_while_the_group_grows_is_whole runs in both tiers) */
	if (rg_quick())
		SKIP(return, RG_FULL_TIER_ONLY);
	cut_run(_metadata, self->buf, 10, 60);
}

TEST_F_TIMEOUT(races, members_read_longer_than_a_buffer_is_one_moment, 300)
{
	if (rg_quick())
		SKIP(return, RG_FULL_TIER_ONLY);
	cut_run(_metadata, self->buf, CUT_MAX_STAY, 20);
}

/*
 * A read of members lists the group of one moment, exactly, whichever
 * tasks come and go while it runs. A mover thread, SCHED_FIFO on the
 * reader's CPU, sleeps a random while, wakes (preempting the read at a
 * random point) and moves stayers between a and b, logging each move
 * before it makes it and counting it after. Each read must list a's
 * stayers after k moves for some k from the count before it to one past
 * the count after it (a move under way may have taken effect before it
 * is counted). The mover knows the order a's list is in (it moves every
 * stayer out and back in first), and aims its bursts at what a read in
 * progress must get right, whichever way it walks the list:
 * - the tasks at every 64th place from either end (where a batched walk
 *   stands between two batches) leave;
 * - a task joins and leaves again (it was never in a at the read's
 *   moment);
 * - random tasks leave or join;
 * - rarely, and only while the reader is in a read, one task joins and
 *   leaves more times than a read of a's size can note (MOMENT_CHURN),
 *   so that the read falls back to one pass under the lock (two or three
 *   times in a quick run, dozens in a full one).
 * A second reader, a process on any CPU, reads and checks meanwhile (two
 * walks of one list at once). On until MOMENT_HITS of the test's reads
 * had moves inside them and MOMENT_MOVES moves were made, within 150 s,
 * or the test fails. @n stayers.
 */
#define MOMENT_LOG	131072	/* moves at most */
#define MOMENT_SLEEP_US	1000	/* the mover's sleep, at most */
#define MOMENT_HITS	100	/* reads with moves inside, at least */
#define MOMENT_MOVES	6000	/* moves, at least */
/* Join-and-leave pairs past what a read of a (@n stayers at most) notes */
#define MOMENT_CHURN(n)	((n) / 2 + 40)

struct moment {
	struct cut_shared *sh;
	int n;
	int fds[2];			/* a's and b's members, for writing */
	atomic_long moves;		/* moves done */
	atomic_int reading;		/* the reader is in rg_read() */
	atomic_int stop;
	atomic_int err;
	/* move k: stayer j into a (j * 2 + 1) or out of it (j * 2); -1 */
	atomic_int log[MOMENT_LOG];
	/* the mover's: a's stayers in the order of a's list, and b's */
	int in_a[CUT_MAX_STAY], na;
	int in_b[CUT_MAX_STAY], nb;
	/* the test's reader's, and a second reader's (on any CPU) */
	struct moment_reads {
		int reads, hits, bad, err;
		char first_bad[256];
	} r[2];
};

/* Move a's @i-th (out) or b's @i-th (in): 0 or -errno. */
static int moment_move(struct moment *m, int in, int i)
{
	long k = atomic_load(&m->moves);
	int j, ret;

	if (k == MOMENT_LOG)
		return -ENOSPC;
	j = in ? m->in_b[i] : m->in_a[i];
	atomic_store(&m->log[k], j * 2 + in);
	ret = move_fd(m->fds[!in], m->sh->stay[j]);
	if (ret)
		return ret;
	atomic_fetch_add(&m->moves, 1);
	if (in) {
		memmove(&m->in_b[i], &m->in_b[i + 1],
			(--m->nb - i) * sizeof(int));
		m->in_a[m->na++] = j;
	} else {
		memmove(&m->in_a[i], &m->in_a[i + 1],
			(--m->na - i) * sizeof(int));
		m->in_b[m->nb++] = j;
	}
	return 0;
}

/* Every stayer out of a, and back in, in random orders. */
static int moment_shuffle(struct moment *m)
{
	int ret = 0;

	while (!ret && m->na)
		ret = moment_move(m, 0, rand() % m->na);
	while (!ret && m->nb)
		ret = moment_move(m, 1, rand() % m->nb);
	return ret;
}

static int moment_burst(struct moment *m)
{
	int places[2 * CUT_MAX_STAY / 64 + 2], np = 0, i, ret = 0, kind;

	kind = rand() % 32;
	/* (a churn is long: only while a read may be walking the list) */
	if (kind == 31 && !atomic_load(&m->reading))
		kind = rand() % 31;
	if (kind < 10) {
		/* Every 64th from the tail and from the head leaves. */
		for (i = 64; i < m->na; i += 64) {
			places[np++] = m->in_a[m->na - 1 - i];
			places[np++] = m->in_a[i];
		}
		for (i = 0; !ret && i < np; i++) {
			int at;

			for (at = 0; at < m->na && m->in_a[at] != places[i]; at++)
				;
			if (at < m->na)
				ret = moment_move(m, 0, at);
		}
	} else if (kind < 20 || kind == 31) {
		/* One joins and leaves, or MOMENT_CHURN times. */
		int times = kind == 31 ? MOMENT_CHURN(m->n) : 1;

		for (i = 0; !ret && m->nb && i < times; i++) {
			ret = moment_move(m, 1, rand() % m->nb);
			if (!ret)
				ret = moment_move(m, 0, m->na - 1);
		}
	} else {
		/* A few random ones, a kept at half its stayers or more. */
		for (i = 1 + rand() % 4; !ret && i > 0; i--) {
			if (m->nb && (m->na < m->n / 2 || rand() % 2))
				ret = moment_move(m, 1, rand() % m->nb);
			else if (m->na)
				ret = moment_move(m, 0, rand() % m->na);
		}
	}
	return ret;
}

static void *moment_mover(void *arg)
{
	struct moment *m = arg;
	struct timespec at = {};
	int ret;

	ret = on_cpu0(SCHED_FIFO, 1) ? -errno : moment_shuffle(m);
	while (!ret && !atomic_load(&m->stop)) {
		at.tv_nsec = 1000L * (rand() % MOMENT_SLEEP_US);
		nanosleep(&at, NULL);
		ret = moment_burst(m);
	}
	atomic_store(&m->err, ret == -ENOSPC ? 0 : ret);
	return NULL;
}

/*
 * Check the listing @s taken between @k0 and @k1 moves: 0 if it is a's
 * stayers after some k in [k0, k1 + 1], else why not in @why. @st is a
 * after @kr moves, and is brought to @k0 (every stayer starts in a).
 */
static int moment_check(struct moment *m, const char *s, long k0, long k1,
			char *st, long *kr, char *why, size_t size)
{
	char in[CUT_MAX_STAY] = {}, at[CUT_MAX_STAY];
	int j, diff = 0, e, listed = 0;
	char *end;
	long k;
	pid_t v;

	for (; *kr < k0; (*kr)++) {
		e = atomic_load(&m->log[*kr]);
		st[e / 2] = e % 2;
	}
	for (; *s; s = end + 1) {
		v = strtol(s, &end, 10);
		if (end == s || *end != '\n' || v <= 0) {
			snprintf(why, size, "a line is not a pid");
			return -1;
		}
		for (j = 0; j < m->n && m->sh->stay[j] != v; j++)
			;
		if (j == m->n) {
			snprintf(why, size, "%d: not a stayer", v);
			return -1;
		}
		if (in[j]) {
			snprintf(why, size, "%d twice", v);
			return -1;
		}
		in[j] = 1;
		listed++;
	}
	memcpy(at, st, m->n);
	for (j = 0; j < m->n; j++)
		diff += in[j] != at[j];
	/* After k0 moves, then after each that may have taken effect. */
	for (k = k0; diff && k <= k1 && k < MOMENT_LOG; k++) {
		e = atomic_load(&m->log[k]);
		if (e < 0)
			break;
		diff -= in[e / 2] != at[e / 2];
		at[e / 2] = e % 2;
		diff += in[e / 2] != at[e / 2];
	}
	if (!diff)
		return 0;
	snprintf(why, size, "%d listed: a after no count of moves from %ld to %ld",
		 listed, k0, k1 + 1);
	return -1;
}

/*
 * One read of a's members, checked (@st: a after @kr moves, the reader's
 * own; @reading: tell the mover). Returns the read's length or -errno.
 */
static ssize_t moment_read(struct moment *m, struct moment_reads *r,
			   char *buf, char *st, long *kr, int reading)
{
	char p[256], why[256];
	ssize_t len;
	long k0, k1;

	k0 = atomic_load(&m->moves);
	if (reading)
		atomic_store(&m->reading, 1);
	len = rg_read(rg_path(p, sizeof(p), "a", "members"), buf, BIG);
	if (reading)
		atomic_store(&m->reading, 0);
	k1 = atomic_load(&m->moves);
	if (len < 0)
		return len;
	if (moment_check(m, buf, k0, k1, st, kr, why, sizeof(why)) &&
	    !r->bad++)
		snprintf(r->first_bad, sizeof(r->first_bad), "%s", why);
	r->reads++;
	r->hits += k1 > k0;
	return len;
}

/* The second reader: a process, reading until the test stops. */
static void moment_reader2(struct moment *m)
{
	char *buf = malloc(BIG), st[CUT_MAX_STAY];
	ssize_t len = 0;
	long kr = 0;

	if (!buf || prctl(PR_SET_PDEATHSIG, SIGKILL))
		_exit(2);
	memset(st, 1, sizeof(st));
	while (!atomic_load(&m->stop) && len >= 0)
		len = moment_read(m, &m->r[1], buf, st, &kr, 0);
	m->r[1].err = len < 0 ? len : 0;
	_exit(0);
}

TEST_F_TIMEOUT(races, members_read_is_the_group_of_one_moment, 300)
{
	const int n = rg_scaled(CUT_MAX_STAY, 200);
	const int hits_needed = rg_scaled(MOMENT_HITS, MOMENT_HITS / 5);
	const long moves_needed = rg_scaled(MOMENT_MOVES, MOMENT_MOVES / 5);
	double end = now() + 150;
	char st[CUT_MAX_STAY];
	struct moment_reads *r;
	pid_t stayers, reader2;
	int status, err, j;
	ssize_t len = 0;
	struct moment *m;
	pthread_t mover;
	long kr = 0;

	/* Shared with the second reader. */
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	for (j = 0; j < MOMENT_LOG; j++)
		m->log[j] = -1;
	stayers = cut_stayers_start(_metadata, n);
	m->sh = cut.sh;
	m->n = n;
	cut_stayers_ready(_metadata, stayers, end);
	m->fds[0] = cut.fds[0];
	m->fds[1] = cut.fds[1];
	for (j = 0; j < n; j++) {
		m->in_a[j] = j;
		st[j] = 1;
	}
	m->na = n;
	reader2 = fork();
	ASSERT_LE(0, reader2);
	if (reader2 == 0)
		moment_reader2(m);
	cut_track(reader2);
	ASSERT_EQ(0, on_cpu0(SCHED_OTHER, 0));
	ASSERT_EQ(0, pthread_create(&mover, NULL, moment_mover, m));
	r = &m->r[0];
	while ((r->hits < hits_needed || r->reads < 2 * hits_needed ||
		atomic_load(&m->moves) < moves_needed) &&
	       now() < end && !atomic_load(&m->err) && len >= 0)
		len = moment_read(m, r, self->buf, st, &kr, 1);
	atomic_store(&m->stop, 1);
	ASSERT_EQ(0, pthread_join(mover, NULL));
	ASSERT_EQ(reader2, waitpid(reader2, &status, 0));
	cut.pids[--cut.npids] = 0;	/* the second reader, reaped */
	err = atomic_load(&m->err);
	ASSERT_EQ(0, err) TH_LOG("a move: %s", strerror(-err));
	ASSERT_LE(0, len) TH_LOG("a read of members: %s", strerror(-len));
	ASSERT_EQ(0, rg_exit_code(status));
	ASSERT_EQ(0, m->r[1].err) TH_LOG("the second reader's read: %s",
					 strerror(-m->r[1].err));
	for (j = 0; j < 2; j++) {
		r = &m->r[j];
		EXPECT_EQ(0, r->bad)
			TH_LOG("reader %d: %d of %d reads not one moment, the first: %s",
			       j + 1, r->bad, r->reads, r->first_bad);
		TH_LOG("reader %d: %d reads, %d with moves inside", j + 1,
		       r->reads, r->hits);
	}
	TH_LOG("%ld moves, %.1f s", atomic_load(&m->moves),
	       now() - (end - 150));
	/* Moves must have fallen inside reads, or this proved nothing. */
	EXPECT_LE(hits_needed, m->r[0].hits);
	EXPECT_LT(0, m->r[1].hits);
	EXPECT_LE(moves_needed, atomic_load(&m->moves));
	cut_cleanup();
	munmap(m, sizeof(*m));
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
	const int rounds = rg_scaled(15, 5);
	pid_t forker[2];
	int round, i, missing;

	rg_remove_all_groups();
	rg_unload_all();
	for (i = 0; i < 2; i++) {
		forker[i] = rg_fork_loop_start(NULL);
		ASSERT_LT(0, forker[i]);
	}
	for (round = 0; round < rounds; round++) {
		ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
		/* The forker itself must be listed (its children come and go). */
		for (i = 0, missing = 0; i < 2; i++)
			missing += rg_is_member("", forker[i]) != 1;
		EXPECT_EQ(0, missing) TH_LOG("round %d", round);
		EXPECT_EQ(0, rg_rmmod("res_groups"));
	}
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, rg_fork_loop_stop(forker[i]));
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
}

TEST_HARNESS_MAIN

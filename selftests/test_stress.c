// SPDX-License-Identifier: GPL-2.0
/*
 * The stress run: for STRESS_SECONDS (default 30), on all CPUs at once,
 * workers make and remove groups at random depths, write shares (valid
 * and not), read and reset stats, move tasks, read /proc/<pid>/res_group,
 * fork, clone and exit in storms (stress-ng's fork and clone stressors
 * too: a dependency), unload and reload numtasks, cpu, kmem (whose
 * charges and frees the storms make throughout, with the machine's bounds)
 * and the test controller, change total_numtasks, fork in a group whose numtasks
 * limit is 0 (group cap, which it keeps at max_shares=0 across the
 * reloads), and, as uid 1000, move their own tasks within a delegated
 * subtree (dlg) whose groups root keeps making and removing. Every errno
 * must be one the operation may give, every kind of operation must
 * succeed at least once, every worker must exit 0 (its exit
 * status says whether it could join its group, did nothing that succeeded
 * or met an unexpected errno), as must stress-ng, numtasks must have
 * refused forks at cap's limit, every one while it stayed loaded, and
 * counted them in cap's failcnt, and the storms' orphans must be reaped
 * within 120 s (after rg_cpu.ko is unloaded: see main()); those left are
 * killed. Then rg_cpu.ko is loaded again (every group uncapped), and at the
 * end: every task is in exactly one group, every numtasks held equals the
 * tasks of its subtree, every kmem held covers its children's, and
 * everything can be removed (the groups with rg_cpu.ko loaded) and unloaded.
 * The debug guest adds: no splat, no leak.
 *
 * The run goes on, up to twice its length again, until every kind of
 * operation and every worker has succeeded once, and a fork refused at
 * a limit has been seen counted (on a loaded host a
 * worker's few tries may all have been refused as they may be). The
 * quick tier (RG_TIER=quick) runs 5 s by default (in 5 s the
 * total_numtasks writes once never succeeded, before this going on was
 * added: the going on covers that now), and waits 60 s for orphans
 * (then 15 s more once they are killed) instead of 120 s (then 30 s):
 * only a failing run waits that long.
 *
 * Plain TAP output; the operation counts are printed as comments.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rg_util.h"

#define NT_KO "module/rg_numtasks.ko"
#define CTL_KO "selftests/modules/rg_test_ctl.ko"
#define CPU_KO "module/rg_cpu.ko"
#define KMEM_KO "module/rg_kmem.ko"
#define TOTAL "/sys/module/rg_numtasks/parameters/total_numtasks"
#define MAXPIDS 64
#define MAXWORKERS 16
#define MAXGROUPS 256
#define MAX_PID 4194304	/* PID_MAX_LIMIT */

enum kind {
	K_MKDIR, K_RMDIR, K_SHARES, K_STATS_READ, K_STATS_RESET, K_MOVE,
	K_PROC, K_FORK, K_THREAD, K_RELOAD, K_TOTAL, K_CAP, K_DTREE, K_DMOVE,
	NKINDS,
};

static const char * const kind_name[NKINDS] = {
	"mkdir", "rmdir", "shares writes", "stats reads", "stats resets",
	"moves", "/proc reads", "forks", "threads", "module reloads",
	"total_numtasks writes", "cap's max_shares=0",
	"delegated mkdir/rmdir", "delegated moves",
};

/* Shared by all workers (MAP_SHARED), updated with atomics. */
static struct shared {
	int stop;
	long ok[NKINDS], refused[NKINDS];
	long unexpected;
	char first_unexpected[256];
	/*
	 * numtasks' reloads: odd while one is under way. cap's forks:
	 * refused (EAGAIN), and of those the ones then seen in failcnt and
	 * those not seen with numtasks loaded throughout; let through while
	 * numtasks was reloaded, and let through with it loaded throughout.
	 */
	long nt_seq;
	long cap_refused, cap_counted, cap_uncounted;
	long cap_reloaded, cap_escaped;
	/*
	 * rg_cpu.ko's and rg_kmem.ko's reloads, each counted twice, before the
	 * unload and after the load (odd: one is under way; each forgets
	 * dlg's ceiling), and the count when dlg's ceilings were last both
	 * written with no reload under way from before to after the writes.
	 */
	long ceil_gen, ceil_set;
	long dmove_err[8];	/* delegated moves refused, by dmove_errs[] */
	pid_t pids[MAXPIDS];	/* tasks the movers move around */
	int npids;		/* published: pids[0..npids) are stored */
	int worker_ok[MAXWORKERS];	/* that worker did something */
} *sh;

static unsigned int seed;

/*
 * What this worker process did (each worker is one process), for its
 * exit status: see worker_status().
 */
static long my_ok, my_unexpected;
/* This worker's index in sh->worker_ok (-1: not a worker). */
static int my_index = -1;

static int rnd(int n)
{
	return rand_r(&seed) % n;
}

static int stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}

/*
 * Count the outcome of an operation: 0, an errno it may give (listed
 * after ret, ending with 0), or an unexpected one, remembered.
 */
static void account(enum kind k, int ret, const char *what, ...)
{
	va_list ap;
	int err;

	if (ret == 0) {
		__atomic_add_fetch(&sh->ok[k], 1, __ATOMIC_RELAXED);
		if (!my_ok++ && my_index >= 0)
			__atomic_store_n(&sh->worker_ok[my_index], 1,
					 __ATOMIC_RELAXED);
		return;
	}
	va_start(ap, what);
	while ((err = va_arg(ap, int)))
		if (-ret == err)
			break;
	va_end(ap);
	if (err) {
		__atomic_add_fetch(&sh->refused[k], 1, __ATOMIC_RELAXED);
		return;
	}
	my_unexpected++;
	if (__atomic_fetch_add(&sh->unexpected, 1, __ATOMIC_RELAXED) == 0)
		snprintf(sh->first_unexpected, sizeof(sh->first_unexpected),
			 "%s %s: %s", kind_name[k], what, strerror(-ret));
}

/* A random group of the x/y tree, depth 1..5; the root or "storm" too. */
static char *random_group(char *buf, size_t size, int with_others)
{
	int depth = 1 + rnd(5), i;
	size_t len = 0;

	if (with_others && rnd(8) == 0)
		return strcpy(buf, rnd(2) ? "" : "storm");
	buf[0] = '\0';
	for (i = 0; i < depth && len + 3 < size; i++)
		len += snprintf(buf + len, size - len, "%s%c", i ? "/" : "",
				rnd(2) ? 'x' : 'y');
	return buf;
}

/* Only the parent adds, one at a time: store the pid, then publish it. */
static void add_pid(pid_t pid)
{
	int i = sh->npids;

	if (i == MAXPIDS)
		return;
	sh->pids[i] = pid;
	__atomic_store_n(&sh->npids, i + 1, __ATOMIC_RELEASE);
}

static pid_t random_pid(void)
{
	int n = __atomic_load_n(&sh->npids, __ATOMIC_ACQUIRE);

	return n ? sh->pids[rnd(n)] : getpid();
}

static void tree_worker(void)
{
	char g[64];

	while (!stopping()) {
		random_group(g, sizeof(g), 0);
		if (rnd(2))
			account(K_MKDIR, rg_mkdir(g), g, EEXIST, ENOENT, 0);
		else
			account(K_RMDIR, rg_rmdir(g), g, ENOENT, ENOTEMPTY, 0);
	}
}

static void shares_worker(void)
{
	static const char * const res[] = { "numtasks", "test", "cpu", "nope" };
	static const char * const key[] = {
		"min_shares", "max_shares", "child_shares_divisor", "bogus",
	};
	char g[64], s[128];

	while (!stopping()) {
		random_group(g, sizeof(g), 1);
		snprintf(s, sizeof(s), "res=%s,%s=%d,%s=%d", res[rnd(4)],
			 key[rnd(4)], rnd(120) - 3, key[rnd(3)], rnd(120) - 3);
		account(K_SHARES, rg_set(g, "shares", s), s, EINVAL, ENOENT, 0);
	}
}

static void stats_worker(void)
{
	char g[64], p[256], buf[4096];
	ssize_t n;

	while (!stopping()) {
		random_group(g, sizeof(g), 1);
		if (rnd(4)) {
			n = rg_read(rg_path(p, sizeof(p), g, "stats"), buf,
				    sizeof(buf));
			account(K_STATS_READ, n < 0 ? n : 0, g, ENOENT, 0);
		} else {
			account(K_STATS_RESET,
				rg_set(g, "stats", rnd(3) == 0 ? "res=numtasks" :
				       rnd(2) ? "res=test" : "res=cpu"),
				g, EINVAL, ENOENT, 0);
		}
	}
}

/* A pid listed in a random group's members, or one of the workers. */
static pid_t pick_task(void)
{
	char g[64], p[256], buf[8192], *line;
	int n;

	if (rnd(2))
		return random_pid();
	random_group(g, sizeof(g), 0);
	if (rg_read(rg_path(p, sizeof(p), g, "members"), buf, sizeof(buf)) <= 0)
		return random_pid();
	n = rnd(rg_count_lines(buf));
	for (line = buf; n; line++)
		n -= *line == '\n';
	return atoi(line);
}

static void move_worker(void)
{
	char g[64], s[16];

	while (!stopping()) {
		snprintf(s, sizeof(s), "%d", pick_task());
		random_group(g, sizeof(g), 1);
		account(K_MOVE, rg_set(g, "members", s), g, ESRCH, ENOENT, 0);
	}
}

static void proc_worker(void)
{
	char p[64], buf[256];
	pid_t pid;
	ssize_t n;

	while (!stopping()) {
		pid = rnd(4) ? random_pid() : 1 + rnd(200);
		if (rnd(2))
			snprintf(p, sizeof(p), "/proc/%d/res_group", pid);
		else
			snprintf(p, sizeof(p), "/proc/%d/task/%d/res_group",
				 pid, pid);
		n = rg_read(p, buf, sizeof(buf));
		account(K_PROC, n < 0 ? n : 0, p, ENOENT, ESRCH, 0);
	}
}

static void *nothing(void *arg)
{
	return NULL;
}

/*
 * Fork children that start a thread or not, and exit with what
 * pthread_create() returned (a thread is a task too: EAGAIN at a limit).
 */
static void fork_worker(void)
{
	int status = 0, code;
	char what[64];
	pthread_t t;
	pid_t pid;

	while (!stopping()) {
		/* Drawn here: a child's draws would all be its parent's next. */
		int thread = rnd(2);

		pid = fork();
		if (pid == 0) {
			code = 0;
			if (thread) {
				code = pthread_create(&t, NULL, nothing, NULL);
				if (!code)
					pthread_join(t, NULL);
			}
			_exit(code);
		}
		account(K_FORK, pid < 0 ? -errno : 0, "fork", EAGAIN, 0);
		if (pid < 0)
			continue;
		if (!thread) {
			waitpid(pid, &status, 0);
			continue;
		}
		if (waitpid(pid, &status, 0) != pid)
			code = ECHILD;
		else
			code = rg_exit_code(status);
		/* Killed: a status no errno has. */
		snprintf(what, sizeof(what),
			 "pthread_create in a forked child (wait status %#x)",
			 status);
		account(K_THREAD, code < 0 ? -EOWNERDEAD : -code, what, EAGAIN,
			0);
	}
}

static void thread_worker(void)
{
	pthread_t t;
	int ret;

	while (!stopping()) {
		ret = pthread_create(&t, NULL, nothing, NULL);
		account(K_THREAD, -ret, "pthread_create", EAGAIN, 0);
		if (!ret)
			pthread_join(t, NULL);
	}
}

static long nt_seq(void)
{
	return __atomic_load_n(&sh->nt_seq, __ATOMIC_ACQUIRE);
}

static void reload(const char *name, const char *ko)
{
	int nt = !strcmp(name, "rg_numtasks"), ceil;

	if (nt)
		__atomic_add_fetch(&sh->nt_seq, 1, __ATOMIC_ACQ_REL);
	ceil = !strcmp(name, "rg_cpu") || !strcmp(name, "rg_kmem");
	if (ceil)
		__atomic_add_fetch(&sh->ceil_gen, 1, __ATOMIC_ACQ_REL);
	account(K_RELOAD, rg_rmmod(name), name, EWOULDBLOCK, 0);
	usleep(1000 * rnd(50));
	account(K_RELOAD, rg_insmod(ko, NULL), ko, EEXIST, 0);
	if (nt)
		__atomic_add_fetch(&sh->nt_seq, 1, __ATOMIC_ACQ_REL);
	if (ceil)
		__atomic_add_fetch(&sh->ceil_gen, 1, __ATOMIC_ACQ_REL);
}

static void module_worker(void)
{
	char s[16];
	int i, bad, ret;

	for (i = 0; !stopping(); i++) {
		switch (rnd(4)) {
		case 0:
			reload("rg_numtasks", NT_KO);
			break;
		case 1:
			reload("rg_test_ctl", CTL_KO);
			break;
		case 2:
			reload("rg_kmem", KMEM_KO);
			break;
		default:
			reload("rg_cpu", CPU_KO);
		}
		/*
		 * Valid, or in the second of every four rounds 1, always below
		 * the tasks counted: refused (EINVAL), and a write of it that
		 * succeeds is counted as unexpected (EOVERFLOW in its line).
		 * Not at random: the quick tier's loaded guest gets through
		 * two or three rounds, and a draw of invalid ones only once
		 * failed "every kind of operation succeeded".
		 */
		bad = i % 4 == 1;
		snprintf(s, sizeof(s), "%d", bad ? 1 : 5000 + rnd(100000));
		ret = rg_write(TOTAL, s);
		if (bad && !ret)
			ret = -EOVERFLOW;
		account(K_TOTAL, ret, s, EINVAL, ENOENT, 0);
		usleep(1000 * rnd(100));
	}
}

static void count(long *n)
{
	__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
}

/*
 * Forks in group cap, whose numtasks limit is 0: each must be refused
 * while numtasks is loaded, and counted in cap's failcnt, exactly once
 * (no worker resets cap's stats, and no other task forks there).
 * max_shares=0 is written again before each fork, as a reload of
 * numtasks forgets it; only the module worker unloads numtasks,
 * and it tells (nt_seq): a fork with numtasks loaded from before the write
 * to after the failcnt read must be refused and counted. Its pid is not
 * given to the movers: it stays in cap.
 */
static void cap_worker(void)
{
	int ret, status, same;
	long seq, failcnt, before;
	pid_t pid;

	while (!stopping()) {
		seq = nt_seq();
		ret = rg_set("cap", "shares", "res=numtasks,max_shares=0");
		/* EINVAL: no controller numtasks (it is being reloaded). */
		account(K_CAP, ret, "write", EINVAL, 0);
		if (ret || (seq & 1)) {
			usleep(10000);
			continue;
		}
		before = rg_get("cap", "stats", "numtasks", "failcnt");
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0) {
			same = nt_seq() == seq;
			count(same ? &sh->cap_escaped : &sh->cap_reloaded);
			if (waitpid(pid, &status, 0) != pid || status)
				account(K_FORK, -ECHILD, "fork in cap", 0);
		} else if (errno == EAGAIN) {
			count(&sh->cap_refused);
			failcnt = rg_get("cap", "stats", "numtasks", "failcnt");
			same = nt_seq() == seq;
			/* This refusal, and only it, counted. */
			if (before >= 0 && failcnt == before + 1)
				count(&sh->cap_counted);
			else if (same)
				count(&sh->cap_uncounted);
		} else {
			account(K_FORK, -errno, "fork in cap", EAGAIN, 0);
		}
		usleep(1000 * rnd(10));
	}
}

static void dlg_tree_worker(void);

/*
 * The workers that can put a CPU ceiling back after rg_cpu.ko is unloaded at
 * the end: by a shares write, or by loading rg_cpu.ko again. They are waited
 * for while rg_cpu.ko may still be loaded, so they must never be under a
 * ceiling themselves: they stay in the root, which has none, as their
 * pids are not given to the movers (and no group lists them).
 */
static int sets_cpu_ceilings(void (*fn)(void))
{
	return fn == shares_worker || fn == module_worker ||
	       fn == dlg_tree_worker;
}

/* A worker's exit status: what it did. */
enum {
	WS_OK,			/* something succeeded, nothing unexpected */
	WS_NO_GROUP,		/* it could not join its group */
	WS_NOTHING_DONE,		/* nothing it did succeeded */
	WS_UNEXPECTED,		/* an errno its operation may not give */
	WS_NSTATUS,
};

static const char * const worker_status_name[WS_NSTATUS] = {
	"ok", "could not join its group", "nothing it did succeeded",
	"an unexpected errno",
};

static int worker_status(void)
{
	if (my_unexpected)
		return WS_UNEXPECTED;
	return my_ok ? WS_OK : WS_NOTHING_DONE;
}

/*
 * Delegation: dlg and dlg2 (ceilings of rg_cpu.ko and rg_kmem.ko, so that a
 * user may move tasks into them) have their members chowned to DLG_UID;
 * root keeps making and removing dlg/a and dlg/b, chowning their
 * members, and writing dlg's ceilings again (the module worker's reloads
 * reset them), while a worker running as DLG_UID moves its own tasks
 * among dlg, dlg/a and dlg/b, always to another group than the task's.
 * Those moves may fail only as the docs say a delegated move may: EBUSY,
 * ENOENT, ENOMEM, EACCES (a members file not chowned yet), or EPERM, and
 * that only if rg_cpu.ko or rg_kmem.ko was reloaded since dlg's ceilings were
 * last written. A move to dlg2, out of the user's subtree, must fail
 * (EPERM, or EBUSY while root's directory is locked).
 */
#define DLG_UID 1000
#define DLG_TASKS 4

static const int dmove_errs[] = {
	EBUSY, ENOENT, ENOMEM, EPERM, EACCES, 0
};

static_assert(ARRAY_SIZE(dmove_errs) <= ARRAY_SIZE(sh->dmove_err),
	      "dmove_err[] counts every dmove_errs[] (and others)");

static int chown_members(const char *g)
{
	char p[256];

	return chown(rg_path(p, sizeof(p), g, "members"), DLG_UID, DLG_UID) ?
		-errno : 0;
}

/* dlg's ceilings, both written: 0, or -errno of the first that failed. */
static int dlg_ceilings(const char *g)
{
	return rg_set(g, "shares", "res=cpu,max_shares=90") ?:
	       rg_set(g, "shares", "res=kmem,max_shares=90");
}

static void dlg_tree_worker(void)
{
	char g[16];
	long gen;

	while (!stopping()) {
		snprintf(g, sizeof(g), "dlg/%c", 'a' + rnd(2));
		if (rnd(2)) {
			account(K_DTREE, rg_mkdir(g), g, EEXIST, 0);
			account(K_DTREE, chown_members(g), g, ENOENT, 0);
		} else {
			account(K_DTREE, rg_rmdir(g), g, ENOENT, 0);
		}
		gen = __atomic_load_n(&sh->ceil_gen, __ATOMIC_ACQUIRE);
		/* EINVAL: the root's divisor was lowered below 90 meanwhile. */
		if (!dlg_ceilings("dlg") && !(gen & 1) &&
		    __atomic_load_n(&sh->ceil_gen, __ATOMIC_ACQUIRE) == gen)
			__atomic_store_n(&sh->ceil_set, gen, __ATOMIC_RELEASE);
		usleep(rnd(20000));
	}
}

/* The index in @to of @pid's group (/proc/<pid>/res_group), or -1. */
static int dlg_group_of(pid_t pid, const char * const *to, int n)
{
	char p[64], buf[64];
	ssize_t len;
	int i;

	snprintf(p, sizeof(p), "/proc/%d/res_group", pid);
	len = rg_read(p, buf, sizeof(buf));
	if (len < 2 || buf[0] != '/' || buf[len - 1] != '\n')
		return -1;
	buf[len - 1] = '\0';
	for (i = 0; i < n; i++)
		if (!strcmp(buf + 1, to[i]))
			return i;
	return -1;
}

static void dlg_count_refusal(int ret)
{
	int e;

	for (e = 0; dmove_errs[e] && dmove_errs[e] != -ret; e++)
		;
	__atomic_add_fetch(&sh->dmove_err[e], 1, __ATOMIC_RELAXED);
}

static void dlg_move_worker(void)
{
	static const char * const to[] = { "dlg", "dlg/a", "dlg/b" };
	pid_t kids[DLG_TASKS + 1];
	int i, from, t, ret;
	bool ceilings;
	long gen;

	if (setgroups(0, NULL) || setresgid(DLG_UID, DLG_UID, DLG_UID) ||
	    setresuid(DLG_UID, DLG_UID, DLG_UID))
		_exit(WS_NO_GROUP);
	kids[0] = getpid();
	for (i = 1; i <= DLG_TASKS; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != kids[0])
				_exit(0);
			for (;;)
				pause();
		}
		if (kids[i] < 0)
			_exit(WS_NO_GROUP);
	}
	while (!stopping()) {
		i = rnd(DLG_TASKS + 1);
		if (rnd(8) == 0) {
			/* Out of the subtree: never. */
			ret = rg_move("dlg2", kids[i]);
			if (ret)
				dlg_count_refusal(ret);
			account(K_DMOVE, ret ?: -EOWNERDEAD, "out to dlg2",
				EPERM, EBUSY, 0);
			continue;
		}
		from = dlg_group_of(kids[i], to, 3);
		if (from < 0)
			continue;
		t = (from + 1 + rnd(2)) % 3;
		gen = __atomic_load_n(&sh->ceil_gen, __ATOMIC_ACQUIRE);
		ceilings = __atomic_load_n(&sh->ceil_set, __ATOMIC_ACQUIRE) == gen;
		ret = rg_move(to[t], kids[i]);
		if (ret)
			dlg_count_refusal(ret);
		if (ret == -EPERM && ceilings &&
		    __atomic_load_n(&sh->ceil_gen, __ATOMIC_ACQUIRE) == gen)
			ret = -EOWNERDEAD;	/* EPERM under dlg's ceilings */
		account(K_DMOVE, ret, to[t], EBUSY, ENOENT, ENOMEM, EPERM,
			EACCES, 0);
	}
	for (i = 1; i <= DLG_TASKS; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
}

/*
 * Start a worker in its own process; it moves to group unless NULL, and
 * exits with worker_status(). Its pid is published to the movers and
 * /proc readers, unless it is one of the workers that set ceilings, or
 * the one that must stay in cap.
 */
static pid_t start(void (*fn)(void), const char *group, int index)
{
	pid_t pid = fork();

	if (pid == 0) {
		seed = getpid();
		my_index = index;
		if (group && rg_move(group, getpid()))
			_exit(WS_NO_GROUP);
		fn();
		_exit(worker_status());
	}
	if (pid > 0 && !sets_cpu_ceilings(fn) && fn != cap_worker &&
	    fn != dlg_move_worker)
		add_pid(pid);
	return pid;
}

/* stress-ng's fork and clone stressors in group storm; -1 if missing. */
static pid_t start_stress_ng(int seconds)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char t[32];
	pid_t pid;

	if (access("/usr/bin/stress-ng", X_OK))
		return -1;
	snprintf(t, sizeof(t), "%ds", seconds);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		if (rg_move("storm", getpid()) || chdir(tmp))
			_exit(1);
		execl("/usr/bin/stress-ng", "stress-ng", "--fork", "1",
		      "--clone", "1", "--timeout", t, "--temp-path", tmp,
		      "--metrics-brief", (char *)NULL);
		_exit(127);
	}
	if (pid > 0) {
		setpgid(pid, pid);
		add_pid(pid);
	}
	return pid;
}

/*
 * Reap our children (the storms' orphans, ours as the subreaper) for at
 * most seconds, lastly right at the end: 0 once none is left, else 1.
 */
static int reap(int seconds)
{
	pid_t pid;
	int i;

	for (i = 0;; i++) {
		do
			pid = waitpid(-1, NULL, WNOHANG);
		while (pid > 0 || (pid < 0 && errno == EINTR));
		if (pid < 0)
			return 0;	/* ECHILD */
		if (i == seconds * 10)
			return 1;
		usleep(100000);
	}
}

/*
 * Send sig (0: none) to each child of parent: how many are not zombies
 * (those are just gone, unless their threads live on), and the first;
 * -errno if /proc cannot be read. An unreaped child of ours keeps its
 * pid, so sig reaches no other task.
 */
static int signal_children(pid_t parent, int sig, pid_t *first)
{
	char buf[512];
	const char *s;
	struct dirent *d;
	int n = 0;
	pid_t pid;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while ((d = readdir(proc))) {
		pid = atoi(d->d_name);
		if (pid <= 0)
			continue;
		/* The state, then the ppid. */
		s = rg_proc_stat(pid, buf, sizeof(buf));
		if (!s || atoi(s + 2) != parent)
			continue;
		if (sig)
			kill(pid, sig);
		if (s[0] != 'Z' && !n++)
			*first = pid;
	}
	closedir(proc);
	return n;
}

/*
 * Wait for worker i, which must exit WS_OK; else why says what it said,
 * unless it already says why an earlier one failed.
 */
static void wait_worker(pid_t pid, int i, char *why, size_t size)
{
	int status = 0, code;

	if (pid < 0) {
		if (!why[0])
			snprintf(why, size, "worker %d: fork failed", i);
		return;
	}
	if (waitpid(pid, &status, 0) != pid)
		code = -1;
	else
		code = rg_exit_code(status);
	if (code == WS_OK || why[0])
		return;
	if (code > 0 && code < WS_NSTATUS)
		snprintf(why, size, "worker %d: %s", i,
			 worker_status_name[code]);
	else
		snprintf(why, size, "worker %d: wait status %#x", i, status);
}

/* Group paths found by the walk, and how many tasks each lists. */
static struct {
	char path[MAXGROUPS][64];
	int tasks[MAXGROUPS];
	int n;
} groups;
static unsigned char *seen;	/* per pid: lists it appears in */

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	char p[PATH_MAX], *buf, *line, *end;
	int i = groups.n;

	if (type != FTW_D || i == MAXGROUPS)
		return 0;
	buf = malloc(1 << 20);
	if (!buf)
		return 1;
	snprintf(groups.path[i], sizeof(groups.path[i]), "%s",
		 path + strlen(RG_ROOT) + (path[strlen(RG_ROOT)] == '/'));
	groups.tasks[i] = 0;
	snprintf(p, sizeof(p), "%s/members", path);
	if (rg_read(p, buf, 1 << 20) >= 0) {
		for (line = buf; *line; line = end + 1) {
			end = strchr(line, '\n');
			if (!end)
				break;
			if (seen[atoi(line) % MAX_PID] < 255)
				seen[atoi(line) % MAX_PID]++;
			groups.tasks[i]++;
		}
	}
	groups.n++;
	free(buf);
	return 0;
}

/* Every task of the system is in exactly one group; 0 or why not. */
static const char *check_accounting(char *why, size_t size)
{
	char p[64];
	struct dirent *d, *t;
	DIR *proc, *task;
	pid_t pid, tid;

	memset(seen, 0, MAX_PID);
	groups.n = 0;
	nftw(RG_ROOT, visit, 16, FTW_PHYS);
	proc = opendir("/proc");
	if (!proc)
		return "no /proc";
	why[0] = '\0';
	while ((d = readdir(proc)) && !why[0]) {
		pid = atoi(d->d_name);
		if (pid <= 0)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/task", pid);
		task = opendir(p);
		if (!task)
			continue;
		while ((t = readdir(task)) && !why[0]) {
			tid = atoi(t->d_name);
			if (tid > 0 && seen[tid] != 1)
				snprintf(why, size, "task %d is in %d groups",
					 tid, seen[tid]);
		}
		closedir(task);
	}
	closedir(proc);
	return why[0] ? why : NULL;
}

/* held of each group is the number of tasks of its subtree. */
static const char *check_held(char *why, size_t size)
{
	long held, want;
	size_t plen;
	int i, j;

	for (i = 0; i < groups.n; i++) {
		plen = strlen(groups.path[i]);
		want = 0;
		for (j = 0; j < groups.n; j++)
			if (!plen || !strcmp(groups.path[j], groups.path[i]) ||
			    (!strncmp(groups.path[j], groups.path[i], plen) &&
			     groups.path[j][plen] == '/'))
				want += groups.tasks[j];
		held = rg_get(groups.path[i], "stats", "numtasks", "held");
		if (held != want) {
			snprintf(why, size, "group '%s' held %ld, %ld tasks",
				 groups.path[i], held, want);
			return why;
		}
	}
	return NULL;
}

/*
 * rg_kmem.ko's counters after the storm (no charge in flight any more, frees
 * may be): held of a group covers its children's (read first, so that a
 * free meanwhile can only lower the children), and the root's is within
 * total_kmem. The only kmem shares written are dlg's and dlg2's
 * ceilings of 90 % of the machine (for the delegated moves), which the
 * few tasks there never come near: nothing is refused for kernel memory.
 */
static const char *check_kmem(char *why, size_t size)
{
	long held, sum, total = -1;
	char buf[32];
	size_t plen;
	int i, j;

	if (rg_read("/sys/module/rg_kmem/parameters/total_kmem", buf,
		    sizeof(buf)) > 0)
		total = atol(buf);
	for (i = 0; i < groups.n; i++) {
		plen = strlen(groups.path[i]);
		held = rg_get(groups.path[i], "stats", "kmem", "held");
		sum = 0;
		for (j = 0; j < groups.n; j++) {
			const char *c = groups.path[j];

			/* Children only: below, with no '/' further down. */
			if (j == i || (plen && (strncmp(c, groups.path[i], plen) ||
						c[plen] != '/')))
				continue;
			if (strchr(c + plen + !!plen, '/'))
				continue;
			sum += rg_get(c, "stats", "kmem", "held");
		}
		if (held < sum || (!plen && (held < 0 || held > total))) {
			snprintf(why, size,
				 "group '%s' kmem held %ld, its children %ld (total_kmem %ld)",
				 groups.path[i], held, sum, total);
			return why;
		}
	}
	return NULL;
}

static int nr_test, nr_failed;

static void tap(int ok, const char *name, const char *why)
{
	nr_failed += !ok;
	printf("%sok %d stress.%s\n", ok ? "" : "not ", ++nr_test, name);
	if (!ok && why)
		printf("# %s\n", why);
	fflush(stdout);
}

/* Load module @name from @ko unless it is loaded; TAP @test: is it now? */
static void tap_loaded(const char *name, const char *ko, const char *test)
{
	char why[64] = "";
	int ret = 0;

	if (!rg_module_loaded(name))
		ret = rg_insmod(ko, NULL);
	if (ret)
		snprintf(why, sizeof(why), "insmod %s: %s", name,
			 strerror(-ret));
	tap(!ret && rg_module_loaded(name), test, why);
}

/*
 * Every kind of operation and each of the @n workers succeeded once, and
 * a fork refused at a numtasks limit was seen counted in its failcnt
 * (what numtasks_refused_forks_at_a_limit_and_counted_them needs).
 */
static bool all_succeeded(size_t n)
{
	size_t i;

	if (!__atomic_load_n(&sh->cap_counted, __ATOMIC_RELAXED))
		return false;

	for (i = 0; i < NKINDS; i++)
		if (!__atomic_load_n(&sh->ok[i], __ATOMIC_RELAXED))
			return false;
	for (i = 0; i < n; i++)
		if (!__atomic_load_n(&sh->worker_ok[i], __ATOMIC_RELAXED))
			return false;
	return true;
}

int main(void)
{
	static const struct {
		void (*fn)(void);
		const char *group;	/* NULL: the root */
	} workers[] = {
		{ tree_worker, NULL }, { tree_worker, NULL },
		{ shares_worker, NULL }, { stats_worker, NULL },
		{ move_worker, NULL }, { move_worker, NULL },
		{ proc_worker, NULL }, { module_worker, NULL },
		{ fork_worker, "storm" }, { fork_worker, "storm" },
		{ thread_worker, "storm" }, { cap_worker, "cap" },
		{ dlg_tree_worker, NULL }, { dlg_move_worker, "dlg" },
	};
	const char *secs = getenv("STRESS_SECONDS");
	int seconds = secs ? atoi(secs) : rg_scaled(30, 5);
	/* How long orphans may take to go (the quick tier's: see the top). */
	int reap_wait = rg_scaled(120, 60), kill_wait = rg_scaled(30, 15);
	int i, tries, status, ret, left, stuck;
	pid_t ng, worker[ARRAY_SIZE(workers)], orphan = 0, first;
	bool ng_running = false;
	char why[256] = "", rmmod_why[64] = "", *bad = NULL;
	size_t len;

	static_assert(ARRAY_SIZE(workers) <= MAXWORKERS, "MAXWORKERS");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..14\n");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	seen = malloc(MAX_PID);
	if (sh == MAP_FAILED || !seen || seconds <= 0)
		return 1;
	/* Orphans of the storms come here to be reaped, not to init. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	rg_remove_all_groups();
	rg_unload_all();
	if (rg_insmod("module/res_groups.ko", NULL) || rg_insmod(NT_KO, NULL) ||
	    rg_insmod(CTL_KO, NULL) || rg_insmod(CPU_KO, NULL) ||
	    rg_insmod(KMEM_KO, NULL) ||
	    rg_mkdir("storm") || rg_mkdir("cap") || rg_mkdir("dlg") ||
	    rg_mkdir("dlg2") || dlg_ceilings("dlg") || dlg_ceilings("dlg2") ||
	    chown_members("dlg") || chown_members("dlg2")) {
		printf("Bail out! cannot load the modules\n");
		return 1;
	}
	printf("# %d seconds, %zu workers and stress-ng\n", seconds,
	       ARRAY_SIZE(worker));
	seed = getpid();
	/*
	 * stress-ng first, the workers once its stressors run: its start (a
	 * dynamic binary with many libraries) takes a second or more in the
	 * debug guest, and beside twelve busy workers it took ten, so that
	 * it ran only after they had stopped.
	 */
	ng = start_stress_ng(seconds);
	for (i = 0; ng > 0 && i < 300; i++) {
		siginfo_t si = { 0 };

		ng_running = signal_children(ng, 0, &first) > 0;
		if (ng_running || waitid(P_PID, ng, &si,
					 WEXITED | WNOHANG | WNOWAIT) ||
		    si.si_pid == ng)
			break;
		usleep(100000);
	}
	if (ng_running)
		printf("# stress-ng's stressors ran %.1f s after its start\n",
		       i / 10.0);
	for (i = 0; i < (int)ARRAY_SIZE(workers); i++)
		worker[i] = start(workers[i].fn, workers[i].group, i);
	sleep(seconds);
	/*
	 * On a loaded host some kind may not have succeeded yet (a worker's
	 * few tries all refused as expected): up to twice as long again,
	 * until every kind and every worker has succeeded once (and a
	 * refused fork was seen counted).
	 */
	for (i = 0; i < 20 * seconds && !all_succeeded(ARRAY_SIZE(workers)); i++)
		usleep(100000);
	if (i)
		printf("# %.1f s more, until each kind and each worker succeeded once%s\n",
		       i / 10.0,
		       all_succeeded(ARRAY_SIZE(workers)) ? "" : " (some never did)");
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);

	/*
	 * Every worker stops by itself and exits 0. A task, even a killed
	 * one, stays under its groups' CPU ceilings until well into its exit,
	 * and the shares writes may have left a worker, stress-ng or an
	 * orphan under 1 ms per 100 ms period at several levels: so stop the
	 * workers that can set ceilings (in the root, under none), unload
	 * rg_cpu.ko (which lifts them all), and only then wait for the others.
	 */
	why[0] = '\0';
	for (i = 0; i < (int)ARRAY_SIZE(workers); i++)
		if (sets_cpu_ceilings(workers[i].fn))
			wait_worker(worker[i], i, why, sizeof(why));
	if (rg_module_loaded("rg_cpu")) {
		ret = rg_rmmod("rg_cpu");
		if (ret)
			snprintf(rmmod_why, sizeof(rmmod_why), "rmmod rg_cpu: %s",
				 strerror(-ret));
	}
	tap(!rmmod_why[0], "cpu_unloaded_at_stop", rmmod_why);
	for (i = 0; i < (int)ARRAY_SIZE(workers); i++)
		if (!sets_cpu_ceilings(workers[i].fn))
			wait_worker(worker[i], i, why, sizeof(why));
	tap(!why[0], "every_worker_exited_0", why);

	/*
	 * stress-ng is a dependency; its timeout ends it about now. Its
	 * children take a while to go on a slow kernel (KCSAN on TCG took
	 * more than 30 s more): reap_wait s, then it is stuck.
	 */
	why[0] = '\0';
	if (ng < 0) {
		snprintf(why, sizeof(why), "/usr/bin/stress-ng is missing");
	} else {
		/* (Overlapping the workers: its stressors ran before them.) */
		if (!ng_running)
			snprintf(why, sizeof(why),
				 "stress-ng's stressors had not started 30 s after it, or it had ended");
		for (i = 0; i < reap_wait * 10 &&
		     waitpid(ng, &status, WNOHANG) == 0; i++)
			usleep(100000);
		if (i == reap_wait * 10) {
			kill(-ng, SIGKILL);
			waitpid(ng, &status, 0);
			snprintf(why, sizeof(why), "stress-ng outlived its timeout");
		} else if (rg_exit_code(status) != 0 && !why[0]) {
			snprintf(why, sizeof(why), "stress-ng: wait status %#x",
				 status);
		}
		kill(-ng, SIGKILL);
	}
	tap(!why[0], "stress_ng_ran_and_exited_0", why);
	/*
	 * Without ceilings they go at once: reap_wait s, then those still
	 * there are stuck. They are killed, so as not to outlive the test.
	 */
	ret = 0;
	stuck = reap(reap_wait);
	left = stuck;
	if (stuck) {
		ret = signal_children(getpid(), SIGKILL, &orphan);
		left = reap(kill_wait);
	}
	why[0] = '\0';
	if (ret > 0)
		snprintf(why, sizeof(why),
			 "%d orphans of the storms not reaped in %d s (pid %d first), killed%s",
			 ret, reap_wait, orphan,
			 left ? ", some still there later" : "");
	else if (ret < 0)
		snprintf(why, sizeof(why),
			 "children left after %d s, but opendir /proc: %s",
			 reap_wait, strerror(-ret));
	else if (stuck)
		snprintf(why, sizeof(why),
			 "children not reaped in %d s (zombies then, with live threads)%s",
			 reap_wait, left ? ", some still there later" : "");
	tap(!stuck, "storm_orphans_reaped", why);

	/*
	 * Every group gets the default shares (no ceiling) at rg_cpu.ko's load:
	 * the removal at the end goes through its per-group clean-up too.
	 */
	tap_loaded("rg_cpu", CPU_KO, "cpu_loaded_again");

	for (i = 0; i < NKINDS; i++)
		printf("# %-22s %8ld done, %8ld refused as expected\n",
		       kind_name[i], sh->ok[i], sh->refused[i]);
	printf("# delegated moves refused:");
	for (i = 0; i < (int)ARRAY_SIZE(dmove_errs); i++)
		printf(" %s %ld", dmove_errs[i] ? strerrorname_np(dmove_errs[i]) :
		       "other", sh->dmove_err[i]);
	printf("\n");
	tap(sh->unexpected == 0, "no_unexpected_errno", sh->first_unexpected);
	why[0] = '\0';
	for (i = 0; i < NKINDS; i++) {
		len = strlen(why);
		if (!sh->ok[i])
			snprintf(why + len, sizeof(why) - len, "%s%s",
				 len ? ", " : "never succeeded: ", kind_name[i]);
	}
	tap(!why[0], "every_kind_of_operation_succeeded", why);
	/*
	 * numtasks refused forks past cap's limit of 0, and counted them:
	 * with numtasks loaded throughout, none went through and none was
	 * left out of failcnt. (Across a reload of numtasks, either may be.)
	 */
	snprintf(why, sizeof(why),
		 "cap: %ld forks refused (%ld then seen in failcnt, %ld not), %ld let through (%ld across a reload of numtasks)",
		 sh->cap_refused, sh->cap_counted, sh->cap_uncounted,
		 sh->cap_escaped + sh->cap_reloaded, sh->cap_reloaded);
	printf("# %s\n", why);
	tap(sh->cap_refused > 0 && sh->cap_counted > 0 &&
	    !sh->cap_uncounted && !sh->cap_escaped,
	    "numtasks_refused_forks_at_a_limit_and_counted_them", why);

	/* Counted incrementally since its last load: leave it loaded. */
	tap_loaded("rg_numtasks", NT_KO, "numtasks_loaded_again");
	/* Kernel threads come and go: a lost task stays lost, retry. */
	for (tries = 0; tries < 10; tries++) {
		bad = (char *)check_accounting(why, sizeof(why));
		if (!bad)
			break;
		usleep(200000);
	}
	tap(!bad, "every_task_in_exactly_one_group", why);
	for (tries = 0; tries < 10; tries++) {
		check_accounting(why, sizeof(why));
		bad = (char *)check_held(why, sizeof(why));
		if (!bad)
			break;
		usleep(200000);
	}
	printf("# %d groups at the end\n", groups.n);
	tap(!bad, "held_matches_tasks_in_subtree", why);
	tap_loaded("rg_kmem", KMEM_KO, "kmem_loaded_again");
	tap(!check_kmem(why, sizeof(why)), "kmem_held_covers_children", why);
	rg_remove_all_groups();
	rg_unload_all();
	tap(!rg_exists(RG_ROOT) && !rg_module_loaded("res_groups") &&
	    !rg_module_loaded("rg_numtasks") && !rg_module_loaded("rg_cpu") &&
	    !rg_module_loaded("rg_kmem"),
	    "groups_removed_and_modules_unloaded",
	    "a group or a module is left");
	return nr_failed ? 1 : 0;
}

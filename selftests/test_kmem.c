// SPDX-License-Identifier: GPL-2.0
/*
 * The kmem controller (docs/res_groups.rst, "The kmem controller"):
 * bounds from the shares, the parameters, exact page charges, the
 * barrier and the limit (a user page fault may go past the barrier, and
 * is killed at the limit), the hierarchy under concurrent charges,
 * ownership after moves and removals, precedence over memory cgroups,
 * unloading with charges outstanding, and the stats line.
 *
 * Method: the test (the parent) stays in the root group, whose tasks are
 * not charged, so reading stats changes nothing it measures. The charging
 * is done by workers, forked children moved into groups, pinned to one
 * CPU (slab charges go through that CPU's byte stock), which the parent
 * drives through a command word in a shared page and futexes: a worker
 * allocates nothing but what a command asks for. Pipe pages are the
 * exact unit: the first write into an empty pipe allocates one accounted
 * page and nothing else, and its last reader frees it.
 *
 * Numbers: total_kmem 1 GiB, barrier_permille 800, the root's divisor
 * 1024: a child of the root with max_shares=10 has a limit of 10 MiB
 * (10485760) and a barrier of 8 MiB (8388608).
 *
 * Quick tier (RG_TIER=quick): the concurrent fill of the hierarchy test
 * runs 2 s instead of 5.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define KMEM_KO "module/rg_kmem.ko"
#define PARAMS "total_kmem=1073741824 barrier_permille=800"
#define TOTAL "/sys/module/rg_kmem/parameters/total_kmem"
#define PERMILLE "/sys/module/rg_kmem/parameters/barrier_permille"
#define LIMIT 10485760L
#define BARRIER 8388608L
#define PG 4096L
#define MAXPIPES 512
#define CG2 "/run/rg_kmem_cg2"

enum {
	CMD_NONE, CMD_PIPES, CMD_FILL, CMD_CLOSE, CMD_TRY, CMD_TOUCH,
	CMD_READ, CMD_SPAWN, CMD_TOUCH2, CMD_PARAM, CMD_DEVMAP, CMD_DEVREAD,
	CMD_ANON, CMD_CACHE,
};

/* CMD_PARAM's argument: which parameter of rg_kmem_alloc, and N. */
#define PARAM_NOFAIL 0
#define PARAM_ATOMIC 1
#define PARAM_ARG(which, n) ((long)(which) << 32 | (n))
#define ALLOC_KO "selftests/modules/rg_kmem_alloc.ko"
#define ALLOC_PARAM "/sys/module/rg_kmem_alloc/parameters/"
enum { TRY_OPEN, TRY_PIPE, TRY_FORK, TRY_MMAP };

/* The shared page: the parent writes cmd/arg and bumps seq. */
struct ctl {
	int seq;	/* futex: bumped by the parent per command */
	int done;	/* futex: set to seq by the worker when done */
	int cmd;
	long arg;
	long ret;
	int err;
};

struct worker {
	pid_t pid;
	struct ctl *c;
};

/* Worker side: state of the one worker this process is. */
static int wfd[MAXPIPES][2];
static int nwfd;
static char wbuf[PG];
static char *wmap;
static long w_mmaps;
/* rg_kmem_alloc's nofail and atomic, opened before any limit applies. */
static int wpar[2] = { -1, -1 };
/* CMD_DEVMAP's two pages of /dev/rg_kmem_alloc. */
static volatile char *wdev;
/* CMD_CACHE's file (a memfd: page cache of shmem) and its length. */
static int wcache = -1;
static off_t wcache_len;

static long futex(int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Write one page into each pipe in turn until @n were written or an error. */
static long w_fill(long n, int *err)
{
	long done = 0;
	int i, full = 0;

	*err = 0;
	while (done < n && nwfd) {
		for (i = 0; i < nwfd && done < n; i++) {
			if (write(wfd[i][1], wbuf, PG) == PG) {
				done++;
				full = 0;
			} else if (errno == EAGAIN) {
				if (++full > nwfd)
					goto out;	/* every pipe full */
			} else {
				*err = errno;
				goto out;
			}
		}
	}
out:
	return done;
}

static long w_try(long what, int *err)
{
	int fd, p[2];
	pid_t pid;
	void *m;

	*err = 0;
	switch (what) {
	case TRY_OPEN:
		fd = open("/proc/self/stat", O_RDONLY);
		if (fd < 0)
			*err = errno;
		return fd;
	case TRY_PIPE:
		if (pipe(p)) {
			*err = errno;
			return -1;
		}
		return p[0];
	case TRY_FORK:
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0)
			*err = errno;
		else
			waitpid(pid, NULL, 0);
		return pid;
	case TRY_MMAP:
		/*
		 * Over the middle of the big mapping, with another protection:
		 * splits it (two new vm_area_structs), never merges.
		 */
		m = mmap(wmap + (2 + w_mmaps++ % 256) * (4L << 20), PG,
			 PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0);
		if (m == MAP_FAILED)
			*err = errno;
		return m == MAP_FAILED ? -1 : 0;
	}
	return -1;
}

/*
 * Two pages of /dev/rg_kmem_alloc mapped beside a touched page of the big
 * mapping, in the same 2 MiB (its page table exists: their faults charge
 * nothing of their own), near its end, where no other command goes.
 */
static long w_devmap(int *err)
{
	uintptr_t end = (uintptr_t)wmap + (2UL << 30) - (4UL << 20);
	char *a = (char *)(end & ~((2UL << 20) - 1));
	void *m;
	int fd;

	*err = 0;
	a[0] = 1;
	fd = open("/dev/rg_kmem_alloc", O_RDONLY);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	m = mmap(a + PG, 2 * PG, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (m == MAP_FAILED)
		*err = errno;
	close(fd);
	wdev = m == MAP_FAILED ? NULL : m;
	return m == MAP_FAILED ? -1 : 0;
}

/*
 * CMD_SPAWN's second thread (made while there is room for it): waits for
 * CMD_TOUCH2, then touches the upper half of its regions.
 */
static pthread_t w_thread;
static int w_go;
static long w_half;

static void *w_toucher(void *arg)
{
	cpu_set_t set;
	long r;

	/* On the other CPU: the two threads fault at the same time. */
	CPU_ZERO(&set);
	CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) > 1, &set);
	sched_setaffinity(0, sizeof(set), &set);

	while (!__atomic_load_n(&w_go, __ATOMIC_ACQUIRE))
		futex(&w_go, FUTEX_WAIT, 0);
	for (r = w_half; r < 2 * w_half; r++)
		wmap[r << 21] = 1;
	return NULL;
}

static void w_loop(struct ctl *c)
{
	int seen = 0, seq, i;
	long r;

	for (;;) {
		seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		if (seq == seen) {
			futex(&c->seq, FUTEX_WAIT, seq);
			continue;
		}
		seen = seq;
		c->err = 0;
		r = 0;
		switch (c->cmd) {
		case CMD_PIPES:
			for (i = 0; i < c->arg && nwfd < MAXPIPES; i++, nwfd++)
				if (pipe2(wfd[nwfd], O_NONBLOCK)) {
					c->err = errno;
					break;
				}
			r = nwfd;
			break;
		case CMD_FILL:
			r = w_fill(c->arg, &c->err);
			break;
		case CMD_CLOSE:
			for (i = 0; i < nwfd; i++) {
				close(wfd[i][0]);
				close(wfd[i][1]);
			}
			nwfd = 0;
			break;
		case CMD_TRY:
			r = w_try(c->arg, &c->err);
			break;
		case CMD_TOUCH:
			/* One byte per 2 MiB: a page table each. */
			for (r = 0; r < c->arg; r++)
				wmap[r << 21] = 1;
			break;
		case CMD_SPAWN:
			if (pthread_create(&w_thread, NULL, w_toucher, NULL))
				c->err = EAGAIN;
			break;
		case CMD_TOUCH2:
			/* Both threads at once, arg regions each. */
			w_half = c->arg;
			__atomic_store_n(&w_go, 1, __ATOMIC_RELEASE);
			futex(&w_go, FUTEX_WAKE, 1);
			for (r = 0; r < c->arg; r++)
				wmap[r << 21] = 1;
			pthread_join(w_thread, NULL);
			break;
		case CMD_READ:
			/*
			 * From the first pipe into an untouched 2 MiB region:
			 * the kernel's own fault (copy_to_user), not a user's.
			 */
			r = read(wfd[0][0], wmap + (c->arg << 21), PG);
			if (r < 0)
				c->err = errno;
			break;
		case CMD_ANON:
			/*
			 * Pages 1..arg (at most 511) of the first 2 MiB
			 * region, whose page table exists: user pages only.
			 */
			for (r = 0; r < c->arg && r < 511; r++)
				wmap[(r + 1) * PG] = 1;
			break;
		case CMD_CACHE:
			/* 0: make the file; else write arg pages to it. */
			if (!c->arg) {
				wcache = memfd_create("rg_kmem_cache", 0);
				if (wcache < 0)
					c->err = errno;
				break;
			}
			for (r = 0; r < c->arg; r++, wcache_len += PG)
				if (pwrite(wcache, wbuf, PG, wcache_len) != PG) {
					c->err = errno;
					break;
				}
			break;
		case CMD_PARAM: {
			char v[16];
			int len = snprintf(v, sizeof(v), "%ld",
					   c->arg & 0xffffffff);

			if (pwrite(wpar[c->arg >> 32], v, len, 0) != len)
				c->err = errno;
			break;
		}
		case CMD_DEVMAP:
			r = w_devmap(&c->err);
			break;
		case CMD_DEVREAD:
			/* A user fault (the first touch of that page). */
			r = wdev[c->arg * PG];
			break;
		}
		c->ret = r;
		__atomic_store_n(&c->done, seq, __ATOMIC_RELEASE);
		futex(&c->done, FUTEX_WAKE, 1);
	}
}

static long worker_do(struct worker *w, int cmd, long arg, int *err);

/*
 * A worker pinned to CPU @cpu, without transparent huge pages, with a 2 GiB
 * reserve-free mapping whose first page is touched (its page tables and
 * anon_vma exist), in @group ("" stays in the root).
 */
static int worker_start_on(struct worker *w, const char *group, int cpu)
{
	cpu_set_t set;

	w->c = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w->c == MAP_FAILED)
		return -1;
	memset(w->c, 0, PG);
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		memset(wbuf, 'k', sizeof(wbuf));
		wmap = mmap(NULL, 2UL << 30, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (wmap == MAP_FAILED)
			_exit(3);
		wmap[0] = 1;
		wpar[0] = open(ALLOC_PARAM "nofail", O_WRONLY);
		wpar[1] = open(ALLOC_PARAM "atomic", O_WRONLY);
		w_loop(w->c);
	}
	/* Its mapping and first page are made: nothing is left to charge. */
	if (worker_do(w, CMD_NONE, 0, NULL) < 0)
		return -1;
	if (*group && rg_move(group, w->pid))
		return -1;
	return 0;
}

static int worker_start(struct worker *w, const char *group)
{
	return worker_start_on(w, group, 0);
}

/* Run a command; its result (-1 if the worker died: then @err is -1). */
static long worker_do(struct worker *w, int cmd, long arg, int *err)
{
	struct ctl *c = w->c;
	int seq = c->seq + 1, st;

	c->cmd = cmd;
	c->arg = arg;
	__atomic_store_n(&c->seq, seq, __ATOMIC_RELEASE);
	futex(&c->seq, FUTEX_WAKE, 1);
	while (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) != seq) {
		if (waitpid(w->pid, &st, WNOHANG) == w->pid) {
			w->pid = -st - 1;	/* reaped: -(status) - 1 */
			if (err)
				*err = -1;
			return -1;
		}
		usleep(1000);
	}
	if (err)
		*err = c->err;
	return c->ret;
}

static void worker_stop(struct worker *w)
{
	if (w->pid > 0)
		rg_kill(w->pid);
	w->pid = 0;
	if (w->c && w->c != MAP_FAILED)
		munmap(w->c, PG);
	w->c = NULL;
}

/*
 * What slab charges may leave charged after their objects were freed:
 * memcg's byte stock of each CPU (under two pages: a charge's remainder
 * on top of a free's), and the objcg's remainders of drained stocks.
 */
static long slack(void)
{
	return (2 * sysconf(_SC_NPROCESSORS_ONLN) + 4) * PG;
}

/* Fill @w's group up to its barrier with pipe pages: 0, or -1. */
static int fill_to_barrier(struct worker *w)
{
	int err;

	if (worker_do(w, CMD_PIPES, 160, &err) != 160)
		return -1;
	worker_do(w, CMD_FILL, 4096, &err);
	return err == ENOMEM ? 0 : -1;
}

/* The wait status of a worker that died (worker_do() reaped it). */
static int worker_reaped(struct worker *w)
{
	int st = -w->pid - 1;

	w->pid = 0;
	return st;
}

/*
 * The state a refused write must leave: g's files, and the root's shares
 * and stats (not the root's members: kernel threads come and go there).
 */
static int km_state(char *buf, size_t size)
{
	static const char * const g[] = { "g" }, * const root[] = { "" };
	size_t len;
	int ret;

	buf[0] = '\0';	/* rg_snapshot_all() appends */
	ret = rg_snapshot_all(g, 1, buf, size);
	len = strlen(buf);
	ret = ret ?: rg_snapshot(root, 1, "shares", buf + len, size - len);
	len = strlen(buf);
	return ret ?: rg_snapshot(root, 1, "stats", buf + len, size - len);
}

static long km(const char *group, const char *key)
{
	return rg_get(group, "stats", "kmem", key);
}

/*
 * Wait until held of @group has not moved for 100 ms (RCU frees of what
 * a command freed), for at most 2 s.
 */
static void km_quiet(const char *group)
{
	long h = km(group, "held"), prev;
	int i;

	for (i = 0; i < 20; i++) {
		usleep(100000);
		prev = h;
		h = km(group, "held");
		if (h == prev)
			return;
	}
}

/*
 * Wait up to 2 s (RCU frees files, dentries and page tables later) until
 * held of @group is at most @want; its last value.
 */
static long km_settle(const char *group, long want)
{
	long h = 0;
	int i;

	for (i = 0; i < 200; i++) {
		h = km(group, "held");
		if (h <= want)
			break;
		usleep(10000);
	}
	return h;
}

FIXTURE(km) {
	struct worker w[2];
};

FIXTURE_SETUP(km)
{
	rg_stall_unload();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod(KMEM_KO, PARAMS));
	ASSERT_EQ(0, rg_set("", "shares", "res=kmem,child_shares_divisor=1024"));
	ASSERT_EQ(0, rg_mkdir("g"));
	ASSERT_EQ(0, rg_set("g", "shares", "res=kmem,max_shares=10"));
	memset(self->w, 0, sizeof(self->w));
}

FIXTURE_TEARDOWN(km)
{
	worker_stop(&self->w[0]);
	worker_stop(&self->w[1]);
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
	rmdir(CG2 "/m");
	umount2(CG2, MNT_DETACH);
}

/* The machine's RAM in bytes (MemTotal), or -1. */
static long long mem_total(void)
{
	long long kb = -1;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

/* Bounds from the shares and the parameters; every bad value refused. */
TEST_F(km, bounds_and_parameters)
{
	char before[8192], after[8192], buf[64];
	static const char * const bad_total[] = {
		"0", "-1", "abc", "1k", "18446744073709551616",
	};
	static const char * const bad_permille[] = {
		"1001", "-1", "x", "4294967296",
	};
	size_t i;

	EXPECT_EQ(1073741824L, km("", "limit"));
	EXPECT_EQ(858993459L, km("", "barrier"));
	EXPECT_EQ(LIMIT, km("g", "limit"));
	EXPECT_EQ(BARRIER, km("g", "barrier"));
	/* DONT_CARE: the parent's bound. */
	ASSERT_EQ(0, rg_mkdir("g/d"));
	EXPECT_EQ(LIMIT, km("g/d", "limit"));
	EXPECT_EQ(BARRIER, km("g/d", "barrier"));
	/* A guarantee is not supported: the write is ignored. */
	EXPECT_EQ(-2, rg_get("g", "shares", "kmem", "min_shares"));
	EXPECT_EQ(0, rg_set("g", "shares", "res=kmem,min_shares=5"));
	EXPECT_EQ(-2, rg_get("g", "shares", "kmem", "min_shares"));
	/* A divisor scales the children at once. */
	ASSERT_EQ(0, rg_set("g/d", "shares", "res=kmem,max_shares=50"));
	EXPECT_EQ(LIMIT / 2, km("g/d", "limit"));
	ASSERT_EQ(0, rg_set("g", "shares", "res=kmem,child_shares_divisor=200"));
	EXPECT_EQ(LIMIT / 4, km("g/d", "limit"));
	EXPECT_EQ(LIMIT / 4 * 8 / 10, km("g/d", "barrier"));
	/* barrier_permille applies everywhere, both ends included. */
	ASSERT_EQ(0, rg_write(PERMILLE, "1000"));
	EXPECT_EQ(LIMIT, km("g", "barrier"));
	ASSERT_EQ(0, rg_write(PERMILLE, "0"));
	EXPECT_EQ(0, km("g", "barrier"));
	EXPECT_EQ(0, km("g/d", "barrier"));
	ASSERT_EQ(0, rg_write(PERMILLE, "800"));
	/* total_kmem rescales the tree. */
	ASSERT_EQ(0, rg_write(TOTAL, "2147483648"));
	EXPECT_EQ(2 * LIMIT, km("g", "limit"));
	ASSERT_EQ(0, rg_write(TOTAL, "1073741824"));

	ASSERT_EQ(0, km_state(before, sizeof(before)));
	for (i = 0; i < ARRAY_SIZE(bad_total); i++)
		EXPECT_EQ(-EINVAL, rg_write(TOTAL, bad_total[i])) {
			TH_LOG("total_kmem value %zu", i);
		}
	for (i = 0; i < ARRAY_SIZE(bad_permille); i++)
		EXPECT_EQ(-EINVAL, rg_write(PERMILLE, bad_permille[i])) {
			TH_LOG("barrier_permille value %zu", i);
		}
	ASSERT_EQ(0, km_state(after, sizeof(after)));
	EXPECT_STREQ(before, after);
	ASSERT_LT(0, rg_read(TOTAL, buf, sizeof(buf)));
	EXPECT_STREQ("1073741824\n", buf);
	ASSERT_LT(0, rg_read(PERMILLE, buf, sizeof(buf)));
	EXPECT_STREQ("800\n", buf);

	/* The same values at load. */
	rg_remove_all_groups();
	ASSERT_EQ(0, rg_rmmod("rg_kmem"));
	EXPECT_EQ(-EINVAL, rg_insmod(KMEM_KO, "total_kmem=0"));
	EXPECT_EQ(-EINVAL, rg_insmod(KMEM_KO, "barrier_permille=1001"));
	EXPECT_EQ(0, rg_module_loaded("rg_kmem"));
	/* Default: the RAM, and 900 permille. */
	ASSERT_EQ(0, rg_insmod(KMEM_KO, NULL));
	ASSERT_LT(0, rg_read(PERMILLE, buf, sizeof(buf)));
	EXPECT_STREQ("900\n", buf);
	EXPECT_EQ(km("", "limit") / 1000 * 900 +
		  km("", "limit") % 1000 * 900 / 1000, km("", "barrier"));
	/* The RAM: MemTotal is the kernel's totalram_pages() too. */
	ASSERT_LT(0, rg_read(TOTAL, buf, sizeof(buf)));
	EXPECT_EQ(mem_total(), atoll(buf));
	EXPECT_EQ(mem_total(), km("", "limit"));
}

/* A pipe page is charged to the writer's group exactly, and given back. */
TEST_F(km, pipe_pages_are_exact)
{
	struct worker *w = &self->w[0];
	long h0, h1, h2, r0, r1;
	int err;

	ASSERT_EQ(0, worker_start(w, "g"));
	h0 = km("g", "held");
	ASSERT_EQ(64, worker_do(w, CMD_PIPES, 64, &err));
	/* The pipes' files, inodes and buffers: slab, charged by pages. */
	km_quiet("g");
	h1 = km("g", "held");
	EXPECT_LT(h0, h1);
	r0 = km("", "held");
	ASSERT_EQ(64, worker_do(w, CMD_FILL, 64, &err));
	h2 = km("g", "held");
	r1 = km("", "held");
	EXPECT_EQ(64 * PG, h2 - h1);
	/* The root's held is its subtree's. */
	EXPECT_EQ(64 * PG, r1 - r0);
	EXPECT_LE(h2, km("g", "maxheld"));
	worker_do(w, CMD_CLOSE, 0, &err);
	/* Pages exactly; the slab part may linger in the CPUs' stocks. */
	h2 = km_settle("g", h0 + slack());
	EXPECT_GE(h0 + slack(), h2);
	TH_LOG("held %ld before the pipes, %ld after", h0, h2);
	EXPECT_EQ(0, km("g", "failcnt"));
}

/* Memory a task of the root group allocates is charged to no group. */
TEST_F(km, root_tasks_are_not_charged)
{
	struct worker *w = &self->w[0];
	long r0;
	int err;

	ASSERT_EQ(0, worker_start(w, ""));
	r0 = km("", "held");
	ASSERT_EQ(16, worker_do(w, CMD_PIPES, 16, &err));
	ASSERT_EQ(16, worker_do(w, CMD_FILL, 16, &err));
	EXPECT_EQ(r0, km("", "held"));
	EXPECT_EQ(0, km("g", "held"));
}

/*
 * At the barrier ordinary allocations fail with their own errno, each
 * refusal counted where it was tried; held never passes the barrier.
 */
TEST_F(km, barrier_refuses_allocations)
{
	static const struct { int what, err; const char *name; } tries[] = {
		{ TRY_OPEN, ENOMEM, "open" },
		{ TRY_PIPE, ENFILE, "pipe" },
		{ TRY_FORK, ENOMEM, "fork" },
		{ TRY_MMAP, ENOMEM, "mmap" },
	};
	struct worker *w = &self->w[0];
	long n, h, f0;
	size_t i;
	int err, k;

	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(160, worker_do(w, CMD_PIPES, 160, &err));
	n = worker_do(w, CMD_FILL, 4096, &err);
	EXPECT_EQ(ENOMEM, err);
	h = km("g", "held");
	EXPECT_LT(BARRIER - PG, h);
	EXPECT_GE(BARRIER, h);
	EXPECT_GE(BARRIER, km("g", "maxheld"));
	EXPECT_EQ(1, km("g", "failcnt"));
	EXPECT_EQ(0, km("", "failcnt"));
	EXPECT_EQ(0, km("g", "killcnt"));
	TH_LOG("%ld pages written, held %ld", n, h);

	/* The CPU's stock may serve a few small objects first. */
	for (i = 0; i < ARRAY_SIZE(tries); i++) {
		f0 = km("g", "failcnt");
		for (k = 0; k < 64; k++)
			if (worker_do(w, CMD_TRY, tries[i].what, &err) < 0)
				break;
		EXPECT_EQ(tries[i].err, err) {
			TH_LOG("%s: errno %d after %d tries", tries[i].name,
			       err, k);
		}
		EXPECT_LT(f0, km("g", "failcnt"));
		EXPECT_GE(BARRIER, km("g", "held"));
	}
	/* Freeing makes room again. */
	worker_do(w, CMD_CLOSE, 0, &err);
	km_settle("g", BARRIER / 2);
	EXPECT_EQ(16, worker_do(w, CMD_PIPES, 16, &err));
	EXPECT_EQ(16, worker_do(w, CMD_FILL, 16, &err));
	EXPECT_EQ(0, err);
}

/*
 * Page tables of a user fault may go past the barrier up to the limit;
 * at the limit the process is killed (counted), not left retrying.
 */
TEST_F(km, user_faults_go_to_the_limit_then_are_killed)
{
	struct worker *w = &self->w[0];
	long h, maxheld;
	int err, st;

	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(0, fill_to_barrier(w));
	h = km("g", "held");
	ASSERT_GE(BARRIER, h);
	/* The kernel's fault of a read(): the barrier, EFAULT, no kill. */
	EXPECT_EQ(-1, worker_do(w, CMD_READ, 7, &err));
	EXPECT_EQ(EFAULT, err);
	EXPECT_EQ(0, km("g", "killcnt"));
	EXPECT_GE(BARRIER, km("g", "held"));
	/* One new page table: past the barrier. */
	ASSERT_EQ(2, worker_do(w, CMD_TOUCH, 2, &err));
	EXPECT_LT(BARRIER, km("g", "held")) {
		TH_LOG("held %ld after a fault at the barrier", km("g", "held"));
	}
	/* 1024 page tables: far past the limit. */
	worker_do(w, CMD_TOUCH, 1024, &err);
	ASSERT_EQ(-1, err);
	st = worker_reaped(w);
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		TH_LOG("worker status %#x", st);
	maxheld = km("g", "maxheld");
	EXPECT_LT(LIMIT - PG, maxheld);
	EXPECT_GE(LIMIT, maxheld);
	EXPECT_EQ(1, km("g", "killcnt"));
	EXPECT_LE(2, km("g", "failcnt"));
	/* Its memory went back with it. */
	EXPECT_GE(slack(), km_settle("g", slack()));
	EXPECT_GE(slack(), km("g", "minheld"));
}

static long allocated(void)
{
	char buf[32];

	return rg_read(ALLOC_PARAM "allocated", buf, sizeof(buf)) > 0 ?
		atol(buf) : -1;
}

/*
 * An atomic allocation is an ordinary one: refused at the barrier. A
 * __GFP_NOFAIL one is never refused, even past the limit, and each that
 * went past a bound counts in failcnt.
 */
TEST_F(km, atomic_at_the_barrier_nofail_past_the_limit)
{
	struct worker *w = &self->w[0];
	long f0, h;
	int err;

	ASSERT_EQ(0, rg_insmod(ALLOC_KO, NULL));
	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(0, fill_to_barrier(w));
	f0 = km("g", "failcnt");

	worker_do(w, CMD_PARAM, PARAM_ARG(PARAM_ATOMIC, 1024), &err);
	ASSERT_EQ(0, err);
	h = km("g", "held");
	EXPECT_GE(BARRIER, h);
	/* The stock may hold a page's worth of room for one. */
	EXPECT_GE(1, allocated());
	EXPECT_EQ(f0 + 1, km("g", "failcnt"));
	EXPECT_EQ(0, km("g", "killcnt"));

	/* 600 pages: past the limit, 512 pages above the barrier. */
	worker_do(w, CMD_PARAM, PARAM_ARG(PARAM_NOFAIL, 600), &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(600, allocated());
	EXPECT_EQ(h + 600 * PG, km("g", "held"));
	EXPECT_LT(LIMIT, km("g", "held"));
	EXPECT_EQ(f0 + 1 + 600, km("g", "failcnt"));
	EXPECT_EQ(h + 600 * PG, km("g", "maxheld"));
	EXPECT_EQ(0, km("g", "killcnt"));

	ASSERT_EQ(0, rg_write(ALLOC_PARAM "free", "1"));
	EXPECT_GE(BARRIER, km("g", "held"));
}

static long refused(void)
{
	char buf[32];

	return rg_read(ALLOC_PARAM "refused", buf, sizeof(buf)) > 0 ?
		atol(buf) : -1;
}

/*
 * Only a charge that must not fail lightly kills a faulting process when
 * refused, and only such a charge may go past the barrier. A fault that
 * tries an opportunistic allocation (__GFP_NORETRY, as readahead does),
 * refused at the limit, then fails for a reason of its own
 * (VM_FAULT_OOM) is retried, not killed; an opportunistic charge of a
 * fault stops at the barrier. (Before the fix the refusal marked the
 * whole fault, and its VM_FAULT_OOM killed the process.)
 */
TEST_F(km, an_opportunistic_charge_in_a_fault_kills_nothing)
{
	struct worker *w = &self->w[0];
	long f0;
	int err, st;

	ASSERT_EQ(0, rg_insmod(ALLOC_KO, NULL));
	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(0, worker_do(w, CMD_DEVMAP, 0, &err))
		TH_LOG("mapping /dev/rg_kmem_alloc: %s", strerror(err));
	ASSERT_EQ(0, fill_to_barrier(w));
	/* Past the limit: every charge but a forced one is refused. */
	worker_do(w, CMD_PARAM, PARAM_ARG(PARAM_NOFAIL, 600), &err);
	ASSERT_EQ(0, err);
	ASSERT_LT(LIMIT, km("g", "held"));
	f0 = km("g", "failcnt");

	ASSERT_EQ(0, rg_write(ALLOC_PARAM "fault_oom", "1"));
	EXPECT_EQ(0, worker_do(w, CMD_DEVREAD, 0, &err));
	if (err == -1) {
		st = worker_reaped(w);
		TH_LOG("worker status %#x (%s), killcnt %ld", st,
		       WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit",
		       km("g", "killcnt"));
	}
	EXPECT_EQ(0, err);
	EXPECT_EQ(1, refused());
	EXPECT_EQ(f0 + 1, km("g", "failcnt"));
	EXPECT_EQ(0, km("g", "killcnt"));
	if (w->pid <= 0)
		return;

	/* Below the limit, at the barrier: refused there all the same. */
	ASSERT_EQ(0, rg_write(ALLOC_PARAM "free", "1"));
	/* (fill_to_barrier() left less than a page below it) */
	ASSERT_LT(BARRIER - 4 * PG, km("g", "held"));
	ASSERT_GE(BARRIER, km("g", "held"));
	ASSERT_EQ(0, rg_write(ALLOC_PARAM "fault_oom", "4"));
	EXPECT_EQ(0, worker_do(w, CMD_DEVREAD, 1, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(2, refused());
	EXPECT_EQ(f0 + 2, km("g", "failcnt"));
	EXPECT_EQ(0, km("g", "killcnt"));
	EXPECT_GE(BARRIER, km("g", "held"));
}

/* Two threads of one process refused at the limit: one kill, counted once. */
TEST_F(km, a_process_is_killed_once)
{
	struct worker *w = &self->w[0];
	int err, st;

	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(0, worker_do(w, CMD_SPAWN, 0, &err));
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, fill_to_barrier(w));
	worker_do(w, CMD_TOUCH2, 512, &err);
	ASSERT_EQ(-1, err);
	st = worker_reaped(w);
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		TH_LOG("worker status %#x", st);
	EXPECT_EQ(1, km("g", "killcnt"));
	EXPECT_GE(LIMIT, km("g", "maxheld"));
}

/*
 * A process the OOM killer spares (oom_score_adj -1000) is killed at the
 * limit all the same: only the system's init is not (its charges are
 * forced), and a group's limit may not be escaped by setting it.
 */
TEST_F(km, oom_score_adj_does_not_spare_a_process)
{
	struct worker *w = &self->w[0];
	char path[64];
	int err, st;

	ASSERT_EQ(0, worker_start(w, "g"));
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", w->pid);
	ASSERT_EQ(0, rg_write(path, "-1000"));
	ASSERT_EQ(0, fill_to_barrier(w));
	worker_do(w, CMD_TOUCH, 1024, &err);
	ASSERT_EQ(-1, err);
	st = worker_reaped(w);
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		TH_LOG("worker status %#x", st);
	EXPECT_GE(LIMIT, km("g", "maxheld"));
	EXPECT_EQ(1, km("g", "killcnt"));
}

/* total_kmem may not go below what the root holds now. */
TEST_F(km, total_kmem_no_smaller_than_held)
{
	struct worker *w = &self->w[0];
	char buf[64], v[32];
	long held;
	int err;

	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(64, worker_do(w, CMD_PIPES, 64, &err));
	ASSERT_EQ(64, worker_do(w, CMD_FILL, 64, &err));
	km_quiet("");
	held = km("", "held");
	ASSERT_LT(64 * PG, held);
	snprintf(v, sizeof(v), "%ld", held - PG);
	EXPECT_EQ(-EINVAL, rg_write(TOTAL, v));
	EXPECT_EQ(-EINVAL, rg_write(TOTAL, "4096"));
	ASSERT_LT(0, rg_read(TOTAL, buf, sizeof(buf)));
	EXPECT_STREQ("1073741824\n", buf);
	EXPECT_EQ(LIMIT, km("g", "limit"));
	/* Exactly what it holds (or more) is allowed. */
	snprintf(v, sizeof(v), "%ld", held + 64 * PG);
	EXPECT_EQ(0, rg_write(TOTAL, v));
	EXPECT_EQ(held + 64 * PG, km("", "limit"));
}

/*
 * Allocations that are not kernel memory charge nothing: a task's own
 * pages (touched where its page table already is) and the page cache
 * (a memfd's, written after the file was made), 2 and 4 MiB, raise held
 * by less than 8 pages (the page cache's xarray nodes are accounted:
 * 4 MiB of it takes 17 of them, about 10 KiB).
 */
TEST_F(km, user_pages_and_page_cache_are_not_charged)
{
	struct worker *w = &self->w[0];
	long h0, h1;
	int err;

	ASSERT_EQ(0, worker_start(w, "g"));
	km_quiet("g");
	h0 = km("g", "held");
	ASSERT_EQ(511, worker_do(w, CMD_ANON, 511, &err));
	km_quiet("g");
	h1 = km("g", "held");
	EXPECT_GT(h0 + 8 * PG, h1);
	TH_LOG("held %ld before 511 user pages, %ld after", h0, h1);
	ASSERT_EQ(0, worker_do(w, CMD_CACHE, 0, &err));
	ASSERT_EQ(0, err);
	km_quiet("g");
	h0 = km("g", "held");
	ASSERT_EQ(1024, worker_do(w, CMD_CACHE, 1024, &err));
	ASSERT_EQ(0, err);
	km_quiet("g");
	h1 = km("g", "held");
	EXPECT_GT(h0 + 8 * PG, h1);
	TH_LOG("held %ld before 1024 pages of page cache, %ld after", h0, h1);
	EXPECT_EQ(0, km("g", "failcnt"));
}

/*
 * A charge refused at an ancestor takes back what it raised below it.
 * g/a and g/b may each take all of g (8 MiB barriers): with 2 MiB in
 * g/b, filling g/a is refused at g, far below g/a's own barrier; 16 more
 * writes are refused there too. Then g holds exactly what its children
 * hold, the refusals are g/a's (17), and once g/a frees its pipes it is
 * back within the stocks' slack.
 */
TEST_F(km, a_refusal_above_takes_back_the_lower_raises)
{
	struct worker *w = self->w;
	long g = 0, a = 0, b = 0;
	int err, i;

	ASSERT_EQ(0, rg_mkdir("g/a"));
	ASSERT_EQ(0, rg_mkdir("g/b"));
	ASSERT_EQ(0, rg_set("g/a", "shares", "res=kmem,max_shares=100"));
	ASSERT_EQ(0, rg_set("g/b", "shares", "res=kmem,max_shares=100"));
	ASSERT_EQ(BARRIER, km("g/a", "barrier"));
	ASSERT_EQ(0, worker_start(&w[0], "g/a"));
	ASSERT_EQ(0, worker_start_on(&w[1], "g/b",
				     sysconf(_SC_NPROCESSORS_ONLN) > 1));
	ASSERT_EQ(32, worker_do(&w[1], CMD_PIPES, 32, &err));
	ASSERT_EQ(512, worker_do(&w[1], CMD_FILL, 512, &err));
	ASSERT_EQ(160, worker_do(&w[0], CMD_PIPES, 160, &err));
	worker_do(&w[0], CMD_FILL, 4096, &err);
	ASSERT_EQ(ENOMEM, err);
	/* Refused at g, not at g/a. */
	EXPECT_LT(km("g/a", "held"), BARRIER - 256 * PG);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(0, worker_do(&w[0], CMD_FILL, 1, &err));
		EXPECT_EQ(ENOMEM, err);
	}
	EXPECT_EQ(17, km("g/a", "failcnt"));
	EXPECT_EQ(0, km("g", "failcnt"));
	EXPECT_EQ(0, km("g/b", "failcnt"));
	/* One moment: g read twice the same around its children. */
	for (i = 0; i < 20; i++) {
		km_quiet("g");
		g = km("g", "held");
		a = km("g/a", "held");
		b = km("g/b", "held");
		if (g == km("g", "held"))
			break;
	}
	EXPECT_EQ(g, a + b) {
		TH_LOG("g holds %ld, g/a %ld, g/b %ld", g, a, b);
	}
	worker_do(&w[0], CMD_CLOSE, 0, &err);
	EXPECT_GE(slack(), km_settle("g/a", slack()));
}

/*
 * minheld follows held down, and keeps its lowest value once held rises
 * again (the stats line shows it no higher than held: only a rise after
 * a fall tells that it was kept). From a reset with 64 pipe pages, their
 * free, then 128 pages.
 */
TEST_F(km, minheld_follows_held_down_and_keeps_its_lowest)
{
	struct worker *w = &self->w[0];
	long h, low;
	int err;

	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(64, worker_do(w, CMD_PIPES, 64, &err));
	ASSERT_EQ(64, worker_do(w, CMD_FILL, 64, &err));
	km_quiet("g");
	ASSERT_EQ(0, rg_set("g", "stats", "res=kmem"));
	h = km("g", "held");
	EXPECT_EQ(h, km("g", "minheld"));
	worker_do(w, CMD_CLOSE, 0, &err);
	low = km_settle("g", h - 64 * PG);
	EXPECT_GE(h - 64 * PG, low);
	ASSERT_EQ(64, worker_do(w, CMD_PIPES, 64, &err));
	ASSERT_EQ(128, worker_do(w, CMD_FILL, 128, &err));
	km_quiet("g");
	EXPECT_LT(h, km("g", "held"));
	EXPECT_GE(low, km("g", "minheld")) {
		TH_LOG("reset at %ld, down to %ld, minheld %ld", h, low,
		       km("g", "minheld"));
	}
}

/*
 * Children whose limits add up past their parent's barrier, filled at
 * once: the parent's held never passes its barrier, and each refusal is
 * counted in the child that tried.
 */
TEST_F(km, hierarchy_under_concurrent_charges)
{
	long end = time(NULL) + rg_scaled(5, 2), rounds = 0;
	int err, i;

	ASSERT_EQ(0, rg_mkdir("g/a"));
	ASSERT_EQ(0, rg_mkdir("g/b"));
	ASSERT_EQ(0, rg_set("g/a", "shares", "res=kmem,max_shares=80"));
	ASSERT_EQ(0, rg_set("g/b", "shares", "res=kmem,max_shares=80"));
	ASSERT_EQ(0, worker_start(&self->w[0], "g/a"));
	ASSERT_EQ(0, worker_start_on(&self->w[1], "g/b",
				     sysconf(_SC_NPROCESSORS_ONLN) > 1));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(160, worker_do(&self->w[i], CMD_PIPES, 160, &err));
	do {
		pid_t p = fork();

		if (p == 0) {
			worker_do(&self->w[1], CMD_FILL, 4096, &err);
			_exit(0);
		}
		worker_do(&self->w[0], CMD_FILL, 4096, &err);
		waitpid(p, NULL, 0);
		EXPECT_GE(BARRIER, km("g", "held"));
		for (i = 0; i < 2; i++)
			worker_do(&self->w[i], CMD_CLOSE, 0, &err);
		km_settle("g", PG * 16);
		for (i = 0; i < 2; i++)
			worker_do(&self->w[i], CMD_PIPES, 160, &err);
		rounds++;
	} while (time(NULL) < end);
	EXPECT_GE(BARRIER, km("g", "maxheld"));
	EXPECT_LE(LIMIT * 8 / 10 * 8 / 10, km("g", "maxheld") + 64 * PG);
	EXPECT_EQ(0, km("g", "failcnt"));
	EXPECT_LE(rounds, km("g/a", "failcnt") + km("g/b", "failcnt"));
	EXPECT_LE(1, km("g/a", "failcnt"));
	TH_LOG("%ld rounds", rounds);
}

/*
 * A charge stays with the group that made it: frees after a move give
 * back to the old group; after its removal, to its parent.
 */
TEST_F(km, charges_stay_with_their_group)
{
	struct worker *w = &self->w[0];
	long g1, h2, p0;
	int err;

	ASSERT_EQ(0, rg_mkdir("h"));
	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(32, worker_do(w, CMD_PIPES, 32, &err));
	ASSERT_EQ(32, worker_do(w, CMD_FILL, 32, &err));
	g1 = km("g", "held");
	ASSERT_EQ(0, rg_move("h", w->pid));
	EXPECT_EQ(g1, km("g", "held"));
	h2 = km("h", "held");
	EXPECT_EQ(0, h2);
	worker_do(w, CMD_CLOSE, 0, &err);
	EXPECT_GE(g1 - 32 * PG, km_settle("g", g1 - 32 * PG));
	EXPECT_EQ(h2, km("h", "held"));

	/* Removed with charges outstanding: its parent gets the frees. */
	ASSERT_EQ(0, rg_mkdir("g/sub"));
	ASSERT_EQ(0, rg_move("g/sub", w->pid));
	ASSERT_EQ(32, worker_do(w, CMD_PIPES, 32, &err));
	ASSERT_EQ(32, worker_do(w, CMD_FILL, 32, &err));
	ASSERT_EQ(0, rg_move("", w->pid));
	p0 = km("g", "held");
	ASSERT_EQ(0, rg_rmdir("g/sub"));
	EXPECT_EQ(p0, km("g", "held"));
	worker_do(w, CMD_CLOSE, 0, &err);
	EXPECT_GE(p0 - 32 * PG, km_settle("g", p0 - 32 * PG));
	EXPECT_LE(0, km("g", "held"));
}

/*
 * A group removed with its task still in it: the task goes to the parent,
 * and charges it from its next allocation, exactly.
 */
TEST_F(km, rmdir_with_the_task_in_it)
{
	struct worker *w = &self->w[0];
	long p0;
	int err;

	ASSERT_EQ(0, rg_mkdir("g/s1"));
	ASSERT_EQ(0, rg_mkdir("g/s1/s2"));
	ASSERT_EQ(0, worker_start(w, "g/s1/s2"));
	ASSERT_EQ(64, worker_do(w, CMD_PIPES, 64, &err));
	ASSERT_EQ(32, worker_do(w, CMD_FILL, 32, &err));
	ASSERT_EQ(0, rg_rmdir("g/s1/s2"));
	EXPECT_EQ(1, rg_is_member("g/s1", w->pid));
	km_quiet("g");
	p0 = km("g/s1", "held");
	ASSERT_EQ(32, worker_do(w, CMD_FILL, 32, &err));
	EXPECT_EQ(p0 + 32 * PG, km("g/s1", "held"));
	/* Both removed: the grandparent gets every free. */
	ASSERT_EQ(0, rg_rmdir("g/s1"));
	EXPECT_EQ(1, rg_is_member("g", w->pid));
	p0 = km("g", "held");
	ASSERT_EQ(0, rg_move("", w->pid));
	worker_do(w, CMD_CLOSE, 0, &err);
	EXPECT_GE(p0 - 64 * PG, km_settle("g", p0 - 64 * PG));
	EXPECT_LE(0, km("g", "held"));
	EXPECT_GE(p0 - 64 * PG, km("g", "minheld"));
}

/* The stats line, and its reset; a bad reset changes nothing. */
TEST_F(km, stats_line_and_reset)
{
	char buf[512], before[8192], after[8192];
	struct worker *w = &self->w[0];
	long held;
	int err;

	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(0, fill_to_barrier(w));
	worker_do(w, CMD_CLOSE, 0, &err);
	km_settle("g", PG * 4);
	ASSERT_LT(0, rg_read(RG_ROOT "/g/stats", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "res=kmem,held="));
	EXPECT_NE(NULL, strstr(buf, ",maxheld="));
	EXPECT_NE(NULL, strstr(buf, ",minheld="));
	EXPECT_NE(NULL, strstr(buf, ",barrier=8388608,limit=10485760,failcnt=1,killcnt=0\n"));

	/* Late frees (RCU) would change held between the snapshots. */
	km_quiet("g");
	ASSERT_EQ(0, km_state(before, sizeof(before)));
	EXPECT_EQ(-EINVAL, rg_set("g", "stats", "res=kmem,held=0"));
	EXPECT_EQ(-EINVAL, rg_set("g", "stats", "res=kmem,"));
	ASSERT_EQ(0, km_state(after, sizeof(after)));
	EXPECT_STREQ(before, after);

	ASSERT_EQ(0, rg_set("g", "stats", "res=kmem"));
	held = km("g", "held");
	EXPECT_EQ(held, km("g", "maxheld"));
	EXPECT_EQ(held, km("g", "minheld"));
	EXPECT_EQ(0, km("g", "failcnt"));
	EXPECT_EQ(0, km("g", "killcnt"));
	EXPECT_EQ(BARRIER, km("g", "barrier"));
}

/* The cgroup2 memory controller, mounted at CG2, with child "m". */
static int cg2_memory(void)
{
	char buf[256];

	mkdir(CG2, 0755);
	if (mount("none", CG2, "cgroup2", 0, NULL) && errno != EBUSY)
		return -errno;
	if (rg_read(CG2 "/cgroup.controllers", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, "memory"))
		return -ENOENT;
	if (rg_write(CG2 "/cgroup.subtree_control", "+memory"))
		return -EIO;
	if (mkdir(CG2 "/m", 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* memory.current of "m". */
static long cg2_current(void)
{
	char buf[64];

	if (rg_read(CG2 "/m/memory.current", buf, sizeof(buf)) < 0)
		return -1;
	return atol(buf);
}

/*
 * A task of a non-root group is charged here whatever memory cgroup it
 * is in; a task of the root group is left to its memory cgroup.
 */
TEST_F(km, precedence_over_memory_cgroups)
{
	struct worker *w = &self->w[0];
	char pid[32];
	long k0, g0;
	int err;

	if (cg2_memory())
		SKIP(return, "no cgroup2 memory controller");
	ASSERT_EQ(0, worker_start(w, ""));
	snprintf(pid, sizeof(pid), "%d", w->pid);
	ASSERT_EQ(0, rg_write(CG2 "/m/cgroup.procs", pid));
	ASSERT_EQ(64, worker_do(w, CMD_PIPES, 64, &err));

	/*
	 * In the root group: memcg's. memory.current also counts the pages
	 * memcg charged ahead into its per-CPU stock (64 at a time): 256
	 * pages raise it by 192 at least.
	 */
	k0 = cg2_current();
	ASSERT_LE(0, k0);
	g0 = km("", "held");
	ASSERT_EQ(256, worker_do(w, CMD_FILL, 256, &err));
	EXPECT_LE(k0 + 192 * PG, cg2_current());
	EXPECT_EQ(g0, km("", "held"));

	/* In g: ours, and not memcg's. */
	ASSERT_EQ(0, rg_move("g", w->pid));
	k0 = cg2_current();
	g0 = km("g", "held");
	ASSERT_EQ(256, worker_do(w, CMD_FILL, 256, &err));
	EXPECT_EQ(g0 + 256 * PG, km("g", "held"));
	EXPECT_GT(k0 + 64 * PG, cg2_current());
	worker_stop(w);
	rmdir(CG2 "/m");
}

/*
 * Unloading with charges outstanding: later frees are ignored (no splat,
 * no leak: the runner checks), and a reload starts from zero.
 */
TEST_F(km, unload_with_charges_outstanding)
{
	struct worker *w = &self->w[0];
	int err;

	ASSERT_EQ(0, worker_start(w, "g"));
	ASSERT_EQ(64, worker_do(w, CMD_PIPES, 64, &err));
	ASSERT_EQ(64, worker_do(w, CMD_FILL, 64, &err));
	EXPECT_LE(64 * PG, km("g", "held"));
	ASSERT_EQ(0, rg_rmmod("rg_kmem"));
	/* Now in no group of kmem's: allocations go to memcg. */
	ASSERT_EQ(64, worker_do(w, CMD_FILL, 64, &err));
	ASSERT_EQ(0, rg_insmod(KMEM_KO, PARAMS));
	EXPECT_EQ(0, km("g", "held"));
	EXPECT_EQ(0, km("", "held"));
	worker_do(w, CMD_CLOSE, 0, &err);
	usleep(200000);
	EXPECT_EQ(0, km("g", "held"));
	EXPECT_EQ(0, km("", "held"));
	/* The task is charged again, from zero. */
	ASSERT_EQ(0, rg_set("g", "shares", "res=kmem,max_shares=10"));
	ASSERT_EQ(8, worker_do(w, CMD_PIPES, 8, &err));
	ASSERT_EQ(8, worker_do(w, CMD_FILL, 8, &err));
	EXPECT_LE(8 * PG, km("g", "held"));
	ASSERT_EQ(0, rg_rmmod("rg_kmem"));
	worker_do(w, CMD_CLOSE, 0, &err);
}

TEST_HARNESS_MAIN

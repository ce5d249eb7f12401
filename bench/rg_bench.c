// SPDX-License-Identifier: GPL-2.0
/*
 * Micro-benchmarks for make bench. Each prints one number:
 *   rg_bench fork ITER            ns per fork + child _exit + waitpid
 *   rg_bench thread ITER          ns per pthread_create + pthread_join
 *   rg_bench fork2 ITER           the same as fork, two forkers at once:
 *                                 ns per fork of each forker (wall / ITER)
 *   rg_bench move ITER F1 F2      moves per second, writing our pid to F1
 *                                 and F2 in turn
 *   rg_bench mkdir ITER DIR       mkdir + rmdir of DIR per second
 *   rg_bench read ITER FILE       microseconds per read of all of FILE
 *   rg_bench park N F             move to F (members / cgroup.procs), start
 *                                 N parked threads, print "ready", wait
 *   rg_bench mkdirs A B PREFIX    mkdir PREFIX<i> for i in [A, B)
 *   rg_bench rmdirs A B PREFIX    rmdir PREFIX<i> for i in [A, B)
 *   rg_bench mkdirt A B PREFIX    the same as mkdirs: ns per mkdir
 *   rg_bench forklat MS           fork + child _exit + waitpid for MS
 *                                 milliseconds: the longest one and the
 *                                 median, in microseconds
 *   rg_bench rmdirt A B PREFIX    the same as rmdirs: ns per rmdir
 *   rg_bench pipe ITER            ns per pipe() + a 4 KiB write + close of
 *                                 both ends (kernel memory charged, freed)
 *   rg_bench open ITER            ns per open + close of /proc/self/stat
 *   rg_bench mmap ITER            ns per mmap of 64 KiB, a store into each
 *                                 page, munmap
 *   rg_bench execloop 0           a thread of ours execs this program
 *                                 again (de_thread() swaps its pid and
 *                                 its leader's), and so on until killed
 *   rg_bench forkgroups ITER K N PREFIX FILE
 *                                 N forkers, forker i first moved to
 *                                 PREFIX<i>/FILE (PREFIX "-": not moved);
 *                                 released K at a time, each does ITER
 *                                 forks; ns per fork of each forker
 *                                 (wall * K / (N * ITER))
 *   rg_bench fault ITER           ns per anonymous page fault: ITER pages,
 *                                 4 MiB mapped at a time, a store into
 *                                 each (only the stores timed), unmapped
 *   rg_bench cread ITER FILE      ns per 4 KiB pread of FILE, a 1 MiB
 *                                 file this process writes first (so
 *                                 cached and charged to it), unlinked
 *   rg_bench pipew ITER           ns per 4 KiB pipe write: 16 writes fill
 *                                 the pipe (each a new page, charged as
 *                                 kernel memory), one read empties it;
 *                                 total / (16 * ITER)
 *   rg_bench dread ITER DEV       ns per O_DIRECT 4 KiB pread of DEV at a
 *                                 random 4 KiB-aligned offset (the same
 *                                 sequence each run)
 *   rg_bench oom MIB              touch MIB MiB of anonymous memory in a
 *                                 child, noting the time after each page
 *                                 in a page shared with us; the child must
 *                                 be killed (SIGKILL): microseconds from
 *                                 its last page to our waitpid's return
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* One fork, the child's _exit and its waitpid. */
static void fork_one(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, NULL, 0) != pid)
		die("waitpid");
}

static void forks(long iter)
{
	long i;

	for (i = 0; i < iter; i++)
		fork_one();
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void forklat(long ms)
{
	static double lat[1 << 20];
	double t0 = now(), t;
	long n = 0;

	while (n < (long)(sizeof(lat) / sizeof(lat[0]))) {
		t = now();
		if (t - t0 > ms / 1e3)
			break;
		fork_one();
		lat[n++] = now() - t;
	}
	if (!n)
		die("forklat");
	qsort(lat, n, sizeof(lat[0]), cmp_double);
	printf("%.0f %.0f\n", lat[n - 1] * 1e6, lat[n / 2] * 1e6);
}

static void *nothing(void *arg)
{
	return arg;
}

static void *park(void *arg)
{
	pause();
	return arg;
}

static void *exec_again(void *argv)
{
	execv("/proc/self/exe", argv);
	die("execv");
	return NULL;
}

static void write_pid(const char *file)
{
	char s[32];
	int fd = open(file, O_WRONLY);

	snprintf(s, sizeof(s), "%d\n", getpid());
	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		die(file);
	close(fd);
}

static void dirs(long from, long to, const char *prefix, int make)
{
	char d[4096];
	long i;

	for (i = from; i < to; i++) {
		snprintf(d, sizeof(d), "%s%ld", prefix, i);
		if (make ? mkdir(d, 0755) : rmdir(d))
			die(d);
	}
}

static void xpipe(int *fd)
{
	if (pipe(fd))
		die("pipe");
}

/*
 * N forker processes, each in its own group; the parent releases K at a
 * time (a byte on the forker's pipe) and waits for their K "done" bytes.
 * Only the released rounds are timed, not the setup.
 */
static void forkgroups(long iter, long k, long n, const char *prefix,
		       const char *file)
{
	int done[2], *go = calloc(n, 2 * sizeof(int));
	double t;
	char c = 0;
	long i, j;

	if (!go || k < 1 || n % k)
		die("forkgroups: N must be a multiple of K");
	xpipe(done);
	for (i = 0; i < n; i++) {
		xpipe(go + 2 * i);
		if (fork() == 0) {
			char f[4096];

			/*
			 * Only its own two pipe ends: every fd it keeps is
			 * copied by each of its forks and closed at each exit.
			 */
			if (dup2(go[2 * i], 3) != 3 || dup2(done[1], 4) != 4)
				die("dup2");
			go[2 * i] = 3;
			done[1] = 4;
			if (syscall(SYS_close_range, 5, ~0U, 0))
				die("close_range");
			if (strcmp(prefix, "-")) {
				snprintf(f, sizeof(f), "%s%ld/%s", prefix, i, file);
				write_pid(f);
			}
			if (write(done[1], &c, 1) != 1 ||
			    read(go[2 * i], &c, 1) != 1)
				die("forker pipe");
			forks(iter);
			if (write(done[1], &c, 1) != 1)
				die("forker pipe");
			_exit(0);
		}
		close(go[2 * i]);
	}
	for (i = 0; i < n; i++)		/* every forker is in its group */
		if (read(done[0], &c, 1) != 1)
			die("ready");
	t = now();
	for (i = 0; i < n; i += k) {
		for (j = i; j < i + k; j++)
			if (write(go[2 * j + 1], &c, 1) != 1)
				die("go");
		for (j = i; j < i + k; j++)
			if (read(done[0], &c, 1) != 1)
				die("done");
	}
	t = now() - t;
	while (wait(NULL) > 0)
		;
	printf("%.0f\n", t * 1e9 * k / (n * iter));
}

/* ns per anonymous page fault, the stores alone timed. */
static void faults(long iter)
{
	const long chunk = 1024;	/* pages: 4 MiB at a time */
	double spent = 0, t;
	long done, k;

	for (done = 0; done < iter; done += chunk) {
		long n = iter - done < chunk ? iter - done : chunk;
		char *m = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			die("mmap");
		t = now();
		for (k = 0; k < n; k++)
			m[k * 4096] = 1;
		spent += now() - t;
		munmap(m, n * 4096);
	}
	printf("%.0f\n", spent * 1e9 / iter);
}

/* ns per cached 4 KiB pread of a 1 MiB file written first. */
static void cread(long iter, const char *file)
{
	static char page[4096];
	double t;
	long i;
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		die(file);
	for (i = 0; i < 256; i++)
		if (write(fd, page, sizeof(page)) != sizeof(page))
			die("write");
	t = now();
	for (i = 0; i < iter; i++)
		if (pread(fd, page, sizeof(page), (i * 97 % 256) * 4096) !=
		    sizeof(page))
			die("pread");
	printf("%.0f\n", (now() - t) * 1e9 / iter);
	close(fd);
	unlink(file);
}

/* ns per 4 KiB pipe write: 16 writes fill the pipe, one read empties it. */
static void pipew(long iter)
{
	static char buf[16 * 4096];
	double t;
	long i, k;
	int p[2];

	xpipe(p);
	t = now();
	for (i = 0; i < iter; i++) {
		for (k = 0; k < 16; k++)
			if (write(p[1], buf, 4096) != 4096)
				die("write");
		if (read(p[0], buf, sizeof(buf)) != sizeof(buf))
			die("read");
	}
	printf("%.0f\n", (now() - t) * 1e9 / (16 * iter));
	close(p[0]);
	close(p[1]);
}

/* ns per O_DIRECT 4 KiB read at a random aligned offset of @dev. */
static void dread(long iter, const char *dev)
{
	unsigned long long x = 88172645463325252ULL, pages;
	void *buf;
	double t;
	long i;
	int fd = open(dev, O_RDONLY | O_DIRECT);

	if (fd < 0)
		die(dev);
	pages = lseek(fd, 0, SEEK_END) / 4096;
	if (!pages || posix_memalign(&buf, 4096, 4096))
		die("size");
	t = now();
	for (i = 0; i < iter; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, 4096, (x % pages) * 4096) != 4096)
			die("pread");
	}
	printf("%.0f\n", (now() - t) * 1e9 / iter);
	close(fd);
}

/*
 * A child touches @mib MiB, noting the time after each page in a page
 * shared with us: microseconds from its last noted page to the return of
 * our waitpid (the limit's hit, memcg's reclaim retries, the OOM kill, the
 * exit).
 */
static void oom(long mib)
{
	volatile double *last = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double end;
	pid_t pid;
	int st;

	if (last == MAP_FAILED)
		die("mmap");
	*last = 0;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char *m = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long k;

		if (m == MAP_FAILED)
			_exit(3);
		for (k = 0; k < mib << 20; k += 4096) {
			m[k] = 1;
			*last = now();
		}
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	end = now();
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
		fprintf(stderr, "oom: child not killed (status %#x)\n", st);
		exit(1);
	}
	printf("%.1f\n", (end - *last) * 1e6);
}

int main(int argc, char **argv)
{
	long i, iter = argc > 2 ? atol(argv[2]) : 0;
	double t;

	if (argc < 3)
		return 2;
	t = now();
	if (!strcmp(argv[1], "fork")) {
		forks(iter);
		printf("%.0f\n", (now() - t) * 1e9 / iter);
	} else if (!strcmp(argv[1], "thread")) {
		pthread_t th;

		for (i = 0; i < iter; i++) {
			if (pthread_create(&th, NULL, nothing, NULL))
				die("pthread_create");
			pthread_join(th, NULL);
		}
		printf("%.0f\n", (now() - t) * 1e9 / iter);
	} else if (!strcmp(argv[1], "pipe")) {
		static char page[4096];
		int p[2];

		for (i = 0; i < iter; i++) {
			if (pipe(p))
				die("pipe");
			if (write(p[1], page, sizeof(page)) != sizeof(page))
				die("write");
			close(p[0]);
			close(p[1]);
		}
		printf("%.0f\n", (now() - t) * 1e9 / iter);
	} else if (!strcmp(argv[1], "open")) {
		for (i = 0; i < iter; i++) {
			int fd = open("/proc/self/stat", O_RDONLY);

			if (fd < 0)
				die("open");
			close(fd);
		}
		printf("%.0f\n", (now() - t) * 1e9 / iter);
	} else if (!strcmp(argv[1], "mmap")) {
		for (i = 0; i < iter; i++) {
			char *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			int k;

			if (m == MAP_FAILED)
				die("mmap");
			for (k = 0; k < 65536; k += 4096)
				m[k] = 1;
			munmap(m, 65536);
		}
		printf("%.0f\n", (now() - t) * 1e9 / iter);
	} else if (!strcmp(argv[1], "fork2")) {
		pid_t other = fork();

		if (other == 0) {
			forks(iter);
			_exit(0);
		}
		forks(iter);
		waitpid(other, NULL, 0);
		printf("%.0f\n", (now() - t) * 1e9 / iter);
	} else if (!strcmp(argv[1], "move") && argc == 5) {
		for (i = 0; i < iter; i++)
			write_pid(argv[3 + (i & 1)]);
		printf("%.0f\n", iter / (now() - t));
	} else if (!strcmp(argv[1], "mkdir") && argc == 4) {
		for (i = 0; i < iter; i++)
			if (mkdir(argv[3], 0755) || rmdir(argv[3]))
				die(argv[3]);
		printf("%.0f\n", iter / (now() - t));
	} else if (!strcmp(argv[1], "read") && argc == 4) {
		static char buf[1 << 20];

		for (i = 0; i < iter; i++) {
			int fd = open(argv[3], O_RDONLY);

			if (fd < 0)
				die(argv[3]);
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		}
		printf("%.1f\n", (now() - t) * 1e6 / iter);
	} else if (!strcmp(argv[1], "park") && argc == 4) {
		pthread_attr_t attr;
		pthread_t th;

		write_pid(argv[3]);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 16384);
		for (i = 0; i < iter; i++)
			if (pthread_create(&th, &attr, park, NULL))
				die("pthread_create");
		printf("ready\n");
		fflush(stdout);
		pause();
	} else if (!strcmp(argv[1], "mkdirs") && argc == 5) {
		dirs(iter, atol(argv[3]), argv[4], 1);
	} else if (!strcmp(argv[1], "rmdirs") && argc == 5) {
		dirs(iter, atol(argv[3]), argv[4], 0);
	} else if ((!strcmp(argv[1], "mkdirt") || !strcmp(argv[1], "rmdirt")) &&
		   argc == 5 && atol(argv[3]) > iter) {
		dirs(iter, atol(argv[3]), argv[4], argv[1][0] == 'm');
		printf("%.0f\n", (now() - t) * 1e9 / (atol(argv[3]) - iter));
	} else if (!strcmp(argv[1], "execloop")) {
		pthread_t th;

		if (pthread_create(&th, NULL, exec_again, argv))
			die("pthread_create");
		pause();
	} else if (!strcmp(argv[1], "fault")) {
		faults(iter);
	} else if (!strcmp(argv[1], "cread") && argc == 4) {
		cread(iter, argv[3]);
	} else if (!strcmp(argv[1], "pipew")) {
		pipew(iter);
	} else if (!strcmp(argv[1], "dread") && argc == 4) {
		dread(iter, argv[3]);
	} else if (!strcmp(argv[1], "oom")) {
		oom(iter);
	} else if (!strcmp(argv[1], "forklat")) {
		forklat(iter);
	} else if (!strcmp(argv[1], "forkgroups") && argc == 7) {
		forkgroups(iter, atol(argv[3]), atol(argv[4]), argv[5], argv[6]);
	} else {
		return 2;
	}
	return 0;
}

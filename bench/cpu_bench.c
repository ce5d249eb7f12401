// SPDX-License-Identifier: GPL-2.0
/*
 * CPU controller benchmarks for make bench (bench/cpu.sh).
 *   cpu_bench pingpong ITER [FILE]  ns per round trip of one byte between
 *                                   two processes over pipes; with FILE
 *                                   (members / cgroup.procs) the second
 *                                   process moves there first
 *   cpu_bench share MS FILE N ...   a process of N busy threads in each
 *                                   FILE; after 500 ms, each one's part of
 *                                   the machine over MS ms, one per line
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXG 8

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

static void write_pid(const char *file)
{
	char s[32];
	int fd = open(file, O_WRONLY);

	snprintf(s, sizeof(s), "%d\n", getpid());
	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		die(file);
	close(fd);
}

static void *spin(void *arg)
{
	for (;;)
		;
	return arg;
}

/* utime + stime of a process and its threads, in seconds. */
static double cputime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		die(path);
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		die("stat");
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

static void pingpong(long iter, const char *file)
{
	int a[2], b[2];
	double t;
	char c = 0;
	pid_t pid;
	long i;

	if (pipe(a) || pipe(b))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		if (file)
			write_pid(file);
		while (read(a[0], &c, 1) == 1)
			if (write(b[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	/* One round trip first: the child has moved once it answers. */
	if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
		die("pingpong");
	t = now();
	for (i = 0; i < iter; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			die("pingpong");
	t = now() - t;
	close(a[1]);
	waitpid(pid, NULL, 0);
	printf("%.0f\n", t * 1e9 / iter);
}

static void share(long ms, int n, char **args)
{
	double t0[MAXG], w;
	pid_t pid[MAXG];
	int i, j, fds[2];
	pthread_t th;
	char c = 0;

	for (i = 0; i < n; i++) {
		if (pipe(fds))
			die("pipe");
		pid[i] = fork();
		if (pid[i] < 0)
			die("fork");
		if (pid[i] == 0) {
			write_pid(args[2 * i]);
			for (j = 1; j < atoi(args[2 * i + 1]); j++)
				if (pthread_create(&th, NULL, spin, NULL))
					die("pthread_create");
			if (write(fds[1], &c, 1) != 1)
				die("write");
			spin(NULL);
		}
		if (read(fds[0], &c, 1) != 1)
			die("read");
		close(fds[0]);
		close(fds[1]);
	}
	usleep(500000);
	w = now();
	for (i = 0; i < n; i++)
		t0[i] = cputime(pid[i]);
	usleep(ms * 1000);
	w = now() - w;
	for (i = 0; i < n; i++)
		printf("%.4f\n", (cputime(pid[i]) - t0[i]) /
		       (w * sysconf(_SC_NPROCESSORS_ONLN)));
	for (i = 0; i < n; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "pingpong"))
		pingpong(atol(argv[2]), argc > 3 ? argv[3] : NULL);
	else if (argc >= 5 && argc % 2 == 1 && argc - 3 <= 2 * MAXG &&
		 !strcmp(argv[1], "share"))
		share(atol(argv[2]), (argc - 3) / 2, argv + 3);
	else
		return 2;
	return 0;
}

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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

static void forks(long iter)
{
	long i;

	for (i = 0; i < iter; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid)
			die("waitpid");
	}
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

static void write_pid(const char *file)
{
	char s[32];
	int fd = open(file, O_WRONLY);

	snprintf(s, sizeof(s), "%d\n", getpid());
	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		die(file);
	close(fd);
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
	} else {
		return 2;
	}
	return 0;
}

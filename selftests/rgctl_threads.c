// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of test_rgctl.sh (static: quick to start in the guest).
 *
 *   rgctl_threads N
 *	A process with N threads that wait for ever and one more that keeps
 *	creating and joining short-lived threads (4 at a time, then a 5 ms
 *	rest: churn without pinning a CPU). Prints "ready" once the N are
 *	running; runs until killed.
 *
 *   rgctl_threads --as UID GID [SGID]
 *	Sets the supplementary groups (none, or SGID alone), the real,
 *	effective and saved gid, then uid (the order setpriv uses), then
 *	sleeps until killed.
 *
 *   rgctl_threads --ruid UID
 *	Sets the real uid to UID, keeping the effective and saved uid (as a
 *	set-user-ID-root program run by UID), then sleeps until killed.
 *
 *   rgctl_threads --fork PROG [ARGS...]
 *	Forks at once; the child executes PROG, the parent prints the
 *	child's pid and sleeps until killed.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *wait_forever(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

static void *short_lived(void *arg)
{
	usleep(1000);
	return NULL;
}

static void *churn(void *arg)
{
	pthread_t t[4];
	int i;

	for (;;) {
		for (i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, short_lived, NULL))
				t[i] = 0;
		for (i = 0; i < 4; i++)
			if (t[i])
				pthread_join(t[i], NULL);
		usleep(5000);
	}
	return NULL;
}

static int run_as(const char *u, const char *g, const char *supp)
{
	uid_t uid = strtoul(u, NULL, 10);
	gid_t gid = strtoul(g, NULL, 10);
	gid_t sgid = supp ? strtoul(supp, NULL, 10) : 0;

	if (setgroups(supp ? 1 : 0, &sgid) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("rgctl_threads --as");
		return 1;
	}
	for (;;)
		pause();
}

static int run_ruid(const char *u)
{
	if (setresuid(strtoul(u, NULL, 10), -1, -1)) {
		perror("rgctl_threads --ruid");
		return 1;
	}
	for (;;)
		pause();
}

static int fork_exec(char **argv)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	printf("%d\n", pid);
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50, i;
	pthread_t t;

	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "--as"))
		return run_as(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	if (argc == 3 && !strcmp(argv[1], "--ruid"))
		return run_ruid(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "--fork"))
		return fork_exec(argv + 2);
	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, wait_forever, NULL)) {
			perror("pthread_create");
			return 1;
		}
	if (pthread_create(&t, NULL, churn, NULL)) {
		perror("pthread_create");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

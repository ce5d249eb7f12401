// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of test_rgctl.sh: a process with N threads that wait for ever
 * and one more that keeps creating and joining short-lived threads.
 * Prints "ready" once the N are running; runs until killed.
 *
 *   rgctl_threads N
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50, i;
	pthread_t t;

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

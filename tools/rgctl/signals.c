// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl: SIGINT and SIGTERM for the commands that run until stopped
 * (stats -w, classify). The signals are blocked except while such a
 * command waits in ppoll() with the mask stop_catch() returns, so one
 * that comes while it works is seen at its next wait, never lost between
 * a check of stop_sig and the wait.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "rgctl.h"

volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

void stop_catch(sigset_t *waitmask)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: ppoll() returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, waitmask);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
}

int stop_pending(void)
{
	sigset_t set;

	if (stop_sig)
		return 1;
	if (sigpending(&set))
		return 0;
	return sigismember(&set, SIGINT) == 1 || sigismember(&set, SIGTERM) == 1;
}

void stop_sleep(double seconds, const sigset_t *waitmask)
{
	struct timespec end, now, left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)seconds;
	end.tv_nsec += (long)((seconds - (time_t)seconds) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (!stop_sig) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			return;
		if (!ppoll(NULL, 0, &left, waitmask) || errno != EINTR)
			return;
	}
}

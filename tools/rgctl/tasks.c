// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl: moving tasks. A move writes one tid to the group's members file;
 * a whole process is moved thread by thread, in passes over
 * /proc/PID/task, until a pass finds every thread in the group (threads
 * created meanwhile join their leader's group, so this ends). A leader
 * that has exited while its threads live on is skipped, not an error.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rgctl.h"

#define MAX_PASSES 1000

/* The group of a task as /proc shows it ("/a/b"); 0, or -1 and errno. */
int task_group(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64], *s;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/res_group", pid, tid);
	s = read_file(path, &n);
	if (!s)
		return -1;
	if (n && s[n - 1] == '\n')
		s[--n] = '\0';
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

static int write_tid(const char *g, pid_t tid)
{
	char path[4096], buf[32];

	group_file(g, "members", path, sizeof(path));
	snprintf(buf, sizeof(buf), "%d\n", tid);
	return write_file(path, buf);
}

int move_thread(const char *g, pid_t tid)
{
	if (write_tid(g, tid)) {
		err_msg("move %d to %s: %s", tid, g, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * One pass; the number of threads it moved, or -1 (errno). A thread that
 * exits meanwhile is skipped, the leader too (it may have exited while
 * its threads live on): ESRCH only if the pass found no thread at all.
 */
static int move_pass(const char *g, pid_t pid)
{
	char path[64], cur[4096];
	int moved = 0, live = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	/* The leader first: threads created from now on follow it. */
	if (!task_group(pid, pid, cur, sizeof(cur))) {
		if (!strcmp(cur, g)) {
			live++;
		} else if (!write_tid(g, pid)) {
			live++;
			moved++;
		} else if (errno != ESRCH) {
			int e = errno;

			closedir(d);
			errno = e;
			return -1;
		}
	}
	while ((de = readdir(d))) {
		pid_t tid;

		if (parse_pid(de->d_name, &tid) || tid == pid)
			continue;
		if (task_group(pid, tid, cur, sizeof(cur)))
			continue;	/* gone */
		live++;
		if (!strcmp(cur, g))
			continue;	/* there already */
		if (write_tid(g, tid)) {
			if (errno == ESRCH) {
				live--;
				continue;	/* exited meanwhile */
			}
			int e = errno;

			closedir(d);
			errno = e;
			return -1;
		}
		moved++;
	}
	closedir(d);
	if (!live) {
		errno = ESRCH;
		return -1;
	}
	return moved;
}

int move_process(const char *g, pid_t pid, int quiet)
{
	int pass, n;

	for (pass = 0; pass < MAX_PASSES; pass++) {
		n = move_pass(g, pid);
		if (n < 0) {
			if (!quiet)
				err_msg("move %d to %s: %s", pid, g,
					strerror(errno));
			return -1;
		}
		if (!n)
			return 0;
	}
	if (!quiet)
		err_msg("move %d to %s: still creating threads after %d passes",
			pid, g, MAX_PASSES);
	errno = EAGAIN;
	return -1;
}

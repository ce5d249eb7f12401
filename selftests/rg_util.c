// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the Resource Groups selftests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rg_util.h"

/* Modules live in the repository, one level above selftests/. */
static const char *rg_top(void)
{
	const char *top = getenv("RG_TOP");

	return top ? top : "..";
}

int rg_quick(void)
{
	const char *tier = getenv("RG_TIER");

	if (!tier || !*tier || !strcmp(tier, "full"))
		return 0;
	if (!strcmp(tier, "quick"))
		return 1;
	fprintf(stderr, "RG_TIER='%s': expected quick or full\n", tier);
	exit(2);
}

long rg_scaled(long full, long quick)
{
	return rg_quick() ? quick : full;
}

int rg_quick_skips(const char *name, const char * const *names)
{
	if (!rg_quick())
		return 0;
	for (; *names; names++)
		if (!strcmp(name, *names))
			return 1;
	return 0;
}

int rg_open_module(const char *path)
{
	char full[PATH_MAX];

	snprintf(full, sizeof(full), "%s/%s", rg_top(), path);
	return open(full, O_RDONLY | O_CLOEXEC);
}

int rg_insmod(const char *path, const char *params)
{
	int fd, ret;

	fd = rg_open_module(path);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

int rg_rmmod(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

int rg_module_loaded(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) == 0;
}

void rg_unload_all(void)
{
	static const char * const mods[] = {
		"rg_io", "rg_memory",
		"rg_cpu", "rg_kmem", "rg_numtasks", "rg_kmem_alloc", "rg_test_ctl",
		"rg_test_ctl2", "rg_hooks_test", "rg_show_page",
		"res_groups",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mods); i++)
		if (rg_module_loaded(mods[i]))
			rg_rmmod(mods[i]);
}

int rg_stall_get(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), RG_STALL_PARAM "%s", name);
	if (rg_read(path, buf, sizeof(buf)) < 0)
		return -1;
	return atoi(buf);
}

int rg_stall_wait(int point)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (rg_stall_get("stalled") == point)
			return 0;
		usleep(10000);
	}
	return -1;
}

void rg_stall_release(void)
{
	if (!rg_module_loaded("rg_fork_stall"))
		return;
	rg_write(RG_STALL_PARAM "hold", "0");
	rg_write(RG_STALL_PARAM "stall_lock", "0");
	rg_write(RG_STALL_PARAM "half_write", "0");
	rg_write(RG_STALL_PARAM "spin_charge", "0");
	rg_write(RG_STALL_PARAM "spin_parent", "0");
}

void rg_stall_unload(void)
{
	rg_stall_release();
	if (rg_module_loaded("rg_fork_stall"))
		rg_rmmod("rg_fork_stall");
}

ssize_t rg_read(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			len = -errno;
			break;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len < 0 ? 0 : len] = '\0';
	return len;
}

const char *rg_proc_stat(pid_t pid, char *buf, size_t size)
{
	char path[64], *s;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (rg_read(path, buf, size) <= 0)
		return NULL;
	s = strrchr(buf, ')');
	return s && s[1] == ' ' ? s + 2 : NULL;
}

int rg_write_buf(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int ret = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = 1;
	close(fd);
	return ret;
}

int rg_write(const char *path, const char *str)
{
	return rg_write_buf(path, str, strlen(str));
}

int rg_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

const char *rg_path(char *buf, size_t size, const char *group,
		    const char *file)
{
	snprintf(buf, size, "%s%s%s%s%s", RG_ROOT, *group ? "/" : "", group,
		 file ? "/" : "", file ? file : "");
	return buf;
}

int rg_mkdir(const char *group)
{
	char p[PATH_MAX];

	return mkdir(rg_path(p, sizeof(p), group, NULL), 0755) ? -errno : 0;
}

int rg_rmdir(const char *group)
{
	char p[PATH_MAX];

	return rmdir(rg_path(p, sizeof(p), group, NULL)) ? -errno : 0;
}

static int rg_rmdir_one(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	if (type == FTW_DP && ftw->level > 0)
		rmdir(path);
	return 0;
}

void rg_remove_all_groups(void)
{
	if (rg_exists(RG_ROOT))
		nftw(RG_ROOT, rg_rmdir_one, 16, FTW_DEPTH | FTW_PHYS);
}

int rg_move(const char *group, pid_t pid)
{
	char p[PATH_MAX], s[32];

	snprintf(s, sizeof(s), "%d\n", pid);
	return rg_write(rg_path(p, sizeof(p), group, "members"), s);
}

int rg_is_member(const char *group, pid_t pid)
{
	char p[PATH_MAX], *buf, *line, *save;
	size_t size = 1 << 20;
	ssize_t len;
	int found = 0;

	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	len = rg_read(rg_path(p, sizeof(p), group, "members"), buf, size);
	if (len < 0 || (size_t)len >= size - 1) {
		free(buf);
		return len < 0 ? (int)len : -ENOSPC;
	}
	for (line = strtok_r(buf, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = atoi(line) == pid;
	free(buf);
	return found;
}

long rg_get(const char *group, const char *file, const char *res,
	    const char *key)
{
	char p[PATH_MAX], buf[8192], prefix[64], *line, *save, *k;
	size_t klen = strlen(key);

	if (rg_read(rg_path(p, sizeof(p), group, file), buf, sizeof(buf)) < 0)
		return LONG_MIN;
	snprintf(prefix, sizeof(prefix), "res=%s,", res);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		for (k = line; (k = strstr(k, key)); k += klen)
			if ((k[-1] == ',') && k[klen] == '=')
				return strtol(k + klen + 1, NULL, 10);
	}
	return LONG_MIN;
}

int rg_snapshot_all(const char * const *groups, size_t n, char *buf,
		    size_t size)
{
	static const char * const files[] = {
		"shares", "stats", "members", "max_descendants", "max_depth",
	};
	size_t i, len;
	int ret = 0, r;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		len = strlen(buf);
		r = rg_snapshot(groups, n, files[i], buf + len, size - len);
		ret = ret ? ret : r;
	}
	return ret;
}

int rg_count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int rg_set(const char *group, const char *file, const char *str)
{
	char p[PATH_MAX];

	return rg_write(rg_path(p, sizeof(p), group, file), str);
}

int rg_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

pid_t rg_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

void rg_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

pid_t rg_fork_loop_start(const char *group)
{
	pid_t pid;

	/*
	 * A child of the loop orphaned when the loop dies would go to init
	 * and stay counted until init reaps it: be the subreaper, so that
	 * rg_fork_loop_stop() reaps it.
	 */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid = fork();

	if (pid != 0) {
		/* Both sides set the group: a stop may come before the child runs. */
		if (pid > 0)
			setpgid(pid, pid);
		return pid;
	}
	setpgid(0, 0);
	if (group && rg_move(group, getpid()))
		_exit(1);
	for (;;) {
		int status;

		pid = fork();
		if (pid < 0)
			_exit(2);
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid || status)
			_exit(3);
	}
}

int rg_fork_loop_stop(pid_t pid)
{
	int status, ret;

	ret = waitpid(pid, &status, WNOHANG) == 0 ? 0 : -1;
	kill(-pid, SIGKILL);
	if (ret == 0)
		waitpid(pid, &status, 0);
	/* Orphans are reparented before the loop becomes a zombie. */
	while (waitpid(-pid, &status, 0) > 0)
		;
	return ret;
}

int rg_snapshot(const char * const *groups, size_t n, const char *file,
		char *buf, size_t size)
{
	static int failures;
	char p[PATH_MAX];
	size_t i, len = 0;
	ssize_t r;
	int ret = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		rg_path(p, sizeof(p), groups[i], file);
		r = rg_read(p, buf + len, size - len);
		if (r == -ENOENT) {
			/* A group that does not exist is part of the state. */
			snprintf(buf + len, size - len, "<%s: no such file>\n", p);
		} else if (r < 0 || len + r >= size - 1) {
			/* Unique: no other snapshot can compare equal to it. */
			ret = r < 0 ? (int)r : -ENOSPC;
			fprintf(stderr, "# snapshot of %s: %s\n", p, strerror(-ret));
			snprintf(buf + len, size - len, "<%s: error %d, #%d>\n",
				 p, ret, ++failures);
		}
		len = strlen(buf);
	}
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the Resource Groups selftests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rg_util.h"

/* Modules live in the repository, one level above selftests/. */
static const char *rg_top(void)
{
	const char *top = getenv("RG_TOP");

	return top ? top : "..";
}

int rg_insmod(const char *path, const char *params)
{
	char full[PATH_MAX];
	int fd, ret;

	snprintf(full, sizeof(full), "%s/%s", rg_top(), path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
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
		"numtasks", "rg_test_ctl", "rg_test_ctl2", "rg_hooks_test",
		"res_groups",
	};
	size_t i;

	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		if (rg_module_loaded(mods[i]))
			rg_rmmod(mods[i]);
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

int rg_write(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int ret = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, str, strlen(str));
	if (n < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int rg_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the Resource Groups selftests: loading modules,
 * reading and writing the configfs files.
 */
#ifndef RG_UTIL_H
#define RG_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#define RG_ROOT "/sys/kernel/config/res_groups"

/* Load REPO/<path> with params; 0 or -errno. */
int rg_insmod(const char *path, const char *params);
/* Unload a module by name; 0 or -errno. */
int rg_rmmod(const char *name);
/* 1 if the named module is loaded. */
int rg_module_loaded(const char *name);
/* Unload the framework and every test or controller module. */
void rg_unload_all(void);

/* Read a whole file into buf (NUL-terminated); length or -errno. */
ssize_t rg_read(const char *path, char *buf, size_t size);
/* One write(2) of str; 0 or -errno. */
int rg_write(const char *path, const char *str);
/* 1 if path exists. */
int rg_exists(const char *path);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the Resource Groups selftests: loading modules,
 * reading and writing the configfs files.
 */
#ifndef RG_UTIL_H
#define RG_UTIL_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define RG_ROOT "/sys/kernel/config/res_groups"

/*
 * The test tier (RG_TIER in the environment): 1 for "quick" (make check:
 * long tests scaled down), 0 for "full" or unset (make check-full, and a
 * test run by hand). Any other value is a usage error: the test exits 2.
 */
int rg_quick(void);
/* full in the full tier, quick in the quick one. */
long rg_scaled(long full, long quick);
/*
 * A test the quick tier leaves to the full one (a long one) starts with
 *	if (rg_quick())
 *		SKIP(return, RG_FULL_TIER_ONLY);
 * and selftests/expected lists its skip.
 */
#define RG_FULL_TIER_ONLY "full tier only (RG_TIER=quick)"
/*
 * Whether the quick tier skips the test named @name: one of @names (a
 * NULL-terminated list of its file's tests that start with the SKIP
 * above). Its fixture's setup then loads nothing and its teardown undoes
 * nothing: a skip costs no module load and unload (~0.3 s each in the
 * debug guest). A name listed whose test does not skip runs without its
 * setup, and fails.
 */
int rg_quick_skips(const char *name, const char * const *names);

/* Open REPO/<path> for finit_module(); an fd or -1 (errno set). */
int rg_open_module(const char *path);
/* Load REPO/<path> with params; 0 or -errno. */
int rg_insmod(const char *path, const char *params);
/* Unload a module by name; 0 or -errno. */
int rg_rmmod(const char *name);
/* 1 if the named module is loaded. */
int rg_module_loaded(const char *name);
/* Unload the framework and every test or controller module. */
void rg_unload_all(void);

/*
 * The test module that holds a fork or a shares write of a task named
 * rg_straddler (selftests/modules/rg_fork_stall.c).
 */
#define RG_STALL_KO "selftests/modules/rg_fork_stall.ko"
#define RG_STALL_PARAM "/sys/module/rg_fork_stall/parameters/"
/* One of its numbers (stalled, timeouts); -1 if it cannot be read. */
int rg_stall_get(const char *name);
/* Wait up to 20 s until a task waits at @point; 0, or -1. */
int rg_stall_wait(int point);
/* If it is loaded: let every held call go on, and disarm every hold. */
void rg_stall_release(void);
/* If it is loaded: rg_stall_release(), then unload it. */
void rg_stall_unload(void);

/* Read a whole file into buf (NUL-terminated); length or -errno. */
ssize_t rg_read(const char *path, char *buf, size_t size);
/*
 * /proc/<pid>/stat read into buf: its state field, after "pid (comm) "
 * (comm may hold anything, a ')' too), then " ppid ..."; NULL if it
 * cannot be read.
 */
const char *rg_proc_stat(pid_t pid, char *buf, size_t size);
/* One write(2) of str; 0 or -errno. */
int rg_write(const char *path, const char *str);
/* One write(2) of len bytes; 0, -errno, or 1 if the write was short. */
int rg_write_buf(const char *path, const void *buf, size_t len);
/* 1 if path exists. */
int rg_exists(const char *path);

/* RG_ROOT "/" group "/" file into buf (group "" is the root). */
const char *rg_path(char *buf, size_t size, const char *group,
		    const char *file);
/* mkdir of a group; 0 or -errno. */
int rg_mkdir(const char *group);
/* rmdir of a group; 0 or -errno. */
int rg_rmdir(const char *group);
/* Remove every group, deepest first. */
void rg_remove_all_groups(void);
/* Write "pid\n" to the group's members; 0 or -errno. */
int rg_move(const char *group, pid_t pid);
/*
 * 1 if pid is listed in the group's members, 0 if not, -errno if the file
 * cannot be read whole (-ENOSPC: longer than 1 MiB). Compare with 1 or 0,
 * never as a truth value: a failed read is neither.
 */
int rg_is_member(const char *group, pid_t pid);
/*
 * The value of key in the line of controller res in the group's file
 * (shares or stats); LONG_MIN if there is no such line or key.
 */
long rg_get(const char *group, const char *file, const char *res,
	    const char *key);
/*
 * The file of each of n groups, concatenated into buf: a snapshot of the
 * state to compare before and after a rejected write. A missing file is
 * noted as such (the same each time); a read that fails or does not fit
 * returns -errno (-ENOSPC) and leaves a note no other snapshot can equal,
 * so that a comparison of it fails too. 0 on success.
 */
int rg_snapshot(const char * const *groups, size_t n, const char *file,
		char *buf, size_t size);
/*
 * shares, stats, members, max_descendants and max_depth of each of n
 * groups (file by file), appended
 * to what buf already holds: the whole state a refused write must leave.
 * 0 or the first error, as rg_snapshot().
 */
int rg_snapshot_all(const char * const *groups, size_t n, char *buf,
		    size_t size);
/* A wait status's exit code; -1 if the child did not exit (a signal). */
int rg_exit_code(int status);
/* The number of lines (newlines) in s. */
int rg_count_lines(const char *s);
/* Write str to the group's file; 0 or -errno. */
int rg_set(const char *group, const char *file, const char *str);

/* A child that sleeps until killed; its pid. */
pid_t rg_sleeper(void);
/*
 * Start a child, leader of its own process group, that moves to group
 * (unless NULL), then forks and reaps until stopped; it _exit()s non-zero
 * at the first failure. Its pid, or -1.
 */
pid_t rg_fork_loop_start(const char *group);
/*
 * Kill a fork loop and reap it and any child it left behind, so no task
 * of it is still counted anywhere. 0 if it was still looping, -1 if it
 * had stopped by itself (a fork failed).
 */
int rg_fork_loop_stop(pid_t pid);
/* SIGKILL and reap a child. */
void rg_kill(pid_t pid);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rgctl: the command-line tool for Resource Groups (docs/res_groups.rst,
 * section "rgctl"). Shared declarations.
 */
#ifndef RGCTL_H
#define RGCTL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit statuses (docs/res_groups.rst, "rgctl"). */
#define EXIT_OK		0
#define EXIT_ERR	1
#define EXIT_USAGE	2

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define RG_MAX_DEPTH	5
#define RG_MAX_CTLS	8
#define RG_DONT_CARE	(-3)
#define RG_UNSUPPORTED	(-2)

/* Share fields, in the order the kernel shows them. */
enum { F_MIN, F_MAX, F_DIV, F_NR };
extern const char *const field_names[F_NR];

/*
 * A group's caps, in files of their own: max_descendants, max_depth.
 * RG_CAP_MAX is "max" (as the kernel's INT_MAX).
 */
enum { C_DESC, C_DEPTH, C_NR };
#define RG_CAP_MAX	2147483647
extern const char *const cap_names[C_NR];

/* One controller's shares in one group. */
struct rg_shares {
	char res[32];
	int val[F_NR];
};

/* All of a group's shares (one entry per controller, kernel order). */
struct rg_group_shares {
	int n;
	struct rg_shares s[RG_MAX_CTLS];
};

/* A shares request: RES:KEY=VALUE[,KEY=VALUE]... (unset fields: have=0). */
struct rg_req {
	char res[32];
	int have[F_NR];
	int val[F_NR];
};

/* util.c */
extern const char *prog;
extern const char *rg_root;
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
int parse_int(const char *s, int *out);
int parse_pid(const char *s, pid_t *out);

/* signals.c: SIGINT, SIGTERM for stats -w and classify */
#include <signal.h>
extern volatile sig_atomic_t stop_sig;
/* Catches and blocks them; waitmask: the mask to wait with in ppoll(). */
void stop_catch(sigset_t *waitmask);
/* 1 if one came (caught, or pending while blocked). */
int stop_pending(void);
/* Sleeps, unless or until one comes. */
void stop_sleep(double seconds, const sigset_t *waitmask);

/* fs.c: the configfs tree */
int group_norm(const char *in, char *out, size_t len);
int group_depth(const char *g);
void group_dir(const char *g, char *buf, size_t len);
void group_file(const char *g, const char *file, char *buf, size_t len);
int group_exists(const char *g);
int group_name_ok(const char *name);
char *read_file(const char *path, size_t *len);
int write_file(const char *path, const char *data);
int list_children(const char *g, char ***names);
void free_names(char **names, int n);
int walk_tree(const char *g, int recursive,
	      int (*fn)(const char *g, int depth, void *arg), void *arg);
int read_shares(const char *g, struct rg_group_shares *gs);
const struct rg_shares *find_shares(const struct rg_group_shares *gs,
				    const char *res);
int write_shares(const char *g, const char *res, const int *have,
		 const int *val);
int count_members(const char *g);
/* g's caps into caps[C_NR]; 0, or -1 and errno (ENOENT: no such files). */
int read_caps(const char *g, int *caps);
int write_cap(const char *g, int cap, int val);

/* shares.c: RES:KEY=VALUE[,KEY=VALUE]... */
int parse_req(const char *spec, struct rg_req *req, char *why, size_t len);
void format_value(int v, char *buf, size_t len);
/* A cap value: "max" or a decimal from 0 to RG_CAP_MAX; 0 or -1. */
int parse_cap(const char *s, int *v);
void format_cap(int v, char *buf, size_t len);
int controller_known(const char *res);
void explain_refusal(const char *g, const struct rg_req *req, char *why,
		     size_t len);

/* tasks.c */
int move_process(const char *g, pid_t pid, int quiet);
int move_thread(const char *g, pid_t tid);
int task_group(pid_t pid, pid_t tid, char *buf, size_t len);

/* Subcommands. */
int cmd_ls(int argc, char **argv);
int cmd_create(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_move(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_classify(int argc, char **argv);

#endif

// SPDX-License-Identifier: GPL-2.0
/* rgctl: ls, create, set, rm, exec, move. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rgctl.h"
#include "table.h"

/* Normalises a GROUP argument; prints why not and returns -1. */
static int group_arg(const char *arg, char *g, size_t len)
{
	if (group_norm(arg, g, len)) {
		err_msg("group '%s': %s", arg, strerror(errno));
		return -1;
	}
	return 0;
}

static int check_loaded(void)
{
	struct stat st;

	if (stat(rg_root, &st)) {
		err_msg("%s: %s (is res_groups.ko loaded?)", rg_root,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int need_group(const char *g)
{
	if (!group_exists(g)) {
		err_msg("group %s: %s", g, strerror(ENOENT));
		return -1;
	}
	return 0;
}

/* ls */

struct ls_ctx {
	struct table t;
	int base;
};

static int ls_one(const char *g, int depth, void *arg)
{
	struct ls_ctx *c = arg;
	struct rg_group_shares gs;
	const char *name = strrchr(g, '/') + 1;
	int r, i, f, tasks;

	if (read_shares(g, &gs)) {
		if (errno == ENOENT && depth > c->base)
			return 0;	/* removed meanwhile */
		err_msg("group %s: %s", g, strerror(errno));
		return -1;
	}
	tasks = count_members(g);
	r = table_row(&c->t);
	table_set(&c->t, r, 0, "%*s%s", 2 * (depth - c->base), "",
		  depth == c->base ? g : name);
	if (tasks >= 0)
		table_set(&c->t, r, 1, "%d", tasks);
	for (i = 0; i < gs.n; i++) {
		if (i)
			r = table_row(&c->t);
		table_set(&c->t, r, 2, "%s", gs.s[i].res);
		for (f = 0; f < F_NR; f++) {
			char v[32];

			format_value(gs.s[i].val[f], v, sizeof(v));
			table_set(&c->t, r, 3 + f, "%s", v);
		}
	}
	return 0;
}

int cmd_ls(int argc, char **argv)
{
	struct ls_ctx c;
	char g[4096];
	int opt, recursive = 0, ret;

	while ((opt = getopt(argc, argv, "+r")) != -1) {
		if (opt != 'r')
			return usage_error("usage: rgctl ls [-r] [GROUP]");
		recursive = 1;
	}
	if (argc - optind > 1)
		return usage_error("usage: rgctl ls [-r] [GROUP]");
	if (group_arg(optind < argc ? argv[optind] : "/", g, sizeof(g)) ||
	    check_loaded() || need_group(g))
		return EXIT_ERR;
	table_init(&c.t, 6);
	c.t.left[0] = 1;
	c.t.left[2] = 1;
	c.base = group_depth(g);
	ret = table_row(&c.t);
	table_set(&c.t, ret, 0, "GROUP");
	table_set(&c.t, ret, 1, "TASKS");
	table_set(&c.t, ret, 2, "RES");
	table_set(&c.t, ret, 3, "MIN");
	table_set(&c.t, ret, 4, "MAX");
	table_set(&c.t, ret, 5, "DIVISOR");
	/* Without -r: GROUP and its children. */
	if (recursive) {
		ret = walk_tree(g, 1, ls_one, &c);
	} else {
		char **kids, child[4096];
		int n, i;

		ret = ls_one(g, c.base, &c);
		n = ret ? 0 : list_children(g, &kids);
		for (i = 0; i < n && !ret; i++) {
			if (snprintf(child, sizeof(child), "%s/%s",
				     strcmp(g, "/") ? g : "",
				     kids[i]) >= (int)sizeof(child))
				continue;
			ret = ls_one(child, c.base + 1, &c);
		}
		if (n > 0)
			free_names(kids, n);
	}
	if (!ret)
		table_print(&c.t, stdout);
	table_free(&c.t);
	return ret ? EXIT_ERR : EXIT_OK;
}

/* create, set */

/* Parses the RES:KEY=VALUE arguments; a usage error if one is bad. */
static int parse_reqs(int n, char **args, struct rg_req *reqs)
{
	char why[256];
	int i;

	for (i = 0; i < n; i++)
		if (parse_req(args[i], &reqs[i], why, sizeof(why)))
			return usage_error("'%s': %s", args[i], why);
	return 0;
}

static int check_controllers(const char *g, int n, struct rg_req *reqs)
{
	int i;

	for (i = 0; i < n; i++)
		if (!controller_known(reqs[i].res)) {
			err_msg("group %s: controller '%s': %s (not registered)",
				g, reqs[i].res, strerror(EINVAL));
			return -1;
		}
	return 0;
}

/* Puts back every controller's shares of g as they were in old. */
static void restore_shares(const char *g, const struct rg_group_shares *old)
{
	int i, f, have[F_NR];

	for (i = old->n - 1; i >= 0; i--) {
		char v[32], list[128] = "";
		size_t o = 0;

		for (f = 0; f < F_NR; f++) {
			have[f] = old->s[i].val[f] != RG_UNSUPPORTED;
			if (!have[f])
				continue;
			format_value(old->s[i].val[f], v, sizeof(v));
			o += snprintf(list + o, sizeof(list) - o, "%s%s=%s",
				      o ? "," : "", field_names[f], v);
		}
		if (write_shares(g, old->s[i].res, have, old->s[i].val))
			err_msg("group %s: could not restore %s:%s: %s", g,
				old->s[i].res, list, strerror(errno));
	}
}

/* The writes of reqs to g, in order; all or nothing. */
static int write_reqs(const char *g, int n, char **args, struct rg_req *reqs)
{
	struct rg_group_shares old;
	int i;

	if (!n)
		return 0;
	if (read_shares(g, &old)) {
		err_msg("group %s: %s", g, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!find_shares(&old, reqs[i].res)) {
			err_msg("group %s: controller '%s': %s (no shares at depth %d)",
				g, reqs[i].res, strerror(EINVAL),
				group_depth(g));
			break;
		}
		if (write_shares(g, reqs[i].res, reqs[i].have, reqs[i].val)) {
			int e = errno;
			char why[512] = "";

			if (e == EINVAL)
				explain_refusal(g, &reqs[i], why, sizeof(why));
			err_msg("group %s: %s: %s%s%s%s", g, args[i],
				strerror(e), why[0] ? " (" : "", why,
				why[0] ? ")" : "");
			break;
		}
	}
	if (i == n)
		return 0;
	restore_shares(g, &old);
	return -1;
}

static int mkdir_p(const char *g, char created[][4096], int *ncreated)
{
	char prefix[4096], path[4096];
	const char *p = g;

	*ncreated = 0;
	for (;;) {
		size_t n;

		p = strchr(p + 1, '/');
		n = p ? (size_t)(p - g) : strlen(g);

		memcpy(prefix, g, n);
		prefix[n] = '\0';
		group_dir(prefix, path, sizeof(path));
		if (!mkdir(path, 0755)) {
			snprintf(created[(*ncreated)++], 4096, "%s", prefix);
		} else if (errno != EEXIST || !group_exists(prefix)) {
			err_msg("create %s: %s", prefix, strerror(errno));
			return -1;
		}
		if (!p)
			break;
	}
	return 0;
}

static void rmdir_created(char created[][4096], int n)
{
	char path[4096];

	while (n-- > 0) {
		group_dir(created[n], path, sizeof(path));
		if (rmdir(path) && errno != ENOENT)
			err_msg("group %s: could not remove it again: %s",
				created[n], strerror(errno));
	}
}

int cmd_create(int argc, char **argv)
{
	char g[4096], created[RG_MAX_DEPTH][4096];
	struct rg_req *reqs;
	int n, ncreated, ret = EXIT_ERR;

	if (argc < 2 || argv[1][0] == '-')
		return usage_error("usage: rgctl create GROUP [RES:KEY=VALUE[,KEY=VALUE]...]...");
	n = argc - 2;
	reqs = xmalloc(n * sizeof(*reqs));
	if (parse_reqs(n, argv + 2, reqs)) {
		free(reqs);
		return EXIT_USAGE;
	}
	if (group_arg(argv[1], g, sizeof(g)) || check_loaded() ||
	    check_controllers(g, n, reqs))
		goto out;
	if (!strcmp(g, "/")) {
		err_msg("create /: %s (the root always exists)", strerror(EEXIST));
		goto out;
	}
	if (group_depth(g) > RG_MAX_DEPTH) {
		err_msg("create %s: %s (depth %d, at most %d)", g,
			strerror(EMLINK), group_depth(g), RG_MAX_DEPTH);
		goto out;
	}
	if (mkdir_p(g, created, &ncreated)) {
		rmdir_created(created, ncreated);
		goto out;
	}
	if (write_reqs(g, n, argv + 2, reqs)) {
		rmdir_created(created, ncreated);
		goto out;
	}
	ret = EXIT_OK;
out:
	free(reqs);
	return ret;
}

int cmd_set(int argc, char **argv)
{
	struct rg_req *reqs;
	char g[4096];
	int n, ret = EXIT_ERR;

	if (argc < 3 || argv[1][0] == '-')
		return usage_error("usage: rgctl set GROUP RES:KEY=VALUE[,KEY=VALUE]...");
	n = argc - 2;
	reqs = xmalloc(n * sizeof(*reqs));
	if (parse_reqs(n, argv + 2, reqs)) {
		free(reqs);
		return EXIT_USAGE;
	}
	if (!group_arg(argv[1], g, sizeof(g)) && !check_loaded() &&
	    !need_group(g) && !check_controllers(g, n, reqs) &&
	    !write_reqs(g, n, argv + 2, reqs))
		ret = EXIT_OK;
	free(reqs);
	return ret;
}

/* rm */

static int rm_tree(const char *g)
{
	char **kids, child[4096], path[4096];
	int n, i, ret = 0;

	n = list_children(g, &kids);
	for (i = 0; i < n && !ret; i++) {
		snprintf(child, sizeof(child), "%s/%s", g, kids[i]);
		ret = rm_tree(child);
	}
	if (n > 0)
		free_names(kids, n);
	if (ret)
		return ret;
	group_dir(g, path, sizeof(path));
	if (rmdir(path) && errno != ENOENT) {
		err_msg("rm %s: %s", g, strerror(errno));
		return -1;
	}
	return 0;
}

int cmd_rm(int argc, char **argv)
{
	int opt, recursive = 0;
	char g[4096], path[4096];

	while ((opt = getopt(argc, argv, "+r")) != -1) {
		if (opt != 'r')
			return usage_error("usage: rgctl rm [-r] GROUP");
		recursive = 1;
	}
	if (argc - optind != 1)
		return usage_error("usage: rgctl rm [-r] GROUP");
	if (group_arg(argv[optind], g, sizeof(g)) || check_loaded() ||
	    need_group(g))
		return EXIT_ERR;
	if (!strcmp(g, "/")) {
		err_msg("rm /: %s (the root cannot be removed)",
			strerror(EBUSY));
		return EXIT_ERR;
	}
	if (recursive)
		return rm_tree(g) ? EXIT_ERR : EXIT_OK;
	group_dir(g, path, sizeof(path));
	if (rmdir(path)) {
		err_msg("rm %s: %s%s", g, strerror(errno),
			errno == ENOTEMPTY ? " (it has child groups: rm -r)" : "");
		return EXIT_ERR;
	}
	return EXIT_OK;
}

/* exec */

int cmd_exec(int argc, char **argv)
{
	char g[4096];
	int cmd = 2;

	if (argc < 3 || argv[1][0] == '-')
		return usage_error("usage: rgctl exec GROUP -- COMMAND [ARGS...]");
	if (!strcmp(argv[2], "--"))
		cmd = 3;
	if (cmd >= argc)
		return usage_error("usage: rgctl exec GROUP -- COMMAND [ARGS...]");
	if (group_arg(argv[1], g, sizeof(g)) || check_loaded() ||
	    need_group(g) || move_thread(g, getpid()))
		return EXIT_ERR;
	execvp(argv[cmd], argv + cmd);
	err_msg("exec %s: %s", argv[cmd], strerror(errno));
	return EXIT_ERR;
}

/* move */

int cmd_move(int argc, char **argv)
{
	int opt, threads = 0, i, n, ret = EXIT_OK;
	char g[4096];
	pid_t *pids;

	while ((opt = getopt(argc, argv, "+t")) != -1) {
		if (opt != 't')
			return usage_error("usage: rgctl move [-t] GROUP PID...");
		threads = 1;
	}
	if (argc - optind < 2)
		return usage_error("usage: rgctl move [-t] GROUP PID...");
	n = argc - optind - 1;
	pids = xmalloc(n * sizeof(*pids));
	for (i = 0; i < n; i++)
		if (parse_pid(argv[optind + 1 + i], &pids[i])) {
			free(pids);
			return usage_error("'%s': not a pid",
					   argv[optind + 1 + i]);
		}
	if (group_arg(argv[optind], g, sizeof(g)) || check_loaded() ||
	    need_group(g)) {
		free(pids);
		return EXIT_ERR;
	}
	for (i = 0; i < n; i++)
		if (threads ? move_thread(g, pids[i]) :
		    move_process(g, pids[i], 0))
			ret = EXIT_ERR;
	free(pids);
	return ret;
}

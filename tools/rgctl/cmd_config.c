// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl dump, rgctl apply.
 *
 * apply works on a model of the whole tree: every group that exists and
 * every group the file lists (with its ancestors), each with its current
 * and its target shares. The targets are checked against the rules of
 * docs/res_groups.rst ("Shares") before anything changes. The writes
 * then go in phases that each rule allows whatever the order inside a
 * phase (one field per write):
 *
 *   1. mins that go down (DONT_CARE counts as 0)
 *   2. divisors that go up
 *   3. maxes that go down, or to DONT_CARE
 *   4. divisors that go down
 *   5. maxes that go up
 *   6. mins that go up
 *   7. caps (max_descendants, max_depth) that go down
 *   8. (--prune) rmdir of the groups the file does not list, deepest first
 *
 * Caps that go up are written before any group is created (phase 0), so
 * that the new groups fit; those that go down only after, so a cap may
 * end below what exists (the kernel allows that), and a dump of such a
 * tree applies. The model checks that every mkdir fits under the caps in
 * force then (the higher of the current and the target cap).
 *
 * Groups to prune get min and max DONT_CARE in phases 1 and 3, so that
 * they hold nothing back from their siblings. If a write fails, the ones
 * done are undone in reverse order and the groups created are removed.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

struct node {
	char *path;
	int depth;
	int parent;		/* index, -1 for the root */
	int exists;		/* in the kernel now */
	int listed;		/* in the file, or an ancestor of one */
	int line;		/* its line, 0 if not listed itself */
	int prune;
	int has_caps;		/* the module has the cap files */
	int cur_cap[C_NR], tgt_cap[C_NR];
	struct rg_group_shares cur, tgt;
};

struct model {
	int n;
	struct node *nodes;
};

/* A shares field (field < F_NR) or a cap (F_NR + C_DESC, F_NR + C_DEPTH). */
struct write {
	int node;
	char res[32];
	int field;
	int old, val;
};

static int find_node(const struct model *m, const char *path)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->nodes[i].path, path))
			return i;
	return -1;
}

static int add_node(struct model *m, const char *path)
{
	struct node *nd;

	m->nodes = xrealloc(m->nodes, (m->n + 1) * sizeof(*m->nodes));
	nd = &m->nodes[m->n];
	memset(nd, 0, sizeof(*nd));
	nd->path = xstrdup(path);
	nd->depth = group_depth(path);
	nd->parent = -1;
	return m->n++;
}

static int model_existing(const char *g, int depth, void *arg)
{
	struct model *m = arg;
	struct rg_group_shares gs;
	int i;

	if (read_shares(g, &gs)) {
		if (errno == ENOENT && strcmp(g, "/"))
			return 0;
		err_msg("group %s: %s", g, strerror(errno));
		return -1;
	}
	i = add_node(m, g);
	m->nodes[i].exists = 1;
	m->nodes[i].cur = gs;
	if (!read_caps(g, m->nodes[i].cur_cap)) {
		m->nodes[i].has_caps = 1;
	} else if (errno == ENOENT && group_exists(g)) {
		/* A res_groups.ko without caps: "max" everywhere. */
		m->nodes[i].cur_cap[C_DESC] = RG_CAP_MAX;
		m->nodes[i].cur_cap[C_DEPTH] = RG_CAP_MAX;
	} else {
		if (errno == ENOENT && strcmp(g, "/"))
			return 0;	/* gone meanwhile */
		err_msg("group %s: %s", g, strerror(errno));
		return -1;
	}
	return 0;
}

static void parent_path(const char *g, char *buf, size_t len)
{
	const char *slash = strrchr(g, '/');

	if (slash == g)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - g), g);
}

/* Adds g and its missing ancestors, parents first; g's index. */
static int add_listed(struct model *m, const char *g)
{
	char parent[4096];
	int i = find_node(m, g), p;

	if (i >= 0) {
		m->nodes[i].listed = 1;
		return i;
	}
	parent_path(g, parent, sizeof(parent));
	p = add_listed(m, parent);
	i = add_node(m, g);
	m->nodes[i].listed = 1;
	m->nodes[i].parent = p;
	m->nodes[i].has_caps = m->nodes[p].has_caps;
	m->nodes[i].cur_cap[C_DESC] = RG_CAP_MAX;
	m->nodes[i].cur_cap[C_DEPTH] = RG_CAP_MAX;
	/* A new group: the defaults, for each controller its parent has. */
	m->nodes[i].cur.n = m->nodes[p].cur.n;
	for (p = 0; p < m->nodes[i].cur.n; p++) {
		struct rg_shares *s = &m->nodes[i].cur.s[p];

		*s = m->nodes[m->nodes[i].parent].cur.s[p];
		s->val[F_MIN] = RG_DONT_CARE;
		s->val[F_MAX] = RG_DONT_CARE;
		s->val[F_DIV] = 100;
	}
	return i;
}

static void model_free(struct model *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		free(m->nodes[i].path);
	free(m->nodes);
	m->nodes = NULL;
	m->n = 0;
}

static int eff_min(int v)
{
	return v < 0 ? 0 : v;
}

static long eff_max(int v)
{
	return v < 0 ? LONG_MAX : v;
}

/* The line to blame for node i: its own, or that of a listed descendant. */
static int blame(const struct model *m, int i)
{
	int j;

	if (m->nodes[i].line)
		return m->nodes[i].line;
	for (j = 0; j < m->n; j++)
		if (m->nodes[j].parent == i && m->nodes[j].listed &&
		    !m->nodes[j].prune)
			return blame(m, j);
	return 0;
}

static int model_error(const struct cfg *cfg, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int model_error(const struct cfg *cfg, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (line)
		fprintf(stderr, "%s: %s:%d: ", prog, cfg->file, line);
	else
		fprintf(stderr, "%s: %s: ", prog, cfg->file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* The cap c in force while groups are created (phase 0 before). */
static int mkdir_cap(const struct node *nd, int c)
{
	return nd->cur_cap[c] > nd->tgt_cap[c] ? nd->cur_cap[c] :
						 nd->tgt_cap[c];
}

/*
 * Every group apply creates must fit (docs/res_groups.rst,
 * "max_descendants, max_depth"): for each group with new ones below it,
 * all the groups below it then (pruned ones go only at the end) within
 * its max_descendants, and the new ones within its max_depth.
 */
static int check_caps(const struct model *m, const struct cfg *cfg)
{
	int i, j, a, errs = 0;

	for (i = 0; i < m->n; i++) {
		const struct node *nd = &m->nodes[i];
		int below = 0, new = 0, deepest = 0, line = 0;
		char v[32];

		for (j = 0; j < m->n; j++) {
			for (a = m->nodes[j].parent; a >= 0 && a != i;
			     a = m->nodes[a].parent)
				;
			if (a != i)
				continue;
			below++;
			if (m->nodes[j].exists)
				continue;
			new++;
			if (m->nodes[j].depth - nd->depth > deepest)
				deepest = m->nodes[j].depth - nd->depth;
			if (!line)
				line = blame(m, j);
		}
		if (!new)
			continue;
		if (below > mkdir_cap(nd, C_DESC)) {
			format_cap(mkdir_cap(nd, C_DESC), v, sizeof(v));
			errs += model_error(cfg, line,
					    "group %s: %d groups below it with the new ones, above max_descendants %s: %s",
					    nd->path, below, v, strerror(EAGAIN));
		}
		if (deepest > mkdir_cap(nd, C_DEPTH)) {
			format_cap(mkdir_cap(nd, C_DEPTH), v, sizeof(v));
			errs += model_error(cfg, line,
					    "group %s: a new group %d levels below it, above max_depth %s: %s",
					    nd->path, deepest, v, strerror(EAGAIN));
		}
	}
	return errs;
}

/*
 * Builds the model: the tree now, the file's groups, the targets. Returns
 * the number of errors (printed).
 */
static int model_build(struct model *m, const struct cfg *cfg, int prune)
{
	int i, j, k, f, errs = 0;

	memset(m, 0, sizeof(*m));
	if (walk_tree("/", 1, model_existing, m))
		return 1;
	for (i = 1; i < m->n; i++) {
		char parent[4096];

		parent_path(m->nodes[i].path, parent, sizeof(parent));
		m->nodes[i].parent = find_node(m, parent);
	}
	m->nodes[0].listed = 1;	/* the root is never pruned */
	for (i = 0; i < cfg->n; i++) {
		j = add_listed(m, cfg->lines[i].group);
		m->nodes[j].line = cfg->lines[i].line;
	}
	for (i = 0; i < m->n; i++) {
		struct node *nd = &m->nodes[i];

		nd->prune = prune && !nd->listed;
		nd->tgt = nd->cur;
		memcpy(nd->tgt_cap, nd->cur_cap, sizeof(nd->tgt_cap));
		if (nd->prune)
			for (k = 0; k < nd->tgt.n; k++) {
				if (nd->tgt.s[k].val[F_MIN] != RG_UNSUPPORTED)
					nd->tgt.s[k].val[F_MIN] = RG_DONT_CARE;
				if (nd->tgt.s[k].val[F_MAX] != RG_UNSUPPORTED)
					nd->tgt.s[k].val[F_MAX] = RG_DONT_CARE;
			}
	}
	for (i = 0; i < cfg->n; i++) {
		const struct cfg_line *cl = &cfg->lines[i];
		struct node *nd = &m->nodes[find_node(m, cl->group)];

		/*
		 * A listed group's caps are the file's: a cap not given is
		 * "max" (dump leaves those out), so a dump restores them all.
		 */
		for (j = 0; j < C_NR; j++) {
			int cap = cl->have_cap[j] ? cl->cap[j] : RG_CAP_MAX;

			if (nd->has_caps)
				nd->tgt_cap[j] = cap;
			else if (cap != RG_CAP_MAX)
				errs += model_error(cfg, cl->line,
						    "group %s: %s: %s (res_groups.ko has no caps)",
						    nd->path, cap_names[j],
						    strerror(EINVAL));
		}
		for (j = 0; j < cl->nreq; j++) {
			struct rg_shares *s = NULL;

			for (k = 0; k < nd->tgt.n; k++)
				if (!strcmp(nd->tgt.s[k].res, cl->req[j].res))
					s = &nd->tgt.s[k];
			if (!s) {
				errs += model_error(cfg, cl->line,
						    "group %s: controller '%s': %s (no shares at depth %d)",
						    nd->path, cl->req[j].res,
						    strerror(EINVAL), nd->depth);
				continue;
			}
			/* Fields the controller does not support stay so. */
			for (f = 0; f < F_NR; f++)
				if (cl->req[j].have[f] &&
				    s->val[f] != RG_UNSUPPORTED)
					s->val[f] = cl->req[j].val[f];
		}
	}
	errs += check_caps(m, cfg);
	/* The rules of docs/res_groups.rst "Shares", on the targets. */
	for (i = 0; i < m->n; i++) {
		const struct node *nd = &m->nodes[i];

		if (nd->prune)
			continue;
		for (k = 0; k < nd->tgt.n; k++) {
			const struct rg_shares *s = &nd->tgt.s[k];
			long sum = 0;

			if (s->val[F_MIN] >= 0 && s->val[F_MAX] >= 0 &&
			    s->val[F_MIN] > s->val[F_MAX])
				errs += model_error(cfg, blame(m, i),
						    "group %s: %s: min_shares %d above max_shares %d: %s",
						    nd->path, s->res, s->val[F_MIN],
						    s->val[F_MAX], strerror(EINVAL));
			for (j = 0; j < m->n; j++) {
				const struct node *c = &m->nodes[j];
				const struct rg_shares *cs;

				if (c->parent != i || c->prune)
					continue;
				cs = find_shares(&c->tgt, s->res);
				if (!cs)
					continue;
				sum += eff_min(cs->val[F_MIN]);
				if (cs->val[F_MAX] > s->val[F_DIV] &&
				    s->val[F_DIV] > 0)
					errs += model_error(cfg, blame(m, j),
							    "group %s: %s: max_shares %d above the parent's child_shares_divisor %d: %s",
							    c->path, s->res,
							    cs->val[F_MAX],
							    s->val[F_DIV],
							    strerror(EINVAL));
			}
			if (s->val[F_DIV] > 0 && sum > s->val[F_DIV])
				errs += model_error(cfg, blame(m, i),
						    "group %s: %s: the children's min_shares add up to %ld, above child_shares_divisor %d: %s",
						    nd->path, s->res, sum,
						    s->val[F_DIV], strerror(EINVAL));
		}
	}
	return errs;
}

/* The writes of one phase (see the top of this file). */
static int in_phase(int phase, int field, int cur, int tgt)
{
	if (cur == tgt || cur == RG_UNSUPPORTED)
		return 0;
	switch (phase) {
	case 1:
		return field == F_MIN && eff_min(tgt) <= eff_min(cur);
	case 2:
		return field == F_DIV && tgt > cur;
	case 3:
		return field == F_MAX &&
		       (tgt == RG_DONT_CARE || eff_max(tgt) < eff_max(cur));
	case 4:
		return field == F_DIV && tgt < cur;
	case 5:
		return field == F_MAX && tgt != RG_DONT_CARE &&
		       eff_max(tgt) > eff_max(cur);
	case 6:
		return field == F_MIN && eff_min(tgt) > eff_min(cur);
	}
	return 0;
}

static int add_cap_write(const struct model *m, int i, int c,
			 struct write **w, int n)
{
	*w = xrealloc(*w, (n + 1) * sizeof(**w));
	memset(&(*w)[n], 0, sizeof(**w));
	(*w)[n].node = i;
	(*w)[n].field = F_NR + c;
	(*w)[n].old = m->nodes[i].cur_cap[c];
	(*w)[n].val = m->nodes[i].tgt_cap[c];
	return n + 1;
}

static int plan(const struct model *m, struct write **out)
{
	struct write *w = NULL;
	int n = 0, phase, i, k, f;

	for (phase = 1; phase <= 6; phase++)
		for (i = 0; i < m->n; i++)
			for (k = 0; k < m->nodes[i].cur.n; k++)
				for (f = 0; f < F_NR; f++) {
					const struct rg_shares *c, *t;

					c = &m->nodes[i].cur.s[k];
					t = find_shares(&m->nodes[i].tgt,
							c->res);
					if (!t || !in_phase(phase, f, c->val[f],
							    t->val[f]))
						continue;
					w = xrealloc(w, (n + 1) * sizeof(*w));
					w[n].node = i;
					snprintf(w[n].res, sizeof(w[n].res),
						 "%s", c->res);
					w[n].field = f;
					w[n].old = c->val[f];
					w[n].val = t->val[f];
					n++;
				}
	for (i = 0; i < m->n; i++)
		for (k = 0; k < C_NR; k++)
			if (m->nodes[i].tgt_cap[k] < m->nodes[i].cur_cap[k])
				n = add_cap_write(m, i, k, &w, n);
	*out = w;
	return n;
}

/* Phase 0: the caps that go up (see the top of this file). */
static int plan_raise(const struct model *m, struct write **out)
{
	struct write *w = NULL;
	int n = 0, i, k;

	for (i = 0; i < m->n; i++)
		for (k = 0; k < C_NR; k++)
			if (m->nodes[i].tgt_cap[k] > m->nodes[i].cur_cap[k])
				n = add_cap_write(m, i, k, &w, n);
	*out = w;
	return n;
}

static int write_one(const char *g, const char *res, int field, int val)
{
	int have[F_NR] = { 0 }, vals[F_NR] = { 0 };

	if (field >= F_NR)
		return write_cap(g, field - F_NR, val);
	have[field] = 1;
	vals[field] = val;
	return write_shares(g, res, have, vals);
}

static void rmdir_new(const struct model *m)
{
	char path[4096];
	int i;

	for (i = m->n - 1; i >= 0; i--)
		if (!m->nodes[i].exists) {
			group_dir(m->nodes[i].path, path, sizeof(path));
			if (rmdir(path) && errno != ENOENT)
				err_msg("group %s: could not remove it again: %s",
					m->nodes[i].path, strerror(errno));
		}
}

static int by_depth_desc(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a;
	const struct node *y = *(const struct node *const *)b;

	return y->depth - x->depth;
}

/* A line of -n's plan; names escaped as in a config file. */
static void print_node(const char *what, const char *g)
{
	printf("%s ", what);
	cfg_put_escaped(g, stdout);
	putchar('\n');
}

/* "RES:KEY=VALUE" or "CAP=VALUE" of a write, with value val. */
static void describe(const struct write *w, int val, char *buf, size_t len)
{
	char v[32];

	if (w->field >= F_NR) {
		format_cap(val, v, sizeof(v));
		snprintf(buf, len, "%s=%s", cap_names[w->field - F_NR], v);
	} else {
		format_value(val, v, sizeof(v));
		snprintf(buf, len, "%s:%s=%s", w->res, field_names[w->field],
			 v);
	}
}

static void print_write(const struct model *m, const struct write *w)
{
	char d[96];

	describe(w, w->val, d, sizeof(d));
	fputs("set ", stdout);
	cfg_put_escaped(m->nodes[w->node].path, stdout);
	printf(" %s\n", d);
}

/* Undo writes [0, done) of w in reverse order. */
static void undo(const struct model *m, const struct write *w, int done)
{
	char d[96];

	while (done-- > 0) {
		const char *g = m->nodes[w[done].node].path;

		if (!write_one(g, w[done].res, w[done].field, w[done].old))
			continue;
		describe(&w[done], w[done].old, d, sizeof(d));
		err_msg("group %s: could not restore %s: %s", g, d,
			strerror(errno));
	}
}

/* Do writes [0, n) of w; the number done (n: all). */
static int do_writes(const struct model *m, const struct write *w, int n)
{
	char d[96];
	int done;

	for (done = 0; done < n; done++) {
		const char *g = m->nodes[w[done].node].path;

		if (write_one(g, w[done].res, w[done].field, w[done].val)) {
			describe(&w[done], w[done].val, d, sizeof(d));
			err_msg("group %s: %s: %s", g, d, strerror(errno));
			break;
		}
	}
	return done;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "prune", no_argument, NULL, 'p' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, prune = 0, dry = 0, ret = EXIT_ERR, nw = 0, nr = 0, i, done;
	struct write *w = NULL, *wr = NULL;
	struct model m = { 0 }, pre;
	struct cfg cfg;

	while ((opt = getopt_long(argc, argv, "+n", longopts, NULL)) != -1) {
		if (opt == 'p')
			prune = 1;
		else if (opt == 'n')
			dry = 1;
		else
			return usage_error("usage: rgctl apply [--prune] [-n|--dry-run] FILE");
	}
	if (argc - optind != 1)
		return usage_error("usage: rgctl apply [--prune] [-n|--dry-run] FILE");
	if (!group_exists("/")) {
		err_msg("%s: %s (is res_groups.ko loaded?)", rg_root,
			strerror(ENOENT));
		return EXIT_ERR;
	}
	if (cfg_parse(argv[optind], &cfg)) {
		cfg_free(&cfg);
		return EXIT_ERR;
	}
	/* Everything checked on the model before any change. */
	if (model_build(&pre, &cfg, prune))
		goto out_pre;
	nr = plan_raise(&pre, &wr);
	if (dry) {
		nw = plan(&pre, &w);
		for (i = 0; i < nr; i++)
			print_write(&pre, &wr[i]);
		for (i = 0; i < pre.n; i++)
			if (!pre.nodes[i].exists)
				print_node("create", pre.nodes[i].path);
		for (i = 0; i < nw; i++)
			print_write(&pre, &w[i]);
		for (i = pre.n - 1; i >= 0; i--)
			if (pre.nodes[i].prune)
				print_node("rm", pre.nodes[i].path);
		ret = EXIT_OK;
		goto out_pre;
	}
	done = do_writes(&pre, wr, nr);
	if (done < nr) {
		undo(&pre, wr, done);
		goto out_pre;
	}
	for (i = 0; i < pre.n; i++) {
		char path[4096];

		if (pre.nodes[i].exists)
			continue;
		group_dir(pre.nodes[i].path, path, sizeof(path));
		if (mkdir(path, 0755)) {
			err_msg("create %s: %s", pre.nodes[i].path,
				strerror(errno));
			rmdir_new(&pre);	/* the ones not made: ENOENT */
			undo(&pre, wr, nr);
			goto out_pre;
		}
	}
	/* Now with the new groups' real shares (and the raised caps). */
	if (model_build(&m, &cfg, prune)) {
		rmdir_new(&pre);
		undo(&pre, wr, nr);
		goto out;
	}
	nw = plan(&m, &w);
	done = do_writes(&m, w, nw);
	if (done < nw) {
		undo(&m, w, done);
		rmdir_new(&pre);
		undo(&pre, wr, nr);
		goto out;
	}
	ret = EXIT_OK;
	if (prune) {
		struct node **v = xmalloc(m.n * sizeof(*v));
		int nv = 0;

		for (i = 0; i < m.n; i++)
			if (m.nodes[i].prune)
				v[nv++] = &m.nodes[i];
		qsort(v, nv, sizeof(*v), by_depth_desc);
		for (i = 0; i < nv; i++) {
			char path[4096];

			group_dir(v[i]->path, path, sizeof(path));
			if (rmdir(path) && errno != ENOENT) {
				err_msg("rm %s: %s", v[i]->path,
					strerror(errno));
				ret = EXIT_ERR;
			}
		}
		free(v);
	}
out:
	model_free(&m);
out_pre:
	free(w);
	free(wr);
	model_free(&pre);
	cfg_free(&cfg);
	return ret;
}

static int dump_one(const char *g, int depth, void *arg)
{
	struct rg_group_shares gs;
	int i, f, caps[C_NR];

	if (read_shares(g, &gs)) {
		if (errno == ENOENT && depth)
			return 0;
		err_msg("group %s: %s", g, strerror(errno));
		return -1;
	}
	if (read_caps(g, caps)) {
		if (errno != ENOENT || !group_exists(g)) {
			if (errno == ENOENT && depth)
				return 0;	/* gone meanwhile */
			err_msg("group %s: %s", g, strerror(errno));
			return -1;
		}
		/* The group without the files: a module without caps. */
		caps[C_DESC] = RG_CAP_MAX;
		caps[C_DEPTH] = RG_CAP_MAX;
	}
	cfg_put_escaped(g, stdout);
	for (i = 0; i < C_NR; i++)
		if (caps[i] != RG_CAP_MAX)
			printf(" %s=%d", cap_names[i], caps[i]);
	for (i = 0; i < gs.n; i++) {
		const char *sep = ":";

		for (f = 0; f < F_NR; f++) {
			char v[32];

			if (gs.s[i].val[f] == RG_UNSUPPORTED)
				continue;	/* not writable: not dumped */
			if (*sep == ':')
				printf(" %s", gs.s[i].res);
			format_value(gs.s[i].val[f], v, sizeof(v));
			printf("%s%s=%s", sep, field_names[f], v);
			sep = ",";
		}
	}
	putchar('\n');
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	int ret;

	if (argc != 1)
		return usage_error("usage: rgctl dump");
	if (!group_exists("/")) {
		err_msg("%s: %s (is res_groups.ko loaded?)", rg_root,
			strerror(ENOENT));
		return EXIT_ERR;
	}
	printf("# rgctl dump: the resource group tree; rgctl apply restores it.\n"
	       "# GROUP [max_descendants=N] [max_depth=N] [RES:min_shares=N,max_shares=N,child_shares_divisor=N]...\n");
	ret = walk_tree("/", 1, dump_one, NULL);
	if (fflush(stdout) || ferror(stdout)) {
		err_msg("standard output: %s", strerror(errno));
		return EXIT_ERR;
	}
	return ret ? EXIT_ERR : EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A model of the rules, run against the module (docs/res_groups.rst,
 * "Shares", "Validating a write", "Absolute amounts", "Resets", "Tasks",
 * "The configfs interface", "The numtasks controller").
 *
 * User space keeps the group tree and what every group's files show
 * (numtasks' min, max and divisor), and makes random operations from
 * fixed seeds: mkdir at random depths, rmdir, shares writes with values
 * of every class (symbolic, 0, 1, small, exactly at and one off every
 * bound, large, INT_MAX, INT_MIN), and total_numtasks writes. Whether a
 * write is refused is decided by the conditions of rule 4, with usage,
 * unused and children_max taken from their definitions over the shares
 * shown (no running count of them is kept: the steps by which shares.c
 * keeps them, 5 and 6, are not repeated here). After each operation:
 * - the result (0 or the exact errno) is the model's, and every group's
 *   shares read back as the model's, its numtasks limit and guarantee as
 *   "Absolute amounts" gives them from those shares;
 * - the invariants hold over what the files show, whatever the steps
 *   were: in every group the children's min_shares add up to at most the
 *   divisor, each child's max_shares is at most it, the children's
 *   guarantees add up to at most the group's guarantee (check_invariants);
 * - unused is exactly the divisor less the children's min_shares, and
 *   children_max what the children show: no file shows them, so each
 *   group is probed by the writes they decide, the largest min_shares
 *   increase a child may take and the smallest divisor the group may
 *   take, and left as it was (probe_internal says how).
 * The fork model adds tasks: forks into chosen groups must succeed or
 * fail with EAGAIN exactly as the effective-use rule says, with moves,
 * kills, shares writes and rmdir in between; every group's held, maxheld
 * (a refused fork raises none, not even below the ancestor that refused
 * it) and failcnt are the model's.
 *
 * The seeds are fixed, so what they reach is too, and it is checked:
 * on every seed, a shares write that each condition of rule 4 (a, b, c,
 * d's divisor < 1 and d's divisor < usage, e, f) refuses on its own, so
 * that a kernel without that one check would take it, and a mkdir one
 * level too deep. The fork model starts, on every seed, with fixed forks
 * that are refused at an ancestor, with and without raising its
 * effective use.
 *
 * Tiers: the full tier runs every seed, 260 operations of the shares
 * test and 130 of the fork test. RG_TIER=quick runs seed_2 alone (the
 * four tests of seed_1 and seed_3 skip), 130 and 15 operations: what it
 * reaches is still checked, all of the above; its shares test probes
 * unused and children_max of every group after every 10th operation and
 * the last, and in between those of the groups the operation can change
 * (the probes are most of an operation's cost).
 *
 * Each run prints its seed; a failure prints every operation of the run
 * up to the divergence. To replay one sequence:
 *   RG_MODEL_SEED=<seed> [RG_MODEL_OPS=<n>] ./test_model
 * (the seed replaces the first variant's, with the full tier's number
 * of operations, the other variants skip; n >= 1 replaces the number of
 * operations of both tests; with either set, what the run reached is
 * printed, not checked).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define TOTAL "/sys/module/rg_numtasks/parameters/total_numtasks"
#define DONT_CARE	(-3)
#define UNSUPPORTED	(-2)
#define UNCHANGED	(-1)
#define MAX_DEPTH	5
#define MAXG		16	/* groups at most in the model, root included */
#define MAXKIDS		48	/* live sleeping children in the fork model */
#define LOGSIZE		1048576
#define FIRST_SEED	0x5eed0001ULL

/* The conditions of rule 4, rule d's two apart (only[] counts them). */
enum { RA, RB, RC, RD_ONE, RD_USAGE, RE, RF, NRULES };
static const char * const rule_name[NRULES] = {
	"a", "b", "c", "d (divisor < 1)", "d (divisor < usage)", "e", "f",
};

struct mgroup {
	bool used;
	int parent;		/* index; -1 for the root */
	int depth;
	char path[128];		/* "" for the root */
	int min, max, div;	/* what shares shows */
	int own;		/* tasks of ours in the group itself */
	long failcnt;		/* numtasks forks refused here */
	long long maxheld;	/* the highest held (the fork model) */
};

struct model {
	struct mgroup g[MAXG];
	long long total;	/* total_numtasks */
	unsigned long long rng;
	int names;		/* names given so far */
	bool tasks;		/* the fork model: held, maxheld, failcnt checked */
	char *log;		/* every operation so far, one per line */
	size_t loglen;
	char why[1024];		/* the divergence */
	/* What the run reached, for its summary: */
	int accepted;		/* shares writes the model accepted */
	int rejected[6];	/* ... and refused, by rule 4a-4f (the first) */
	int only[NRULES];	/* ... refused by that rule alone */
	int emlink;		/* mkdir one too deep */
	long probes;		/* writes that observed unused, children_max */
	unsigned int probe_mask;	/* the groups check_state probes */
	long wide;		/* amounts checked whose product needed > 31 bits */
	int forks_ok, forks_refused;
	int refused_above;	/* forks refused at an ancestor only */
	int refused_no_raise;	/* ... where the fork left its eff as it was */
};

static struct {
	pid_t pid[MAXKIDS];
	int grp[MAXKIDS];
	int n;
} kids;

/* splitmix64: the same sequence on every libc. */
static unsigned long long rnd64(struct model *m)
{
	unsigned long long z = (m->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n-1 */
static int rnd(struct model *m, int n)
{
	return (int)(rnd64(m) % (unsigned long long)n);
}

/* lo .. hi, both included */
static long long rnd_range(struct model *m, long long lo, long long hi)
{
	if (hi <= lo)
		return lo;
	return lo + (long long)(rnd64(m) % (unsigned long long)(hi - lo + 1));
}

static void logf_(struct model *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (m->loglen >= LOGSIZE - 256)
		return;
	va_start(ap, fmt);
	n = vsnprintf(m->log + m->loglen, LOGSIZE - m->loglen, fmt, ap);
	va_end(ap);
	if (n > 0)
		m->loglen = m->loglen + n < LOGSIZE ? m->loglen + n : LOGSIZE - 1;
}

static void dump_log(struct model *m)
{
	char *line, *save;

	fprintf(stderr, "# operations of this run, in order:\n");
	for (line = strtok_r(m->log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, "#   %s\n", line);
}

static const char *ename(int err)
{
	static char buf[32];

	switch (err) {
	case 0: return "0";
	case -EINVAL: return "-EINVAL";
	case -EMLINK: return "-EMLINK";
	case -ENOTEMPTY: return "-ENOTEMPTY";
	case -EAGAIN: return "-EAGAIN";
	case -EEXIST: return "-EEXIST";
	case -ENOENT: return "-ENOENT";
	case -EBUSY: return "-EBUSY";
	case -ENOMEM: return "-ENOMEM";
	}
	snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

static int pos(int v)
{
	return v > 0 ? v : 0;
}

static void model_init(struct model *m, unsigned long long seed, bool tasks)
{
	memset(m->g, 0, sizeof(m->g));
	m->rng = seed;
	m->names = 0;
	m->tasks = tasks;
	m->loglen = 0;
	m->log[0] = '\0';
	m->why[0] = '\0';
	m->total = 4194304;	/* PID_MAX_LIMIT: the default */
	m->probe_mask = ~0u;
	m->g[0] = (struct mgroup){
		.used = true, .parent = -1, .depth = 0, .path = "",
		.min = DONT_CARE, .max = DONT_CARE, .div = 100,
	};
}

/* A bit for each group in use (root: bit 0). */
static unsigned int used_mask(struct model *m)
{
	unsigned int mask = 0;
	int i;

	for (i = 0; i < MAXG; i++)
		if (m->g[i].used)
			mask |= 1u << i;
	return mask;
}

static int nchildren(struct model *m, int gi)
{
	int i, n = 0;

	for (i = 1; i < MAXG; i++)
		n += m->g[i].used && m->g[i].parent == gi;
	return n;
}

static int ngroups(struct model *m)
{
	int i, n = 0;

	for (i = 0; i < MAXG; i++)
		n += m->g[i].used;
	return n;
}

/*
 * The internal values, from their definitions ("Shares") over the shares
 * the groups show, never kept: usage, the sum of the children's
 * min_shares (each counted as 0 if negative); unused, the divisor less
 * usage; children_max, the largest max_shares of the children (0 if
 * none or all DONT_CARE).
 */
static long long usage_of(struct model *m, int gi)
{
	long long sum = 0;
	int i;

	for (i = 1; i < MAXG; i++)
		if (m->g[i].used && m->g[i].parent == gi)
			sum += pos(m->g[i].min);
	return sum;
}

static long long unused_of(struct model *m, int gi)
{
	return m->g[gi].div - usage_of(m, gi);
}

static int cmax_of(struct model *m, int gi)
{
	int i, c = 0;

	for (i = 1; i < MAXG; i++)
		if (m->g[i].used && m->g[i].parent == gi && m->g[i].max > c)
			c = m->g[i].max;
	return c;
}

/* The first of the deepest groups. */
static int deepest(struct model *m)
{
	int i, d = 0;

	for (i = 1; i < MAXG; i++)
		if (m->g[i].used && m->g[i].depth > m->g[d].depth)
			d = i;
	return d;
}

/* A random used group (any if root_ok, else not the root); -1 if none. */
static int pick_group(struct model *m, bool root_ok)
{
	int idx[MAXG], i, n = 0;

	for (i = root_ok ? 0 : 1; i < MAXG; i++)
		if (m->g[i].used)
			idx[n++] = i;
	return n ? idx[rnd(m, n)] : -1;
}

/*
 * "Validating a write": the result of writing req (UNCHANGED where not
 * given) to group gi, 0 or -EINVAL; on 0, commits it to the model.
 */
static int model_write(struct model *m, int gi, const int req[3])
{
	struct mgroup *s = &m->g[gi];
	struct mgroup *p = s->parent >= 0 ? &m->g[s->parent] : NULL;
	int fmin = req[0] == UNCHANGED ? s->min : req[0];
	int fmax = req[1] == UNCHANGED ? s->max : req[1];
	int fdiv = req[2] == UNCHANGED ? s->div : req[2];
	long long usage = usage_of(m, gi);
	long long increase = (long long)fmin - pos(s->min);
	bool why[NRULES];
	int i, n = 0;

	why[RA] = p && fmin >= 0 && increase > unused_of(m, s->parent);
	why[RB] = p && fmax >= 0 && fmax > p->div;
	why[RC] = !(fmin == DONT_CARE || fmin >= 0) ||
		  !(fmax == DONT_CARE || fmax >= 0);
	why[RD_ONE] = fdiv < 1;
	why[RD_USAGE] = fdiv < usage;
	why[RE] = fdiv < cmax_of(m, gi);
	why[RF] = fmin >= 0 && fmax >= 0 && fmin > fmax;
	for (i = 0; i < NRULES; i++)
		n += why[i];
	if (n) {
		/* The first rule, a-f; and what only one condition refused. */
		for (i = 0; !why[i]; i++)
			;
		m->rejected[i <= RD_ONE ? i : i - 1]++;
		for (i = 0; n == 1 && i < NRULES; i++)
			m->only[i] += why[i];
		return -EINVAL;
	}
	/* F is what the group shows now; unused and children_max follow. */
	s->div = fdiv;
	s->min = fmin;
	s->max = fmax;
	m->accepted++;
	return 0;
}

/* "Absolute amounts", numtasks: limit and guarantee of every group. */
static void model_abs(struct model *m, long long *lim, long long *gua)
{
	int i, d;

	lim[0] = m->total;
	gua[0] = m->total;
	/* Parents first: by depth. */
	for (d = 1; d <= MAX_DEPTH; d++) {
		for (i = 1; i < MAXG; i++) {
			struct mgroup *c = &m->g[i], *p;

			if (!c->used || c->depth != d)
				continue;
			p = &m->g[c->parent];
			m->wide += (c->max >= 0 && lim[c->parent] * c->max > INT_MAX) +
				   (c->min >= 0 && gua[c->parent] * c->min > INT_MAX);
			lim[i] = c->max >= 0 ? lim[c->parent] * c->max / p->div :
					       lim[c->parent];
			gua[i] = c->min >= 0 ? gua[c->parent] * c->min / p->div : 0;
		}
	}
}

/* held: own tasks plus those of every descendant. */
static long long model_held(struct model *m, int gi)
{
	long long h = m->g[gi].own;
	int i;

	for (i = 1; i < MAXG; i++)
		if (m->g[i].used && m->g[i].parent == gi)
			h += model_held(m, i);
	return h;
}

/*
 * Each group's maxheld raised to its held now. Called where a group's
 * held peaks: a fork (with us in the group) and a move (each group
 * between the two and their common ancestor only rises or only falls).
 */
static void note_peak(struct model *m)
{
	int i;

	for (i = 1; i < MAXG; i++)
		if (m->g[i].used && model_held(m, i) > m->g[i].maxheld)
			m->g[i].maxheld = model_held(m, i);
}

/* Effective use: own tasks plus, per child, max(held, guarantee). */
static long long model_eff(struct model *m, int gi, const long long *gua)
{
	long long e = m->g[gi].own, h;
	int i;

	for (i = 1; i < MAXG; i++) {
		if (!m->g[i].used || m->g[i].parent != gi)
			continue;
		h = model_held(m, i);
		e += h > gua[i] ? h : gua[i];
	}
	return e;
}

/* The value of ",key=" (or "res=...,key=" at its start) in line; LLONG_MIN if none. */
static long long field(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), ",%s=", key);
	p = strstr(line, pat);
	if (!p)
		return LLONG_MIN;
	return strtoll(p + strlen(pat), NULL, 10);
}

/* What a group's files show: its shares, and numtasks' limit and guarantee. */
struct shown {
	int min, max, div;
	long long lim, gua;
};

/* m->why from a format; returns -1. */
static int diverged(struct model *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Every group's shares, limit, guarantee (and, in the fork model, held,
 * maxheld and failcnt) read back as the model says, into sh; total_numtasks too.
 * 0, or -1 with m->why set.
 */
static int check_files(struct model *m, struct shown *sh)
{
	long long lim[MAXG], gua[MAXG];
	char p[PATH_MAX], buf[4096], want[256];
	ssize_t r;
	int i;

	r = rg_read(TOTAL, buf, sizeof(buf));
	if (r < 0 || atoll(buf) != m->total)
		return diverged(m, "total_numtasks reads %.40s (%s), model %lld",
				r < 0 ? "" : buf, ename(r < 0 ? r : 0),
				m->total);
	model_abs(m, lim, gua);
	for (i = 0; i < MAXG; i++) {
		struct mgroup *g = &m->g[i];
		long long v;

		if (!g->used)
			continue;
		snprintf(want, sizeof(want),
			 "res=numtasks,min_shares=%d,max_shares=%d,child_shares_divisor=%d\n",
			 g->min, g->max, g->div);
		r = rg_read(rg_path(p, sizeof(p), g->path, "shares"), buf,
			    sizeof(buf));
		if (r < 0 || strcmp(buf, want) ||
		    sscanf(buf, "res=numtasks,min_shares=%d,max_shares=%d,child_shares_divisor=%d",
			   &sh[i].min, &sh[i].max, &sh[i].div) != 3)
			return diverged(m, "/%s shares: read \"%.200s\" (%s), model \"%.200s\"",
					g->path, r < 0 ? "" : buf,
					ename(r < 0 ? r : 0), want);
		r = rg_read(rg_path(p, sizeof(p), g->path, "stats"), buf,
			    sizeof(buf));
		if (r < 0 || strncmp(buf, "res=numtasks,", 13))
			return diverged(m, "/%s stats: read \"%.200s\" (%s)",
					g->path, r < 0 ? "" : buf,
					ename(r < 0 ? r : 0));
		sh[i].lim = field(buf, "limit");
		if (sh[i].lim != lim[i])
			return diverged(m, "/%s limit=%lld, model abs_max %lld (stats \"%.200s\")",
					g->path, sh[i].lim, lim[i], buf);
		sh[i].gua = field(buf, "guarantee");
		if (sh[i].gua != gua[i])
			return diverged(m,
					"/%s guarantee=%lld, model abs_min %lld (stats \"%.200s\")",
					g->path, sh[i].gua, gua[i], buf);
		if (i == 0)
			continue;	/* the root holds the whole system */
		v = field(buf, "held");
		if (v != model_held(m, i))
			return diverged(m, "/%s held=%lld, model %lld (stats \"%.200s\")",
					g->path, v, model_held(m, i), buf);
		v = field(buf, "maxheld");
		if (m->tasks && v != g->maxheld)
			return diverged(m, "/%s maxheld=%lld, model %lld (stats \"%.200s\")",
					g->path, v, g->maxheld, buf);
		v = field(buf, "failcnt");
		if (m->tasks && v != g->failcnt)
			return diverged(m, "/%s failcnt=%lld, model %ld (stats \"%.200s\")",
					g->path, v, g->failcnt, buf);
	}
	return 0;
}

/* A value a min_shares or max_shares may keep: DONT_CARE or >= 0 (rule c). */
static bool shown_ok(int v)
{
	return v == DONT_CARE || v >= 0;
}

/*
 * The invariants that follow from the definitions ("Shares", "Absolute
 * amounts", numtasks), over what the files show (sh), whatever the
 * operations were: for every group P, its children's min_shares (each 0
 * if negative) add up to at most P's divisor, and each child's
 * max_shares is at most that divisor; the children's guarantees add up
 * to at most P's guarantee, and each child's limit is at most P's
 * limit. Every group shows values no rule refuses (c, d's divisor >= 1,
 * f) and a guarantee at most its limit; the root's limit and guarantee
 * are total_numtasks. 0, or -1 with m->why set.
 */
static int check_invariants(struct model *m, const struct shown *sh)
{
	int i, c;

	for (i = 0; i < MAXG; i++) {
		const char *path = m->g[i].path;
		long long sum = 0, gsum = 0;

		if (!m->g[i].used)
			continue;
		if (!shown_ok(sh[i].min) || !shown_ok(sh[i].max) ||
		    sh[i].div < 1 ||
		    (sh[i].min >= 0 && sh[i].max >= 0 && sh[i].min > sh[i].max))
			return diverged(m,
					"invariant: /%s shows min_shares %d, max_shares %d, divisor %d",
					path, sh[i].min, sh[i].max, sh[i].div);
		if (sh[i].gua > sh[i].lim)
			return diverged(m, "invariant: /%s guarantee %lld above its limit %lld",
					path, sh[i].gua, sh[i].lim);
		if (i == 0 && (sh[i].lim != m->total || sh[i].gua != m->total))
			return diverged(m,
					"invariant: the root's limit %lld and guarantee %lld, total_numtasks %lld",
					sh[i].lim, sh[i].gua, m->total);
		for (c = 1; c < MAXG; c++) {
			if (!m->g[c].used || m->g[c].parent != i)
				continue;
			sum += pos(sh[c].min);
			gsum += sh[c].gua;
			if (sh[c].max > sh[i].div)
				return diverged(m,
						"invariant: /%s max_shares %d above its parent's divisor %d",
						m->g[c].path, sh[c].max,
						sh[i].div);
			if (sh[c].lim > sh[i].lim)
				return diverged(m,
						"invariant: /%s limit %lld above its parent's %lld",
						m->g[c].path, sh[c].lim,
						sh[i].lim);
		}
		if (sum > sh[i].div)
			return diverged(m,
					"invariant: /%s children's min_shares add up to %lld, above its divisor %d",
					path, sum, sh[i].div);
		if (gsum > sh[i].gua)
			return diverged(m,
					"invariant: /%s children's guarantees add up to %lld, above its guarantee %lld",
					path, gsum, sh[i].gua);
	}
	return 0;
}

/* A probe's write w to gi's shares must give want. 0, or -1 with m->why. */
static int probe(struct model *m, int gi, const char *w, int want,
		 const char *what)
{
	char p[PATH_MAX];
	int got;

	got = rg_write(rg_path(p, sizeof(p), m->g[gi].path, "shares"), w);
	m->probes++;
	if (got == want)
		return 0;
	return diverged(m, "%s: \"%s\" to /%s: %s, want %s", what, w,
			m->g[gi].path, ename(got), ename(want));
}

/*
 * unused and children_max are in no file: they decide which writes are
 * refused, so they are observed that way, for every group P, each probe
 * leaving P as it was (what the next operation's reads check). usage is
 * the sum of the children's min_shares that the files show (each 0 if
 * negative), unused the divisor less usage, children_max the largest
 * max_shares shown by a child (or 0).
 * - unused, if P has a child C: the largest min_shares C may take is
 *   C's own (0 if negative) plus P's unused, by rule a. With max_shares
 *   DONT_CARE in the same write no other rule applies (C's divisor
 *   stays, and the invariants above bound it), so one more is refused
 *   and that one accepted: P's unused is exactly what the definition
 *   says. Then C's min_shares and max_shares are written back.
 * - usage and children_max: the smallest divisor P may take is
 *   max(1, usage, children_max) (rules d and e): one less is refused,
 *   that one accepted, then P's divisor is written back. This sees
 *   children_max whenever it is above usage and 1, and, in a group
 *   without children (whose unused no child can take), usage of at
 *   most 1.
 * 0, or -1 with m->why set.
 */
static int probe_internal(struct model *m, const struct shown *sh)
{
	char w[160], what[256];
	int i, c, first;

	for (i = 0; i < MAXG; i++) {
		long long usage = 0, unused, x, d;
		int cmax = 0;

		if (!m->g[i].used || !(m->probe_mask & (1u << i)))
			continue;
		first = -1;
		for (c = 1; c < MAXG; c++) {
			if (!m->g[c].used || m->g[c].parent != i)
				continue;
			if (first < 0)
				first = c;
			usage += pos(sh[c].min);
			if (sh[c].max > cmax)
				cmax = sh[c].max;
		}
		unused = sh[i].div - usage;
		if (first >= 0) {
			c = first;
			x = pos(sh[c].min) + unused;
			snprintf(what, sizeof(what),
				 "probe of /%s's unused (%d - usage %lld = %lld) via /%s",
				 m->g[i].path, sh[i].div, usage, unused,
				 m->g[c].path);
			if (x < INT_MAX) {
				snprintf(w, sizeof(w),
					 "res=numtasks,min_shares=%lld,max_shares=-3",
					 x + 1);
				if (probe(m, c, w, -EINVAL, what))
					return -1;
			}
			snprintf(w, sizeof(w),
				 "res=numtasks,min_shares=%lld,max_shares=-3", x);
			if (probe(m, c, w, 0, what))
				return -1;
			snprintf(w, sizeof(w),
				 "res=numtasks,min_shares=%d,max_shares=%d",
				 sh[c].min, sh[c].max);
			if (probe(m, c, w, 0, what))
				return -1;
		}
		d = usage > cmax ? usage : cmax;
		if (d < 1)
			d = 1;
		snprintf(what, sizeof(what),
			 "probe of /%s's smallest divisor max(1, usage %lld, children_max %d)",
			 m->g[i].path, usage, cmax);
		if (d > 1) {
			snprintf(w, sizeof(w),
				 "res=numtasks,child_shares_divisor=%lld", d - 1);
			if (probe(m, i, w, -EINVAL, what))
				return -1;
		}
		snprintf(w, sizeof(w), "res=numtasks,child_shares_divisor=%lld",
			 d);
		if (probe(m, i, w, 0, what))
			return -1;
		if (d != sh[i].div) {
			snprintf(w, sizeof(w),
				 "res=numtasks,child_shares_divisor=%d",
				 sh[i].div);
			if (probe(m, i, w, 0, what))
				return -1;
		}
	}
	return 0;
}

/*
 * After every operation: the files as the model says, the invariants
 * over what they show, and unused and children_max as defined. 0, or -1
 * with m->why set.
 */
static int check_state(struct model *m)
{
	struct shown sh[MAXG];

	if (check_files(m, sh) || check_invariants(m, sh))
		return -1;
	return probe_internal(m, sh);
}

/* A new group under parent; its index, or -1 if the model is full. */
static int model_add(struct model *m, int parent)
{
	char ppath[sizeof(m->g[0].path)];
	int i;

	snprintf(ppath, sizeof(ppath), "%s", m->g[parent].path);
	for (i = 1; i < MAXG; i++) {
		if (m->g[i].used)
			continue;
		m->g[i] = (struct mgroup){
			.used = true, .parent = parent,
			.depth = m->g[parent].depth + 1,
			.min = DONT_CARE, .max = DONT_CARE, .div = 100,
		};
		snprintf(m->g[i].path, sizeof(m->g[i].path), "%.100s%sg%d",
			 ppath, parent ? "/" : "", m->names++);
		return i;
	}
	return -1;
}

/* The mkdir of a new child of parent; 0, or -1 on a divergence. */
static int op_mkdir(struct model *m, int parent)
{
	char path[160], full[PATH_MAX];
	int want = 0, got, gi;

	if (m->g[parent].depth >= MAX_DEPTH) {
		snprintf(path, sizeof(path), "%s%sg%d", m->g[parent].path,
			 parent ? "/" : "", m->names++);
		want = -EMLINK;
		m->emlink++;
		got = rg_mkdir(path);
		logf_(m, "mkdir %s -> %s\n", path, ename(got));
		if (got != want) {
			snprintf(m->why, sizeof(m->why),
				 "mkdir %s (depth %d): %s, docs say %s", path,
				 m->g[parent].depth + 1, ename(got), ename(want));
			return -1;
		}
		if (rg_exists(rg_path(full, sizeof(full), path, NULL))) {
			snprintf(m->why, sizeof(m->why),
				 "a refused mkdir left %s behind", path);
			return -1;
		}
		return 0;
	}
	gi = model_add(m, parent);
	if (gi < 0)
		return 0;
	got = rg_mkdir(m->g[gi].path);
	logf_(m, "mkdir %s -> %s\n", m->g[gi].path, ename(got));
	if (got) {
		snprintf(m->why, sizeof(m->why), "mkdir %s: %s, model 0",
			 m->g[gi].path, ename(got));
		return -1;
	}
	return 0;
}

/*
 * rmdir of gi: ENOTEMPTY with children, else its tasks go to the parent
 * and its shares are reset first (min back to the parent's unused, the
 * parent's children_max recomputed).
 */
static int op_rmdir(struct model *m, int gi)
{
	struct mgroup *g = &m->g[gi];
	int want = nchildren(m, gi) ? -ENOTEMPTY : 0, got, i;

	got = rg_rmdir(g->path);
	logf_(m, "rmdir %s -> %s\n", g->path, ename(got));
	if (got != want) {
		snprintf(m->why, sizeof(m->why), "rmdir %s: %s, model %s",
			 g->path, ename(got), ename(want));
		return -1;
	}
	if (got)
		return 0;
	m->g[g->parent].own += g->own;
	for (i = 0; i < kids.n; i++)
		if (kids.grp[i] == gi)
			kids.grp[i] = g->parent;
	g->used = false;
	return 0;
}

/* One value for a field, from every class the brief of this test lists. */
static int gen_value(struct model *m, int gi, int fld, int fmin_so_far)
{
	struct mgroup *s = &m->g[gi];
	struct mgroup *p = s->parent >= 0 ? &m->g[s->parent] : NULL;
	long long pool[16], usage;
	int n = 0, k, cmax;

	switch (rnd(m, 14)) {
	case 0: return -4;
	case 1: return DONT_CARE;
	case 2: return UNSUPPORTED;
	case 3: return UNCHANGED;
	case 4: return 0;
	case 5: return 1;
	case 6: return (int)rnd_range(m, 2, 150);
	case 7: return (int)rnd_range(m, 1000, INT_MAX - 1);
	case 8: return INT_MAX;
	case 9: return INT_MIN;
	default:
		break;
	}
	/* At a bound, or one off it. */
	switch (fld) {
	case 0:	/* min */
		if (p) {
			pool[n++] = unused_of(m, s->parent) + pos(s->min);
			pool[n++] = p->div;
		}
		if (s->max >= 0)
			pool[n++] = s->max;
		pool[n++] = pos(s->min);
		break;
	case 1:	/* max */
		if (p) {
			pool[n++] = p->div;
			pool[n++] = cmax_of(m, s->parent);
		}
		if (fmin_so_far >= 0)
			pool[n++] = fmin_so_far;
		pool[n++] = pos(s->max);
		break;
	default:	/* divisor */
		usage = usage_of(m, gi);
		cmax = cmax_of(m, gi);
		/*
		 * Often just below (or at) the bound of rule d when e is
		 * lower, and of e when d is: each one on its own.
		 */
		if (usage > cmax && rnd(m, 2))
			return (int)(usage - rnd(m, 2));
		if (cmax > usage && cmax > 1 && rnd(m, 2))
			return cmax - rnd(m, 2);
		pool[n++] = usage;
		pool[n++] = cmax;
		pool[n++] = s->div;
		pool[n++] = 1;
		break;
	}
	k = rnd(m, n);
	pool[k] += rnd(m, 3) - 1;
	if (pool[k] > INT_MAX)
		pool[k] = INT_MAX;
	return (int)pool[k];
}

/* A value the rules likely allow, to let the state wander. */
static int gen_valid(struct model *m, int gi, int fld, int fmin_so_far)
{
	struct mgroup *s = &m->g[gi];
	struct mgroup *p = s->parent >= 0 ? &m->g[s->parent] : NULL;
	long long lo, hi;

	switch (fld) {
	case 0:
		if (rnd(m, 6) == 0)
			return DONT_CARE;
		hi = p ? unused_of(m, s->parent) + pos(s->min) : INT_MAX;
		if (hi > INT_MAX)
			hi = INT_MAX;
		if (s->max >= 0 && s->max < hi)
			hi = s->max;
		/* Small ones too: guarantees that add up past the maxima. */
		if (rnd(m, 3) == 0 && hi > 20)
			hi = 20;
		return (int)rnd_range(m, 0, hi);
	case 1:
		lo = fmin_so_far >= 0 ? fmin_so_far : 0;
		hi = p ? p->div : INT_MAX;
		switch (rnd(m, 6)) {
		case 0:
			return DONT_CARE;
		case 1:
			/* A maximum at or just above the minimum. */
			return (int)rnd_range(m, lo, lo + 2 < hi ? lo + 2 : hi);
		default:
			return (int)rnd_range(m, lo, hi);
		}
	default:
		lo = usage_of(m, gi);
		if (cmax_of(m, gi) > lo)
			lo = cmax_of(m, gi);
		if (lo < 1)
			lo = 1;
		switch (rnd(m, 5)) {
		case 0:
			return (int)lo;
		case 1:
			hi = lo + 200 < INT_MAX ? lo + 200 : INT_MAX;
			return (int)rnd_range(m, lo, hi);
		case 2:
			return (int)rnd_range(m, lo, INT_MAX);
		case 3:
			return (int)rnd_range(m, lo, lo > 1000 ? lo : 1000);
		default:
			return INT_MAX;
		}
	}
}

static const char * const keys[3] = {
	"min_shares", "max_shares", "child_shares_divisor",
};

/*
 * Builds the write for req (given[f]: the key is in the write) into w,
 * keys in random order, the divisor under either name, values in either
 * spelling kstrtoint() takes.
 */
static void format_write(struct model *m, const int req[3],
			 const bool given[3], char *w, size_t size)
{
	int order[4] = { 0, 1, 2, 3 }, i, j, t;	/* 3: res */
	size_t len = 0;

	for (i = 3; i > 0; i--) {
		j = rnd(m, i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	w[0] = '\0';
	for (i = 0; i < 4; i++) {
		int f = order[i];
		const char *key;
		const char *pre = "";

		if (f != 3 && !given[f])
			continue;
		if (len)
			len += snprintf(w + len, size - len, ",");
		if (f == 3) {
			len += snprintf(w + len, size - len, "res=numtasks");
			continue;
		}
		key = f == 2 && rnd(m, 3) == 0 ? "child_total_divisor" : keys[f];
		if (req[f] >= 0 && rnd(m, 10) == 0)
			pre = rnd(m, 2) ? "+" : "00";
		len += snprintf(w + len, size - len, "%s=%s%d", key, pre,
				req[f]);
	}
	if (rnd(m, 2))
		snprintf(w + len, size - len, "\n");
}

/* A random shares write to gi, checked against the model. */
static int op_write(struct model *m, int gi, bool small)
{
	int req[3] = { UNCHANGED, UNCHANGED, UNCHANGED }, want, got, f;
	bool given[3] = { false, false, false };
	bool valid = rnd(m, 100) < (small ? 60 : 40);
	int mask = 1 + rnd(m, 7);
	char w[256], p[PATH_MAX], show[256];
	struct mgroup *s = &m->g[gi];
	struct mgroup *par = s->parent >= 0 ? &m->g[s->parent] : NULL;
	long long usage = usage_of(m, gi), b;
	int cmax = cmax_of(m, gi);
	/* One write in three aims at a bound: 1 divisor, 2 min, 3 max. */
	int aim = small || rnd(m, 3) ? 0 : 1 + rnd(m, 3);
	size_t l;

	if (aim > 1 && !par)
		aim = 1;
	if (aim == 1) {
		/*
		 * The divisor alone. With children: at or one below the
		 * higher of the bounds of rules d (usage) and e
		 * (children_max), which then refuses on its own; now and
		 * then the lower one's. Without: 0 or 1.
		 */
		if (usage > 0 || cmax > 0)
			b = (usage > cmax) == (rnd(m, 4) > 0) ? usage : cmax;
		else
			b = 1;
		given[2] = true;
		req[2] = (int)(b - rnd(m, 2));
	} else if (aim == 2) {
		/*
		 * min alone, at or one above the bound of rule a: all of the
		 * parent's unused (guarantees that add up), or one more.
		 */
		b = unused_of(m, s->parent) + pos(s->min) + rnd(m, 2);
		given[0] = true;
		req[0] = b > INT_MAX ? INT_MAX : (int)b;
	} else if (aim == 3) {
		/*
		 * max alone, one above the bound of rule b (at it only now
		 * and then: a child at its parent's divisor keeps the usage
		 * of rule d below children_max for good).
		 */
		b = (long long)par->div + (rnd(m, 4) > 0);
		given[1] = true;
		req[1] = b > INT_MAX ? INT_MAX : (int)b;
	} else {
		for (f = 0; f < 3; f++) {
			if (!((mask >> f) & 1))
				continue;
			given[f] = true;
			if (small)
				req[f] = valid ? gen_valid(m, gi, f, req[0]) :
					 (int)rnd_range(m, -4, 12);
			else
				req[f] = valid ? gen_valid(m, gi, f, req[0]) :
					 gen_value(m, gi, f, req[0]);
			if (small && valid && req[f] > 12)
				req[f] %= 13;
		}
	}
	format_write(m, req, given, w, sizeof(w));
	want = model_write(m, gi, req);
	got = rg_write(rg_path(p, sizeof(p), m->g[gi].path, "shares"), w);
	snprintf(show, sizeof(show), "%s", w);
	l = strlen(show);
	if (l && show[l - 1] == '\n')
		snprintf(show + l - 1, sizeof(show) - l + 1, "\\n");
	logf_(m, "echo '%s' > /%s/shares -> %s\n", show, m->g[gi].path,
	      ename(got));
	if (got != want) {
		snprintf(m->why, sizeof(m->why),
			 "write \"%s\" to /%s/shares: %s, model %s", show,
			 m->g[gi].path, ename(got), ename(want));
		return -1;
	}
	return 0;
}

/* A total_numtasks write: valid values at or above the tasks counted, and bad ones. */
static int op_total(struct model *m)
{
	static const char * const bad[] = {
		"0", "-1", "-3", "-2147483648", "2147483648",
	};
	static const long long good[] = {
		1000, 4194304, 999983, 65536, 123457, INT_MAX, INT_MAX - 1,
		1000000007 / 3,
	};
	char v[32];
	int want, got;
	long long held = rg_get("", "stats", "numtasks", "held");

	if (rnd(m, 3) == 0) {
		snprintf(v, sizeof(v), "%s", bad[rnd(m, ARRAY_SIZE(bad))]);
		want = -EINVAL;
	} else {
		long long t = good[rnd(m, ARRAY_SIZE(good))];

		/* Well above the tasks counted: kernel threads come and go. */
		if (t < held + 200)
			t = 4194304;
		snprintf(v, sizeof(v), "%lld", t);
		want = 0;
	}
	got = rg_write(TOTAL, v);
	logf_(m, "echo %s > total_numtasks -> %s\n", v, ename(got));
	if (got != want) {
		snprintf(m->why, sizeof(m->why),
			 "total_numtasks=%s: %s, model %s", v, ename(got),
			 ename(want));
		return -1;
	}
	if (!got)
		m->total = atoll(v);
	return 0;
}

FIXTURE(model) {
	struct model m;
	bool skip;	/* the variant does not run: nothing loaded */
};

/*
 * ops: the operations of shares_and_amounts (forks_follow_effective_use
 * makes half as many); quick_ops and quick_fork_ops: those of each test
 * in the quick tier, where only seed_2 runs (the others skip). seed_2
 * is the full seed that reaches every condition of rule 4 alone in the
 * fewest operations (124); seed_1 and seed_3 need 260 and 128.
 */
FIXTURE_VARIANT(model) {
	unsigned long long seed;
	int ops, quick_ops, quick_fork_ops;
};

FIXTURE_VARIANT_ADD(model, seed_1) { .seed = FIRST_SEED, .ops = 260 };

FIXTURE_VARIANT_ADD(model, seed_2) {
	.seed = 0x5eed0002, .ops = 260, .quick_ops = 130, .quick_fork_ops = 15,
};

FIXTURE_VARIANT_ADD(model, seed_3) { .seed = 0xc0ffee11, .ops = 260 };

/*
 * The seed of a variant's run and its number of operations (@full, or
 * @quick in the quick tier): or RG_MODEL_SEED for the first variant
 * (then @full), RG_MODEL_OPS (-1 if that is not a number >= 1). 0: the
 * run skips, *skip says why. *fixed (unless NULL): neither is set, the
 * run is the variant's own.
 */
static unsigned long long pick_seed(unsigned long long seed, int full,
				    int quick, int *ops, bool *fixed,
				    const char **skip)
{
	const char *s = getenv("RG_MODEL_SEED"), *n = getenv("RG_MODEL_OPS");
	char *end;
	long v;

	*ops = s ? full : rg_scaled(full, quick);
	if (fixed)
		*fixed = !s && !n;
	*skip = s ? "RG_MODEL_SEED replays the first variant only" :
		    "the quick tier (RG_TIER=quick) runs seed_2 only";
	if (s ? seed != FIRST_SEED : !*ops)
		return 0;
	if (n) {
		errno = 0;
		v = strtol(n, &end, 10);
		*ops = errno || end == n || *end || v < 1 || v > INT_MAX ?
		       -1 : (int)v;
	}
	return s ? strtoull(s, NULL, 0) : seed;
}

FIXTURE_SETUP(model)
{
	const char *skip;
	int ops;

	/* A variant that skips loads nothing: the quick tier skips two. */
	self->skip = !pick_seed(variant->seed, variant->ops,
				variant->quick_ops, &ops, NULL, &skip);
	if (self->skip)
		return;
	/* Our sleeping children die with us, and we with the harness. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	rg_remove_all_groups();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	self->m.log = malloc(LOGSIZE);
	ASSERT_NE(NULL, self->m.log);
	kids.n = 0;
}

FIXTURE_TEARDOWN(model)
{
	int i;

	if (self->skip)
		return;
	for (i = 0; i < kids.n; i++)
		rg_kill(kids.pid[i]);
	kids.n = 0;
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
	free(self->m.log);
}

/* What the run reached: writes accepted and refused by each rule. */
static void log_reach(struct __test_metadata *_metadata, struct model *m)
{
	TH_LOG("shares writes: %d accepted; refused by rule a %d, b %d, c %d, d %d, e %d, f %d",
	       m->accepted, m->rejected[0], m->rejected[1], m->rejected[2],
	       m->rejected[3], m->rejected[4], m->rejected[5]);
	TH_LOG("by that rule alone: a %d, b %d, c %d, d %d (< 1) + %d (< usage), e %d, f %d",
	       m->only[RA], m->only[RB], m->only[RC], m->only[RD_ONE],
	       m->only[RD_USAGE], m->only[RE], m->only[RF]);
	TH_LOG("%ld amounts checked whose product needed over 31 bits", m->wide);
	TH_LOG("%ld probe writes observed unused and children_max", m->probes);
}

/* After the random operations: the log and where @r (0: none) diverged. */
static void log_divergence(struct __test_metadata *_metadata,
			   struct model *m, unsigned long long seed, int i,
			   int r)
{
	if (!r)
		return;
	dump_log(m);
	TH_LOG("seed 0x%llx diverged at operation %d: %s", seed, i - 1,
	       m->why);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * mkdir, rmdir, shares writes of every value class (root too) and
 * total_numtasks writes; the whole state read back after each.
 */
TEST_F_TIMEOUT(model, shares_and_amounts, 90)
{
	struct model *m = &self->m;
	int ops, i, r = 0, counts[4] = { 0 };
	unsigned long long seed;
	double t0 = now();
	const char *skip;
	bool fixed;

	seed = pick_seed(variant->seed, variant->ops, variant->quick_ops, &ops,
			 &fixed, &skip);
	if (!seed)
		SKIP(return, "%s", skip);
	ASSERT_LT(0, ops) TH_LOG("RG_MODEL_OPS must be a number >= 1");
	model_init(m, seed, false);
	TH_LOG("seed 0x%llx, %d operations", seed, ops);
	ASSERT_EQ(0, check_state(m)) TH_LOG("%s", m->why);
	for (i = 0; i < ops && !r; i++) {
		int k = rnd(m, 100), gi;
		/*
		 * The quick tier probes every group after every 10th operation
		 * and the last, and in between the groups whose unused or
		 * children_max the operation can change (itself and its
		 * parent; a new group).
		 */
		bool all = !rg_quick() || i % 10 == 9 || i == ops - 1;

		logf_(m, "%d: ", i);
		if (k < 18) {
			/* One in six under the deepest group: EMLINK too. */
			gi = rnd(m, 6) ? pick_group(m, true) : deepest(m);
			/* Full: only the refused kind of mkdir. */
			if (ngroups(m) >= MAXG - 1 && m->g[gi].depth < MAX_DEPTH) {
				logf_(m, "(model full)\n");
				continue;
			}
			m->probe_mask = all ? ~0u : (1u << gi) | ~used_mask(m);
			r = op_mkdir(m, gi);
			counts[0]++;
		} else if (k < 28) {
			gi = pick_group(m, false);
			if (gi < 0) {
				logf_(m, "(no group)\n");
				continue;
			}
			m->probe_mask = all ? ~0u : 1u << m->g[gi].parent;
			r = op_rmdir(m, gi);
			counts[1]++;
		} else if (k < 95) {
			/* The root one time in eight. */
			gi = pick_group(m, rnd(m, 8) == 0 ? true : false);
			if (gi < 0 || rnd(m, 8) == 0)
				gi = 0;
			m->probe_mask = all ? ~0u : (1u << gi) |
				(gi ? 1u << m->g[gi].parent : 0);
			r = op_write(m, gi, false);
			counts[2]++;
		} else {
			m->probe_mask = all ? ~0u : 0;
			r = op_total(m);
			counts[3]++;
		}
		if (!r)
			r = check_state(m);
		m->probe_mask = ~0u;
	}
	/* The quick tier's last operation may have been skipped: all again. */
	if (!r && rg_quick())
		r = check_state(m);
	log_divergence(_metadata, m, seed, i, r);
	TH_LOG("%d operations (%d mkdir, %d rmdir, %d shares writes, %d total_numtasks writes)",
	       i, counts[0], counts[1], counts[2], counts[3]);
	TH_LOG("%d groups at the end, %.1f s", ngroups(m), now() - t0);
	log_reach(_metadata, m);
	TH_LOG("%d mkdir one level too deep", m->emlink);
	ASSERT_EQ(0, r);
	if (!fixed)
		return;
	/*
	 * The seeds are fixed, so is what they reach: a write that each
	 * condition of rule 4 refuses on its own (a kernel without that
	 * check would take it), and a mkdir too deep.
	 */
	for (i = 0; i < NRULES; i++) {
		EXPECT_LT(0, m->only[i])
			TH_LOG("no write refused by rule %s alone",
			       rule_name[i]);
	}
	EXPECT_LT(0, m->emlink);
}

/* Fork a sleeping child, in our group now; 0 or -errno. */
static int add_kid(int gi)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	kids.pid[kids.n] = pid;
	kids.grp[kids.n++] = gi;
	return 0;
}

/*
 * A fork into gi: we move there, fork and move back. Refused (EAGAIN,
 * counted in gi's failcnt) if afterwards the effective use of gi or an
 * ancestor (the root aside: the whole system is there) is above its
 * limit.
 */
static int op_fork(struct model *m, int gi)
{
	long long lim[MAXG], gua[MAXG];
	int want = 0, got, a, r;

	r = gi ? rg_move(m->g[gi].path, getpid()) : 0;
	if (r) {
		snprintf(m->why, sizeof(m->why), "moving us to /%s: %s",
			 m->g[gi].path, ename(r));
		return -1;
	}
	m->g[gi].own++;		/* us */
	model_abs(m, lim, gua);
	for (a = gi; a > 0; a = m->g[a].parent) {
		long long before = model_eff(m, a, gua), after;

		m->g[gi].own++;	/* the child, if allowed */
		after = model_eff(m, a, gua);
		m->g[gi].own--;
		if (after <= lim[a])
			continue;
		if (!want && a != gi)
			m->refused_above++;
		if (!want && after == before)
			m->refused_no_raise++;
		want = -EAGAIN;
	}
	got = add_kid(gi);
	logf_(m, "fork in /%s -> %s\n", m->g[gi].path, ename(got));
	/*
	 * The peak: us and the child if allowed (a refused fork raises no
	 * maxheld, not even below the ancestor that refused it).
	 */
	m->g[gi].own += !got;
	note_peak(m);
	m->g[gi].own -= !got;
	r = gi ? rg_move("", getpid()) : 0;
	if (r) {
		snprintf(m->why, sizeof(m->why), "moving us back to /: %s",
			 ename(r));
		return -1;
	}
	m->g[gi].own--;
	if (got != want) {
		snprintf(m->why, sizeof(m->why), "fork in /%s: %s, model %s",
			 m->g[gi].path, ename(got), ename(want));
		return -1;
	}
	if (got) {
		m->g[gi].failcnt++;
		m->forks_refused++;
	} else {
		m->g[gi].own++;
		m->forks_ok++;
	}
	return 0;
}

/* A move of one of our children to gi: never refused. */
static int op_move(struct model *m, int k, int gi)
{
	int got = rg_move(m->g[gi].path, kids.pid[k]);

	logf_(m, "move child %d (in /%s) to /%s -> %s\n", k,
	      m->g[kids.grp[k]].path, m->g[gi].path, ename(got));
	if (got) {
		snprintf(m->why, sizeof(m->why), "move to /%s: %s, model 0",
			 m->g[gi].path, ename(got));
		return -1;
	}
	m->g[kids.grp[k]].own--;
	m->g[gi].own++;
	kids.grp[k] = gi;
	note_peak(m);
	return 0;
}

/* One of our children killed and reaped: it leaves its group. */
static void op_kill(struct model *m, int k)
{
	logf_(m, "kill child %d (in /%s)\n", k, m->g[kids.grp[k]].path);
	rg_kill(kids.pid[k]);
	m->g[kids.grp[k]].own--;
	kids.n--;
	kids.pid[k] = kids.pid[kids.n];
	kids.grp[k] = kids.grp[kids.n];
}

#define FORK_TOTAL	100000

/*
 * The same on every seed, in the tree below (limit 12 and guarantee 12
 * for a, guarantee 4 for a/x and 3 for a/y): forks into a/y until a's
 * effective use is full (a/x's unused guarantee counts), and two more,
 * refused at a; those children moved into a itself, which takes a above
 * its limit, and a fork into a/x, within a/x's guarantee (a's effective
 * use stays as it is), refused at a too. Then they are killed. 0, or -1
 * on a divergence.
 */
static int fixed_forks(struct model *m, int a, int ax, int ay)
{
	int i, r = 0;

	for (i = 0; i < 9 && !r; i++) {
		logf_(m, "fixed: ");
		r = op_fork(m, ay);
		if (!r)
			r = check_state(m);
	}
	for (i = kids.n - 1; i >= 0 && !r; i--) {
		logf_(m, "fixed: ");
		r = op_move(m, i, a);
		if (!r)
			r = check_state(m);
	}
	if (!r) {
		logf_(m, "fixed: ");
		r = op_fork(m, ax);
		if (!r)
			r = check_state(m);
	}
	while (kids.n && !r) {
		logf_(m, "fixed: ");
		op_kill(m, kids.n - 1);
		r = check_state(m);
	}
	return r;
}

/*
 * total_numtasks 100000 and the root's divisor 100000: a root child's
 * max_shares is a number of tasks. A small tree; forks into random
 * groups, moves, kills, small shares writes, and rmdir (tasks go to the
 * parent) and mkdir again.
 */
TEST_F_TIMEOUT(model, forks_follow_effective_use, 60)
{
	/* a, a/x, a/y, a/x/p, b, b/z, a/x/p/q: each one's parent in idx[] */
	static const int tree[] = { 0, 1, 1, 2, 0, 5, 4 };
	/* ... and their first shares: small divisors, guarantees that matter */
	static const int first[][3] = {
		{ 12, 12, 12 }, { 4, 8, 4 }, { 3, DONT_CARE, 100 },
		{ 2, 3, 2 }, { 6, 8, 6 }, { 3, DONT_CARE, 100 },
		{ 1, DONT_CARE, 100 },
	};
	char w[128];
	int ops, i, r = 0, counts[6] = { 0 }, idx[ARRAY_SIZE(tree) + 1];
	struct model *m = &self->m;
	int req[3] = { UNCHANGED, UNCHANGED, FORK_TOTAL };
	unsigned long long seed;
	double t0 = now();
	const char *skip;

	seed = pick_seed(variant->seed, variant->ops / 2,
			 variant->quick_fork_ops, &ops, NULL, &skip);
	if (!seed)
		SKIP(return, "%s", skip);
	ASSERT_LT(0, ops) TH_LOG("RG_MODEL_OPS must be a number >= 1");
	model_init(m, seed ^ 0xf0f0f0f0f0ULL, true);
	TH_LOG("seed 0x%llx, %d operations", seed, ops);
	ASSERT_EQ(0, rg_write(TOTAL, "100000"));
	m->total = FORK_TOTAL;
	ASSERT_EQ(0, rg_set("", "shares",
			    "res=numtasks,child_shares_divisor=100000"));
	ASSERT_EQ(0, model_write(m, 0, req));
	idx[0] = 0;
	for (i = 1; i <= (int)ARRAY_SIZE(tree); i++) {
		idx[i] = model_add(m, idx[tree[i - 1]]);
		ASSERT_EQ(0, rg_mkdir(m->g[idx[i]].path));
	}
	for (i = 1; i <= (int)ARRAY_SIZE(tree); i++) {
		snprintf(w, sizeof(w),
			 "res=numtasks,min_shares=%d,max_shares=%d,child_shares_divisor=%d",
			 first[i - 1][0], first[i - 1][1], first[i - 1][2]);
		ASSERT_EQ(0, model_write(m, idx[i], first[i - 1]));
		ASSERT_EQ(0, rg_set(m->g[idx[i]].path, "shares", w));
	}
	ASSERT_EQ(0, check_state(m)) TH_LOG("%s", m->why);
	r = fixed_forks(m, idx[1], idx[2], idx[3]);
	if (r)
		dump_log(m);
	ASSERT_EQ(0, r) TH_LOG("the fixed forks: %s", m->why);
	/* Whatever the seed: refusals at an ancestor, with and without a raise. */
	ASSERT_LT(0, m->forks_refused);
	ASSERT_LT(0, m->refused_above);
	ASSERT_LT(0, m->refused_no_raise);
	for (i = 0; i < ops && !r; i++) {
		int k = rnd(m, 100), gi;

		logf_(m, "%d: ", i);
		if (k < 35) {
			if (kids.n >= MAXKIDS) {
				op_kill(m, rnd(m, kids.n));
				counts[3]++;
			} else {
				gi = pick_group(m, rnd(m, 10) == 0);
				r = op_fork(m, gi);
				counts[0]++;
			}
		} else if (k < 55) {
			if (!kids.n) {
				logf_(m, "(no child)\n");
				continue;
			}
			/* One draw after the other: the same on every compiler. */
			k = rnd(m, kids.n);
			gi = pick_group(m, true);
			r = op_move(m, k, gi);
			counts[1]++;
		} else if (k < 85) {
			gi = pick_group(m, false);
			r = op_write(m, gi, true);
			counts[2]++;
		} else if (k < 95) {
			if (!kids.n) {
				logf_(m, "(no child)\n");
				continue;
			}
			op_kill(m, rnd(m, kids.n));
			counts[3]++;
		} else {
			/* A leaf goes (its tasks to its parent), a new one comes. */
			gi = pick_group(m, false);
			if (!nchildren(m, gi)) {
				int parent = m->g[gi].parent;

				r = op_rmdir(m, gi);
				counts[4]++;
				if (!r)
					r = check_state(m);
				if (!r) {
					logf_(m, "%d: ", i);
					r = op_mkdir(m, parent);
					counts[5]++;
				}
			} else {
				r = op_rmdir(m, gi);
				counts[4]++;
			}
		}
		if (!r)
			r = check_state(m);
	}
	log_divergence(_metadata, m, seed, i, r);
	TH_LOG("%d operations (%d forks, %d moves, %d shares writes, %d kills, %d rmdir, %d mkdir)",
	       i, counts[0], counts[1], counts[2], counts[3], counts[4],
	       counts[5]);
	TH_LOG("%.1f s", now() - t0);
	log_reach(_metadata, m);
	TH_LOG("forks: %d allowed, %d refused: %d at an ancestor only,",
	       m->forks_ok, m->forks_refused, m->refused_above);
	TH_LOG("%d by a group whose effective use they would not have raised",
	       m->refused_no_raise);
	EXPECT_EQ(0, r);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the shares arithmetic (shares.c; docs/res_groups.rst,
 * "Shares").
 * Built as res_groups_kunit.ko; the suite runs when it is loaded.
 *
 * Besides examples of single writes, walk_keeps_the_invariants drives a
 * tree of shares the way the framework does, and after every step checks
 * what follows from the definitions over the whole tree, not a second
 * copy of shares.c's steps: in every group the children's min_shares add
 * up to at most the divisor, unused is the divisor less that sum, each
 * child's max_shares is at most the divisor, children_max is the largest
 * of them. Which writes are refused is decided by rule 4's conditions,
 * with usage, unused and children_max taken from those definitions; how
 * shares.c keeps unused and children_max (steps 5 and 6) is not
 * repeated, only its result checked. So a step that the docs and the
 * code got wrong alike still fails here. (The absolute amounts are the
 * controllers': test_model checks numtasks' against the same kind of
 * invariants.)
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "shares.c"

#define DC	RES_SHARES_DONT_CARE
#define UNS	RES_SHARES_UNSUPPORTED
#define UNCH	RES_SHARES_UNCHANGED

#define SH(min, max, div, unused_, cmax) {				\
	.min_shares = (min), .max_shares = (max),			\
	.child_shares_divisor = (div), .unused = (unused_),		\
	.children_max = (cmax) }
#define REQ(min, max, div) SH(min, max, div, 0, 0)

static struct res_shares sh(int min, int max, int div, int unused, int cmax)
{
	return (struct res_shares) {
		.min_shares = min, .max_shares = max,
		.child_shares_divisor = div, .unused = unused,
		.children_max = cmax,
	};
}

static struct res_shares req(int min, int max, int div)
{
	return sh(min, max, div, 0, 0);
}

static void defaults_are_dont_care_and_100(struct kunit *test)
{
	struct res_shares s = {}, p = sh(DC, DC, 100, 100, 0);

	rg_shares_init(&s, &p, 3);
	KUNIT_EXPECT_EQ(test, s.min_shares, DC);
	KUNIT_EXPECT_EQ(test, s.max_shares, DC);
	KUNIT_EXPECT_EQ(test, s.child_shares_divisor, 100);
	KUNIT_EXPECT_EQ(test, s.unused, 100);
	KUNIT_EXPECT_EQ(test, s.children_max, 0);
	KUNIT_EXPECT_PTR_EQ(test, s.parent, &p);
	KUNIT_EXPECT_EQ(test, s.depth, 3);
}

static void init_keeps_unsupported_fields(struct kunit *test)
{
	struct res_shares s = { .max_shares = UNS };

	rg_shares_init(&s, NULL, 0);
	KUNIT_EXPECT_EQ(test, s.max_shares, UNS);
	KUNIT_EXPECT_EQ(test, s.min_shares, DC);
}

/* One accepted or rejected write: S, R, P -> errno and F. */
struct shares_case {
	const char *what;
	struct res_shares s, r, p;
	bool root;
	int err;
	int min, max, div, unused;
};

static const struct shares_case cases[] = {
	{ "min within parent's unused", SH(DC, DC, 100, 100, 0),
	  REQ(30, UNCH, UNCH), SH(DC, DC, 100, 50, 0), false,
	  0, 30, DC, 100, 100 },
	{ "4a: min increase beyond parent's unused", SH(DC, DC, 100, 100, 0),
	  REQ(51, UNCH, UNCH), SH(DC, DC, 100, 50, 0), false, -EINVAL },
	{ "4a: only the increase counts", SH(40, DC, 100, 100, 0),
	  REQ(90, UNCH, UNCH), SH(DC, DC, 100, 50, 0), false,
	  0, 90, DC, 100, 100 },
	{ "4b: max above parent's divisor", SH(DC, DC, 100, 100, 0),
	  REQ(UNCH, 101, UNCH), SH(DC, DC, 100, 100, 0), false, -EINVAL },
	{ "max equal to parent's divisor", SH(DC, DC, 100, 100, 0),
	  REQ(UNCH, 100, UNCH), SH(DC, DC, 100, 100, 0), false,
	  0, DC, 100, 100, 100 },
	{ "4c: min -2 when supported", SH(DC, DC, 100, 100, 0),
	  REQ(UNS, UNCH, UNCH), SH(DC, DC, 100, 100, 0), false, -EINVAL },
	{ "4c: max below -3", SH(DC, DC, 100, 100, 0),
	  REQ(UNCH, -4, UNCH), SH(DC, DC, 100, 100, 0), false, -EINVAL },
	{ "write to an unsupported field is ignored", SH(DC, UNS, 100, 100, 0),
	  REQ(UNCH, 50, UNCH), SH(DC, DC, 100, 100, 0), false,
	  0, DC, UNS, 100, 100 },
	{ "4d: divisor 0", SH(DC, DC, 100, 100, 0),
	  REQ(UNCH, UNCH, 0), SH(DC, DC, 100, 100, 0), false, -EINVAL },
	{ "4d: divisor below usage", SH(DC, DC, 100, 40, 0),
	  REQ(UNCH, UNCH, 59), SH(DC, DC, 100, 100, 0), false, -EINVAL },
	{ "divisor equal to usage", SH(DC, DC, 100, 40, 0),
	  REQ(UNCH, UNCH, 60), SH(DC, DC, 100, 100, 0), false,
	  0, DC, DC, 60, 0 },
	{ "divisor change moves unused", SH(DC, DC, 100, 40, 0),
	  REQ(UNCH, UNCH, 1000), SH(DC, DC, 100, 100, 0), false,
	  0, DC, DC, 1000, 940 },
	{ "4e: divisor below children_max", SH(DC, DC, 100, 100, 70),
	  REQ(UNCH, UNCH, 69), SH(DC, DC, 100, 100, 0), false, -EINVAL },
	{ "4f: min above max", SH(DC, DC, 100, 100, 0),
	  REQ(20, 10, UNCH), SH(DC, DC, 100, 100, 0), false, -EINVAL },
	{ "4f: new min above current max", SH(DC, 10, 100, 100, 0),
	  REQ(20, UNCH, UNCH), SH(DC, DC, 100, 100, 0), false, -EINVAL },
	{ "min equal to max", SH(DC, DC, 100, 100, 0),
	  REQ(10, 10, UNCH), SH(DC, DC, 100, 100, 0), false,
	  0, 10, 10, 100, 100 },
	{ "dont_care is always allowed", SH(30, 40, 100, 100, 0),
	  REQ(DC, DC, UNCH), SH(DC, DC, 100, 0, 0), false,
	  0, DC, DC, 100, 100 },
	{ "root: no parent checks", SH(DC, DC, 100, 100, 0),
	  REQ(5000, 6000, 7), SH(0, 0, 0, 0, 0), true,
	  0, 5000, 6000, 7, 7 },
};

static void shares_case_desc(const struct shares_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(shares, cases, shares_case_desc);

static void check_accepts_and_rejects(struct kunit *test)
{
	const struct shares_case *c = test->param_value;
	struct res_shares f, s = c->s;

	KUNIT_ASSERT_EQ(test, rg_shares_check(&s, &c->r, c->root ? NULL : &c->p,
					      &f), c->err);
	/* The check itself never changes the current shares. */
	KUNIT_EXPECT_EQ(test, memcmp(&s, &c->s, sizeof(s)), 0);
	if (c->err)
		return;
	KUNIT_EXPECT_EQ(test, f.min_shares, c->min);
	KUNIT_EXPECT_EQ(test, f.max_shares, c->max);
	KUNIT_EXPECT_EQ(test, f.child_shares_divisor, c->div);
	KUNIT_EXPECT_EQ(test, f.unused, c->unused);
}

/* Commit @min as a write to @s under @p; the check must accept it. */
static void write_min(struct kunit *test, struct res_shares *s,
		      struct res_shares *p, int min)
{
	struct res_shares r = req(min, UNCH, UNCH), f;

	KUNIT_ASSERT_EQ(test, rg_shares_check(s, &r, p, &f), 0);
	rg_shares_commit(s, &f, p);
}

static void commit_moves_min_between_parent_and_child(struct kunit *test)
{
	struct res_shares p = sh(DC, DC, 100, 100, 0);
	struct res_shares s = sh(DC, DC, 100, 100, 0);

	write_min(test, &s, &p, 30);
	KUNIT_EXPECT_EQ(test, p.unused, 70);
	write_min(test, &s, &p, 10);
	KUNIT_EXPECT_EQ(test, p.unused, 90);
	write_min(test, &s, &p, DC);
	KUNIT_EXPECT_EQ(test, p.unused, 100);
	KUNIT_EXPECT_EQ(test, s.min_shares, DC);
}

static void reset_returns_min_to_parent(struct kunit *test)
{
	struct res_shares p = sh(DC, DC, 100, 60, 0);
	struct res_shares s = sh(40, 50, 10, 10, 0);

	s.parent = &p;
	rg_shares_reset(&s, &p);
	KUNIT_EXPECT_EQ(test, p.unused, 100);
	KUNIT_EXPECT_EQ(test, s.min_shares, DC);
	KUNIT_EXPECT_EQ(test, s.max_shares, DC);
	KUNIT_EXPECT_EQ(test, s.child_shares_divisor, 100);
	KUNIT_EXPECT_EQ(test, s.unused, 100);
	KUNIT_EXPECT_PTR_EQ(test, s.parent, &p);
}

static void children_max_ignores_symbolic_values(struct kunit *test)
{
	struct res_shares a = sh(DC, 30, 100, 100, 0);
	struct res_shares b = sh(DC, DC, 100, 100, 0);
	struct res_shares c = sh(DC, UNS, 100, 100, 0);
	int max = 0;

	max = rg_shares_max_of(max, &b);
	max = rg_shares_max_of(max, &c);
	KUNIT_EXPECT_EQ(test, max, 0);
	max = rg_shares_max_of(max, &a);
	KUNIT_EXPECT_EQ(test, max, 30);
}

/*
 * A tree of shares, driven the way the framework drives shares.c (a
 * write: rg_shares_check(), then rg_shares_commit() and, if max_shares
 * changed, the parent's children_max folded again with
 * rg_shares_max_of(), as rgcs.c does; a removal: rg_shares_reset() of a
 * leaf and the parent's children_max folded again, as group.c does).
 * Group i's parent is tree_parent[i]; 0 is the root.
 */
#define NG 8
static const int tree_parent[NG] = { -1, 0, 0, 0, 1, 1, 4, 2 };

struct tree {
	struct res_shares g[NG];
};

/* What a walk reached, by kind of accepted step. */
struct reach {
	int refused, accepted;
	int min_up;		/* min_shares increased */
	int min_down;		/* ... decreased, to a positive value */
	int min_to_zero;	/* ... from a positive value to 0 */
	int min_to_dc;		/* ... from a positive value to DONT_CARE */
	int full;		/* the parent's divisor all promised */
	int cmax_down;		/* the parent's children_max lowered */
	int div_in_use;		/* a divisor changed while children have mins */
	int reset_min;		/* a leaf with a min_shares removed */
};

static struct res_shares *parent_of(struct tree *t, int i)
{
	return tree_parent[i] < 0 ? NULL : &t->g[tree_parent[i]];
}

static int depth_of(int i)
{
	int d = 0;

	for (; tree_parent[i] >= 0; i = tree_parent[i])
		d++;
	return d;
}

/* Every group as the controller @ctl allocates it, then the defaults. */
static void tree_init(struct tree *t, const struct res_shares *ctl)
{
	int i;

	for (i = 0; i < NG; i++) {
		t->g[i] = *ctl;
		rg_shares_init(&t->g[i], parent_of(t, i), depth_of(i));
	}
}

static void tree_copy(struct tree *dst, const struct tree *src)
{
	int i;

	*dst = *src;
	for (i = 0; i < NG; i++)
		dst->g[i].parent = parent_of(dst, i);
}

static bool same_fields(const struct res_shares *a, const struct res_shares *b)
{
	return a->min_shares == b->min_shares &&
	       a->max_shares == b->max_shares &&
	       a->child_shares_divisor == b->child_shares_divisor;
}

static bool same_tree(const struct tree *a, const struct tree *b)
{
	int i;

	for (i = 0; i < NG; i++)
		if (!same_fields(&a->g[i], &b->g[i]) ||
		    a->g[i].unused != b->g[i].unused ||
		    a->g[i].children_max != b->g[i].children_max)
			return false;
	return true;
}

/*
 * After an operation on group @i: @i shows @want, every other group what
 * it showed @before.
 */
static bool only_changed(struct kunit *test, const struct tree *t,
			 const struct tree *before, int i,
			 const struct res_shares *want, const char *what)
{
	int j;

	for (j = 0; j < NG; j++) {
		if (!same_fields(&t->g[j], j == i ? want : &before->g[j])) {
			KUNIT_FAIL(test, "%s: group %d shows min %d, max %d, divisor %d",
				   what, j, t->g[j].min_shares,
				   t->g[j].max_shares,
				   t->g[j].child_shares_divisor);
			return false;
		}
	}
	return true;
}

static int pos(int v)
{
	return v > 0 ? v : 0;
}

/*
 * The definitions ("Shares"), over the fields a user sees: usage, the
 * part of a group's divisor promised to its children, is the sum of
 * their min_shares (each 0 if negative); unused is the divisor less
 * usage; children_max the largest max_shares of the children (0 if none
 * or all negative).
 */
static long long usage_of(const struct tree *t, int i)
{
	long long sum = 0;
	int c;

	for (c = 1; c < NG; c++)
		if (tree_parent[c] == i)
			sum += pos(t->g[c].min_shares);
	return sum;
}

static long long unused_of(const struct tree *t, int i)
{
	return t->g[i].child_shares_divisor - usage_of(t, i);
}

static int cmax_of(const struct tree *t, int i)
{
	int c, max = 0;

	for (c = 1; c < NG; c++)
		if (tree_parent[c] == i && t->g[c].max_shares > max)
			max = t->g[c].max_shares;
	return max;
}

/* A value a write may leave in a min or max (rule c); @ctl: the controller's. */
static bool field_ok(int v, int ctl)
{
	if (ctl == UNS)
		return v == UNS;
	return v == DC || v >= 0;
}

/*
 * The invariants over the whole tree: every group keeps its parent and
 * depth, and fields no rule refuses (c, d's divisor >= 1, f; a field the
 * controller made UNSUPPORTED stays so); in every group whose divisor is
 * supported, the children's min_shares add up to at most the divisor,
 * each child's max_shares is at most it, and unused is the divisor less
 * usage; children_max is the largest max_shares of the children.
 * Returns false after a failure message.
 */
static bool tree_ok(struct kunit *test, struct tree *t,
		    const struct res_shares *ctl, const char *after)
{
	int i, c;

	for (i = 0; i < NG; i++) {
		const struct res_shares *s = &t->g[i];
		int div = s->child_shares_divisor;

		if (s->parent != parent_of(t, i) || s->depth != depth_of(i)) {
			KUNIT_FAIL(test, "%s: group %d lost its parent or depth",
				   after, i);
			return false;
		}
		if (!field_ok(s->min_shares, ctl->min_shares) ||
		    !field_ok(s->max_shares, ctl->max_shares) ||
		    (ctl->child_shares_divisor == UNS ? div != UNS : div < 1) ||
		    (s->min_shares >= 0 && s->max_shares >= 0 &&
		     s->min_shares > s->max_shares)) {
			KUNIT_FAIL(test, "%s: group %d has min %d, max %d, divisor %d",
				   after, i, s->min_shares, s->max_shares, div);
			return false;
		}
		if (s->children_max != cmax_of(t, i)) {
			KUNIT_FAIL(test,
				   "%s: group %d: children_max %d, its children's largest max_shares %d",
				   after, i, s->children_max, cmax_of(t, i));
			return false;
		}
		if (div == UNS)
			continue;
		if (usage_of(t, i) > div) {
			KUNIT_FAIL(test,
				   "%s: group %d: its children's min_shares add up to %lld, above its divisor %d",
				   after, i, usage_of(t, i), div);
			return false;
		}
		if (s->unused != unused_of(t, i)) {
			KUNIT_FAIL(test,
				   "%s: group %d: unused %d, divisor %d - children's min_shares %lld = %lld",
				   after, i, s->unused, div, usage_of(t, i),
				   unused_of(t, i));
			return false;
		}
		for (c = 1; c < NG; c++) {
			if (tree_parent[c] == i && t->g[c].max_shares > div) {
				KUNIT_FAIL(test,
					   "%s: group %d: max_shares %d above its parent's divisor %d",
					   after, c, t->g[c].max_shares, div);
				return false;
			}
		}
	}
	return true;
}

/*
 * Whether writing @r to group @i must be refused ("Validating a write",
 * rule 4), with F as in step 1, and usage, the parent's unused and
 * children_max from their definitions over @t. -EINVAL or 0; @f gets F's
 * min, max and divisor.
 */
static int decide(const struct tree *t, int i, const struct res_shares *r,
		  struct res_shares *f)
{
	const struct res_shares *s = &t->g[i];
	int p = tree_parent[i];
	long long increase;

	*f = *s;
	if (s->min_shares != UNS && r->min_shares != UNCH)
		f->min_shares = r->min_shares;
	if (s->max_shares != UNS && r->max_shares != UNCH)
		f->max_shares = r->max_shares;
	if (s->child_shares_divisor != UNS && r->child_shares_divisor != UNCH)
		f->child_shares_divisor = r->child_shares_divisor;
	increase = (long long)f->min_shares - pos(s->min_shares);

	if (p >= 0 && f->min_shares >= 0 && increase > unused_of(t, p))
		return -EINVAL;						/* a */
	if (p >= 0 && f->max_shares >= 0 &&
	    f->max_shares > t->g[p].child_shares_divisor)
		return -EINVAL;						/* b */
	if (!(f->min_shares == DC || f->min_shares >= 0 ||
	      (f->min_shares == UNS && s->min_shares == UNS)) ||
	    !(f->max_shares == DC || f->max_shares >= 0 ||
	      (f->max_shares == UNS && s->max_shares == UNS)))
		return -EINVAL;						/* c */
	if (s->child_shares_divisor != UNS &&
	    (f->child_shares_divisor < 1 ||
	     f->child_shares_divisor < usage_of(t, i)))
		return -EINVAL;						/* d */
	if (s->child_shares_divisor != UNS &&
	    f->child_shares_divisor < cmax_of(t, i))
		return -EINVAL;						/* e */
	if (f->min_shares >= 0 && f->max_shares >= 0 &&
	    f->min_shares > f->max_shares)
		return -EINVAL;						/* f */
	return 0;
}

/* rg_children_max_update()'s fold, for group @p of the tree. */
static void fold_children_max(struct tree *t, int p)
{
	int c, max = 0;

	for (c = 1; c < NG; c++)
		if (tree_parent[c] == p)
			max = rg_shares_max_of(max, &t->g[c]);
	t->g[p].children_max = max;
}

/*
 * Write @r to group @i as rgcs.c does: refused exactly when rule 4 says,
 * without a change anywhere; accepted, group @i shows F, no other group
 * shows anything new, and the tree keeps its invariants. Returns false
 * after a failure message.
 */
static bool tree_write(struct kunit *test, struct tree *t, int i,
		       const struct res_shares *r,
		       const struct res_shares *ctl, struct reach *reach)
{
	struct res_shares f, want;
	struct tree before;
	int p = tree_parent[i], err, expect;
	char what[160];

	snprintf(what, sizeof(what),
		 "group %d (min %d, max %d, divisor %d) written min %d, max %d, divisor %d",
		 i, t->g[i].min_shares, t->g[i].max_shares,
		 t->g[i].child_shares_divisor, r->min_shares, r->max_shares,
		 r->child_shares_divisor);
	tree_copy(&before, t);
	expect = decide(t, i, r, &want);
	err = rg_shares_check(&t->g[i], r, parent_of(t, i), &f);
	if (err != expect) {
		KUNIT_FAIL(test, "%s: %d, rule 4 says %d", what, err, expect);
		return false;
	}
	if (!same_tree(t, &before)) {
		KUNIT_FAIL(test, "%s: the check changed the tree", what);
		return false;
	}
	if (err) {
		reach->refused++;
		return true;
	}
	reach->accepted++;
	reach->min_up += want.min_shares > pos(t->g[i].min_shares);
	if (t->g[i].min_shares > 0) {
		reach->min_down += want.min_shares > 0 &&
				   want.min_shares < t->g[i].min_shares;
		reach->min_to_zero += want.min_shares == 0;
		reach->min_to_dc += want.min_shares == DC;
	}
	reach->div_in_use += want.child_shares_divisor !=
			     t->g[i].child_shares_divisor && usage_of(t, i);

	rg_shares_commit(&t->g[i], &f, parent_of(t, i));
	if (f.max_shares != before.g[i].max_shares && p >= 0)
		fold_children_max(t, p);

	if (!only_changed(test, t, &before, i, &want, what))
		return false;
	if (p >= 0) {
		reach->full += unused_of(t, p) == 0;
		reach->cmax_down += cmax_of(t, p) < cmax_of(&before, p);
	}
	return tree_ok(test, t, ctl, what);
}

/*
 * The removal of leaf @i as group.c does it: its shares back to the
 * defaults (a field the controller made UNSUPPORTED stays), no other
 * group shows anything new, and the tree keeps its invariants.
 */
static bool tree_reset(struct kunit *test, struct tree *t, int i,
		       const struct res_shares *ctl, struct reach *reach)
{
	struct res_shares want = *ctl;
	struct tree before;
	char what[64];

	snprintf(what, sizeof(what), "removal of group %d (min %d)", i,
		 t->g[i].min_shares);
	reach->reset_min += t->g[i].min_shares > 0;
	tree_copy(&before, t);
	rg_shares_reset(&t->g[i], parent_of(t, i));
	fold_children_max(t, tree_parent[i]);
	if (want.min_shares != UNS)
		want.min_shares = DC;
	if (want.max_shares != UNS)
		want.max_shares = DC;
	if (want.child_shares_divisor != UNS)
		want.child_shares_divisor = RES_SHARES_DEFAULT_DIVISOR;
	if (!only_changed(test, t, &before, i, &want, what))
		return false;
	return tree_ok(test, t, ctl, what);
}

/* splitmix64: a fixed sequence. */
static u64 rnd64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n-1 */
static int rnd(u64 *state, int n)
{
	return (int)(rnd64(state) % (u64)n);
}

/* lo .. hi, both included, clamped to int */
static int rnd_range(u64 *state, long long lo, long long hi)
{
	long long v;

	if (lo > INT_MAX)
		lo = INT_MAX;
	if (hi > INT_MAX)
		hi = INT_MAX;
	if (hi <= lo)
		return (int)lo;
	v = lo + (long long)(rnd64(state) % (u64)(hi - lo + 1));
	return (int)v;
}

static int clamp_int(long long v)
{
	return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/*
 * The values a write of field @fld (0 min, 1 max, 2 divisor) to group @i
 * may bring, at each bound that the definitions give and one off it,
 * and every special value; *n set to how many.
 */
static void bound_values(const struct tree *t, int i, int fld, int *v, int *n)
{
	static const int special[] = {
		UNCH, UNS, DC, -4, INT_MIN, 0, 1, 50, 100, INT_MAX,
	};
	const struct res_shares *s = &t->g[i];
	int p = tree_parent[i], k, d;
	long long b[2];

	*n = 0;
	for (k = 0; k < ARRAY_SIZE(special); k++)
		v[(*n)++] = special[k];
	if (fld == 0) {
		b[0] = p >= 0 ? pos(s->min_shares) + unused_of(t, p) : 0;
		b[1] = s->max_shares;
	} else if (fld == 1) {
		b[0] = p >= 0 ? t->g[p].child_shares_divisor : 0;
		b[1] = s->min_shares;
	} else {
		b[0] = usage_of(t, i);
		b[1] = cmax_of(t, i);
	}
	for (k = 0; k < 2; k++)
		for (d = -1; d <= 1; d++)
			v[(*n)++] = clamp_int(b[k] + d);
}

/* A random value for field @fld of a write to @i, often a valid one. */
static int gen_value(u64 *st, const struct tree *t, int i, int fld, int fmin)
{
	const struct res_shares *s = &t->g[i];
	int p = tree_parent[i], v[16], n;
	long long lo, hi;

	if (rnd(st, 3) == 0) {
		bound_values(t, i, fld, v, &n);
		return v[rnd(st, n)];
	}
	switch (fld) {
	case 0:
		if (rnd(st, 6) == 0)
			return rnd(st, 2) ? DC : 0;
		hi = p >= 0 ? pos(s->min_shares) + unused_of(t, p) : 150;
		if (s->max_shares >= 0 && s->max_shares < hi)
			hi = s->max_shares;
		return rnd_range(st, 0, rnd(st, 3) ? hi : hi / 4);
	case 1:
		if (rnd(st, 6) == 0)
			return DC;
		lo = fmin >= 0 ? fmin : 0;
		hi = p >= 0 ? t->g[p].child_shares_divisor : 150;
		return rnd_range(st, rnd(st, 2) ? lo : 0, hi);
	default:
		lo = max3(1LL, usage_of(t, i), (long long)cmax_of(t, i));
		return rnd_range(st, lo, lo + (rnd(st, 2) ? 3 : 300));
	}
}

/* Controllers: which fields they support (UNSUPPORTED where not). */
struct kctl {
	const char *what;
	struct res_shares ctl;
};

static const struct kctl ctls[] = {
	{ "every field", {} },
	{ "max unsupported", { .max_shares = UNS } },
	{ "min unsupported", { .min_shares = UNS } },
};

static void ctl_desc(const struct kctl *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ctl, ctls, ctl_desc);

#define WALK_STEPS	3000
#define SWEEP_EVERY	150

/*
 * Every field, every special value and every bound (and one off it), in
 * every group, from state @t: each write tried on a copy.
 */
static bool sweep(struct kunit *test, const struct tree *t,
		  const struct res_shares *ctl, struct reach *reach)
{
	struct res_shares r;
	struct tree copy;
	int i, fld, k, v[16], n;

	for (i = 0; i < NG; i++) {
		for (fld = 0; fld < 3; fld++) {
			bound_values(t, i, fld, v, &n);
			for (k = 0; k < n; k++) {
				r = req(UNCH, UNCH, UNCH);
				if (fld == 0)
					r.min_shares = v[k];
				else if (fld == 1)
					r.max_shares = v[k];
				else
					r.child_shares_divisor = v[k];
				tree_copy(&copy, t);
				if (!tree_write(test, &copy, i, &r, ctl, reach))
					return false;
			}
		}
	}
	return true;
}

/*
 * A fixed walk of writes (random fields, values of every class, many at
 * a bound) and removals of leaves (then in use again, as new groups),
 * with every step checked (tree_write, tree_reset), and from time to
 * time every field, special value and bound tried from the state
 * reached. The walk is fixed, so what it reaches is checked too: every
 * kind of min_shares change (up, down, down to 0, to DONT_CARE) where
 * the controller has min_shares, a parent's divisor all promised, a
 * parent's children_max lowered where it has max_shares, a divisor
 * changed while children have guarantees, a leaf with a guarantee
 * removed.
 */
static void walk_keeps_the_invariants(struct kunit *test)
{
	const struct kctl *kc = test->param_value;
	const struct res_shares *ctl = &kc->ctl;
	static const int leaves[] = { 3, 5, 6, 7 };
	struct reach reach = {};
	struct res_shares r;
	struct tree t;
	u64 st = 0x5eed5eedULL;
	int step, i, mask;

	tree_init(&t, ctl);
	KUNIT_ASSERT_TRUE(test, tree_ok(test, &t, ctl, "init"));
	for (step = 0; step < WALK_STEPS; step++) {
		if (step % SWEEP_EVERY == 0 && !sweep(test, &t, ctl, &reach))
			goto out;
		if (rnd(&st, 10) == 0) {
			i = leaves[rnd(&st, ARRAY_SIZE(leaves))];
			if (!tree_reset(test, &t, i, ctl, &reach))
				goto out;
			continue;
		}
		i = rnd(&st, NG);
		mask = 1 + rnd(&st, 7);
		r = req(UNCH, UNCH, UNCH);
		if (mask & 1)
			r.min_shares = gen_value(&st, &t, i, 0, UNCH);
		if (mask & 2)
			r.max_shares = gen_value(&st, &t, i, 1,
						 r.min_shares != UNCH ?
						 r.min_shares :
						 t.g[i].min_shares);
		if (mask & 4)
			r.child_shares_divisor = gen_value(&st, &t, i, 2, UNCH);
		if (!tree_write(test, &t, i, &r, ctl, &reach))
			goto out;
	}
out:
	kunit_info(test, "step %d: %d writes accepted, %d refused; min_shares up %d, down %d, to 0 %d, to dont_care %d\n",
		   step, reach.accepted, reach.refused, reach.min_up,
		   reach.min_down, reach.min_to_zero, reach.min_to_dc);
	kunit_info(test, "divisor all promised %d; children_max lowered %d; divisor changed in use %d; removals with a min %d\n",
		   reach.full, reach.cmax_down, reach.div_in_use,
		   reach.reset_min);
	if (step < WALK_STEPS)
		return;
	KUNIT_EXPECT_LT(test, 0, reach.refused);
	KUNIT_EXPECT_LT(test, 0, reach.accepted);
	if (ctl->min_shares != UNS) {
		KUNIT_EXPECT_LT(test, 0, reach.min_up);
		KUNIT_EXPECT_LT(test, 0, reach.min_down);
		KUNIT_EXPECT_LT(test, 0, reach.min_to_zero);
		KUNIT_EXPECT_LT(test, 0, reach.min_to_dc);
		KUNIT_EXPECT_LT(test, 0, reach.full);
		KUNIT_EXPECT_LT(test, 0, reach.div_in_use);
		KUNIT_EXPECT_LT(test, 0, reach.reset_min);
	}
	if (ctl->max_shares != UNS)
		KUNIT_EXPECT_LT(test, 0, reach.cmax_down);
}

/* The bug that was: a divisor of -2 was taken as "unsupported". */
static void divisor_minus_two_is_rejected(struct kunit *test)
{
	struct res_shares s = sh(DC, DC, 100, 100, 0), f;
	struct res_shares r = req(UNCH, UNCH, UNS);

	KUNIT_EXPECT_EQ(test, rg_shares_check(&s, &r, NULL, &f), -EINVAL);
	r.child_shares_divisor = DC;
	KUNIT_EXPECT_EQ(test, rg_shares_check(&s, &r, NULL, &f), -EINVAL);
}

static struct kunit_case rg_shares_cases[] = {
	KUNIT_CASE_PARAM(walk_keeps_the_invariants, ctl_gen_params),
	KUNIT_CASE(divisor_minus_two_is_rejected),
	KUNIT_CASE(defaults_are_dont_care_and_100),
	KUNIT_CASE(init_keeps_unsupported_fields),
	KUNIT_CASE_PARAM(check_accepts_and_rejects, shares_gen_params),
	KUNIT_CASE(commit_moves_min_between_parent_and_child),
	KUNIT_CASE(reset_returns_min_to_parent),
	KUNIT_CASE(children_max_ignores_symbolic_values),
	{}
};

static struct kunit_suite rg_shares_suite = {
	.name = "res_groups_shares",
	.test_cases = rg_shares_cases,
};

kunit_test_suite(rg_shares_suite);

MODULE_DESCRIPTION("Resource Groups: KUnit tests of the shares arithmetic");
MODULE_LICENSE("GPL");

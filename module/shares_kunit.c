// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the shares arithmetic (shares.c; docs/res_groups.rst,
 * "Shares").
 * Built as res_groups_kunit.ko; the suite runs when it is loaded.
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
 * An independent model of the validation rules, written from the docs
 * ("Validating a write"), to check every special value against.
 * Returns the errno; fills @f on success.
 */
static int model_check(const struct res_shares *s, const struct res_shares *r,
		       const struct res_shares *p, struct res_shares *f)
{
	long long usage = (long long)s->child_shares_divisor - s->unused;
	long long increase;
	bool div_set;

	*f = *s;
	if (r->min_shares != UNCH && s->min_shares != UNS)
		f->min_shares = r->min_shares;
	if (r->max_shares != UNCH && s->max_shares != UNS)
		f->max_shares = r->max_shares;
	div_set = r->child_shares_divisor != UNCH &&
		  s->child_shares_divisor != UNS;
	if (div_set)
		f->child_shares_divisor = r->child_shares_divisor;
	increase = (long long)f->min_shares -
		   (s->min_shares >= 0 ? s->min_shares : 0);

	if (p && f->min_shares >= 0 && increase > p->unused)
		return -EINVAL;					/* a */
	if (p && f->max_shares >= 0 &&
	    f->max_shares > p->child_shares_divisor)
		return -EINVAL;					/* b */
	if (!(f->min_shares == DC || f->min_shares >= 0 ||
	      (f->min_shares == UNS && s->min_shares == UNS)))
		return -EINVAL;					/* c */
	if (!(f->max_shares == DC || f->max_shares >= 0 ||
	      (f->max_shares == UNS && s->max_shares == UNS)))
		return -EINVAL;					/* c */
	if (s->child_shares_divisor != UNS &&
	    (f->child_shares_divisor < 1 || f->child_shares_divisor < usage))
		return -EINVAL;					/* d */
	if (s->child_shares_divisor != UNS &&
	    f->child_shares_divisor < s->children_max)
		return -EINVAL;					/* e */
	if (f->min_shares >= 0 && f->max_shares >= 0 &&
	    f->min_shares > f->max_shares)
		return -EINVAL;					/* f */
	if (div_set)
		f->unused = f->child_shares_divisor - usage;
	return 0;
}

/* Where a write goes: the root, a leaf, a parent with children. */
static const struct {
	const char *what;
	struct res_shares s, p;
	bool root;
} places[] = {
	{ "root", SH(DC, DC, 100, 100, 0), {}, true },
	{ "leaf", SH(DC, DC, 100, 100, 0), SH(DC, DC, 100, 50, 40) },
	{ "leaf with min and max", SH(10, 30, 100, 100, 0),
	  SH(DC, DC, 100, 50, 40) },
	{ "parent with children", SH(20, 60, 100, 70, 50),
	  SH(DC, DC, 100, 60, 60) },
	{ "max unsupported", SH(DC, UNS, 100, 100, 0),
	  SH(DC, DC, 100, 50, 40) },
	{ "divisor unsupported", SH(DC, DC, UNS, 0, 0),
	  SH(DC, DC, 100, 50, 40) },
};

/*
 * Rule 4 for every value a user can write: each field, each special
 * value, in each place, must give exactly what the model gives.
 */
static void every_special_value_follows_the_rules(struct kunit *test)
{
	static const int vals[] = {
		UNCH, UNS, DC, -4, INT_MIN, 0, 1, 50, 100, INT_MAX,
	};
	struct res_shares r, f, mf, s;
	int pl, field, v, err, merr;

	for (pl = 0; pl < ARRAY_SIZE(places); pl++) {
		for (field = 0; field < 3; field++) {
			for (v = 0; v < ARRAY_SIZE(vals); v++) {
				const struct res_shares *p = places[pl].root ?
					NULL : &places[pl].p;

				r = req(UNCH, UNCH, UNCH);
				if (field == 0)
					r.min_shares = vals[v];
				else if (field == 1)
					r.max_shares = vals[v];
				else
					r.child_shares_divisor = vals[v];
				s = places[pl].s;
				err = rg_shares_check(&s, &r, p, &f);
				merr = model_check(&places[pl].s, &r, p, &mf);
				KUNIT_EXPECT_EQ_MSG(test, err, merr,
						    "%s, field %d = %d",
						    places[pl].what, field,
						    vals[v]);
				KUNIT_EXPECT_EQ(test, memcmp(&s, &places[pl].s,
							     sizeof(s)), 0);
				if (err || merr)
					continue;
				KUNIT_EXPECT_EQ_MSG(test,
						    memcmp(&f, &mf, sizeof(f)),
						    0, "%s, field %d = %d",
						    places[pl].what, field,
						    vals[v]);
			}
		}
	}
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
	KUNIT_CASE(every_special_value_follows_the_rules),
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

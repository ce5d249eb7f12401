// SPDX-License-Identifier: GPL-2.0
/*
 * Resource Groups: the shares arithmetic (docs/res_groups.rst, "Shares").
 *
 * Pure functions on struct res_shares, no locking: callers hold rg_mutex.
 * KUnit tests them directly (shares_kunit.c).
 */
#include <linux/minmax.h>
#include <linux/res_group.h>

#include "rg.h"

static void rg_shares_set(int *field, int val)
{
	if (*field != RES_SHARES_UNSUPPORTED)
		*field = val;
}

/**
 * rg_shares_init - give new shares their defaults
 * @s: shares as the controller allocated them
 * @parent: the parent group's shares of the same controller, or NULL
 * @depth: the group's depth
 *
 * Fields the controller set to RES_SHARES_UNSUPPORTED stay so.
 */
void rg_shares_init(struct res_shares *s, struct res_shares *parent,
		    int depth)
{
	rg_shares_set(&s->min_shares, RES_SHARES_DONT_CARE);
	rg_shares_set(&s->max_shares, RES_SHARES_DONT_CARE);
	rg_shares_set(&s->child_shares_divisor, RES_SHARES_DEFAULT_DIVISOR);
	rg_shares_set(&s->unused, RES_SHARES_DEFAULT_DIVISOR);
	s->children_max = 0;
	s->parent = parent;
	s->depth = depth;
}

static int rg_shares_pick(int cur, int req)
{
	return cur == RES_SHARES_UNSUPPORTED || req == RES_SHARES_UNCHANGED ?
		cur : req;
}

/* Rule 4c: what a min or max may be after a write. */
static bool rg_shares_valid(int val, int cur)
{
	return val == RES_SHARES_DONT_CARE || val >= 0 ||
	       (val == RES_SHARES_UNSUPPORTED && cur == RES_SHARES_UNSUPPORTED);
}

static int rg_shares_positive(int val)
{
	return max(val, 0);
}

/**
 * rg_shares_check - validate a write to a group's shares (docs: "Validating a write", 1-5)
 * @s: the group's current shares S
 * @req: the request R; a field RES_SHARES_UNCHANGED was not given
 * @parent: the parent's shares P, or NULL for the root
 * @f: where the shares the write would give (F) go
 *
 * Return: 0 if the write may be committed with rg_shares_commit(), or
 * -EINVAL (then nothing may change).
 */
int rg_shares_check(const struct res_shares *s, const struct res_shares *req,
		    const struct res_shares *parent, struct res_shares *f)
{
	int usage = s->child_shares_divisor - s->unused;
	long long increase;	/* F.min may be INT_MIN: no int overflow */

	*f = *s;
	f->min_shares = rg_shares_pick(s->min_shares, req->min_shares);
	f->max_shares = rg_shares_pick(s->max_shares, req->max_shares);
	f->child_shares_divisor = rg_shares_pick(s->child_shares_divisor,
						 req->child_shares_divisor);
	increase = (long long)f->min_shares -
		   rg_shares_positive(s->min_shares);

	if (!rg_shares_valid(f->min_shares, s->min_shares) ||
	    !rg_shares_valid(f->max_shares, s->max_shares))
		return -EINVAL;
	if (parent && f->min_shares >= 0 && increase > parent->unused)
		return -EINVAL;
	if (parent && f->max_shares >= 0 &&
	    f->max_shares > parent->child_shares_divisor)
		return -EINVAL;
	/*
	 * Rules 4d and 4e hold for every value a user can write: only a
	 * divisor the controller itself marked UNSUPPORTED (S's value, which
	 * then stays) is exempt, never one a request asks for.
	 */
	if (s->child_shares_divisor != RES_SHARES_UNSUPPORTED &&
	    (f->child_shares_divisor < 1 || f->child_shares_divisor < usage ||
	     f->child_shares_divisor < s->children_max))
		return -EINVAL;
	if (f->min_shares >= 0 && f->max_shares >= 0 &&
	    f->min_shares > f->max_shares)
		return -EINVAL;

	if (f->child_shares_divisor != s->child_shares_divisor)
		f->unused = f->child_shares_divisor - usage;
	return 0;
}

/**
 * rg_shares_commit - apply what rg_shares_check() accepted (docs: "Validating a write", 6)
 * @s: the group's shares, updated to @f
 * @f: the checked result
 * @parent: the parent's shares, or NULL; its @unused is updated. The
 *	caller recomputes its @children_max if max_shares changed.
 *
 * Never inlined nor cloned: a test holds a write still here, by name,
 * half stored (selftests/modules/rg_fork_stall.c), calling it as declared.
 */
noinline __noclone void rg_shares_commit(struct res_shares *s,
					 const struct res_shares *f,
					 struct res_shares *parent)
{
	if (parent)
		parent->unused += rg_shares_positive(s->min_shares) -
				  rg_shares_positive(f->min_shares);
	s->min_shares = f->min_shares;
	s->max_shares = f->max_shares;
	s->child_shares_divisor = f->child_shares_divisor;
	s->unused = f->unused;
}

/**
 * rg_shares_reset - return shares to their defaults (docs: "Resets")
 * @s: the shares of a group with no children
 * @parent: the parent's shares, or NULL; its @unused gets back @s's
 *	min_shares. The caller recomputes its @children_max.
 */
void rg_shares_reset(struct res_shares *s, struct res_shares *parent)
{
	struct res_shares f = *s;

	rg_shares_init(&f, s->parent, s->depth);
	rg_shares_commit(s, &f, parent);
}

/**
 * rg_shares_max_of - fold one child into a children_max computation
 * @acc: the maximum so far (start with 0)
 * @child: a child's shares
 *
 * Return: the new maximum; DONT_CARE and UNSUPPORTED count as 0.
 */
int rg_shares_max_of(int acc, const struct res_shares *child)
{
	return max(acc, child->max_shares);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * cpu: guarantees and ceilings of CPU time per resource group
 * (docs/res_groups.rst, "The CPU controller").
 *
 * Not a scheduler: a thin layer over the kernel's CFS task groups, placed
 * the way autogroup places them (<linux/res_group_sched.h>). Each group has
 * two task groups: @tg for its whole subtree, and @self_tg, a child of
 * @tg, for its own tasks once it has children (@split). The root's @tg is
 * the root task group itself. A group that never had a child (a leaf)
 * runs its tasks in @tg itself, one level less for the scheduler to walk
 * on every switch, as a cgroup's tasks; its first child moves them to
 * @self_tg (res_group_retell_tasks()), where they stay. Below a group's
 * @tg run its @self_tg and its children's @tg, weighted by the shares:
 * - a child with min_shares m gets weight m / divisor of the parent's;
 * - the parent's unused part is split equally among @self_tg and the
 *   children without a guarantee.
 * Only the ratios of siblings' weights matter to CFS, so those k equal
 * parts weigh the same whatever k is (RC_WEIGHT_ONE, a cgroup's default,
 * unless the cap on a guarantee's weight makes them lighter, and then
 * within a power of two, @span): a
 * new or removed child without a guarantee sets its own weight and the
 * guaranteed siblings' (at most the divisor of them), not the k others'.
 * Only when k leaves its span are all the children weighed again, which
 * costs O(k) once per doubling or quartering of k: creating k siblings
 * costs O(k x CPUs) in all, not O(k^2 x CPUs).
 * A ceiling is CFS bandwidth on @tg: abs_max x online CPUs per 100 ms.
 * CFS is work-conserving and hierarchical, so what a group does not use
 * goes to the others, and a parent's ceiling bounds its subtree.
 *
 * Precedence: a task of a non-root group runs in its group's @tg or
 * @self_tg (see @split) whatever its cpu cgroup and autogroup; the root's @self_tg is a fallback
 * group, which only takes the root's tasks that cgroup and autogroup leave
 * in the root task group. Kernel threads are left where they are, and
 * real-time and deadline tasks ignore CFS weights and bandwidth.
 *
 * rc_ctl.precedes_cgroup: moves into non-root groups by writers without
 * CAP_SYS_RESOURCE need a ceiling of ours on the group or an ancestor
 * below the root that the writer cannot change, and such writers may not
 * lift it over those tasks (the framework checks it; docs, "Delegation").
 *
 * Locking: rc_mutex protects the tree (parent, children, sibling, the
 * guaranteed lists and counts), the task groups' weights and the stats
 * baselines; it is taken in the
 * callbacks that may sleep, inside the framework's locks. Ceilings and
 * the destruction of task groups are left to rc_work, outside every lock
 * of ours and the framework's (CFS bandwidth takes cpu_hotplug_lock);
 * rc_lock, innermost, protects its lists. rc_work sets lowered ceilings
 * deepest first and raised ones top-down (cgroup v1 refuses a quota below
 * a child's or above the parent's), and counts what the scheduler still
 * refuses; stats read what it set with READ_ONCE(). The static key of the hooks
 * (it takes cpu_hotplug_lock too) is turned on and off at load and
 * unload. move_task() runs under the framework's spinlocks: it only reads
 * @split, @tg and @self_tg, which live as long as the shares, and the
 * scheduler takes the task's pi_lock and rq lock inside. @split is set
 * once, before the walk that moves the group's tasks under the group's
 * lock: a move_task() that read it clear has put its task on the list
 * before the walk, and one after the walk sees it set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/list_sort.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/res_groups_version.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/res_group.h>
#include <linux/res_group_sched.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

/* The bandwidth period: the docs' ceiling holds over any 100 ms. */
#define RC_PERIOD_NS		(100 * NSEC_PER_MSEC)
/* The scheduler refuses less run time than this per period. */
#define RC_MIN_QUOTA_NS	NSEC_PER_MSEC
/*
 * Weight of one equal share of a group's unused part (its own tasks' and
 * each unguaranteed child's), as far as the cap allows the guarantees'.
 * At the root, where kernel threads, autogroups and cgroup's cpu cgroups
 * weigh NICE_0_LOAD each (cpu.weight 100), the root's own part (its
 * @self_tg's) weighs NICE_0_LOAD, as one nice-0 task would: with no
 * guarantees, every top-level group does too, and loading rg_cpu.ko takes
 * nothing away from the rest of the machine; a guarantee holds against
 * one such competitor. Below the root only the ratios matter, but CFS
 * takes its fast path for a weight of exactly NICE_0_LOAD (rc_scale()).
 */
#define RC_WEIGHT_ONE		1024ULL
#define RC_WEIGHT_MIN		2UL
#define RC_WEIGHT_MAX		BIT(18)
/* Fractions of the machine in parts per billion. */
#define RC_PPB			1000000000ULL

/**
 * struct rc_group - CPU controller state of one group
 * @shares: the framework's part
 * @parent: the parent group's state, NULL at the root
 * @children: the child groups' states
 * @sibling: entry in the parent's @children
 * @guaranteed: the children with a positive min_shares
 * @gnode: entry in the parent's @guaranteed, if @kind is RC_GUARANTEED
 * @kind: which of the parent's weights the group had when they were last
 *	all set (its min_shares then)
 * @nfree: the children without a guarantee (min_shares < 0)
 * @span: a power of two, at least @nfree + 1 and at most four times it
 * @all: the children's and @self_tg's weights together, were @nfree + 1
 *	equal to @span
 * @free_weight: the weight of @self_tg and of each child without a
 *	guarantee
 * @tg: task group of the whole subtree (NULL: the root task group)
 * @self_tg: task group of the group's own tasks, once @split
 * @split: the group's tasks run in @self_tg (the root's always; another
 *	group's from its first child on), else in @tg
 * @retired_ns: CPU time of removed children (root only: other groups'
 *	@tg keep their children's time)
 * @base: counters at load (zero) or at the last reset
 * @depth: the group's depth (the root's is 0)
 * @quota: the ceiling rc_work is to set, U64_MAX for none (rc_lock)
 * @quota_ppb: the same as a part of the machine (rc_lock)
 * @want: @quota as rc_work took it (rc_work only)
 * @want_ppb: @quota_ppb as rc_work took it (rc_work only)
 * @applied: the ceiling in force on @tg, U64_MAX for none (rc_work only)
 * @applied_ppb: the same as a part of the machine (written by rc_work)
 * @failed: the last ceiling rc_work tried to set was refused (written by
 *	rc_work)
 * @work_node: entry in rc_dirty or rc_dead (rc_lock)
 * @apply_node: entry in rc_work's list of ceilings to set (rc_work only)
 */
struct rc_group {
	struct res_shares shares;
	struct rc_group *parent;
	struct list_head children;
	struct list_head sibling;
	struct list_head guaranteed;
	struct list_head gnode;
	int kind;
	int nfree;
	unsigned long span;
	u64 all;
	unsigned long free_weight;
	struct task_group *tg;
	struct task_group *self_tg;
	bool split;
	u64 retired_ns;
	struct res_group_sched_stat base;
	int depth;
	u64 quota;
	u64 quota_ppb;
	u64 want;
	u64 want_ppb;
	u64 applied;
	u64 applied_ppb;
	bool failed;
	struct list_head work_node;
	struct list_head apply_node;
};

/* Ceilings the scheduler refused (docs, "The CPU controller"). */
static atomic_t rc_failures = ATOMIC_INIT(0);

static DEFINE_MUTEX(rc_mutex);
static DEFINE_SPINLOCK(rc_lock);
static LIST_HEAD(rc_dirty);	/* ceilings to set */
static LIST_HEAD(rc_dead);	/* groups to destroy, children first */

static void rc_work_fn(struct work_struct *work);
static DECLARE_WORK(rc_work, rc_work_fn);

static struct rc_group *to_rc(struct res_shares *s)
{
	return container_of(s, struct rc_group, shares);
}

/* A child's weight: its part @num / @den of its parent's @all. */
static unsigned long rc_weight(u64 all, u64 num, u64 den)
{
	u64 w = den ? mul_u64_u64_div_u64(all, num, den) : 0;

	return clamp_t(u64, w, RC_WEIGHT_MIN, RC_WEIGHT_MAX);
}

/* Which of its parent's weights @c takes (rc_mutex). */
enum { RC_FREE, RC_ZERO, RC_GUARANTEED };

static int rc_kind(struct rc_group *c)
{
	if (c->shares.min_shares < 0)
		return RC_FREE;
	return c->shares.min_shares ? RC_GUARANTEED : RC_ZERO;
}

/*
 * @p's @all and @free_weight for its @span: the unused part weighs
 * RC_WEIGHT_ONE per equal share, as far as the largest guarantee's weight
 * allows (its @all x top / div at most RC_WEIGHT_MAX). At the root that
 * is one competitor's weight (see the top of this file); at every level
 * it is the weight of a cgroup at the default cpu.weight, which CFS
 * updates without a division (se.load.weight == NICE_0_LOAD) on every
 * tick and switch, at each level of the task's path.
 */
static void rc_scale(struct rc_group *p)
{
	u64 div = p->shares.child_shares_divisor;
	u64 unused = max(p->shares.unused, 0);
	u64 top = 0;
	struct rc_group *c;

	list_for_each_entry(c, &p->guaranteed, gnode)
		top = max_t(u64, top, c->shares.min_shares);
	/*
	 * RC_WEIGHT_ONE x div x span / unused, or the cap. (Unused 0 and no
	 * guarantee: only while rg_cpu.ko unloads, when the children's
	 * guarantees are dropped but not given back.)
	 */
	if (top && p->span * top > (RC_WEIGHT_MAX / RC_WEIGHT_ONE) * unused) {
		p->all = div64_u64(RC_WEIGHT_MAX * div, top);
		p->free_weight = rc_weight(p->all, unused, div * p->span);
	} else if (unused) {
		/* Exactly RC_WEIGHT_ONE, not rounded down through @all. */
		p->all = mul_u64_u64_div_u64(RC_WEIGHT_ONE * p->span, div,
					     unused);
		p->free_weight = RC_WEIGHT_ONE;
	} else {
		p->all = RC_WEIGHT_ONE * p->span;
		p->free_weight = RC_WEIGHT_MIN;
	}
}

/*
 * The guaranteed children's weights: m x k / unused times @free_weight,
 * as it was set (so that rounding it does not change the ratios), or,
 * with nothing unused, their parts m / div of @p's whole.
 */
static void rc_set_guaranteed(struct rc_group *p)
{
	u64 div = p->shares.child_shares_divisor;
	u64 unused = max(p->shares.unused, 0);
	u64 k = p->nfree + 1, mk;
	unsigned long w;
	struct rc_group *c;

	list_for_each_entry(c, &p->guaranteed, gnode) {
		mk = c->shares.min_shares * k;
		if (!unused)
			w = rc_weight(p->all, mk, div * p->span);
		else if (div64_u64(mk, unused) >= RC_WEIGHT_MAX)
			w = RC_WEIGHT_MAX;
		else
			w = rc_weight(p->free_weight, mk, unused);
		res_group_sched_set_weight(c->tg, w);
	}
}

/*
 * Weights of @p's self_tg and of all its children, after a change of its
 * shares or of a child's: guarantees first, the unused part equally among
 * the self_tg and the children without one.
 */
static void rc_set_weights(struct rc_group *p)
{
	struct rc_group *c;

	p->nfree = 0;
	INIT_LIST_HEAD(&p->guaranteed);
	list_for_each_entry(c, &p->children, sibling) {
		c->kind = rc_kind(c);
		if (c->kind == RC_FREE)
			p->nfree++;
		else if (c->kind == RC_GUARANTEED)
			list_add_tail(&c->gnode, &p->guaranteed);
	}
	p->span = roundup_pow_of_two(p->nfree + 1);
	rc_scale(p);
	res_group_sched_set_weight(p->self_tg, p->free_weight);
	list_for_each_entry(c, &p->children, sibling)
		if (c->kind != RC_GUARANTEED)
			res_group_sched_set_weight(c->tg, c->kind == RC_FREE ?
						   p->free_weight : RC_WEIGHT_MIN);
	rc_set_guaranteed(p);
}

/* @c, new and without a guarantee, is one of @p's children now. */
static void rc_child_added(struct rc_group *p, struct rc_group *c)
{
	c->kind = RC_FREE;
	if (++p->nfree + 1 > p->span) {
		rc_set_weights(p);
		return;
	}
	res_group_sched_set_weight(c->tg, p->free_weight);
	rc_set_guaranteed(p);
}

/* @c is no longer one of @p's children (its min_shares given back). */
static void rc_child_removed(struct rc_group *p, struct rc_group *c)
{
	switch (c->kind) {
	case RC_FREE:
		if ((--p->nfree + 1) * 4 <= p->span)
			rc_set_weights(p);
		else
			rc_set_guaranteed(p);
		break;
	case RC_GUARANTEED:
		/* The parent's unused part and largest guarantee changed. */
		list_del(&c->gnode);
		rc_set_weights(p);
		break;
	}
}

/*
 * A child's part of its parent's @amount, rounded down (docs, "Absolute
 * amounts").
 */
static u64 rc_part(u64 amount, int num, struct rc_group *parent)
{
	int div = parent->shares.child_shares_divisor;

	return div > 0 ? div64_u64(amount * num, div) : 0;
}

/* abs_max of @g, in parts per billion of the machine. */
static u64 rc_max_ppb(struct rc_group *g)
{
	u64 pmax;

	if (!g->parent)
		return RC_PPB;
	pmax = rc_max_ppb(g->parent);
	return g->shares.max_shares >= 0 ?
		rc_part(pmax, g->shares.max_shares, g->parent) : pmax;
}

/* abs_min of @g, in parts per billion of the machine. */
static u64 rc_min_ppb(struct rc_group *g)
{
	if (!g->parent)
		return RC_PPB;
	return g->shares.min_shares >= 0 ?
		rc_part(rc_min_ppb(g->parent), g->shares.min_shares,
			g->parent) : 0;
}

/*
 * The ceiling of @g and of every descendant with its own max_shares, for
 * rc_work to set; caller holds rc_lock.
 */
static void rc_queue_bandwidth(struct rc_group *g, unsigned int ncpus)
{
	u64 quota = U64_MAX, ppb = U64_MAX;
	struct rc_group *c;

	if (g->parent) {
		if (g->shares.max_shares >= 0) {
			ppb = rc_max_ppb(g);
			quota = div64_u64(ppb * ncpus * (RC_PERIOD_NS / 1000),
					  RC_PPB / 1000);
			quota = max_t(u64, quota, RC_MIN_QUOTA_NS);
		}
		g->quota = quota;
		g->quota_ppb = ppb;
		if (list_empty(&g->work_node))
			list_add_tail(&g->work_node, &rc_dirty);
	}
	list_for_each_entry(c, &g->children, sibling)
		rc_queue_bandwidth(c, ncpus);
}

/*
 * The whole subtree's ceilings at once, under one hold of rc_lock, then
 * one run of rc_work: it must see them together to order them.
 */
static void rc_set_bandwidth(struct rc_group *g)
{
	unsigned int ncpus = num_online_cpus();

	spin_lock(&rc_lock);
	rc_queue_bandwidth(g, ncpus);
	spin_unlock(&rc_lock);
	queue_work(system_unbound_wq, &rc_work);
}

/* Raw counters of @g's subtree; caller holds rc_mutex. */
static void rc_read(struct rc_group *g, struct res_group_sched_stat *st)
{
	struct res_group_sched_stat cst;
	struct rc_group *c;

	if (g->parent) {
		res_group_sched_stat(g->tg, st);
		return;
	}
	/* The root task group keeps no total: add up its parts. */
	res_group_sched_stat(g->self_tg, &cst);
	memset(st, 0, sizeof(*st));
	st->usage_ns = cst.usage_ns + g->retired_ns;
	list_for_each_entry(c, &g->children, sibling) {
		res_group_sched_stat(c->tg, &cst);
		st->usage_ns += cst.usage_ns;
	}
}

/*
 * The ceiling of @g in force, in parts per billion of the machine: its
 * abs_max, unless the scheduler refused a ceiling of @g or of an ancestor;
 * then the lowest ceiling in force on the way up. Caller holds rc_mutex.
 */
static u64 rc_limit_ppb(struct rc_group *g)
{
	u64 ppb = RC_PPB;
	struct rc_group *a;
	bool failed = false;

	for (a = g; a->parent; a = a->parent) {
		failed |= READ_ONCE(a->failed);
		ppb = min(ppb, READ_ONCE(a->applied_ppb));
	}
	return failed ? ppb : rc_max_ppb(g);
}

static void rc_show_stats(struct res_shares *s, struct seq_buf *sb)
{
	struct rc_group *g = to_rc(s);
	struct res_group_sched_stat st;

	mutex_lock(&rc_mutex);
	rc_read(g, &st);
	seq_buf_printf(sb,
		       "res=cpu,usage_usec=%llu,nr_periods=%llu,nr_throttled=%llu,throttled_usec=%llu,guarantee_permille=%llu,limit_permille=%llu\n",
		       div_u64(st.usage_ns - g->base.usage_ns, NSEC_PER_USEC),
		       st.nr_periods - g->base.nr_periods,
		       st.nr_throttled - g->base.nr_throttled,
		       div_u64(st.throttled_ns - g->base.throttled_ns,
			       NSEC_PER_USEC),
		       div_u64(rc_min_ppb(g), RC_PPB / 1000),
		       div_u64(rc_limit_ppb(g), RC_PPB / 1000));
	mutex_unlock(&rc_mutex);
}

static int rc_reset_stats(struct res_shares *s, const char *args)
{
	struct rc_group *g = to_rc(s);

	if (*args)
		return -EINVAL;
	mutex_lock(&rc_mutex);
	rc_read(g, &g->base);
	mutex_unlock(&rc_mutex);
	return 0;
}

/* A write changed @s: its parent's level, its own, its subtree's ceilings. */
static void rc_shares_changed(struct res_shares *s)
{
	struct rc_group *g = to_rc(s);

	mutex_lock(&rc_mutex);
	/*
	 * The parent's weights depend on @g's min_shares only: not weighed
	 * again unless @g gained, lost or changed a guarantee (an rmdir
	 * resets a group's shares first: this keeps it O(1)).
	 */
	if (g->parent && (rc_kind(g) != g->kind || g->kind == RC_GUARANTEED))
		rc_set_weights(g->parent);
	rc_set_weights(g);
	rc_set_bandwidth(g);
	mutex_unlock(&rc_mutex);
}

/* The task group of @g's own tasks (see @split). */
static struct task_group *rc_own_tg(struct rc_group *g)
{
	return READ_ONCE(g->split) ? g->self_tg : g->tg;
}

/*
 * Kernel threads are never controlled; the others follow their group
 * (RES_GROUP_RETELL: to @self_tg, their group being split).
 */
static void rc_move_task(struct task_struct *tsk, struct res_shares *from,
			 struct res_shares *to, enum res_group_event event)
{
	if (tsk->flags & PF_KTHREAD)
		return;
	res_group_sched_move_task(tsk, to ? rc_own_tg(to_rc(to)) : NULL);
}

static struct res_shares *rc_alloc_shares(struct res_controller *ctl,
					  struct res_shares *parent)
{
	struct rc_group *g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	struct rc_group *p = parent ? to_rc(parent) : NULL;

	if (!g)
		return NULL;
	INIT_LIST_HEAD(&g->children);
	INIT_LIST_HEAD(&g->work_node);
	g->quota = U64_MAX;
	g->quota_ppb = U64_MAX;
	g->applied = U64_MAX;
	g->applied_ppb = U64_MAX;
	/* The defaults the framework is about to set (docs, "Shares"). */
	g->shares.min_shares = RES_SHARES_DONT_CARE;
	g->shares.max_shares = RES_SHARES_DONT_CARE;
	g->shares.child_shares_divisor = RES_SHARES_DEFAULT_DIVISOR;
	g->shares.unused = RES_SHARES_DEFAULT_DIVISOR;

	mutex_lock(&rc_mutex);
	if (p) {
		g->tg = res_group_sched_create(p->tg, false);
		if (IS_ERR(g->tg))
			goto fail;
	}
	/* The root's: a fallback (see the top of this file). */
	g->self_tg = res_group_sched_create(g->tg, !p);
	if (IS_ERR(g->self_tg))
		goto fail_tg;
	g->parent = p;
	g->depth = p ? p->depth + 1 : 0;
	g->split = !p;
	INIT_LIST_HEAD(&g->guaranteed);
	if (p) {
		list_add_tail(&g->sibling, &p->children);
		rc_child_added(p, g);
	}
	rc_set_weights(g);
	mutex_unlock(&rc_mutex);
	/* The parent's first child: its own tasks go below (see @split). */
	if (p && !p->split) {
		WRITE_ONCE(p->split, true);
		res_group_retell_tasks(ctl, &p->shares);
	}
	return &g->shares;

fail_tg:
	if (p) {
		res_group_sched_release(g->tg);
		synchronize_rcu();
		res_group_sched_free(g->tg);
	}
fail:
	mutex_unlock(&rc_mutex);
	kfree(g);
	return NULL;
}

/* No task is in @g's task groups any more, nor are its children's. */
static void rc_free_shares(struct res_shares *s)
{
	struct rc_group *g = to_rc(s), *p = g->parent;
	struct res_group_sched_stat st;

	mutex_lock(&rc_mutex);
	if (p) {
		if (!p->parent) {
			res_group_sched_stat(g->tg, &st);
			p->retired_ns += st.usage_ns;
		}
		list_del(&g->sibling);
		rc_child_removed(p, g);
	}
	mutex_unlock(&rc_mutex);
	/*
	 * rc_work lifts the ceiling (CFS bandwidth keeps a static key on
	 * while any group has one) and destroys the task groups.
	 */
	spin_lock(&rc_lock);
	list_del(&g->work_node);
	list_add_tail(&g->work_node, &rc_dead);
	spin_unlock(&rc_lock);
	queue_work(system_unbound_wq, &rc_work);
}

/*
 * Lowered ceilings first, deepest first, then raised ones, top-down: with
 * cgroup v1's cpu controller mounted, the scheduler refuses a quota below
 * a child's, or above the parent's.
 */
static int rc_apply_order(void *priv, const struct list_head *a,
			  const struct list_head *b)
{
	struct rc_group *x = list_entry(a, struct rc_group, apply_node);
	struct rc_group *y = list_entry(b, struct rc_group, apply_node);
	bool xl = x->want < x->applied, yl = y->want < y->applied;

	if (xl != yl)
		return xl ? -1 : 1;
	return xl ? y->depth - x->depth : x->depth - y->depth;
}

/* Set the ceilings asked for since the last run, in rc_apply_order(). */
static void rc_apply_ceilings(void)
{
	struct rc_group *g;
	LIST_HEAD(todo);
	int ret;

	spin_lock(&rc_lock);
	while ((g = list_first_entry_or_null(&rc_dirty, struct rc_group,
					     work_node))) {
		/* Asked for again meanwhile: back on rc_dirty. */
		list_del_init(&g->work_node);
		g->want = g->quota;
		g->want_ppb = g->quota_ppb;
		list_add_tail(&g->apply_node, &todo);
	}
	spin_unlock(&rc_lock);
	list_sort(NULL, &todo, rc_apply_order);
	list_for_each_entry(g, &todo, apply_node) {
		ret = res_group_sched_set_bandwidth(g->tg, RC_PERIOD_NS,
						    g->want);
		WRITE_ONCE(g->failed, ret != 0);
		if (ret) {
			atomic_inc(&rc_failures);
			pr_warn_ratelimited("ceiling not set: %d\n", ret);
			continue;
		}
		g->applied = g->want;
		WRITE_ONCE(g->applied_ppb, g->want_ppb);
	}
}

/*
 * Sets the ceilings and destroys the task groups of removed groups, apart
 * from the framework's locks: CFS bandwidth takes cpu_hotplug_lock, which
 * a cgroup migration holds while it waits for forks, and forks may wait
 * for the framework. One work item, never run twice at once, so a group
 * is never destroyed while its ceiling is being set.
 */
static void rc_work_fn(struct work_struct *work)
{
	struct rc_group *g, *n;
	LIST_HEAD(dead);

	/*
	 * Removed groups' ceilings go first: under cgroup v1 a parent's
	 * lowered ceiling is refused while a removed child's is above it.
	 * Children come before their parents.
	 */
	spin_lock(&rc_lock);
	list_splice_init(&rc_dead, &dead);
	spin_unlock(&rc_lock);
	list_for_each_entry(g, &dead, work_node)
		if (g->applied != U64_MAX)
			res_group_sched_set_bandwidth(g->tg, RC_PERIOD_NS,
						      U64_MAX);
	rc_apply_ceilings();
	if (list_empty(&dead))
		return;
	list_for_each_entry(g, &dead, work_node) {
		res_group_sched_release(g->self_tg);
		if (g->parent)
			res_group_sched_release(g->tg);
	}
	synchronize_rcu();
	list_for_each_entry_safe(g, n, &dead, work_node) {
		res_group_sched_free(g->self_tg);
		if (g->parent)
			res_group_sched_free(g->tg);
		kfree(g);
	}
}

static struct res_controller rc_ctl = {
	.name		= "cpu",
	.depth		= RES_GROUP_MAX_DEPTH,
	.owner		= THIS_MODULE,
	/* Section "Precedence" of the docs: resource groups win. */
	.precedes_cgroup = true,
	.alloc_shares	= rc_alloc_shares,
	.free_shares	= rc_free_shares,
	.shares_changed	= rc_shares_changed,
	.show_stats	= rc_show_stats,
	.reset_stats	= rc_reset_stats,
	.move_task	= rc_move_task,
};

static int __init rc_init(void)
{
	int ret;

	res_group_sched_enable();
	ret = res_controller_register(&rc_ctl);
	if (ret) {
		flush_work(&rc_work);
		res_group_sched_disable();
	}
	return ret;
}

static void __exit rc_exit(void)
{
	res_controller_unregister(&rc_ctl);
	flush_work(&rc_work);
	res_group_sched_disable();
}

module_init(rc_init);
module_exit(rc_exit);
static int rc_get_failures(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&rc_failures));
}

static const struct kernel_param_ops rc_failures_ops = {
	.get = rc_get_failures,
};

module_param_cb(ceiling_failures, &rc_failures_ops, NULL, 0444);
MODULE_PARM_DESC(ceiling_failures,
		 "ceilings the scheduler refused to set since load");
MODULE_DESCRIPTION("Resource Groups: the CPU controller");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

// SPDX-License-Identifier: GPL-2.0
/*
 * numtasks: limits and guarantees the number of tasks (processes and
 * threads) of each resource group (SPEC section 7).
 *
 * Each group has own (its tasks) and held (its and its descendants'
 * tasks). Its effective use is own plus, for each child, the larger of the
 * child's held and the child's guarantee: a guarantee not used is still
 * reserved. A fork into G is refused if it would take the effective use of
 * G or of an ancestor above its limit. Limits and guarantees are computed
 * from the shares when needed, so a shares write takes effect at once.
 *
 * Locking: nt_lock protects every counter and the children lists. It is
 * the innermost lock (taken under the framework's group locks in
 * move_task). A single lock makes the check-and-charge along a fork's
 * path of ancestors atomic, so concurrent forks never overshoot a limit;
 * it is held for O(depth * children) steps, not across any sleep.
 * Share values are written under the framework's mutex and read here with
 * READ_ONCE(): a fork racing with a shares write sees the old or the new.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/res_group.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/threads.h>

/**
 * struct nt_group - numtasks state of one group
 * @shares: the framework's part
 * @parent: the parent group's state, NULL at the root
 * @children: child groups' states (nt_lock)
 * @sibling: entry in the parent's @children (nt_lock)
 * @own: tasks counted in this group itself
 * @held: tasks counted here and in all descendants
 * @maxheld: highest @held since load or reset
 * @minheld: lowest @held since load or reset
 * @failcnt: forks refused here for a limit
 * @forkrate_failcnt: forks refused here for the fork rate
 * @rate_start: start of the current fork-rate interval (jiffies)
 * @rate_count: forks allowed in the current interval
 */
struct nt_group {
	struct res_shares shares;
	struct nt_group *parent;
	struct list_head children;
	struct list_head sibling;
	int own;
	int held;
	int maxheld;
	int minheld;
	unsigned long failcnt;
	unsigned long forkrate_failcnt;
	unsigned long rate_start;
	unsigned int rate_count;
};

static DEFINE_SPINLOCK(nt_lock);
static struct nt_group *nt_root;	/* nt_lock */

/* No system runs more tasks than it has pids: never the tighter limit. */
static int total_numtasks = PID_MAX_LIMIT;
static unsigned int forkrate;
static unsigned int forkrate_interval = 1;

static int nt_total_set(const char *val, const struct kernel_param *kp)
{
	int v, ret;

	ret = kstrtoint(val, 10, &v);
	if (ret)
		return -EINVAL;
	spin_lock(&nt_lock);
	if (v < 1 || (nt_root && v < nt_root->held))
		ret = -EINVAL;
	else
		WRITE_ONCE(total_numtasks, v);
	spin_unlock(&nt_lock);
	return ret;
}

static const struct kernel_param_ops nt_total_ops = {
	.set = nt_total_set,
	.get = param_get_int,
};

module_param_cb(total_numtasks, &nt_total_ops, &total_numtasks, 0644);
MODULE_PARM_DESC(total_numtasks,
		 "Tasks of the whole system: the root's limit and guarantee (default PID_MAX_LIMIT)");
module_param(forkrate, uint, 0644);
MODULE_PARM_DESC(forkrate, "Forks allowed per interval and group (0: no limit)");
module_param(forkrate_interval, uint, 0644);
MODULE_PARM_DESC(forkrate_interval, "The fork-rate interval, in seconds");

static struct nt_group *to_nt(struct res_shares *s)
{
	return container_of(s, struct nt_group, shares);
}

/* A child's share of its parent's amount @parent_amount; rounded down. */
static long long nt_part(long long parent_amount, int numerator,
			 struct nt_group *parent)
{
	int div = READ_ONCE(parent->shares.child_shares_divisor);

	return div > 0 ? parent_amount * numerator / div : 0;
}

/* abs_max and abs_min of @g from its parent's @pmax and @pmin (SPEC 7). */
static void nt_abs_from(struct nt_group *g, long long pmax, long long pmin,
			long long *amax, long long *amin)
{
	int max = READ_ONCE(g->shares.max_shares);
	int min = READ_ONCE(g->shares.min_shares);

	*amax = max >= 0 ? nt_part(pmax, max, g->parent) : pmax;
	*amin = min >= 0 ? nt_part(pmin, min, g->parent) : 0;
}

/* The absolute limit (abs_max) and guarantee (abs_min) of @g. */
static void nt_abs(struct nt_group *g, long long *amax, long long *amin)
{
	long long pmax, pmin;

	if (!g->parent) {
		*amax = READ_ONCE(total_numtasks);
		*amin = *amax;
		return;
	}
	nt_abs(g->parent, &pmax, &pmin);
	nt_abs_from(g, pmax, pmin, amax, amin);
}

/* Effective use of @g, whose guarantee is @amin: own + reserved children. */
static long long nt_eff(struct nt_group *g, long long amin)
{
	long long eff = g->own, cmin;
	struct nt_group *c;
	int min;

	list_for_each_entry(c, &g->children, sibling) {
		min = READ_ONCE(c->shares.min_shares);
		cmin = min >= 0 ? nt_part(amin, min, g) : 0;
		eff += max_t(long long, c->held, cmin);
	}
	return eff;
}

/* Count one more (@delta 1) or one less (-1) task in @g. */
static void nt_count(struct nt_group *g, int delta)
{
	g->own += delta;
	for (; g; g = g->parent) {
		g->held += delta;
		g->maxheld = max(g->maxheld, g->held);
		g->minheld = min(g->minheld, g->held);
	}
}

/*
 * Would one more task in @g0 keep every level within its limit? A level
 * above a child C gains effective use only if C's held already covers
 * C's guarantee; otherwise the task uses C's reserved part. The fork
 * path: limits and guarantees are worked out once, from the root down,
 * so the walk is O(depth) and not O(depth^2).
 */
static bool nt_fits(struct nt_group *g0)
{
	struct nt_group *path[RES_GROUP_MAX_DEPTH + 1], *g;
	long long amax[RES_GROUP_MAX_DEPTH + 1], amin[RES_GROUP_MAX_DEPTH + 1];
	int n = 0, i;

	for (g = g0; g; g = g->parent) {
		/* The framework gives shares down to ctl->depth only. */
		if (WARN_ON_ONCE(n == ARRAY_SIZE(path)))
			return false;
		path[n++] = g;
	}
	amax[n - 1] = READ_ONCE(total_numtasks);
	amin[n - 1] = amax[n - 1];
	for (i = n - 2; i >= 0; i--)
		nt_abs_from(path[i], amax[i + 1], amin[i + 1], &amax[i],
			    &amin[i]);
	for (i = 0; i < n; i++)
		if ((!i || path[i - 1]->held >= amin[i - 1]) &&
		    nt_eff(path[i], amin[i]) + 1 > amax[i])
			return false;
	return true;
}

/* The fork-rate limit of @g; caller holds nt_lock. */
static bool nt_rate_ok(struct nt_group *g)
{
	unsigned int rate = READ_ONCE(forkrate);
	unsigned long interval = READ_ONCE(forkrate_interval) * HZ;

	if (!rate)
		return true;
	if (time_after_eq(jiffies, g->rate_start + interval)) {
		g->rate_start = jiffies;
		g->rate_count = 0;
	}
	return g->rate_count < rate;
}

static int nt_can_fork(struct res_shares *s)
{
	struct nt_group *g = to_nt(s);
	int ret = 0;

	spin_lock(&nt_lock);
	if (!nt_rate_ok(g)) {
		g->forkrate_failcnt++;
		ret = -EAGAIN;
	} else if (!nt_fits(g)) {
		g->failcnt++;
		ret = -EAGAIN;
	} else {
		g->rate_count++;
		nt_count(g, 1);
	}
	spin_unlock(&nt_lock);
	return ret;
}

static void nt_cancel_fork(struct res_shares *s)
{
	spin_lock(&nt_lock);
	nt_count(to_nt(s), -1);
	spin_unlock(&nt_lock);
}

/* Moves are never refused; a fork was counted by nt_can_fork(). */
static void nt_move_task(struct task_struct *tsk, struct res_shares *from,
			 struct res_shares *to, enum res_group_event event)
{
	spin_lock(&nt_lock);
	if (from)
		nt_count(to_nt(from), -1);
	if (to && event != RES_GROUP_FORK)
		nt_count(to_nt(to), 1);
	spin_unlock(&nt_lock);
}

static void nt_show_stats(struct res_shares *s, struct seq_buf *sb)
{
	struct nt_group *g = to_nt(s);
	long long amax, amin;

	spin_lock(&nt_lock);
	nt_abs(g, &amax, &amin);
	seq_buf_printf(sb,
		       "res=numtasks,held=%d,maxheld=%d,minheld=%d,limit=%lld,guarantee=%lld,failcnt=%lu,forkrate_failcnt=%lu\n",
		       g->held, g->maxheld, g->minheld, amax, amin, g->failcnt,
		       g->forkrate_failcnt);
	spin_unlock(&nt_lock);
}

static int nt_reset_stats(struct res_shares *s, const char *args)
{
	struct nt_group *g = to_nt(s);

	if (*args)
		return -EINVAL;
	spin_lock(&nt_lock);
	g->maxheld = g->held;
	g->minheld = g->held;
	g->failcnt = 0;
	g->forkrate_failcnt = 0;
	spin_unlock(&nt_lock);
	return 0;
}

static struct res_shares *nt_alloc_shares(struct res_controller *ctl,
					  struct res_shares *parent)
{
	struct nt_group *g = kzalloc(sizeof(*g), GFP_KERNEL);

	if (!g)
		return NULL;
	INIT_LIST_HEAD(&g->children);
	g->rate_start = jiffies;
	spin_lock(&nt_lock);
	if (parent) {
		g->parent = to_nt(parent);
		list_add_tail(&g->sibling, &g->parent->children);
	} else {
		nt_root = g;
	}
	spin_unlock(&nt_lock);
	return &g->shares;
}

static void nt_free_shares(struct res_shares *s)
{
	struct nt_group *g = to_nt(s);

	spin_lock(&nt_lock);
	/* Children are freed first: the parent is still there. */
	if (g->parent)
		list_del(&g->sibling);
	if (g == nt_root)
		nt_root = NULL;
	spin_unlock(&nt_lock);
	kfree(g);
}

static struct res_controller numtasks_ctl = {
	.name		= "numtasks",
	.depth		= RES_GROUP_MAX_DEPTH,
	.owner		= THIS_MODULE,
	.alloc_shares	= nt_alloc_shares,
	.free_shares	= nt_free_shares,
	.show_stats	= nt_show_stats,
	.reset_stats	= nt_reset_stats,
	.move_task	= nt_move_task,
	.can_fork	= nt_can_fork,
	.cancel_fork	= nt_cancel_fork,
};

static int __init numtasks_init(void)
{
	return res_controller_register(&numtasks_ctl);
}

static void __exit numtasks_exit(void)
{
	res_controller_unregister(&numtasks_ctl);
}

module_init(numtasks_init);
module_exit(numtasks_exit);
MODULE_DESCRIPTION("Resource Groups: the numtasks controller");
MODULE_LICENSE("GPL");

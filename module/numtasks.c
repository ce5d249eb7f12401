// SPDX-License-Identifier: GPL-2.0
/*
 * numtasks: limits and guarantees the number of tasks (processes and
 * threads) of each resource group (docs/res_groups.rst, "The numtasks
 * controller").
 *
 * Each group has held (tasks in it and all its descendants) and eff, its
 * effective use: its own tasks plus, for each child C, max(held(C),
 * guarantee(C)), so an unused guarantee stays reserved. A fork into G is
 * refused if afterwards eff(A) > limit(A) for G or any ancestor A,
 * whether or not the fork raises eff(A).
 *
 * Limits and guarantees (abs_max, abs_min) are worked out under nt_mutex
 * whenever shares or total_numtasks change, and kept as one int each
 * (limit, guarantee): the fork path reads one word per group, so it sees
 * each group's old or new limit, never a mix of old and new shares.
 *
 * Locking:
 * - nt_mutex: the children lists, our copies of the shares (min, max,
 *   divisor) and the writing of limit and guarantee. Taken in
 *   alloc_shares, free_shares, shares_changed (under the framework's
 *   mutex) and by total_numtasks writes. Never on the fork/exit path.
 * - The fork, exit and move paths take no lock (as cgroup's pids): forks
 *   contend only on the counters of the groups they share, by atomic
 *   operations. eff is a running count. Each group's part of its
 *   parent's eff, max(charged, guarantee), comes from one 64-bit word,
 *   @use: the charged count (held, and the tasks on their way in) and the
 *   guarantee, changed by one atomic step each time, which knows the
 *   exact change of that part.
 * - eff never undercounts: a rise of a part is added to the parent's eff
 *   before it is made visible in @use (a fork: the levels above first,
 *   each with a cmpxchg that never goes past the limit, then the cmpxchg
 *   of @use, which redoes the difference if @use moved meanwhile; a
 *   guarantee raise: the add, then its cmpxchg), and a fall is made
 *   visible before it is taken off. So every check sees at least the
 *   true use, concurrent forks never overshoot a limit, and eff is exact
 *   once nothing is in flight. A refused fork takes back its raises; it
 *   may have refused another fork meanwhile (eff one above the truth for
 *   that moment), as may a fork that is later cancelled, an exit or a
 *   move under way, or a guarantee raise whose cmpxchg must be redone. A
 *   fork refused above retries if its own rise fell meanwhile. The fork
 *   path is O(depth).
 * - held (the statistics, with maxheld and minheld) is raised once a
 *   fork is allowed at every level (nt_held_path()): a refused fork
 *   raises no maxheld anywhere. A move walks from each group up to their
 *   common ancestor only, entering first: no eff ever drops below its
 *   final value meanwhile (see nt_move_task()).
 * - nt_group.lock, one per group, covers the group's fork-rate interval:
 *   taken by a fork into the group while a fork rate is set (a rate set
 *   while forks are under way applies to those that start after it). Its
 *   counts are atomics, since a fork counts once done, in move_task
 *   (RES_GROUP_FORK). It is never nested.
 * - maxheld, minheld and the fail counts are atomics; eff is a long (on
 *   64-bit machines the guarantees below a total_numtasks near INT_MAX and
 *   the own tasks may add up past INT_MAX).
 * On architectures without 64-bit atomics (CONFIG_GENERIC_ATOMIC64) the
 * kernel's atomic64_t takes a hashed spinlock: correct, not lock-free.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/res_groups_version.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/res_group.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/threads.h>

/**
 * struct nt_group - numtasks state of one group
 * @shares: the framework's part
 * @parent: the parent group's state, NULL at the root
 * @children: child groups' states (nt_mutex)
 * @sibling: entry in the parent's @children (nt_mutex)
 * @depth: the group's depth
 * @min: min_shares as last told (nt_mutex)
 * @max: max_shares as last told (nt_mutex)
 * @divisor: child_shares_divisor as last told (nt_mutex)
 * @limit: abs_max (written under nt_mutex, read locklessly)
 * @lock: the fork-rate interval (see the top of this file)
 * @use: charged, held and the tasks on their way in (low 32 bits), and
 *	guarantee, abs_min (high 32 bits; written under nt_mutex)
 * @held: tasks counted here and in all descendants
 * @eff: effective use
 * @maxheld: highest @held since load or reset
 * @minheld: lowest @held since load or reset
 * @failcnt: forks refused here for a limit
 * @forkrate_failcnt: forks refused here for the fork rate
 * @rate_start: start of the current fork-rate interval, jiffies (@lock)
 * @rate_count: forks done in the current interval (set under @lock)
 * @rate_inflight: forks allowed and neither done nor cancelled yet
 */
struct nt_group {
	struct res_shares shares;
	struct nt_group *parent;
	struct list_head children;
	struct list_head sibling;
	int depth;
	int min;
	int max;
	int divisor;
	int limit;
	spinlock_t lock;	/* see the top of this file */
	atomic64_t use;
	atomic_t held;
	atomic_long_t eff;
	atomic_t maxheld;
	atomic_t minheld;
	atomic_long_t failcnt;
	atomic_long_t forkrate_failcnt;
	unsigned long rate_start;
	atomic_t rate_count;
	atomic_t rate_inflight;
};

/* @use's parts; both are never negative. */
static int nt_charged_of(s64 use)
{
	return (u32)use;
}

static int nt_guarantee_of(s64 use)
{
	return (u64)use >> 32;
}

/* A group's part of its parent's eff. */
static int nt_part_of_parent(s64 use)
{
	return max(nt_charged_of(use), nt_guarantee_of(use));
}

static DEFINE_MUTEX(nt_mutex);
static struct nt_group *nt_root;	/* nt_mutex */
/* Limits are enforced once the load has checked total_numtasks. */
static bool nt_enforce;

/* No system runs more tasks than it has pids: never the tighter limit. */
static int total_numtasks = PID_MAX_LIMIT;
static unsigned int forkrate;
static unsigned int forkrate_interval = 1;

static void nt_derive(struct nt_group *g);

static int nt_total_set(const char *val, const struct kernel_param *kp)
{
	int v, ret = 0;

	if (kstrtoint(val, 10, &v) || v < 1)
		return -EINVAL;
	mutex_lock(&nt_mutex);
	if (nt_root && v < atomic_read(&nt_root->held)) {
		ret = -EINVAL;
	} else {
		WRITE_ONCE(total_numtasks, v);
		if (nt_root)
			nt_derive(nt_root);
	}
	mutex_unlock(&nt_mutex);
	return ret;
}

static const struct kernel_param_ops nt_total_ops = {
	.set = nt_total_set,
	.get = param_get_int,
};

/* 0 would turn the rate limit off unasked; jiffies must not wrap. */
static int nt_interval_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 10, &v) || v < 1 || v > MAX_JIFFY_OFFSET / HZ)
		return -EINVAL;
	WRITE_ONCE(forkrate_interval, v);
	return 0;
}

static const struct kernel_param_ops nt_interval_ops = {
	.set = nt_interval_set,
	.get = param_get_uint,
};

module_param_cb(total_numtasks, &nt_total_ops, &total_numtasks, 0644);
MODULE_PARM_DESC(total_numtasks,
		 "Tasks of the whole system: the root's limit and guarantee (default PID_MAX_LIMIT)");
module_param(forkrate, uint, 0644);
MODULE_PARM_DESC(forkrate, "Forks allowed per interval and group (0: no limit)");
module_param_cb(forkrate_interval, &nt_interval_ops, &forkrate_interval, 0644);
MODULE_PARM_DESC(forkrate_interval, "The fork-rate interval, in seconds (at least 1)");

static struct nt_group *to_nt(struct res_shares *s)
{
	return container_of(s, struct nt_group, shares);
}

/* @num / @div of @amount, rounded down. */
static int nt_part(int amount, int num, int div)
{
	return div > 0 ? min_t(s64, (s64)amount * num / div, INT_MAX) : 0;
}

/*
 * Set @g's guarantee to @amin, moving its parent's eff by the change of
 * max(charged, guarantee): a rise before it is visible, a fall after.
 * Caller holds nt_mutex.
 */
static void nt_set_guarantee(struct nt_group *g, int amin)
{
	s64 old = atomic64_read(&g->use), new;
	long delta;

	for (;;) {
		new = ((s64)amin << 32) | (u32)old;
		delta = g->parent ? nt_part_of_parent(new) -
				    nt_part_of_parent(old) : 0;
		if (delta > 0)
			atomic_long_add(delta, &g->parent->eff);
		if (atomic64_try_cmpxchg(&g->use, &old, new))
			break;
		if (delta > 0)
			atomic_long_sub(delta, &g->parent->eff);
	}
	if (delta < 0)
		atomic_long_add(delta, &g->parent->eff);
}

/*
 * Work out limit and guarantee of @g and its subtree from @g's parent's,
 * which are up to date. Caller holds nt_mutex.
 */
static void nt_derive(struct nt_group *g)
{
	struct nt_group *p = g->parent, *c;
	int limit, amin;

	if (!p) {
		limit = READ_ONCE(total_numtasks);
		amin = limit;
	} else {
		limit = g->max >= 0 ? nt_part(p->limit, g->max, p->divisor) :
				      p->limit;
		amin = g->min >= 0 ? nt_part(nt_guarantee_of(atomic64_read(&p->use)),
						 g->min, p->divisor) :
				     0;
	}
	WRITE_ONCE(g->limit, limit);
	nt_set_guarantee(g, amin);
	list_for_each_entry(c, &g->children, sibling)
		nt_derive(c);
}

/* The rise of a group's part of its parent's eff if @use took one more. */
static int nt_rise(s64 use)
{
	return nt_part_of_parent(use + 1) - nt_part_of_parent(use);
}

/* One task fewer charged in @g. Return: the fall of its part (<= 0). */
static int nt_charged_dec(struct nt_group *g)
{
	s64 new = atomic64_dec_return(&g->use);

	WARN_ON_ONCE((u32)new == U32_MAX);
	return nt_part_of_parent(new) - nt_part_of_parent(new + 1);
}

/* Add @delta to @g's held, keeping maxheld and minheld. */
static __always_inline void nt_held_add(struct nt_group *g, int delta)
{
	int h = atomic_add_return(delta, &g->held);
	atomic_t *m = delta > 0 ? &g->maxheld : &g->minheld;
	int old = atomic_read(m);

	do {
		if (delta > 0 ? h <= old : h >= old)
			return;
	} while (!atomic_try_cmpxchg(m, &old, h));
}

/* @delta more (or fewer) tasks held from @g up to @stop (not included). */
static void nt_held_path(struct nt_group *g, int delta, struct nt_group *stop)
{
	for (; g && g != stop; g = g->parent)
		nt_held_add(g, delta);
}

/*
 * Raise @g's eff by @d (0 or 1). With @check, only if it then stays
 * within the limit (for @d 0: if it is within now).
 */
static __always_inline bool nt_eff_add(struct nt_group *g, int d, bool check)
{
	long limit = READ_ONCE(g->limit);
	long old = atomic_long_read(&g->eff);

	if (!check) {
		atomic_long_add(d, &g->eff);
		return true;
	}
	do {
		if (old + d > limit)
			return false;
	} while (d && !atomic_long_try_cmpxchg(&g->eff, &old, old + d));
	return true;
}

static void nt_uncharge_at(struct nt_group *g, int d, struct nt_group *stop,
			   bool held);

/*
 * @g's rise *@up was refused above (which then kept nothing of it): read
 * its @use again into *@old. True if the rise fell meanwhile (the count
 * went below the guarantee); *@up is then the smaller rise to ask for
 * (refusing anyway would be a refusal no order of the operations
 * explains). False: the refusal stands.
 */
static __always_inline bool nt_rise_fell(struct nt_group *g, s64 *old,
					 int *up)
{
	*old = atomic64_read(&g->use);
	if (nt_rise(*old) >= *up)
		return false;
	*up = nt_rise(*old);
	return true;
}

/*
 * Show @g's charge: its @use from @old (as read) to one more, @up of its
 * part already raised in its parent @p. If @use moved meanwhile, the
 * parent's raise follows the change (a larger rise checked against the
 * parent's limit, again if the count fell back meanwhile). False if the
 * parent is full for it: nt_uncharge_at() has then taken @up back from
 * @p and above, up to @stop; @g's own raise is left to the caller.
 */
static __always_inline bool nt_show_charge(struct nt_group *g,
					   struct nt_group *p, s64 old, int up,
					   bool check, struct nt_group *stop)
{
	int more;

	while (!atomic64_try_cmpxchg(&g->use, &old, old + 1)) {
		more = nt_rise(old) - up;
		if (more > 0 && !nt_eff_add(p, more, check)) {
			old = atomic64_read(&g->use);
			if (nt_rise(old) <= up)
				continue;
			nt_uncharge_at(p, up, stop, false);
			return false;
		}
		if (more < 0)
			atomic_long_add(more, &p->eff);
		up += more;
	}
	return true;
}

/*
 * One level of nt_charge_parent()'s walk, until it shows its charge: the
 * group, the @d it was raised by, its @use as last read and the rise @up
 * asked of its parent.
 */
struct nt_step {
	struct nt_group *g;
	s64 old;
	int d;
	int up;
};

/*
 * nt_charge_at() for @p, the parent of a group whose part rises by @d
 * once this returns true (see the top of this file: before it is
 * visible). Never inlined nor cloned: a test holds a fork still here.
 *
 * The same steps as nt_charge_at() at each level, in a loop rather than
 * a call per level (this is every fork's walk): up, each level raises its
 * eff and asks its rise of the next; down, each makes its charge visible
 * once everything above was allowed. A level refused (its eff, or its
 * parent full when its rise turned out larger) takes back its raise, and
 * the level below it does what nt_charge_at() does when refused above.
 */
static noinline __noclone bool nt_charge_parent(struct nt_group *p, int d,
						bool check,
						struct nt_group *stop)
{
	struct nt_step st[RES_GROUP_MAX_DEPTH], *s;
	struct nt_group *g = p;
	int i = 0;

up:	/* Level i, @g, raised by @d. */
	if (!nt_eff_add(g, d, check))
		goto refused;
	if (g == stop)
		goto down;
	if (!g->parent) {
		atomic64_inc(&g->use);
		goto down;
	}
	/* At most the levels below the root: a parent is never that deep. */
	if (WARN_ON_ONCE(i == ARRAY_SIZE(st))) {
		atomic_long_sub(d, &g->eff);
		goto refused;
	}
	s = &st[i++];
	s->g = g;
	s->d = d;
	s->old = atomic64_read(&g->use);
	s->up = nt_rise(s->old);
	d = s->up;
	g = g->parent;
	goto up;

refused:	/* Level i was refused and kept nothing: level i - 1's turn. */
	if (!i)
		return false;
	s = &st[--i];
	if (!nt_rise_fell(s->g, &s->old, &s->up)) {
		atomic_long_sub(s->d, &s->g->eff);
		goto refused;
	}
	/* Again above, with the smaller rise. */
	d = s->up;
	g = s->g->parent;
	i++;
	goto up;

down:	/* Level i was allowed: level i - 1 shows its charge. */
	while (i) {
		s = &st[--i];
		if (!nt_show_charge(s->g, s->g->parent, s->old, s->up, check,
				    stop)) {
			atomic_long_sub(s->d, &s->g->eff);
			goto refused;
		}
	}
	return true;
}

/*
 * One more task charged in @g's subtree, @d (0 or 1) more effective use
 * of @g; @check: refuse (false) if a limit of @g or above would be
 * exceeded, and then take back what was raised. Up to the root, or up to
 * @stop, where the task stays in the subtree (a move): there only eff
 * changes, by @d. held is left to the caller (nt_held_path()).
 *
 * Never inlined nor cloned: a test holds a move still here, by name
 * (selftests/modules/rg_fork_stall.c), calling it as declared.
 */
static noinline __noclone bool nt_charge_at(struct nt_group *g, int d,
					    bool check, struct nt_group *stop)
{
	struct nt_group *p = g->parent;
	s64 old;
	int up;

	if (!nt_eff_add(g, d, check))
		return false;
	if (g == stop)
		return true;
	if (!p) {
		atomic64_inc(&g->use);
		return true;
	}
	old = atomic64_read(&g->use);
	up = nt_rise(old);
	while (!nt_charge_parent(p, up, check, stop)) {
		if (!nt_rise_fell(g, &old, &up))
			goto refused;
	}
	if (!nt_show_charge(g, p, old, up, check, stop))
		goto refused;
	return true;
refused:
	atomic_long_sub(d, &g->eff);
	return false;
}

/*
 * Undo nt_charge_at(@g, @d, ..., @stop): each fall is visible before it
 * is taken off the parent's eff. With @held, one task fewer held too
 * (the walk of nt_held_path(@g, -1, @stop), in the same pass).
 */
static void nt_uncharge_at(struct nt_group *g, int d, struct nt_group *stop,
			   bool held)
{
	for (;;) {
		atomic_long_sub(d, &g->eff);
		if (g == stop)
			return;
		if (held)
			nt_held_add(g, -1);
		d = -nt_charged_dec(g);
		g = g->parent;
		if (!g)
			return;
	}
}

/*
 * The fork-rate limit of @g (@rate forks an interval); caller holds
 * @g->lock. A fork counts in the interval in which it is done
 * (post_fork); until then it is in flight, and the forks in flight count
 * against every interval they may end in. So a fork cancelled after the
 * interval restarted gives nothing back to the new one, and no interval
 * has more than @rate forks done.
 */
static bool nt_rate_ok(struct nt_group *g, unsigned int rate)
{
	unsigned long interval;
	int inflight;

	lockdep_assert_held(&g->lock);
	interval = (unsigned long)READ_ONCE(forkrate_interval) * HZ;
	if (time_after_eq(jiffies, g->rate_start + interval)) {
		g->rate_start = jiffies;
		atomic_set(&g->rate_count, 0);
	}
	/* In flight first: a fork done meanwhile is then counted (twice). */
	inflight = atomic_read(&g->rate_inflight);
	smp_rmb();	/* pairs with nt_move_task()'s smp_mb__after_atomic() */
	return (unsigned int)atomic_read(&g->rate_count) + inflight < rate;
}

/* Charge a fork into @g, counted in flight for its fork rate. */
static int nt_fork_charge(struct nt_group *g, bool check)
{
	if (!nt_charge_at(g, 1, check, NULL)) {
		atomic_long_inc(&g->failcnt);
		return -EAGAIN;
	}
	nt_held_path(g, 1, NULL);
	atomic_inc(&g->rate_inflight);
	return 0;
}

/*
 * With a fork rate set, the group's forks take its lock, from the rate's
 * check until the fork is in flight; else none.
 */
static int nt_can_fork(struct res_shares *s)
{
	struct nt_group *g = to_nt(s);
	bool check = READ_ONCE(nt_enforce);
	unsigned int rate = check ? READ_ONCE(forkrate) : 0;
	int ret;

	if (!rate)
		return nt_fork_charge(g, check);
	spin_lock(&g->lock);
	if (nt_rate_ok(g, rate)) {
		ret = nt_fork_charge(g, check);
	} else {
		atomic_long_inc(&g->forkrate_failcnt);
		ret = -EAGAIN;
	}
	spin_unlock(&g->lock);
	return ret;
}

static void nt_cancel_fork(struct res_shares *s)
{
	struct nt_group *g = to_nt(s);

	nt_uncharge_at(g, 1, NULL, true);
	atomic_dec(&g->rate_inflight);
}

/* The nearest group with both @a and @b in its subtree. */
static struct nt_group *nt_common_ancestor(struct nt_group *a,
					   struct nt_group *b)
{
	while (a->depth > b->depth)
		a = a->parent;
	while (b->depth > a->depth)
		b = b->parent;
	while (a != b) {
		a = a->parent;
		b = b->parent;
	}
	return a;
}

/*
 * Moves are never refused, nor are tasks that join without a can_fork()
 * (kernel threads, tasks there at registration); a fork was charged by
 * nt_can_fork().
 */
static void nt_move_task(struct task_struct *tsk, struct res_shares *from,
			 struct res_shares *to, enum res_group_event event)
{
	struct nt_group *f = from ? to_nt(from) : NULL;
	struct nt_group *t = to && event != RES_GROUP_FORK ? to_nt(to) : NULL;
	struct nt_group *anc = f && t ? nt_common_ancestor(f, t) : NULL;

	/*
	 * A fork nt_can_fork() allowed is done: it counts in this interval
	 * (counted before it leaves the forks in flight, so that a check
	 * meanwhile sees it twice rather than not at all).
	 */
	if (to && event == RES_GROUP_FORK) {
		atomic_inc(&to_nt(to)->rate_count);
		smp_mb__after_atomic();	/* pairs with nt_rate_ok()'s smp_rmb() */
		atomic_dec(&to_nt(to)->rate_inflight);
	}

	/*
	 * A move changes nothing above the common ancestor of its groups,
	 * and at the ancestor only eff: both walks stop there. The task
	 * enters first, so that the ancestor's eff never drops below where
	 * it ends: a fork that comes between the two walks is checked as if
	 * the task were in both children. It is never let past the
	 * ancestor's limit, but it may be refused where it would pass both
	 * before and after the move (eff one above both for that moment).
	 */
	if (t) {
		nt_charge_at(t, 1, false, anc);
		nt_held_path(t, 1, anc);
	}
	if (f)
		nt_uncharge_at(f, 1, anc, true);
}

static void nt_show_stats(struct res_shares *s, struct seq_buf *sb)
{
	struct nt_group *g = to_nt(s);
	int held = atomic_read(&g->held);

	/* held may have moved since: never show it outside [min, max]. */
	seq_buf_printf(sb,
		       "res=numtasks,held=%d,maxheld=%d,minheld=%d,limit=%d,guarantee=%d,failcnt=%lu,forkrate_failcnt=%lu\n",
		       held, max(atomic_read(&g->maxheld), held),
		       min(atomic_read(&g->minheld), held),
		       READ_ONCE(g->limit),
		       nt_guarantee_of(atomic64_read(&g->use)),
		       atomic_long_read(&g->failcnt),
		       atomic_long_read(&g->forkrate_failcnt));
}

static int nt_reset_stats(struct res_shares *s, const char *args)
{
	struct nt_group *g = to_nt(s);
	int held = atomic_read(&g->held);

	if (*args)
		return -EINVAL;
	atomic_set(&g->maxheld, held);
	atomic_set(&g->minheld, held);
	atomic_long_set(&g->failcnt, 0);
	atomic_long_set(&g->forkrate_failcnt, 0);
	return 0;
}

static struct res_shares *nt_alloc_shares(struct res_controller *ctl,
					  struct res_shares *parent)
{
	struct nt_group *g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);

	if (!g)
		return NULL;
	INIT_LIST_HEAD(&g->children);
	spin_lock_init(&g->lock);
	g->rate_start = jiffies;
	/* The framework gives every new group these defaults. */
	g->min = RES_SHARES_DONT_CARE;
	g->max = RES_SHARES_DONT_CARE;
	g->divisor = RES_SHARES_DEFAULT_DIVISOR;
	mutex_lock(&nt_mutex);
	if (parent) {
		g->parent = to_nt(parent);
		g->depth = g->parent->depth + 1;
		list_add_tail(&g->sibling, &g->parent->children);
	} else {
		nt_root = g;
	}
	nt_derive(g);
	mutex_unlock(&nt_mutex);
	return &g->shares;
}

static void nt_free_shares(struct res_shares *s)
{
	struct nt_group *g = to_nt(s);

	mutex_lock(&nt_mutex);
	/* No task counts here any more; children are freed first. */
	WARN_ON_ONCE(nt_charged_of(atomic64_read(&g->use)));
	nt_set_guarantee(g, 0);
	if (g->parent)
		list_del(&g->sibling);
	if (g == nt_root)
		nt_root = NULL;
	mutex_unlock(&nt_mutex);
	kfree(g);
}

static void nt_shares_changed(struct res_shares *s)
{
	struct nt_group *g = to_nt(s);

	mutex_lock(&nt_mutex);
	g->min = s->min_shares;
	g->max = s->max_shares;
	g->divisor = s->child_shares_divisor;
	nt_derive(g);
	mutex_unlock(&nt_mutex);
}

static struct res_controller numtasks_ctl = {
	.name		= "numtasks",
	.depth		= RES_GROUP_MAX_DEPTH,
	.owner		= THIS_MODULE,
	.alloc_shares	= nt_alloc_shares,
	.free_shares	= nt_free_shares,
	.shares_changed	= nt_shares_changed,
	.show_stats	= nt_show_stats,
	.reset_stats	= nt_reset_stats,
	.move_task	= nt_move_task,
	.can_fork	= nt_can_fork,
	.cancel_fork	= nt_cancel_fork,
};

/*
 * total_numtasks given to insmod is checked like a write at run time,
 * once registration has counted the tasks; until then nothing is refused.
 */
static int __init numtasks_init(void)
{
	int ret = res_controller_register(&numtasks_ctl);
	int held;

	if (ret)
		return ret;
	mutex_lock(&nt_mutex);
	held = atomic_read(&nt_root->held);
	if (total_numtasks >= held)
		WRITE_ONCE(nt_enforce, true);
	mutex_unlock(&nt_mutex);
	if (!READ_ONCE(nt_enforce)) {
		pr_err("total_numtasks=%d is below the %d tasks counted\n",
		       total_numtasks, held);
		res_controller_unregister(&numtasks_ctl);
		return -EINVAL;
	}
	return 0;
}

static void __exit numtasks_exit(void)
{
	res_controller_unregister(&numtasks_ctl);
}

module_init(numtasks_init);
module_exit(numtasks_exit);
MODULE_DESCRIPTION("Resource Groups: the numtasks controller");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

// SPDX-License-Identifier: GPL-2.0
/*
 * memory: user memory, page cache, swap and (without rg_kmem.ko) kernel
 * memory per resource group, with a guarantee, a barrier and a limit
 * (docs/res_groups.rst, "The memory controller").
 *
 * Not a memory manager: a thin layer over the kernel's memory cgroups,
 * as cpu.c is over CFS task groups. Each non-root group is backed by a
 * shadow cgroup (<linux/res_group_shadow.h>: a cgroup v2 directory at the
 * group's path under shadow_root, made and removed by res_groups.ko),
 * and each task of a non-root group points at its group's shadow memcg
 * (<linux/res_group_css.h>, hooks patch 0007), which the kernel then
 * charges instead of the task's own memory cgroup: faults, page cache,
 * swap-in, socket memory, kernel memory when rg_kmem.ko does not take it,
 * writeback's domain. Reclaim, throttling, swap, OOM are memcg's: the
 * shares only set the shadow's knobs, from abs(root) = total_memory:
 * - memory.max = limit = abs_max, if the group has a max_shares (without
 *   one, the parent's shadow bounds it: memory.max stays "max");
 * - memory.high = barrier = limit x barrier_permille / 1000 (with a
 *   max_shares and barrier_permille < 1000; else "max");
 * - memory.low = guarantee = abs_min (0 without a min_shares).
 * Amounts are rounded down to pages, as memcg stores them. The root
 * group's tasks are left to their memory cgroups (precedence); its stats
 * are shadow_root's, i.e. all groups'.
 *
 * Charges stay with the shadow that took them when a task moves (memcg's
 * rule). A removed group's shadow is removed after its tasks left; memcg
 * moves its charges to the parent shadow. Unloading points every task
 * back at its own cgroup, then removes every shadow.
 *
 * Locking: rm_mutex protects our tree (parent, children, sibling), the
 * copies of the shares and the amounts; it is taken in the callbacks that
 * may sleep (under the framework's mutex) and by parameter writes. A
 * parameter write only queues the shadows' new values: it must not wait
 * for the shadows' worker, which writes cgroup files through kernfs, while
 * it holds a kernfs file of its own (sysfs) and the module's param_lock
 * (lockdep: of->mutex, param_lock -> the worker -> of->mutex). Nobody
 * waits for them: a failure is logged, and the next shares write that
 * asks for the value writes it again. move_task() runs under the
 * framework's spinlocks and only publishes a pointer to a css that lives
 * as long as the group's shares.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/res_groups_version.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/res_group.h>
#include <linux/res_group_css.h>
#include <linux/res_group_shadow.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>

/**
 * struct rm_group - memory state of one group
 * @shares: the framework's part
 * @parent: the parent group's state, NULL at the root
 * @children: child groups' states (rm_mutex)
 * @sibling: entry in the parent's @children (rm_mutex)
 * @min: min_shares as last told (rm_mutex)
 * @max: max_shares as last told (rm_mutex)
 * @divisor: child_shares_divisor as last told (rm_mutex)
 * @limit: abs_max in bytes (written under rm_mutex)
 * @barrier: the barrier in bytes (written under rm_mutex)
 * @guarantee: abs_min in bytes (written under rm_mutex)
 * @base: the event counts at the last reset (rm_mutex)
 */
struct rm_group {
	struct res_shares shares;
	struct rm_group *parent;
	struct list_head children;
	struct list_head sibling;
	int min;
	int max;
	int divisor;
	u64 limit;
	u64 barrier;
	u64 guarantee;
	struct res_group_memcg_stat base;
};

static DEFINE_MUTEX(rm_mutex);
static struct rm_group *rm_root;	/* rm_mutex */

/* Set at load to the machine's RAM, unless given. */
static unsigned long long total_memory;
static unsigned int barrier_permille = 1000;

static void rm_derive(struct rm_group *g);

static struct rm_group *to_rm(struct res_shares *s)
{
	return container_of(s, struct rm_group, shares);
}

/* What the root's shadow (all groups) holds now, in bytes. */
static u64 rm_root_held(void)
{
	struct res_group_memcg_stat st = {};
	struct cgroup_subsys_state *css;

	css = rm_root ? res_shadow_css_get(&rm_root->shares,
					   RES_GROUP_CSS_MEMORY) : NULL;
	if (css) {
		res_group_memcg_stat(css, &st);
		css_put(css);
	}
	return st.held;
}

static int rm_total_set(const char *val, const struct kernel_param *kp)
{
	unsigned long long v;
	int ret = 0;

	if (kstrtoull(val, 10, &v) || !v)
		return -EINVAL;
	mutex_lock(&rm_mutex);
	if (rm_root && v < rm_root_held()) {
		ret = -EINVAL;
	} else {
		WRITE_ONCE(total_memory, v);
		if (rm_root)
			rm_derive(rm_root);
	}
	mutex_unlock(&rm_mutex);
	return ret;
}

static const struct kernel_param_ops rm_total_ops = {
	.set = rm_total_set,
	.get = param_get_ullong,
};

static int rm_permille_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 10, &v) || v > 1000)
		return -EINVAL;
	mutex_lock(&rm_mutex);
	WRITE_ONCE(barrier_permille, v);
	if (rm_root)
		rm_derive(rm_root);
	mutex_unlock(&rm_mutex);
	return 0;
}

static const struct kernel_param_ops rm_permille_ops = {
	.set = rm_permille_set,
	.get = param_get_uint,
};

module_param_cb(total_memory, &rm_total_ops, &total_memory, 0644);
MODULE_PARM_DESC(total_memory,
		 "Memory of the whole system in bytes: the root's limit and guarantee (default: the RAM)");
module_param_cb(barrier_permille, &rm_permille_ops, &barrier_permille, 0644);
MODULE_PARM_DESC(barrier_permille,
		 "Each limited group's barrier (memory.high), in permille of its limit (0..1000, default 1000: none)");

/* @v of @g's parent's @amount, rounded down to pages. */
static u64 rm_part(u64 amount, int v, struct rm_group *p)
{
	if (p->divisor <= 0)
		return 0;
	return mul_u64_u32_div(amount, v, p->divisor) & PAGE_MASK;
}

/*
 * Queue @file = @val on @g's shadow. Every time: the shadow service
 * writes only files that may not hold @val (one whose last write failed
 * is written again), and a shares write fails with the errno of its
 * writes.
 */
static void rm_set(struct rm_group *g, const char *file, u64 val)
{
	res_shadow_write(&g->shares, file, val);
}

/*
 * Work out the amounts of @g and its subtree from @g's parent's, which are
 * up to date, and queue the writes of the knobs that changed. Caller holds
 * rm_mutex.
 */
static void rm_derive(struct rm_group *g)
{
	struct rm_group *p = g->parent, *c;
	u64 limit, guarantee, barrier;
	unsigned int permille = READ_ONCE(barrier_permille);

	if (!p) {
		limit = READ_ONCE(total_memory) & PAGE_MASK;
		guarantee = limit;
	} else {
		limit = g->max >= 0 ? rm_part(p->limit, g->max, p) : p->limit;
		guarantee = g->min >= 0 ? rm_part(p->guarantee, g->min, p) : 0;
	}
	barrier = mul_u64_u32_div(limit, permille, 1000) & PAGE_MASK;
	WRITE_ONCE(g->limit, limit);
	WRITE_ONCE(g->barrier, barrier);
	WRITE_ONCE(g->guarantee, guarantee);
	if (p) {
		rm_set(g, "memory.max", g->max >= 0 ? limit : RES_SHADOW_MAX);
		rm_set(g, "memory.high",
		       g->max >= 0 && permille < 1000 ? barrier :
		       RES_SHADOW_MAX);
		rm_set(g, "memory.low", guarantee);
	}
	list_for_each_entry(c, &g->children, sibling)
		rm_derive(c);
}

static struct res_shares *rm_alloc_shares(struct res_controller *ctl,
					  struct res_shares *parent)
{
	struct rm_group *g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);

	if (!g)
		return NULL;
	INIT_LIST_HEAD(&g->children);
	/* The defaults the framework is about to set (docs, "Shares"). */
	g->min = RES_SHARES_DONT_CARE;
	g->max = RES_SHARES_DONT_CARE;
	g->divisor = RES_SHARES_DEFAULT_DIVISOR;
	mutex_lock(&rm_mutex);
	if (parent) {
		g->parent = to_rm(parent);
		list_add_tail(&g->sibling, &g->parent->children);
		g->limit = g->parent->limit;
		g->barrier = g->parent->barrier;
	} else {
		rm_root = g;
		g->limit = READ_ONCE(total_memory) & PAGE_MASK;
		g->guarantee = g->limit;
		g->barrier = mul_u64_u32_div(g->limit, barrier_permille, 1000) &
			     PAGE_MASK;
	}
	mutex_unlock(&rm_mutex);
	return &g->shares;
}

/* No task points at @s's shadow any more, nor at its children's. */
static void rm_free_shares(struct res_shares *s)
{
	struct rm_group *g = to_rm(s);

	mutex_lock(&rm_mutex);
	if (g->parent)
		list_del(&g->sibling);
	else
		rm_root = NULL;
	mutex_unlock(&rm_mutex);
	kfree(g);
}

/* A write changed @s: its amounts and its subtree's. */
static void rm_shares_changed(struct res_shares *s)
{
	struct rm_group *g = to_rm(s);

	mutex_lock(&rm_mutex);
	g->min = s->min_shares;
	g->max = s->max_shares;
	g->divisor = s->child_shares_divisor;
	rm_derive(g);
	mutex_unlock(&rm_mutex);
}

static void rm_read(struct res_shares *s, struct res_group_memcg_stat *st)
{
	struct cgroup_subsys_state *css;

	css = res_shadow_css_get(s, RES_GROUP_CSS_MEMORY);

	memset(st, 0, sizeof(*st));
	if (css) {
		res_group_memcg_stat(css, st);
		css_put(css);
	}
}

static void rm_show_stats(struct res_shares *s, struct seq_buf *sb)
{
	struct rm_group *g = to_rm(s);
	struct res_group_memcg_stat st;

	rm_read(s, &st);
	mutex_lock(&rm_mutex);
	seq_buf_printf(sb,
		       "res=memory,held=%llu,maxheld=%llu,barrier=%llu,limit=%llu,guarantee=%llu,anon=%llu,file=%llu,kernel=%llu,swap=%llu,failcnt=%llu,highcnt=%llu,killcnt=%llu\n",
		       st.held, st.maxheld, READ_ONCE(g->barrier),
		       READ_ONCE(g->limit), READ_ONCE(g->guarantee), st.anon,
		       st.file, st.kernel, st.swap,
		       st.max_events - g->base.max_events,
		       st.high_events - g->base.high_events,
		       st.oom_kill_events - g->base.oom_kill_events);
	mutex_unlock(&rm_mutex);
}

static int rm_reset_stats(struct res_shares *s, const char *args)
{
	struct cgroup_subsys_state *css;
	struct rm_group *g = to_rm(s);
	struct res_group_memcg_stat st;

	if (*args)
		return -EINVAL;
	rm_read(s, &st);
	css = res_shadow_css_get(s, RES_GROUP_CSS_MEMORY);
	if (css) {
		res_group_memcg_reset_peak(css);
		css_put(css);
	}
	mutex_lock(&rm_mutex);
	g->base = st;
	mutex_unlock(&rm_mutex);
	return 0;
}

/*
 * A task of a non-root group charges the group's shadow; the root's and
 * kernel threads are left to their memory cgroups.
 */
static void rm_move_task(struct task_struct *tsk, struct res_shares *from,
			 struct res_shares *to, enum res_group_event event)
{
	res_shadow_place_task(tsk, to, RES_GROUP_CSS_MEMORY);
}

static struct res_controller memory_ctl = {
	.name		= "memory",
	.depth		= RES_GROUP_MAX_DEPTH,
	.owner		= THIS_MODULE,
	/* Section "Precedence" of the docs: resource groups win. */
	.precedes_cgroup = true,
	.alloc_shares	= rm_alloc_shares,
	.free_shares	= rm_free_shares,
	.shares_changed	= rm_shares_changed,
	.show_stats	= rm_show_stats,
	.reset_stats	= rm_reset_stats,
	.move_task	= rm_move_task,
};

static int __init memory_init(void)
{
	int ret;

	if (!total_memory)
		total_memory = (u64)totalram_pages() << PAGE_SHIFT;
	ret = res_shadow_enable(RES_GROUP_CSS_MEMORY);
	if (ret) {
		pr_err("no shadow cgroups (is cgroup2's memory controller there?): %d\n",
		       ret);
		return ret;
	}
	res_group_css_enable();
	ret = res_controller_register(&memory_ctl);
	if (ret)
		res_shadow_disable(RES_GROUP_CSS_MEMORY);
	return ret;
}

static void __exit memory_exit(void)
{
	res_controller_unregister(&memory_ctl);
	res_shadow_disable(RES_GROUP_CSS_MEMORY);
}

module_init(memory_init);
module_exit(memory_exit);
MODULE_DESCRIPTION("Resource Groups: the memory controller");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

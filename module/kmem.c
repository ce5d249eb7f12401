// SPDX-License-Identifier: GPL-2.0
/*
 * kmem: kernel memory per resource group, with a barrier and a limit, as
 * the beancounters had it (docs/res_groups.rst, "The kmem controller").
 *
 * Not an allocator hook of its own: a thin layer over memcg's kernel-memory
 * accounting (<linux/res_kmem.h>, hooks patch 0005). Each non-root group
 * has an obj_cgroup made by memcg; a task of the group points at it, so
 * memcg charges what the task allocates with __GFP_ACCOUNT or from a
 * SLAB_ACCOUNT cache to it, and every charged page and slab object records
 * it. memcg passes the objcg's page charges and uncharges to km_charge()
 * and km_uncharge(), whatever the context of the free. Charges therefore
 * stay with the group that made them whoever frees them, and a move
 * changes no counter: only which objcg the task's next allocations use.
 * The root group has no objcg: its own tasks are left to memcg.
 *
 * Counters are pages. held(G) counts G's subtree; a charge raises held at
 * G and each ancestor with a cmpxchg that never takes it past the bound
 * (the barrier; the limit for a user page fault), and takes its raises
 * back if a level above refuses: concurrent charges never pass a bound.
 * A refusal of a user fault's charge that must not fail lightly (a page
 * table: km_fault_charge()) kills the process (the kernel's
 * pagefault_out_of_memory() sends the SIGKILL and calls km_killed()),
 * unless it is the system's init, which SIGKILL cannot kill: then the
 * charge is forced, as __GFP_NOFAIL's. The hooks mark the fault for that
 * (task_struct::res_kmem_oom) and clear the mark only when the next fault
 * begins, so no other charge may set it.
 * Bounds are worked out under km_mutex and published one word each, so
 * the charge path sees a level's old or new bound, never a mix.
 *
 * Removal: free_shares() hands the group's objcgs (its own and those of
 * removed children) to the parent, whose held already counts them, and
 * kills its own, which memcg frees with its last charge; the group itself
 * is freed a grace period later, for uncharges that read the old owner.
 * The root's free_shares() (unload) leaves them to nobody, and the hooks
 * then ignore their charges and uncharges.
 *
 * Locking: km_mutex protects the tree (parent, children, sibling), the
 * copies of the shares and the writing of the bounds; it is taken in the
 * callbacks that may sleep (under the framework's mutex) and by parameter
 * writes. The charge and uncharge paths take no lock: charges run in task
 * context (maybe atomic), uncharges in any context (hardirq, softirq,
 * under memcg's stock lock), all under rcu_read_lock(), which keeps the
 * groups they walk alive. move_task()
 * runs under the framework's spinlocks and only publishes a pointer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/res_groups_version.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/res_group.h>
#include <linux/res_kmem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>

/**
 * struct km_group - kmem state of one group
 * @shares: the framework's part
 * @owner: the objcgs charged here (the kernel's list)
 * @parent: the parent group's state, NULL at the root
 * @children: child groups' states (km_mutex)
 * @sibling: entry in the parent's @children (km_mutex)
 * @objcg: the group's own objcg, NULL at the root
 * @max: max_shares as last told (km_mutex)
 * @divisor: child_shares_divisor as last told (km_mutex)
 * @limit_b: the limit in bytes, for stats (written under km_mutex)
 * @barrier_b: the barrier in bytes, for stats (written under km_mutex)
 * @limit: the limit in pages, rounded down (read locklessly)
 * @barrier: the barrier in pages, rounded down (read locklessly)
 * @held: pages charged to the subtree
 * @maxheld: highest @held since load or reset
 * @minheld: lowest @held since load or reset
 * @failcnt: charges refused here (and forced ones that went past a bound)
 * @killcnt: processes killed for a refused charge of a user page fault
 * @rcu: frees the state after uncharges that read @owner are done
 */
struct km_group {
	struct res_shares shares;
	struct res_kmem_owner owner;
	struct km_group *parent;
	struct list_head children;
	struct list_head sibling;
	struct obj_cgroup *objcg;
	int max;
	int divisor;
	u64 limit_b;
	u64 barrier_b;
	long limit;
	long barrier;
	atomic_long_t held;
	atomic_long_t maxheld;
	atomic_long_t minheld;
	atomic_long_t failcnt;
	atomic_long_t killcnt;
	struct rcu_head rcu;
};

static DEFINE_MUTEX(km_mutex);
static struct km_group *km_root;	/* km_mutex */

/* Set at load to the machine's RAM, unless given. */
static unsigned long long total_kmem;
static unsigned int barrier_permille = 900;

static void km_derive(struct km_group *g);

static int km_total_set(const char *val, const struct kernel_param *kp)
{
	unsigned long long v;
	int ret = 0;

	if (kstrtoull(val, 10, &v) || !v)
		return -EINVAL;
	mutex_lock(&km_mutex);
	if (km_root &&
	    v < (u64)atomic_long_read(&km_root->held) << PAGE_SHIFT) {
		ret = -EINVAL;
	} else {
		WRITE_ONCE(total_kmem, v);
		if (km_root)
			km_derive(km_root);
	}
	mutex_unlock(&km_mutex);
	return ret;
}

static const struct kernel_param_ops km_total_ops = {
	.set = km_total_set,
	.get = param_get_ullong,
};

static int km_permille_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 10, &v) || v > 1000)
		return -EINVAL;
	mutex_lock(&km_mutex);
	WRITE_ONCE(barrier_permille, v);
	if (km_root)
		km_derive(km_root);
	mutex_unlock(&km_mutex);
	return 0;
}

static const struct kernel_param_ops km_permille_ops = {
	.set = km_permille_set,
	.get = param_get_uint,
};

module_param_cb(total_kmem, &km_total_ops, &total_kmem, 0644);
MODULE_PARM_DESC(total_kmem,
		 "Kernel memory of the whole system in bytes: the root's limit (default: the RAM)");
module_param_cb(barrier_permille, &km_permille_ops, &barrier_permille, 0644);
MODULE_PARM_DESC(barrier_permille,
		 "Each group's barrier, in permille of its limit (0..1000, default 900)");

static struct km_group *to_km(struct res_shares *s)
{
	return container_of(s, struct km_group, shares);
}

/*
 * Work out the bounds of @g and its subtree from @g's parent's, which are
 * up to date. Caller holds km_mutex.
 */
static void km_derive(struct km_group *g)
{
	struct km_group *p = g->parent, *c;
	u64 limit;

	if (!p)
		limit = READ_ONCE(total_kmem);
	else if (g->max >= 0 && p->divisor > 0)
		limit = mul_u64_u32_div(p->limit_b, g->max, p->divisor);
	else
		limit = p->limit_b;
	WRITE_ONCE(g->limit_b, limit);
	WRITE_ONCE(g->barrier_b,
		   mul_u64_u32_div(limit, READ_ONCE(barrier_permille), 1000));
	WRITE_ONCE(g->limit, (long)(g->limit_b >> PAGE_SHIFT));
	WRITE_ONCE(g->barrier, (long)(g->barrier_b >> PAGE_SHIFT));
	list_for_each_entry(c, &g->children, sibling)
		km_derive(c);
}

/* Raise @m to @v, or lower it (@up false); lock-free. */
static void km_mark(atomic_long_t *m, long v, bool up)
{
	long old = atomic_long_read(m);

	do {
		if (up ? v <= old : v >= old)
			return;
	} while (!atomic_long_try_cmpxchg(m, &old, v));
}

/*
 * Is this a charge of a user page fault that must not fail lightly (a
 * page table, an anon_vma: their failure fails the fault)? One that may
 * block and that neither __GFP_NORETRY nor __GFP_RETRY_MAYFAIL lets
 * fail, as memcg's own OOM handling tells them apart. An opportunistic
 * charge of a fault (readahead's page cache nodes) is an ordinary one:
 * the fault goes on without it.
 */
static bool km_fault_charge(gfp_t gfp)
{
	return current->in_user_fault && gfpflags_allow_blocking(gfp) &&
	       !(gfp & (__GFP_NORETRY | __GFP_RETRY_MAYFAIL));
}

/*
 * Charge @nr pages to @o's group and its ancestors; task context. A level
 * would go past its barrier (its limit, for a charge of a user page fault
 * that must not fail lightly): refuse, and count it in the group.
 * __GFP_NOFAIL charges, and those faults' charges of the system's init
 * (SIGKILL cannot kill it, and its fault would be retried for ever), are
 * forced (and count if they went past a bound).
 */
static int km_charge(struct res_kmem_owner *o, gfp_t gfp, unsigned int nr)
{
	struct km_group *g = container_of(o, struct km_group, owner), *c, *u;
	bool fault = km_fault_charge(gfp);
	bool nofail = (gfp & __GFP_NOFAIL) || (fault && is_global_init(current));
	bool over = false;
	long old, bound;

	for (c = g; c; c = c->parent) {
		bound = fault ? READ_ONCE(c->limit) : READ_ONCE(c->barrier);
		old = atomic_long_read(&c->held);
		do {
			if (old + nr > bound && !nofail)
				goto refuse;
		} while (!atomic_long_try_cmpxchg(&c->held, &old, old + nr));
		over |= old + nr > bound;
		km_mark(&c->maxheld, old + nr, true);
	}
	if (over)
		atomic_long_inc(&g->failcnt);
	return 0;

refuse:
	for (u = g; u != c; u = u->parent)
		km_mark(&u->minheld, atomic_long_sub_return(nr, &u->held),
			false);
	atomic_long_inc(&g->failcnt);
	/*
	 * A refused page table would make the fault fail and be retried for
	 * ever: pagefault_out_of_memory() kills the process instead. The mark
	 * lasts until the fault ends: only such a charge may set it, never
	 * one whose refusal the fault survives (a VM_FAULT_OOM of its own,
	 * later in the same fault, would kill the process).
	 */
	if (fault)
		current->res_kmem_oom = 1;
	return -ENOMEM;
}

/* pagefault_out_of_memory() killed current's process for a refusal. */
static void km_killed(struct res_kmem_owner *o)
{
	atomic_long_inc(&container_of(o, struct km_group, owner)->killcnt);
}

/* Give back @nr pages to @o's group and its ancestors; any context. */
static void km_uncharge(struct res_kmem_owner *o, unsigned int nr)
{
	struct km_group *c;

	for (c = container_of(o, struct km_group, owner); c; c = c->parent)
		km_mark(&c->minheld, atomic_long_sub_return(nr, &c->held),
			false);
}

static const struct res_kmem_ops km_ops = {
	.charge		= km_charge,
	.uncharge	= km_uncharge,
	.killed		= km_killed,
};

static void km_show_stats(struct res_shares *s, struct seq_buf *sb)
{
	struct km_group *g = to_km(s);
	long held = atomic_long_read(&g->held);

	/* held may have moved since: never show it outside [min, max]. */
	seq_buf_printf(sb,
		       "res=kmem,held=%llu,maxheld=%llu,minheld=%llu,barrier=%llu,limit=%llu,failcnt=%ld,killcnt=%ld\n",
		       (u64)held << PAGE_SHIFT,
		       (u64)max(atomic_long_read(&g->maxheld), held) << PAGE_SHIFT,
		       (u64)min(atomic_long_read(&g->minheld), held) << PAGE_SHIFT,
		       READ_ONCE(g->barrier_b), READ_ONCE(g->limit_b),
		       atomic_long_read(&g->failcnt),
		       atomic_long_read(&g->killcnt));
}

static int km_reset_stats(struct res_shares *s, const char *args)
{
	struct km_group *g = to_km(s);
	long held = atomic_long_read(&g->held);

	if (*args)
		return -EINVAL;
	atomic_long_set(&g->maxheld, held);
	atomic_long_set(&g->minheld, held);
	atomic_long_set(&g->failcnt, 0);
	atomic_long_set(&g->killcnt, 0);
	return 0;
}

/*
 * A task's next allocations go to its new group's objcg (none in the
 * root, or when it leaves). What it allocated stays charged where it was.
 */
static void km_move_task(struct task_struct *tsk, struct res_shares *from,
			 struct res_shares *to, enum res_group_event event)
{
	res_kmem_set_task(tsk, to ? to_km(to)->objcg : NULL);
}

static struct res_shares *km_alloc_shares(struct res_controller *ctl,
					  struct res_shares *parent)
{
	struct km_group *g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);

	if (!g)
		return NULL;
	INIT_LIST_HEAD(&g->owner.objcgs);
	INIT_LIST_HEAD(&g->children);
	if (parent) {
		g->objcg = res_kmem_objcg_create(&g->owner);
		if (!g->objcg) {
			kfree(g);
			return NULL;
		}
	}
	/* A guarantee of kernel memory would need reclaim: none. */
	g->shares.min_shares = RES_SHARES_UNSUPPORTED;
	/* The framework gives every new group these defaults. */
	g->max = RES_SHARES_DONT_CARE;
	g->divisor = RES_SHARES_DEFAULT_DIVISOR;
	mutex_lock(&km_mutex);
	if (parent) {
		g->parent = to_km(parent);
		list_add_tail(&g->sibling, &g->parent->children);
	} else {
		km_root = g;
	}
	km_derive(g);
	mutex_unlock(&km_mutex);
	return &g->shares;
}

/* No task points at @s's objcg any more; children are freed first. */
static void km_free_shares(struct res_shares *s)
{
	struct km_group *g = to_km(s);

	mutex_lock(&km_mutex);
	if (g->parent)
		list_del(&g->sibling);
	if (g == km_root)
		km_root = NULL;
	mutex_unlock(&km_mutex);
	/* Later frees uncharge the parent (the root's: nobody). */
	res_kmem_objcg_reparent(&g->owner, g->parent ? &g->parent->owner : NULL);
	if (g->objcg)
		res_kmem_objcg_kill(g->objcg);
	kfree_rcu(g, rcu);
}

static void km_shares_changed(struct res_shares *s)
{
	struct km_group *g = to_km(s);

	mutex_lock(&km_mutex);
	g->max = s->max_shares;
	g->divisor = s->child_shares_divisor;
	km_derive(g);
	mutex_unlock(&km_mutex);
}

static struct res_controller kmem_ctl = {
	.name		= "kmem",
	.depth		= RES_GROUP_MAX_DEPTH,
	.owner		= THIS_MODULE,
	/* Section "Precedence" of the docs: resource groups win. */
	.precedes_cgroup = true,
	.alloc_shares	= km_alloc_shares,
	.free_shares	= km_free_shares,
	.shares_changed	= km_shares_changed,
	.show_stats	= km_show_stats,
	.reset_stats	= km_reset_stats,
	.move_task	= km_move_task,
};

static int __init kmem_init(void)
{
	int ret;

	if (!total_kmem)
		total_kmem = (u64)totalram_pages() << PAGE_SHIFT;
	ret = res_kmem_register(&km_ops);
	if (ret) {
		pr_err("memcg's kernel-memory accounting is off: %d\n", ret);
		return ret;
	}
	ret = res_controller_register(&kmem_ctl);
	if (ret)
		res_kmem_unregister(&km_ops);
	return ret;
}

static void __exit kmem_exit(void)
{
	res_controller_unregister(&kmem_ctl);
	res_kmem_unregister(&km_ops);
}

module_init(kmem_init);
module_exit(kmem_exit);
MODULE_DESCRIPTION("Resource Groups: the kernel-memory controller");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

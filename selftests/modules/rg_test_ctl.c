// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only resource controller: counts every callback it gets, per
 * group, and shows the counts and the last shares it was told in stats:
 *
 *   res=NAME,tasks=N,fork=N,attach=N,move_in=N,move_out=N,exit=N,
 *   detach=N,can_fork=N,cancel_fork=N,changed=N,min=N,max=N,divisor=N
 *
 * Parameters: name, count (register that many: NAME0..), depth,
 * fail_fork (errno can_fork returns), no_max (max_shares UNSUPPORTED),
 * no_reset (no reset_stats), null_ctl (load fails with what registering
 * and unregistering a NULL controller give), stats_pad (that many more stats lines, to
 * make stats longer than a page), straddle_ms (a fork by a task named
 * rg_straddler sleeps that long in can_fork, then fails with EAGAIN: a
 * fork that other controllers allowed long before it is cancelled).
 * allocs/frees count shares (read-only). resched_probe (0644): each
 * move_task() asks for a reschedule and notes whether the last one it
 * asked for has happened; max_unbroken (0644, write 0 to reset) is then
 * the most calls one task made in a row with no reschedule in between
 * (a spinlock held across them all, or no cond_resched()), and
 * max_unbroken_us (0644) how long such a row lasted; unloading logs both
 * ("rg_test_ctl: unbroken N calls, U us").
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/res_group.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *name = "test";
module_param(name, charp, 0444);
static int count = 1;
module_param(count, int, 0444);
static int depth = RES_GROUP_MAX_DEPTH;
module_param(depth, int, 0444);
static int fail_fork;
module_param(fail_fork, int, 0644);
static bool no_max;
module_param(no_max, bool, 0444);
static bool no_reset;
module_param(no_reset, bool, 0444);
static bool null_ctl;
module_param(null_ctl, bool, 0444);
static int stats_pad;
module_param(stats_pad, int, 0644);
static unsigned int straddle_ms;
module_param(straddle_ms, uint, 0644);
static bool resched_probe;
module_param(resched_probe, bool, 0644);
static unsigned int max_unbroken;
module_param(max_unbroken, uint, 0644);
static unsigned long long max_unbroken_us;
module_param(max_unbroken_us, ullong, 0644);
static atomic_t allocs = ATOMIC_INIT(0);
module_param_named(allocs, allocs.counter, int, 0444);
static atomic_t frees = ATOMIC_INIT(0);
module_param_named(frees, frees.counter, int, 0444);

enum {
	TC_FORK, TC_ATTACH, TC_MOVE_IN, TC_MOVE_OUT, TC_EXIT, TC_DETACH,
	TC_CAN_FORK, TC_CANCEL_FORK, TC_NR
};

struct tc_shares {
	struct res_shares shares;
	struct res_controller *ctl;
	atomic_t tasks;
	atomic_t n[TC_NR];
	int changed;
};

static struct tc_shares *to_tc(struct res_shares *s)
{
	return container_of(s, struct tc_shares, shares);
}

static struct res_shares *tc_alloc(struct res_controller *ctl,
				   struct res_shares *parent)
{
	struct tc_shares *tc = kzalloc(sizeof(*tc), GFP_KERNEL);

	if (!tc)
		return NULL;
	tc->ctl = ctl;
	if (no_max)
		tc->shares.max_shares = RES_SHARES_UNSUPPORTED;
	atomic_inc(&allocs);
	return &tc->shares;
}

static void tc_free(struct res_shares *s)
{
	atomic_inc(&frees);
	kfree(to_tc(s));
}

static void tc_changed(struct res_shares *s)
{
	to_tc(s)->changed++;
}

static void tc_show(struct res_shares *s, struct seq_buf *sb)
{
	static const char * const names[TC_NR] = {
		"fork", "attach", "move_in", "move_out", "exit", "detach",
		"can_fork", "cancel_fork",
	};
	struct tc_shares *tc = to_tc(s);
	int i;

	seq_buf_printf(sb, "res=%s,tasks=%d", tc->ctl->name,
		       atomic_read(&tc->tasks));
	for (i = 0; i < TC_NR; i++)
		seq_buf_printf(sb, ",%s=%d", names[i], atomic_read(&tc->n[i]));
	seq_buf_printf(sb, ",changed=%d,min=%d,max=%d,divisor=%d\n",
		       tc->changed, s->min_shares, s->max_shares,
		       s->child_shares_divisor);
	for (i = 0; i < READ_ONCE(stats_pad); i++)
		seq_buf_printf(sb, "res=%s,pad=%d\n", tc->ctl->name, i);
}

/* Zero the event counts; "tasks" is state, not a statistic. */
static int tc_reset(struct res_shares *s, const char *args)
{
	struct tc_shares *tc = to_tc(s);
	int i;

	if (*args)
		return -EINVAL;
	for (i = 0; i < TC_NR; i++)
		atomic_set(&tc->n[i], 0);
	tc->changed = 0;
	return 0;
}

/*
 * Called under a group's spinlock: has the caller rescheduled since its
 * last call (which set need_resched)? A row of calls without counts as
 * one hold (max_unbroken, max_unbroken_us).
 */
static void tc_probe(void)
{
	static DEFINE_SPINLOCK(lock);
	static struct task_struct *last;
	static unsigned int row;
	static u64 start;
	u64 now = local_clock();

	spin_lock(&lock);
	if (last == current && test_tsk_need_resched(current)) {
		row++;
	} else {
		last = current;
		row = 1;
		start = now;
	}
	if (row > READ_ONCE(max_unbroken))
		WRITE_ONCE(max_unbroken, row);
	if (div_u64(now - start, 1000) > READ_ONCE(max_unbroken_us))
		WRITE_ONCE(max_unbroken_us, div_u64(now - start, 1000));
	spin_unlock(&lock);
	set_tsk_need_resched(current);
	set_preempt_need_resched();
}

static void tc_move(struct task_struct *tsk, struct res_shares *from,
		    struct res_shares *to, enum res_group_event event)
{
	if (READ_ONCE(resched_probe))
		tc_probe();
	if (from) {
		atomic_dec(&to_tc(from)->tasks);
		atomic_inc(&to_tc(from)->n[event == RES_GROUP_EXIT ? TC_EXIT :
					   event == RES_GROUP_DETACH ?
					   TC_DETACH : TC_MOVE_OUT]);
	}
	if (to) {
		atomic_inc(&to_tc(to)->tasks);
		atomic_inc(&to_tc(to)->n[event == RES_GROUP_FORK ? TC_FORK :
					 event == RES_GROUP_ATTACH ?
					 TC_ATTACH : TC_MOVE_IN]);
	}
}

static int tc_can_fork(struct res_shares *s)
{
	unsigned int ms = READ_ONCE(straddle_ms);

	atomic_inc(&to_tc(s)->n[TC_CAN_FORK]);
	/* can_fork may sleep: forks call it under no spinlock. */
	if (ms && !strcmp(current->comm, "rg_straddler")) {
		msleep_interruptible(min(ms, 10000U));
		return -EAGAIN;
	}
	return -READ_ONCE(fail_fork);
}

static void tc_cancel_fork(struct res_shares *s)
{
	atomic_inc(&to_tc(s)->n[TC_CANCEL_FORK]);
}

#define TC_MAX 8
static struct res_controller tc_ctls[TC_MAX];
static char tc_names[TC_MAX][32];

static int __init tc_init(void)
{
	int i, ret;

	if (null_ctl) {
		res_controller_unregister(NULL);
		return res_controller_register(NULL);
	}
	if (count < 1 || count > TC_MAX)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		if (count == 1)
			strscpy(tc_names[i], name, sizeof(tc_names[i]));
		else
			snprintf(tc_names[i], sizeof(tc_names[i]), "%s%d",
				 name, i);
		tc_ctls[i] = (struct res_controller) {
			.name		= tc_names[i],
			.depth		= depth,
			.owner		= THIS_MODULE,
			.alloc_shares	= tc_alloc,
			.free_shares	= tc_free,
			.shares_changed	= tc_changed,
			.show_stats	= tc_show,
			.reset_stats	= no_reset ? NULL : tc_reset,
			.move_task	= tc_move,
			.can_fork	= tc_can_fork,
			.cancel_fork	= tc_cancel_fork,
		};
		ret = res_controller_register(&tc_ctls[i]);
		if (ret) {
			while (i--)
				res_controller_unregister(&tc_ctls[i]);
			return ret;
		}
	}
	return 0;
}

static void __exit tc_exit(void)
{
	int i;

	if (null_ctl)
		return;

	for (i = count - 1; i >= 0; i--)
		res_controller_unregister(&tc_ctls[i]);
	WARN_ON(atomic_read(&allocs) != atomic_read(&frees));
	if (resched_probe)
		pr_info("rg_test_ctl: unbroken %u calls, %llu us\n",
			max_unbroken, max_unbroken_us);
}

module_init(tc_init);
module_exit(tc_exit);
MODULE_DESCRIPTION("Resource Groups: controller for tests");
MODULE_LICENSE("GPL");

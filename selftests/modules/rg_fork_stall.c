// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: holds one fork still at points that no timing from
 * user space can hit, so that a test can load or unload res_groups while
 * that fork is inside them. Only a task named "rg_straddler" is held.
 *
 *   hold=1        its next fork waits in proc_fork_connector(): the child
 *                 is on the task list already, the post_fork hook is not
 *                 called yet. Writing hold=0 lets it go on.
 *   stall_lock=1  (res_groups loaded) its next call of res_groups'
 *                 rg_lock_task_group() waits until the unload of
 *                 res_groups has called res_group_hooks_unregister(),
 *                 i.e. has taken every task out of every group.
 *   stalled       reads 1 or 2 while a fork waits at the first or second
 *                 point, else 0.
 *   timeouts      how many waits gave up after 30 s instead.
 *
 * The calls are sent to wrappers by ftrace, as livepatch does; a wrapper
 * waits, then calls the real function (a call from this module is never
 * redirected, so it goes through).
 *
 * Locking: none. The flags are single words read and written once
 * (READ_ONCE/WRITE_ONCE); the waits poll them.
 */
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#define RG_STALL_COMM	"rg_straddler"
#define RG_STALL_WAIT	(30 * HZ)

struct rg_stall {
	struct ftrace_ops ops;
	const char *func;		/* the function redirected */
	void *wrapper;			/* where its calls go instead */
	unsigned long orig;		/* its address, from ftrace */
	bool armed;			/* redirect the target's next call */
	bool registered;
};

/* The functions redirected, as the wrappers call them. */
typedef void (*rg_connector_fn)(struct task_struct *task);
typedef void *(*rg_lock_fn)(struct task_struct *tsk);

static bool hold;
static int stalled;
static int timeouts;
static bool unregistering;	/* res_group_hooks_unregister() was called */

static void notrace rg_stall_redirect(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	struct rg_stall *s = container_of(op, struct rg_stall, ops);

	/* Our own call of the real function goes through. */
	if (within_module(parent_ip, THIS_MODULE) || !READ_ONCE(s->armed) ||
	    strcmp(current->comm, RG_STALL_COMM))
		return;
	WRITE_ONCE(s->orig, ip);
	if (cmpxchg(&s->armed, true, false))
		ftrace_instruction_pointer_set(fregs, (unsigned long)s->wrapper);
}

static void notrace rg_stall_see_unregister(unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct ftrace_regs *fregs)
{
	WRITE_ONCE(unregistering, true);
}

/* Wait at @point until done() says so, at most RG_STALL_WAIT. */
static void rg_stall_wait(int point, bool (*done)(void))
{
	unsigned long end = jiffies + RG_STALL_WAIT;

	WRITE_ONCE(stalled, point);
	while (!done()) {
		if (time_after(jiffies, end)) {
			WRITE_ONCE(timeouts, timeouts + 1);
			break;
		}
		msleep(20);
	}
	WRITE_ONCE(stalled, 0);
}

static bool rg_stall_released(void)
{
	return !READ_ONCE(hold);
}

static bool rg_stall_unregistered(void)
{
	return READ_ONCE(unregistering);
}

static void rg_stall_connector(struct task_struct *task);
static void *rg_stall_lock_task_group(struct task_struct *tsk);

static struct rg_stall rg_stall_fork = {
	.ops.func	= rg_stall_redirect,
	.ops.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	.func		= "proc_fork_connector",
	.wrapper	= rg_stall_connector,
};

static struct rg_stall rg_stall_lock = {
	.ops.func	= rg_stall_redirect,
	.ops.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	.func		= "rg_lock_task_group",
	.wrapper	= rg_stall_lock_task_group,
};

static struct rg_stall rg_stall_unreg = {
	.ops.func	= rg_stall_see_unregister,
	.func		= "res_group_hooks_unregister",
};

static int rg_stall_register(struct rg_stall *s)
{
	int ret;

	ret = ftrace_set_filter(&s->ops, (unsigned char *)s->func,
				strlen(s->func), 1);
	if (!ret)
		ret = register_ftrace_function(&s->ops);
	if (ret) {
		ftrace_free_filter(&s->ops);
		pr_err("rg_fork_stall: cannot trace %s: %d\n", s->func, ret);
		return ret;
	}
	s->registered = true;
	return 0;
}

static void rg_stall_unregister(struct rg_stall *s)
{
	if (!s->registered)
		return;
	unregister_ftrace_function(&s->ops);
	ftrace_free_filter(&s->ops);
	s->registered = false;
}

static void rg_stall_connector(struct task_struct *task)
{
	rg_connector_fn real = (rg_connector_fn)READ_ONCE(rg_stall_fork.orig);

	rg_stall_wait(1, rg_stall_released);
	real(task);
}

static void *rg_stall_lock_task_group(struct task_struct *tsk)
{
	rg_lock_fn real = (rg_lock_fn)READ_ONCE(rg_stall_lock.orig);

	/*
	 * One call only: stop tracing res_groups' text now, while it is
	 * sure to be there (its unload waits for this fork to end).
	 */
	rg_stall_unregister(&rg_stall_lock);
	rg_stall_wait(2, rg_stall_unregistered);
	return real(tsk);
}

static int rg_stall_set_lock(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (!on || rg_stall_lock.registered)
		return -EINVAL;
	WRITE_ONCE(unregistering, false);
	WRITE_ONCE(rg_stall_lock.armed, true);
	ret = rg_stall_register(&rg_stall_lock);
	if (ret)
		WRITE_ONCE(rg_stall_lock.armed, false);
	return ret;
}

static int rg_stall_get_lock(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n", READ_ONCE(rg_stall_lock.armed) ? 'Y' : 'N');
}

static int rg_stall_set_hold(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (!ret && hold)
		WRITE_ONCE(rg_stall_fork.armed, true);
	return ret;
}

static const struct kernel_param_ops rg_stall_lock_ops = {
	.set = rg_stall_set_lock,
	.get = rg_stall_get_lock,
};

static const struct kernel_param_ops rg_stall_hold_ops = {
	.set = rg_stall_set_hold,
	.get = param_get_bool,
};

module_param_cb(hold, &rg_stall_hold_ops, &hold, 0644);
MODULE_PARM_DESC(hold, "hold the next fork of rg_straddler in proc_fork_connector");
module_param_cb(stall_lock, &rg_stall_lock_ops, NULL, 0644);
MODULE_PARM_DESC(stall_lock,
		 "1: hold rg_straddler's next rg_lock_task_group until the unload of res_groups");
module_param(stalled, int, 0444);
MODULE_PARM_DESC(stalled, "where a fork waits: 1 connector, 2 lock, 0 nowhere");
module_param(timeouts, int, 0444);
MODULE_PARM_DESC(timeouts, "waits that ended after 30 s");

static int __init rg_stall_init(void)
{
	int ret;

	ret = rg_stall_register(&rg_stall_unreg);
	if (ret)
		return ret;
	ret = rg_stall_register(&rg_stall_fork);
	if (ret)
		rg_stall_unregister(&rg_stall_unreg);
	return ret;
}

/* The test lets every held fork go before it unloads us. */
static void __exit rg_stall_exit(void)
{
	rg_stall_unregister(&rg_stall_lock);
	rg_stall_unregister(&rg_stall_fork);
	rg_stall_unregister(&rg_stall_unreg);
}

module_init(rg_stall_init);
module_exit(rg_stall_exit);
MODULE_DESCRIPTION("Resource Groups: hold a fork still for load and unload tests");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: holds one fork, or one shares write, still at points
 * that no timing from user space can hit, so that a test can load or
 * unload res_groups while that fork is inside them, or fork while the
 * write is half stored. Only a task named "rg_straddler" is held.
 *
 *   hold=1        its next fork waits in proc_fork_connector(): the child
 *                 is on the task list already, the post_fork hook is not
 *                 called yet. Writing hold=0 lets it go on. It waits
 *                 holding cgroup_threadgroup_rwsem for read (from
 *                 cgroup_can_fork() to cgroup_post_fork()): a cgroup
 *                 migration meanwhile blocks, and then every fork too.
 *   stall_lock=1  (res_groups loaded) its next call of res_groups'
 *                 rg_lock_task_group() waits until the unload of
 *                 res_groups has called res_group_hooks_unregister(),
 *                 i.e. has taken every task out of every group. That
 *                 sleeps in a post_fork hook, which hooks must not do;
 *                 here it is before any spinlock. stall_lock=0 stops it.
 *   half_write=1  (res_groups loaded) its next shares write stores what
 *                 rg_shares_commit() stores before child_shares_divisor
 *                 (min_shares, max_shares, the parent's unused), then
 *                 waits with the divisor (and unused) still old, as the
 *                 commit's plain stores leave them for that moment,
 *                 until half_write=0; then it stores the rest. It waits
 *                 holding rg_mutex: forks go on, shares and stats reads
 *                 of any group wait.
 *   stalled       reads 1, 2 or 3 while a task waits at the first,
 *                 second or third point, else 0.
 *   timeouts      how many waits gave up after 30 s instead.
 * A wait also ends when the task is killed, and at our unload.
 *
 * The calls are sent to wrappers by ftrace, as livepatch does; a wrapper
 * waits, then calls the real function at the address ftrace gave. That
 * call is not redirected again: each redirect is armed for one call.
 *
 * Locking: rg_stall_mutex serialises registering and unregistering the
 * ftrace ops. The flags are single words read and written once
 * (READ_ONCE/WRITE_ONCE; cmpxchg disarms); the waits poll them.
 * rg_stall_inflight counts the tasks sent to a wrapper, which our unload
 * waits for.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/res_group.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

/* With IBT, ftrace's address is past the ENDBR: real() would fault. */
#ifdef CONFIG_X86_KERNEL_IBT
#error "rg_fork_stall calls functions at their ftrace site: not with IBT"
#endif

#define RG_STALL_COMM	"rg_straddler"
#define RG_STALL_WAIT	(30 * HZ)

struct rg_stall {
	struct ftrace_ops ops;
	const char *func;		/* the function redirected */
	void *wrapper;			/* where its calls go instead */
	unsigned long orig;		/* its address, from ftrace */
	bool armed;			/* redirect the target's next call */
	bool registered;		/* rg_stall_mutex */
	bool filtered;			/* has a filter to free at unload */
};

/* The functions redirected, as the wrappers call them. */
typedef void (*rg_connector_fn)(struct task_struct *task);
typedef void *(*rg_lock_fn)(struct task_struct *tsk);
typedef void (*rg_commit_fn)(struct res_shares *s, const struct res_shares *f,
			     struct res_shares *parent);

static bool hold;
static bool half_write;
static int stalled;
static int timeouts;
static bool unregistering;	/* res_group_hooks_unregister() was called */
static atomic_t rg_stall_inflight = ATOMIC_INIT(0);
static DEFINE_MUTEX(rg_stall_mutex);

static void notrace rg_stall_redirect(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	struct rg_stall *s = container_of(op, struct rg_stall, ops);

	if (!READ_ONCE(s->armed) || strcmp(current->comm, RG_STALL_COMM))
		return;
	WRITE_ONCE(s->orig, ip);
	if (cmpxchg(&s->armed, true, false)) {
		atomic_inc(&rg_stall_inflight);
		ftrace_instruction_pointer_set(fregs, (unsigned long)s->wrapper);
	}
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
	while (!done() && !fatal_signal_pending(current)) {
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

static bool rg_stall_write_released(void)
{
	return !READ_ONCE(half_write);
}

static void rg_stall_connector(struct task_struct *task);
static void *rg_stall_lock_task_group(struct task_struct *tsk);
static void rg_stall_commit(struct res_shares *s, const struct res_shares *f,
			    struct res_shares *parent);

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

static struct rg_stall rg_stall_write = {
	.ops.func	= rg_stall_redirect,
	.ops.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	.func		= "rg_shares_commit",
	.wrapper	= rg_stall_commit,
};

static struct rg_stall rg_stall_unreg = {
	.ops.func	= rg_stall_see_unregister,
	.func		= "res_group_hooks_unregister",
};

/*
 * The filter is set anew each time (reset) and freed only at unload:
 * ftrace_free_filter() leaves the ops pointing at the freed hash.
 */
static int rg_stall_register(struct rg_stall *s)
{
	int ret;

	mutex_lock(&rg_stall_mutex);
	ret = s->registered ? -EBUSY :
	      ftrace_set_filter(&s->ops, (unsigned char *)s->func,
				strlen(s->func), 1);
	if (!ret) {
		s->filtered = true;
		ret = register_ftrace_function(&s->ops);
	}
	if (!ret)
		s->registered = true;
	mutex_unlock(&rg_stall_mutex);
	if (ret)
		pr_err("rg_fork_stall: cannot trace %s: %d\n", s->func, ret);
	return ret;
}

static void rg_stall_unregister(struct rg_stall *s)
{
	mutex_lock(&rg_stall_mutex);
	WRITE_ONCE(s->armed, false);
	if (s->registered)
		unregister_ftrace_function(&s->ops);
	s->registered = false;
	mutex_unlock(&rg_stall_mutex);
}

static void rg_stall_connector(struct task_struct *task)
{
	rg_connector_fn real = (rg_connector_fn)READ_ONCE(rg_stall_fork.orig);

	rg_stall_wait(1, rg_stall_released);
	real(task);
	atomic_dec(&rg_stall_inflight);
}

static void *rg_stall_lock_task_group(struct task_struct *tsk)
{
	rg_lock_fn real = (rg_lock_fn)READ_ONCE(rg_stall_lock.orig);
	void *grp;

	/*
	 * One call only: stop tracing res_groups' text now, while it is
	 * sure to be there (its unload waits for this fork to end).
	 */
	rg_stall_unregister(&rg_stall_lock);
	rg_stall_wait(2, rg_stall_unregistered);
	grp = real(tsk);
	atomic_dec(&rg_stall_inflight);
	return grp;
}

/*
 * The commit as its plain stores leave it just before the divisor: the
 * fields stored first are new, the divisor and unused still old. Storing
 * them with the real function keeps the parent's unused right: the second
 * call sees min_shares already new and changes it no more.
 */
static void rg_stall_commit(struct res_shares *s, const struct res_shares *f,
			    struct res_shares *parent)
{
	rg_commit_fn real = (rg_commit_fn)READ_ONCE(rg_stall_write.orig);
	struct res_shares half = *f;

	rg_stall_unregister(&rg_stall_write);
	half.child_shares_divisor = s->child_shares_divisor;
	half.unused = s->unused;
	real(s, &half, parent);
	rg_stall_wait(3, rg_stall_write_released);
	real(s, f, parent);
	atomic_dec(&rg_stall_inflight);
}

/*
 * Arm @s, which redirects a function of res_groups: registered now, so
 * that its filter finds the loaded module. Armed only if not registered
 * yet: a pending one stays armed.
 */
static int rg_stall_arm(struct rg_stall *s)
{
	int ret;

	if (READ_ONCE(s->registered))
		return -EBUSY;
	WRITE_ONCE(s->armed, true);
	ret = rg_stall_register(s);
	if (ret)
		WRITE_ONCE(s->armed, false);
	return ret;
}

static int rg_stall_set_lock(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (!on) {
		rg_stall_unregister(&rg_stall_lock);
		return 0;
	}
	WRITE_ONCE(unregistering, false);
	return rg_stall_arm(&rg_stall_lock);
}

static int rg_stall_get_lock(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n", READ_ONCE(rg_stall_lock.armed) ? 'Y' : 'N');
}

/* 0 also lets a held write go on. */
static int rg_stall_set_write(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (!on) {
		rg_stall_unregister(&rg_stall_write);
		WRITE_ONCE(half_write, false);
		return 0;
	}
	if (READ_ONCE(half_write))
		return -EBUSY;
	WRITE_ONCE(half_write, true);
	ret = rg_stall_arm(&rg_stall_write);
	if (ret)
		WRITE_ONCE(half_write, false);
	return ret;
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

static const struct kernel_param_ops rg_stall_write_ops = {
	.set = rg_stall_set_write,
	.get = param_get_bool,
};

static const struct kernel_param_ops rg_stall_hold_ops = {
	.set = rg_stall_set_hold,
	.get = param_get_bool,
};

module_param_cb(hold, &rg_stall_hold_ops, &hold, 0644);
MODULE_PARM_DESC(hold, "hold the next fork of rg_straddler in proc_fork_connector");
module_param_cb(stall_lock, &rg_stall_lock_ops, NULL, 0644);
MODULE_PARM_DESC(stall_lock,
		 "1: hold rg_straddler's next rg_lock_task_group until res_groups unloads; 0: no more");
module_param_cb(half_write, &rg_stall_write_ops, &half_write, 0644);
MODULE_PARM_DESC(half_write,
		 "1: hold rg_straddler's next shares write with its divisor not stored yet; 0: go on");
module_param(stalled, int, 0444);
MODULE_PARM_DESC(stalled, "where a task waits: 1 connector, 2 lock, 3 half write, 0 nowhere");
module_param(timeouts, int, 0444);
MODULE_PARM_DESC(timeouts, "waits that ended after 30 s");

static void rg_stall_free(struct rg_stall *s)
{
	if (s->filtered)
		ftrace_free_filter(&s->ops);
}

static int __init rg_stall_init(void)
{
	int ret;

	ret = rg_stall_register(&rg_stall_unreg);
	if (!ret)
		ret = rg_stall_register(&rg_stall_fork);
	if (ret) {
		rg_stall_unregister(&rg_stall_unreg);
		rg_stall_free(&rg_stall_fork);
		rg_stall_free(&rg_stall_unreg);
	}
	return ret;
}

/*
 * Let every held fork go and wait until none is in a wrapper; then for
 * RCU-tasks, which also covers a task preempted between its
 * atomic_dec() and its return from the wrapper.
 */
static void __exit rg_stall_exit(void)
{
	rg_stall_unregister(&rg_stall_lock);
	rg_stall_unregister(&rg_stall_write);
	rg_stall_unregister(&rg_stall_fork);
	rg_stall_unregister(&rg_stall_unreg);
	WRITE_ONCE(hold, false);
	WRITE_ONCE(half_write, false);
	WRITE_ONCE(unregistering, true);
	while (atomic_read(&rg_stall_inflight))
		msleep(20);
	synchronize_rcu_tasks();
	rg_stall_free(&rg_stall_lock);
	rg_stall_free(&rg_stall_write);
	rg_stall_free(&rg_stall_fork);
	rg_stall_free(&rg_stall_unreg);
}

module_init(rg_stall_init);
module_exit(rg_stall_exit);
MODULE_DESCRIPTION("Resource Groups: hold a fork or a shares write still for tests");
MODULE_LICENSE("GPL");

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
 *                 here it is before any spinlock. stall_lock=0 disarms
 *                 it, and lets a call held there go on. It reads Y
 *                 while armed only (hold and half_write read Y while
 *                 armed or held).
 *   half_write=1  (res_groups loaded) its next rg_shares_commit() (a
 *                 shares write, or a reset at rmdir) stores what
 *                 rg_shares_commit() stores before child_shares_divisor
 *                 (min_shares, max_shares, the parent's unused), then
 *                 waits with the divisor (and unused) still old, as the
 *                 commit's plain stores leave them for that moment,
 *                 until half_write=0; then it stores the rest. It waits
 *                 holding rg_mutex: forks go on, shares and stats reads
 *                 of any group wait.
 *   spin_charge=MS  (numtasks loaded) its next call of numtasks'
 *                 nt_charge_at() (a task entering a group: a fork, a
 *                 move) spins MS milliseconds (1..5000) first, with the
 *                 locks of its caller held: a move, under res_groups'
 *                 group spinlocks, cannot sleep. Writing 0 disarms it
 *                 and ends a spin under way (a test's steps beside the
 *                 spin then need no guess of how long they take). Reads
 *                 the MS armed, or 0.
 *   spin_parent=MS  (numtasks loaded) the same at its next call of
 *                 nt_charge_parent() (a fork or move raising a parent's
 *                 count, before the group below shows the task). Each
 *                 has its own MS and its own end.
 *   stalled       reads 1, 2, 3, 4 or 5 while a task waits at the first,
 *                 second, third, fourth or fifth point, else 0.
 *   timeouts      how many waits gave up after 30 s instead.
 *   spins         how many spins (spin_charge, spin_parent) were done.
 *   spin_end      how the last one ended: 1 its time was up (by the
 *                 clock), 2 cut (spin_*=0), 3 a fatal signal.
 * A wait also ends when the task is killed, and at our unload. Each
 * hold is for one call: writing 1 again while the last one is armed or
 * still held fails with EBUSY.
 *
 * The calls are sent to wrappers by ftrace, as livepatch does; a wrapper
 * waits, then calls the real function at the address ftrace gave. Each
 * redirect is armed for one call, and cannot be armed again until its
 * wrapper has returned, so the wrapper's own calls are never redirected.
 * Every redirect is registered at our init if its module is loaded (else
 * at its first arming): registering patches the function's first bytes,
 * and under TCG another vCPU running them meanwhile (a test's forker)
 * can trap on a stale int3 and oops; tests load us before they start
 * such tasks. The redirects into modules stay registered after their call
 * (unregistering waits for RCU-tasks: not while rg_mutex is held); they
 * are unregistered when their module goes, since ftrace would keep the
 * address of its freed text in their filters, and cannot be armed from
 * then until it is loaded again (ENODEV), nor before our init is done,
 * nor once our unload began.
 *
 * Locking: rg_stall_mutex serialises arming, registering and
 * unregistering the ftrace ops, and the flags that say whether they may
 * be armed. A redirect's state (idle, armed, busy) changes by cmpxchg
 * only, so that arming, disarming and the call that fires race safely;
 * parameter writes are serialised by the module's param lock. The other
 * flags are single words read and written once (READ_ONCE/WRITE_ONCE);
 * the waits poll them. rg_stall_inflight counts the tasks sent to a
 * wrapper, which our unload waits for.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/res_group.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

/*
 * real() calls a function at its ftrace site, which is its entry only on
 * x86-64 without IBT (elsewhere the site is past the entry's first
 * instructions, or an ENDBR).
 */
#if !defined(CONFIG_X86_64) || defined(CONFIG_X86_KERNEL_IBT)
#error "rg_fork_stall calls functions at their ftrace site: x86-64 without IBT only"
#endif

#define RG_STALL_COMM	"rg_straddler"
#define RG_STALL_WAIT	(30 * HZ)

/* A redirect's state: armed by a parameter, busy from its call to return. */
enum { RG_STALL_IDLE, RG_STALL_ARMED, RG_STALL_BUSY };

struct rg_stall {
	struct ftrace_ops ops;
	const char *func;		/* the function redirected */
	void *wrapper;			/* where its calls go instead */
	unsigned long orig;		/* its address, from ftrace */
	int state;			/* RG_STALL_*, by cmpxchg */
	const char *module;		/* func's module; NULL: the kernel's */
	bool gone;			/* that module went (rg_stall_mutex) */
	bool registered;		/* rg_stall_mutex */
	bool filtered;			/* has a filter to free at unload */
	int spin_ms;			/* a spin's length (spin_*) */
	bool cut;			/* its spin under way ends (spin_*=0) */
};

/* The functions redirected, as the wrappers call them. */
typedef void (*rg_connector_fn)(struct task_struct *task);
typedef void *(*rg_lock_fn)(struct task_struct *tsk);
typedef void (*rg_commit_fn)(struct res_shares *s, const struct res_shares *f,
			     struct res_shares *parent);
typedef bool (*rg_charge_fn)(void *g, int d, bool check, void *stop);

static bool hold;
static bool half_write;
static int stalled;
static int timeouts;
static int spins;
static int spin_end;	/* how the last spin ended: 1 its time, 2 cut, 3 a signal */
static bool unregistering;	/* res_group_hooks_unregister() was called */
/*
 * rg_stall_mutex: our init is done (the notifier is registered); our exit
 * began.
 */
static bool rg_ready, rg_exiting;
static atomic_t rg_stall_inflight = ATOMIC_INIT(0);
static DEFINE_MUTEX(rg_stall_mutex);

static void notrace rg_stall_redirect(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	struct rg_stall *s = container_of(op, struct rg_stall, ops);

	if (READ_ONCE(s->state) != RG_STALL_ARMED ||
	    strcmp(current->comm, RG_STALL_COMM))
		return;
	if (cmpxchg(&s->state, RG_STALL_ARMED, RG_STALL_BUSY) == RG_STALL_ARMED) {
		/* For the wrapper, which this task calls next. */
		WRITE_ONCE(s->orig, ip);
		atomic_inc(&rg_stall_inflight);
		ftrace_instruction_pointer_set(fregs, (unsigned long)s->wrapper);
	}
}

/* The wrapper of @s is done: @s may be armed again. */
static void rg_stall_done(struct rg_stall *s)
{
	/* Pairs with rg_stall_arm(): our last use of its flag comes first. */
	smp_store_release(&s->state, RG_STALL_IDLE);
	atomic_dec(&rg_stall_inflight);
}

/* Arm @s unless it is armed or its wrapper runs: 0 or -EBUSY. */
static int rg_stall_try_arm(struct rg_stall *s)
{
	return cmpxchg(&s->state, RG_STALL_IDLE, RG_STALL_ARMED) ==
	       RG_STALL_IDLE ? 0 : -EBUSY;
}

static void rg_stall_disarm(struct rg_stall *s)
{
	cmpxchg(&s->state, RG_STALL_ARMED, RG_STALL_IDLE);
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
static bool rg_stall_charge_at(void *g, int d, bool check, void *stop);
static bool rg_stall_charge_parent(void *p, int d, bool check, void *stop);

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
	.module		= "res_groups",
};

static struct rg_stall rg_stall_write = {
	.ops.func	= rg_stall_redirect,
	.ops.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	.func		= "rg_shares_commit",
	.wrapper	= rg_stall_commit,
	.module		= "res_groups",
};

static struct rg_stall rg_stall_charge = {
	.ops.func	= rg_stall_redirect,
	.ops.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	.func		= "nt_charge_at",
	.wrapper	= rg_stall_charge_at,
	.module		= "rg_numtasks",
};

static struct rg_stall rg_stall_parent = {
	.ops.func	= rg_stall_redirect,
	.ops.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	.func		= "nt_charge_parent",
	.wrapper	= rg_stall_charge_parent,
	.module		= "rg_numtasks",
};

static struct rg_stall rg_stall_unreg = {
	.ops.func	= rg_stall_see_unregister,
	.func		= "res_group_hooks_unregister",
};

/*
 * Caller holds rg_stall_mutex. Registered already: 0. The filter is set
 * anew each time (reset) and freed only at unload: ftrace_free_filter()
 * leaves the ops pointing at the freed hash.
 */
static int __rg_stall_register(struct rg_stall *s)
{
	int ret;

	if (s->registered)
		return 0;
	/* (going: its filter would keep the text about to be freed) */
	if (s->module && s->gone)
		return -ENODEV;
	ret = ftrace_set_filter(&s->ops, (unsigned char *)s->func,
				strlen(s->func), 1);
	/* No such function: its module is not loaded. */
	if (ret == -EINVAL && s->module)
		return -ENODEV;
	if (!ret) {
		s->filtered = true;
		ret = register_ftrace_function(&s->ops);
	}
	if (ret)
		pr_err("rg_fork_stall: cannot trace %s: %d\n", s->func, ret);
	else
		s->registered = true;
	return ret;
}

static int rg_stall_register(struct rg_stall *s)
{
	int ret;

	mutex_lock(&rg_stall_mutex);
	ret = __rg_stall_register(s);
	mutex_unlock(&rg_stall_mutex);
	return ret;
}

/* Caller holds rg_stall_mutex. */
static void __rg_stall_unregister(struct rg_stall *s)
{
	rg_stall_disarm(s);
	if (s->registered)
		unregister_ftrace_function(&s->ops);
	s->registered = false;
}

static void rg_stall_connector(struct task_struct *task)
{
	rg_connector_fn real = (rg_connector_fn)READ_ONCE(rg_stall_fork.orig);

	rg_stall_wait(1, rg_stall_released);
	WRITE_ONCE(hold, false);
	real(task);
	rg_stall_done(&rg_stall_fork);
}

static void *rg_stall_lock_task_group(struct task_struct *tsk)
{
	rg_lock_fn real = (rg_lock_fn)READ_ONCE(rg_stall_lock.orig);
	void *grp;

	rg_stall_wait(2, rg_stall_unregistered);
	grp = real(tsk);
	rg_stall_done(&rg_stall_lock);
	return grp;
}

/*
 * The commit as its plain stores leave it just before the divisor: the
 * fields stored first are new, the divisor and unused still old. Storing
 * them with the real function keeps the parent's unused right: the second
 * call sees min_shares already new and changes it no more. Runs with
 * rg_mutex held, so it unregisters nothing (an RCU-tasks wait).
 */
static void rg_stall_commit(struct res_shares *s, const struct res_shares *f,
			    struct res_shares *parent)
{
	rg_commit_fn real = (rg_commit_fn)READ_ONCE(rg_stall_write.orig);
	struct res_shares half = *f;

	half.child_shares_divisor = s->child_shares_divisor;
	half.unused = s->unused;
	real(s, &half, parent);
	rg_stall_wait(3, rg_stall_write_released);
	/* Let go, by half_write=0 or by a timeout: a new hold may be asked. */
	WRITE_ONCE(half_write, false);
	real(s, f, parent);
	rg_stall_done(&rg_stall_write);
}

/*
 * Spins (a move cannot sleep here) at @point before the real call of
 * @s, which may sleep no more than its caller: the arguments are passed
 * through untouched.
 */
static bool rg_stall_spin_call(struct rg_stall *s, int point, void *g, int d,
			       bool check, void *stop)
{
	rg_charge_fn real = (rg_charge_fn)READ_ONCE(s->orig);
	u64 end = ktime_get_ns() + READ_ONCE(s->spin_ms) * NSEC_PER_MSEC;
	int how = 1;
	bool ret;

	/* (by the clock, not by a count of mdelay()s: under TCG) */
	WRITE_ONCE(stalled, point);
	while (ktime_get_ns() < end) {
		if (READ_ONCE(s->cut)) {
			how = 2;
			break;
		}
		if (fatal_signal_pending(current)) {
			how = 3;
			break;
		}
		mdelay(1);
	}
	WRITE_ONCE(spin_end, how);
	WRITE_ONCE(stalled, 0);
	WRITE_ONCE(spins, spins + 1);
	ret = real(g, d, check, stop);
	rg_stall_done(s);
	return ret;
}

static bool rg_stall_charge_at(void *g, int d, bool check, void *stop)
{
	return rg_stall_spin_call(&rg_stall_charge, 4, g, d, check, stop);
}

static bool rg_stall_charge_parent(void *p, int d, bool check, void *stop)
{
	return rg_stall_spin_call(&rg_stall_parent, 5, p, d, check, stop);
}

/*
 * Arm @s, with *@wait (what its wrapper waits on) set to @val first: its
 * call may come as soon as it is armed. All under rg_stall_mutex, which
 * the module notifier and our exit take to disarm and unregister, so an
 * ops armed here stays registered until one of them comes; an idle @s
 * has no wrapper left to use *@wait. A redirect into a module not
 * loaded at our init is registered here, so that its filter finds it.
 * Return: 0; -EBUSY if @s is armed or its wrapper runs; -ENODEV once our
 * exit began, and for a module's redirects before our init is done or
 * while the module is not there (or going).
 */
static int rg_stall_arm(struct rg_stall *s, bool *wait, bool val)
{
	int ret = 0;

	mutex_lock(&rg_stall_mutex);
	/* Pairs with rg_stall_done(): no wrapper uses *@wait past this. */
	if (smp_load_acquire(&s->state) != RG_STALL_IDLE)
		ret = -EBUSY;
	else if (rg_exiting || (s->module && (!rg_ready || s->gone)))
		ret = -ENODEV;
	if (ret)
		goto out;
	WRITE_ONCE(*wait, val);
	if (s->module)
		ret = __rg_stall_register(s);
	if (!ret)
		ret = rg_stall_try_arm(s);
	if (ret)
		WRITE_ONCE(*wait, !val);
out:
	mutex_unlock(&rg_stall_mutex);
	return ret;
}

/*
 * 1 arms @s, with *@flag set to @held (what its wrapper waits on while
 * it stays so); 0 disarms @s and sets *@flag the other way, which also
 * lets a held call go on.
 */
static int rg_stall_set_flag(const char *val, struct rg_stall *s, bool *flag,
			     bool held)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (!on) {
		rg_stall_disarm(s);
		WRITE_ONCE(*flag, !held);
		return 0;
	}
	return rg_stall_arm(s, flag, held);
}

/* Held until res_groups' unload has called res_group_hooks_unregister(). */
static int rg_stall_set_lock(const char *val, const struct kernel_param *kp)
{
	return rg_stall_set_flag(val, &rg_stall_lock, &unregistering, false);
}

static int rg_stall_get_lock(char *buf, const struct kernel_param *kp)
{
	bool armed = READ_ONCE(rg_stall_lock.state) == RG_STALL_ARMED;

	return sysfs_emit(buf, "%c\n", armed ? 'Y' : 'N');
}

static int rg_stall_set_write(const char *val, const struct kernel_param *kp)
{
	return rg_stall_set_flag(val, &rg_stall_write, &half_write, true);
}

/* Before our init too (insmod hold=1): the ops is registered there. */
static int rg_stall_set_hold(const char *val, const struct kernel_param *kp)
{
	return rg_stall_set_flag(val, &rg_stall_fork, &hold, true);
}

/*
 * The spin's length (the param's arg: its stall); 0 disarms it and ends
 * its spin under way. Its cut is cleared by the arming itself, under
 * rg_stall_mutex once no wrapper of it runs (a cut spin still running
 * fails the arming with -EBUSY, and its cut stays).
 */
static int rg_stall_set_spin(const char *val, const struct kernel_param *kp)
{
	struct rg_stall *s = kp->arg;
	int ms, ret = kstrtoint(val, 0, &ms);

	if (ret)
		return ret;
	if (ms < 0 || ms > 5000)
		return -EINVAL;
	if (!ms) {
		rg_stall_disarm(s);
		WRITE_ONCE(s->cut, true);
		return 0;
	}
	/* Before it is armed: its wrapper reads it as soon as it runs. */
	WRITE_ONCE(s->spin_ms, ms);
	return rg_stall_arm(s, &s->cut, false);
}

static int rg_stall_get_spin(char *buf, const struct kernel_param *kp)
{
	struct rg_stall *s = kp->arg;
	bool armed = READ_ONCE(s->state) == RG_STALL_ARMED;

	return sysfs_emit(buf, "%d\n", armed ? READ_ONCE(s->spin_ms) : 0);
}

static const struct kernel_param_ops rg_stall_spin_ops = {
	.set = rg_stall_set_spin,
	.get = rg_stall_get_spin,
};

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
module_param_cb(spin_charge, &rg_stall_spin_ops, &rg_stall_charge, 0644);
MODULE_PARM_DESC(spin_charge,
		 "MS: spin MS ms in rg_straddler's next nt_charge_at of numtasks; 0: no more, a spin ends");
module_param_cb(spin_parent, &rg_stall_spin_ops, &rg_stall_parent, 0644);
MODULE_PARM_DESC(spin_parent,
		 "MS: spin MS ms in rg_straddler's next nt_charge_parent of numtasks; 0: no more, a spin ends");
module_param(stalled, int, 0444);
MODULE_PARM_DESC(stalled,
		 "where a task waits: 1 connector, 2 lock, 3 half write, 4 and 5 spins, 0 nowhere");
module_param(spins, int, 0444);
MODULE_PARM_DESC(spins, "spins done (spin_charge, spin_parent)");
module_param(spin_end, int, 0444);
MODULE_PARM_DESC(spin_end, "how the last spin ended: 1 its time, 2 cut, 3 a signal");
module_param(timeouts, int, 0444);
MODULE_PARM_DESC(timeouts, "waits that ended after 30 s");

static struct rg_stall * const rg_stalls[] = {
	&rg_stall_lock, &rg_stall_write, &rg_stall_charge, &rg_stall_parent,
	&rg_stall_fork, &rg_stall_unreg,
};

/*
 * A module goes, its text with it: its redirects go first, since ftrace
 * would keep the freed address in their filters (and trace whatever is
 * loaded there next). No arming until it comes again.
 */
static int rg_stall_module_event(struct notifier_block *nb,
				 unsigned long event, void *data)
{
	struct module *mod = data;
	struct rg_stall *s;
	int i;

	mutex_lock(&rg_stall_mutex);
	for (i = 0; i < ARRAY_SIZE(rg_stalls); i++) {
		s = rg_stalls[i];
		if (!s->module || strcmp(mod->name, s->module))
			continue;
		if (event == MODULE_STATE_GOING) {
			s->gone = true;
			__rg_stall_unregister(s);
		} else if (event == MODULE_STATE_COMING) {
			s->gone = false;
		}
	}
	/* No write can be held: an open shares file pins res_groups. */
	if (event == MODULE_STATE_GOING && !strcmp(mod->name, "res_groups"))
		WRITE_ONCE(half_write, false);
	mutex_unlock(&rg_stall_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block rg_stall_module_nb = {
	.notifier_call = rg_stall_module_event,
};

/* Unregister every ops (waiting for RCU-tasks) and free the filters. */
static void rg_stall_release_all(void)
{
	int i;

	mutex_lock(&rg_stall_mutex);
	for (i = 0; i < ARRAY_SIZE(rg_stalls); i++)
		__rg_stall_unregister(rg_stalls[i]);
	mutex_unlock(&rg_stall_mutex);
	unregister_module_notifier(&rg_stall_module_nb);
	while (atomic_read(&rg_stall_inflight))
		msleep(20);
	synchronize_rcu_tasks();
	for (i = 0; i < ARRAY_SIZE(rg_stalls); i++)
		if (rg_stalls[i]->filtered)
			ftrace_free_filter(&rg_stalls[i]->ops);
}

/* Every wait and spin ends (our exit, or a failed init). */
static void rg_stall_let_go(void)
{
	WRITE_ONCE(hold, false);
	WRITE_ONCE(half_write, false);
	WRITE_ONCE(unregistering, true);
	WRITE_ONCE(rg_stall_charge.cut, true);
	WRITE_ONCE(rg_stall_parent.cut, true);
}

static int __init rg_stall_init(void)
{
	int i, ret;

	ret = register_module_notifier(&rg_stall_module_nb);
	if (ret)
		return ret;
	ret = rg_stall_register(&rg_stall_unreg);
	if (!ret)
		ret = rg_stall_register(&rg_stall_fork);
	/* The redirects into modules already loaded: now, not at arming. */
	for (i = 0; !ret && i < ARRAY_SIZE(rg_stalls); i++) {
		if (!rg_stalls[i]->module)
			continue;
		ret = rg_stall_register(rg_stalls[i]);
		if (ret == -ENODEV)
			ret = 0;
	}
	if (ret) {
		rg_stall_let_go();
		rg_stall_release_all();
		return ret;
	}
	mutex_lock(&rg_stall_mutex);
	rg_ready = true;
	mutex_unlock(&rg_stall_mutex);
	return 0;
}

/*
 * No more arming; let every held call go first, so that no held fork
 * (cgroup_threadgroup_rwsem held for read) or write (rg_mutex held) waits
 * out its 30 s while we unregister; then unregister and wait until no
 * task is in a wrapper; then for RCU-tasks, which also covers a task
 * preempted between its rg_stall_done() and its return from the wrapper.
 */
static void __exit rg_stall_exit(void)
{
	mutex_lock(&rg_stall_mutex);
	rg_exiting = true;
	mutex_unlock(&rg_stall_mutex);
	rg_stall_let_go();
	rg_stall_release_all();
}

module_init(rg_stall_init);
module_exit(rg_stall_exit);
MODULE_DESCRIPTION("Resource Groups: hold a fork, a shares write or a charge still for tests");
MODULE_LICENSE("GPL");

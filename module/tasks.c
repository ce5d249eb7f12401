// SPDX-License-Identifier: GPL-2.0
/*
 * Resource Groups: which task is in which group, and telling controllers.
 *
 * A task is in a group from fork (or module load) until it is reaped
 * (release), so that zombies still count. task->res_group is NULL for a
 * task in no group: before the module loads, when it was already exiting
 * at load, after it is reaped.
 *
 * Locking (see rg.h for the order):
 * - task->res_group and task->res_group_node change only under the lock
 *   of the group the task leaves or joins (both, for a move); readers
 *   that do not hold it use RCU. A group's list is in the order its tasks
 *   joined (each joins at the tail), and a read of members walking it is
 *   told of each join and leave (members.c).
 * - move_task() of every controller is called under the locks of the
 *   groups involved, so a controller sees each task's moves in order.
 * - A fork holds rg_fork_sem for read from can_fork to post_fork or
 *   cancel_fork. Whatever would change the shares every fork is charged
 *   to (controller registration, load, unload) takes it for write.
 * - A fork also pins the group its child is to join (res_group.forking),
 *   unless that is the root, which is never removed. An rmdir marks its
 *   group dying, waits until no fork has it pinned, then moves its tasks
 *   to the parent a batch at a time, dropping the locks in between: so
 *   forks elsewhere never wait for it, and those of the group's own
 *   tasks, which no longer pin it, join the parent (where the rmdir is
 *   moving their parent anyway). It waits without rg_mutex, which moves
 *   and other writes need. Nothing joins a dying group: forks do not pin
 *   it, and configfs refuses writes to its members once it is removed.
 * - Between can_fork and post_fork the child points at its group but is
 *   not on its list (rg_forking()), and may already be found by pid: a
 *   move waits for post_fork (rg_post_fork() wakes it), so that no move
 *   interleaves with a fork and controllers see FORK before any MOVE.
 * - A fork that began before the hooks were registered had no can_fork:
 *   its child is on the task list before post_fork, so load may put it in
 *   the root first. post_fork tells the two kinds apart by the hooks'
 *   srcu index (kept only for a fork that had can_fork), never by
 *   task->res_group, which load, moves and unload may change meanwhile.
 * - A controller's (un)registration tells a group's tasks a batch at a
 *   time, dropping the group's lock in between (rg_tasks_set_eff()); a
 *   task of that group that is reaped meanwhile waits (rg_release(),
 *   sleeping) until the group's walk is done, so that it is told of its
 *   leaving with the shares it was told of. Nothing else changes the
 *   group's list meanwhile: forks wait for rg_fork_sem, moves and rmdir
 *   for rg_mutex.
 * - rg_detached is written under rg_fork_sem (write) and rg_root.lock, and
 *   read under either. (post_fork reads it under the lock of the parent's
 *   group: at unload the root is the only group left.)
 */
#include <linux/wait_bit.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "rg.h"

/* Set up at load (rg_tasks_init()), not statically: see rg_tasks_exit(). */
struct percpu_rw_semaphore rg_fork_sem;

/* Set at unload: no task may join any more (see the top of this file). */
static bool rg_detached;

/*
 * The group whose tasks a controller's (un)registration is telling, a
 * batch at a time (rg_tasks_set_eff()); NULL when none. Written under
 * rg_mutex and that group's lock, read under a group's lock.
 */
static struct res_group *rg_telling;

/**
 * rg_lock_task_group - lock the group @tsk is in
 * @tsk: any task
 *
 * Never inlined nor cloned: a test holds a fork still here, by name, to
 * unload the module meanwhile (selftests/modules/rg_fork_stall.c), calling
 * it as declared.
 *
 * Return: that group, locked; the root, locked, if @tsk is in no group
 * (check task->res_group to tell).
 */
static noinline __noclone struct res_group *
rg_lock_task_group(struct task_struct *tsk)
	__acquires(&grp->lock)
{
	struct res_group *grp;

	rcu_read_lock();
	for (;;) {
		grp = rcu_dereference(tsk->res_group) ?: &rg_root;
		spin_lock(&grp->lock);
		if ((rcu_access_pointer(tsk->res_group) ?: &rg_root) == grp)
			break;
		spin_unlock(&grp->lock);
	}
	rcu_read_unlock();
	return grp;
}

/* Tell every controller whose shares differ between @from and @to. */
static void rg_notify(struct task_struct *tsk, struct res_group *from,
		      struct res_group *to, enum res_group_event event)
{
	unsigned long ids = READ_ONCE(rg_move_ids);
	struct res_shares *a, *b;
	int id;

	for_each_set_bit(id, &ids, RES_GROUP_MAX_CONTROLLERS) {
		a = from ? from->eff[id] : NULL;
		b = to ? to->eff[id] : NULL;
		if (a != b)
			rg_ctls[id]->move_task(tsk, a, b, event);
	}
}

/* Tell a read of @grp's members under way that @tsk joins or leaves. */
static void rg_walk_note(struct res_group *grp, struct task_struct *tsk,
			 bool leave)
{
	if (unlikely(!list_empty(&grp->walks)))
		rg_members_note(grp, tsk, leave);
}

/*
 * @tsk, in no group (or only pinned to @grp by rg_can_fork()), joins @grp.
 * Caller holds @grp->lock.
 */
static void rg_join(struct task_struct *tsk, struct res_group *grp,
		    enum res_group_event event)
{
	rg_walk_note(grp, tsk, false);
	list_add_tail(&tsk->res_group_node, &grp->tasks);
	grp->nr_tasks++;
	rcu_assign_pointer(tsk->res_group, grp);
	rg_notify(tsk, NULL, grp, event);
}

/* @tsk leaves @grp for no group. Caller holds @grp->lock. */
static void rg_leave(struct task_struct *tsk, struct res_group *grp,
		     enum res_group_event event)
{
	rg_notify(tsk, grp, NULL, event);
	rg_walk_note(grp, tsk, true);
	list_del_init(&tsk->res_group_node);
	grp->nr_tasks--;
	RCU_INIT_POINTER(tsk->res_group, NULL);
}

/* @tsk goes from @from to @to. Caller holds both locks. */
static void rg_switch(struct task_struct *tsk, struct res_group *from,
		      struct res_group *to)
{
	rg_walk_note(from, tsk, true);
	rg_walk_note(to, tsk, false);
	list_move_tail(&tsk->res_group_node, &to->tasks);
	from->nr_tasks--;
	to->nr_tasks++;
	rcu_assign_pointer(tsk->res_group, to);
	rg_notify(tsk, from, to, RES_GROUP_MOVE);
}

/*
 * Is @tsk between rg_can_fork() and rg_post_fork()? Exact under its
 * group's lock; without it (the waiter's condition) a hint, rechecked.
 */
static bool rg_forking(struct task_struct *tsk)
{
	return rcu_access_pointer(tsk->res_group) &&
	       list_empty(&tsk->res_group_node);
}

/* A new process joins the forking task's group, a thread its leader's. */
static struct task_struct *rg_fork_parent(struct kernel_clone_args *args)
{
	return args->flags & CLONE_THREAD ? current->group_leader : current;
}

/*
 * Forks that are never refused: kernel threads, and the user-mode helpers
 * that kernel threads start (modprobe, core_pattern pipes, poweroff: a
 * kworker's user_mode_thread(), which 6.1 does not mark as a kernel
 * thread). Controllers see them with RES_GROUP_ATTACH.
 */
static bool rg_fork_by_kernel(struct kernel_clone_args *args)
{
	return args->kthread || (current->flags & PF_KTHREAD);
}

/* The fork pinning @grp is over (its child joined, or it failed). */
static void rg_fork_unpin(struct res_group *grp)
{
	if (grp == &rg_root)
		return;
	/*
	 * Once the count is 0 the rmdir may end and free @grp (after a
	 * grace period): look at @grp no more than in this RCU section.
	 */
	rcu_read_lock();
	if (atomic_dec_and_test(&grp->forking) && READ_ONCE(grp->dying))
		wake_up_var(&grp->forking);
	rcu_read_unlock();
}

/*
 * Pin @grp, or its nearest ancestor that is not being removed, for a
 * fork's child. Caller holds rcu_read_lock() (a removed group's memory
 * and its parent pointer stay valid meanwhile). Return: the group pinned.
 */
static struct res_group *rg_fork_pin(struct res_group *grp)
{
	while (grp != &rg_root) {
		atomic_inc(&grp->forking);
		/* Pairs with the smp_mb() of rg_tasks_seal(). */
		smp_mb__after_atomic();
		if (!READ_ONCE(grp->dying))
			break;
		/* Not pinned after all: the rmdir may be waiting. */
		rg_fork_unpin(grp);
		grp = grp->parent;
	}
	return grp;
}

/* Caller holds rg_fork_sem (for read): rg_fork_ids cannot change. */
static void rg_cancel_charges(struct res_group *grp, int upto)
{
	unsigned long ids = rg_fork_ids;
	int id;

	for_each_set_bit(id, &ids, upto)
		if (grp->eff[id] && rg_ctls[id]->cancel_fork)
			rg_ctls[id]->cancel_fork(grp->eff[id]);
}

static int rg_can_fork(struct task_struct *child,
		       struct kernel_clone_args *args)
{
	struct res_group *grp = &rg_root;
	unsigned long ids;
	int id, ret;

	percpu_down_read(&rg_fork_sem);
	if (rg_detached) {
		percpu_up_read(&rg_fork_sem);
		return 0;
	}
	/*
	 * Kernel threads and their user-mode helpers join the root and are
	 * never refused: post_fork tells controllers with RES_GROUP_ATTACH,
	 * not RES_GROUP_FORK.
	 */
	if (rg_fork_by_kernel(args))
		goto out;
	/* Pinned, the group cannot go away: its rmdir waits for us. */
	rcu_read_lock();
	grp = rcu_dereference(rg_fork_parent(args)->res_group) ?: &rg_root;
	grp = rg_fork_pin(grp);
	rcu_read_unlock();
	ids = rg_fork_ids;
	for_each_set_bit(id, &ids, RES_GROUP_MAX_CONTROLLERS) {
		if (!grp->eff[id])
			continue;
		ret = rg_ctls[id]->can_fork(grp->eff[id]);
		if (ret) {
			rg_cancel_charges(grp, id);
			rg_fork_unpin(grp);
			percpu_up_read(&rg_fork_sem);
			return ret;
		}
	}
out:
	/* Not in the group's list yet: post_fork puts it there. */
	RCU_INIT_POINTER(child->res_group, grp);
	return 0;
}

static void rg_cancel_fork(struct task_struct *child,
			   struct kernel_clone_args *args)
{
	struct res_group *grp = rcu_dereference_protected(child->res_group, 1);

	if (!grp)
		return;
	/* Kernel threads and helpers took no charges. */
	if (!rg_fork_by_kernel(args))
		rg_cancel_charges(grp, RES_GROUP_MAX_CONTROLLERS);
	RCU_INIT_POINTER(child->res_group, NULL);
	rg_fork_unpin(grp);
	percpu_up_read(&rg_fork_sem);
}

static void rg_post_fork(struct task_struct *child,
			 struct kernel_clone_args *args)
{
	struct res_group *grp;

	/*
	 * Only if rg_can_fork() ran for this fork (the hooks keep their
	 * index until now) is child->res_group ours alone. A fork that
	 * began before the hooks were registered may have been put in the
	 * root by rg_tasks_attach_all() meanwhile, moved since, or taken
	 * out again by an unload: that case is decided under the lock below.
	 */
	if (child->res_group_srcu_idx >= 0) {
		grp = rcu_dereference_protected(child->res_group, 1);
		/* No group: rg_can_fork() found us detached; nothing to undo. */
		if (!grp)
			return;
		/* rg_can_fork() took the charges and rg_fork_sem. */
		spin_lock(&grp->lock);
		rg_join(child, grp, rg_fork_by_kernel(args) ?
			RES_GROUP_ATTACH : RES_GROUP_FORK);
		spin_unlock(&grp->lock);
		rg_fork_unpin(grp);
		percpu_up_read(&rg_fork_sem);
		/*
		 * A move of @child may be waiting for its fork to end. Order
		 * the list_add before wake_up_var()'s look at the waitqueue.
		 */
		smp_mb();
		wake_up_var(&child->res_group_node);
		return;
	}
	/*
	 * A fork that began before the hooks were registered. Checked under
	 * the lock: once unload has emptied the root, nothing may join.
	 */
	grp = rg_lock_task_group(rg_fork_by_kernel(args) ? child :
				 rg_fork_parent(args));
	if (!rg_detached && !rcu_access_pointer(child->res_group))
		rg_join(child, grp, RES_GROUP_ATTACH);
	spin_unlock(&grp->lock);
}

static void rg_release(struct task_struct *tsk)
{
	struct res_group *grp;

	/*
	 * Not while a controller's registration tells our group's tasks
	 * (rg_tasks_set_eff()): whether it told us yet is its cursor's
	 * secret. It never waits for us; compare pointers only: @grp may
	 * be gone once we wake. So this hook may sleep: release_task()
	 * calls it in process context with no lock held (the hooks patch's
	 * comment, which says it must not, is behind; fixed with the next
	 * change to the series). The walk must never wait for anything a
	 * reaper may hold (cred_guard_mutex in de_thread(), the hooks'
	 * srcu, tasks_rcu_exit_srcu).
	 */
	might_sleep();
	for (;;) {
		grp = rg_lock_task_group(tsk);
		if (likely(READ_ONCE(rg_telling) != grp) ||
		    rcu_access_pointer(tsk->res_group) != grp)
			break;
		spin_unlock(&grp->lock);
		wait_var_event(&rg_telling, READ_ONCE(rg_telling) != grp);
	}
	if (rcu_access_pointer(tsk->res_group) == grp)
		rg_leave(tsk, grp, RES_GROUP_EXIT);
	spin_unlock(&grp->lock);
}

static void rg_free(struct task_struct *tsk)
{
	/* Reaped tasks left their group in rg_release(). */
	WARN_ON_ONCE(rcu_access_pointer(tsk->res_group));
}

const struct res_group_hooks rg_hooks = {
	.can_fork	= rg_can_fork,
	.cancel_fork	= rg_cancel_fork,
	.post_fork	= rg_post_fork,
	.release	= rg_release,
	.free		= rg_free,
	.proc_show	= rg_proc_show,
};

/**
 * rg_tasks_init - set up rg_fork_sem (module load, before the hooks)
 *
 * Return: 0, or -ENOMEM.
 */
int rg_tasks_init(void)
{
	return percpu_init_rwsem(&rg_fork_sem);
}

/**
 * rg_tasks_exit - tear down rg_fork_sem (unload, after the hooks)
 *
 * The last write section's end leaves an RCU callback queued on the
 * semaphore (its rcu_sync going back to idle). percpu_free_rwsem() waits
 * for it; a static semaphore would have it run in the module's memory
 * after the unload.
 */
void rg_tasks_exit(void)
{
	percpu_free_rwsem(&rg_fork_sem);
}

/**
 * rg_tasks_attach_all - put every task in the root (module load)
 *
 * The hooks are registered already, so forks from now on join by
 * themselves. Tasks already exiting stay in no group: they may be reaped
 * before we could add them, and nothing would take them out again.
 */
void rg_tasks_attach_all(void)
{
	struct task_struct *g, *t;

	percpu_down_write(&rg_fork_sem);
	rcu_read_lock();
	spin_lock(&rg_root.lock);
	for_each_process_thread(g, t)
		if (!(t->flags & PF_EXITING) && !rcu_access_pointer(t->res_group))
			rg_join(t, &rg_root, RES_GROUP_ATTACH);
	spin_unlock(&rg_root.lock);
	rcu_read_unlock();
	percpu_up_write(&rg_fork_sem);
}

/**
 * rg_tasks_detach_all - take every task out (module unload)
 *
 * No group but the root is left, and no controller. Once this returns,
 * the hooks add no task anywhere, so unregistering them is safe.
 */
void rg_tasks_detach_all(void)
{
	struct task_struct *t, *n;

	percpu_down_write(&rg_fork_sem);
	spin_lock(&rg_root.lock);
	rg_detached = true;
	list_for_each_entry_safe(t, n, &rg_root.tasks, res_group_node)
		rg_leave(t, &rg_root, RES_GROUP_DETACH);
	spin_unlock(&rg_root.lock);
	percpu_up_write(&rg_fork_sem);
}

/**
 * rg_task_move - move @tsk to @to (a write to members)
 * @tsk: the task
 * @to: a live group
 *
 * Caller holds rg_mutex, so no group can be removed meanwhile. A task
 * still being forked is moved once its fork is over (we wait for it).
 * Return: 0 (also if @tsk is in @to already), -ESRCH if it is exiting.
 */
int rg_task_move(struct task_struct *tsk, struct res_group *to)
{
	struct res_group *from;
	bool forking;

	lockdep_assert_held(&rg_mutex);
	for (;;) {
		from = rcu_dereference_protected(tsk->res_group,
						 lockdep_is_held(&rg_mutex));
		if (!from)
			return -ESRCH;
		rg_lock_two(from, to);
		forking = rg_forking(tsk);
		if (rcu_access_pointer(tsk->res_group) == from && !forking)
			break;
		rg_unlock_two(from, to);
		/* post_fork needs no lock we hold; it always comes. */
		if (forking)
			wait_var_event(&tsk->res_group_node, !rg_forking(tsk));
	}
	if (tsk->flags & PF_EXITING) {
		rg_unlock_two(from, to);
		return -ESRCH;
	}
	if (from != to)
		rg_switch(tsk, from, to);
	rg_unlock_two(from, to);
	return 0;
}

/**
 * rg_tasks_seal - an rmdir's first part: no fork pins @grp any more
 * @grp: a group being removed, without children
 *
 * Waits for the forks that pinned @grp; takes no lock, so that nothing
 * waits for a held fork but this rmdir (moves and other writes take
 * rg_mutex). Nothing joins @grp afterwards: forks no longer pin it, and
 * configfs refuses writes to a removed directory (its members too).
 */
void rg_tasks_seal(struct res_group *grp)
{
	WRITE_ONCE(grp->dying, true);
	/* Pairs with the smp_mb__after_atomic() of rg_fork_pin(). */
	smp_mb();
	wait_var_event(&grp->forking, !atomic_read(&grp->forking));
}

/* Tasks moved per hold of the two groups' locks by an rmdir. */
#define RG_MOVE_BATCH	64

/**
 * rg_tasks_move_out - an rmdir's second part: every task of @grp is moved
 * to its parent
 * @grp: a group sealed by rg_tasks_seal()
 *
 * Caller holds rg_mutex (no move can take a task out meanwhile). The tasks
 * go a batch at a time: the locks are never held for more than
 * RG_MOVE_BATCH moves, and only @grp's own tasks (and the parent's exits)
 * ever wait for them.
 */
void rg_tasks_move_out(struct res_group *grp)
{
	struct res_group *to = grp->parent;
	struct task_struct *t, *n;
	bool done;
	int i;

	lockdep_assert_held(&rg_mutex);
	do {
		i = 0;
		rg_lock_two(grp, to);
		list_for_each_entry_safe(t, n, &grp->tasks, res_group_node) {
			if (i++ == RG_MOVE_BATCH)
				break;
			rg_switch(t, grp, to);
		}
		done = list_empty(&grp->tasks);
		rg_unlock_two(grp, to);
		cond_resched();
	} while (!done);
}

/* Tasks told per hold of the group's lock by a controller's (un)registration. */
#define RG_TELL_BATCH	64

/**
 * rg_tasks_set_eff - set the shares @grp's tasks count in for controller
 * @id, and tell the controller of each task (registration: they join,
 * unregistration: they leave)
 * @grp: the group
 * @id: the controller
 * @eff: the new effective shares (NULL when unregistering)
 *
 * Caller holds rg_fork_sem for write and rg_mutex, so no task forks,
 * moves, or joins or leaves @grp by an rmdir meanwhile. The tasks are
 * told in the order they joined, RG_TELL_BATCH per hold of @grp's lock,
 * with a chance to reschedule in between: the lock is never held for
 * more than a batch of move_task() calls (with cpu.ko, a run-queue lock
 * each), however many tasks @grp has. From the first batch on, eff[@id]
 * is @eff, so that whatever joins @grp meanwhile (only a fork that began
 * before the hooks were registered can: post_fork) is told by its join,
 * at the tail, which the walk ends before. A task that would leave @grp
 * (it is reaped) waits until the walk is done (rg_release()): told or
 * not, it is then told of its leaving with the shares it was told of.
 */
void rg_tasks_set_eff(struct res_group *grp, int id, struct res_shares *eff)
{
	enum res_group_event event = eff ? RES_GROUP_ATTACH : RES_GROUP_DETACH;
	struct res_controller *ctl = rg_ctls[id];
	struct list_head *pos, *last;
	struct res_shares *old;
	struct task_struct *t;
	int k;

	lockdep_assert_held(&rg_mutex);
	spin_lock(&grp->lock);
	old = grp->eff[id];
	grp->eff[id] = eff;
	if (!ctl->move_task || list_empty(&grp->tasks)) {
		spin_unlock(&grp->lock);
		return;
	}
	WRITE_ONCE(rg_telling, grp);
	/* No task leaves meanwhile: @last stays, and ends the walk. */
	last = grp->tasks.prev;
	pos = grp->tasks.next;
	for (;;) {
		for (k = 0; k < RG_TELL_BATCH; k++) {
			t = list_entry(pos, struct task_struct, res_group_node);
			ctl->move_task(t, old, eff, event);
			if (pos == last)
				goto done;
			pos = pos->next;
		}
		spin_unlock(&grp->lock);
		cond_resched();
		spin_lock(&grp->lock);
	}
done:
	WRITE_ONCE(rg_telling, NULL);
	spin_unlock(&grp->lock);
	/* Order the store before wake_up_var()'s look at the waitqueue. */
	smp_mb();
	wake_up_var(&rg_telling);
	/* (the next group's first batch is a batch of its own) */
	cond_resched();
}

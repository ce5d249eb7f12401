/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resource Groups: the API between res_groups.ko and resource controllers.
 *
 * A controller (e.g. numtasks) registers a struct res_controller. For every
 * group no deeper than res_controller.depth the framework asks it for a
 * struct res_shares (usually embedded in a bigger, controller-private
 * struct), and tells it of every task that enters or leaves a group.
 */
#ifndef _LINUX_RES_GROUP_H
#define _LINUX_RES_GROUP_H

#include <linux/list.h>
#include <linux/types.h>

struct module;
struct res_group;
struct seq_buf;
struct task_struct;

/* Symbolic share values (docs/res_groups.rst, "Shares"). */
#define RES_SHARES_DONT_CARE		(-3)
#define RES_SHARES_UNSUPPORTED		(-2)
#define RES_SHARES_UNCHANGED		(-1)

#define RES_SHARES_DEFAULT_DIVISOR	100
#define RES_GROUP_MAX_DEPTH		5
#define RES_GROUP_MAX_CONTROLLERS	8

/**
 * struct res_shares - the shares of one (group, controller) pair
 * @min_shares: guaranteed part of the parent's resource (numerator)
 * @max_shares: ceiling, part of the parent's resource (numerator)
 * @child_shares_divisor: denominator of the children's min/max
 * @unused: part of @child_shares_divisor not promised to children's mins
 * @children_max: largest @max_shares among the children (0 if none)
 * @parent: the parent group's shares of this controller (NULL at the root)
 * @depth: depth of the group (root: 0)
 * @group: private to res_groups.ko (the group these shares are of)
 *
 * A controller may set a field to RES_SHARES_UNSUPPORTED in its
 * alloc_shares(); the framework sets the others to their defaults. The
 * fields are written by the framework only, under its mutex, and every
 * callback but move_task(), can_fork() and cancel_fork() runs with that
 * mutex held: there the fields are stable. A write to a group's shares
 * may change the amounts of its whole subtree (its divisor scales its
 * children). Hot paths (the three callbacks above) must therefore not
 * combine fields read without the mutex, which could mix an old and a new
 * value into an amount that never existed: a controller works out what
 * they need in shares_changed() (and alloc_shares()) and publishes it as
 * values its hot path reads one at a time.
 */
struct res_shares {
	int min_shares;
	int max_shares;
	int child_shares_divisor;
	int unused;
	int children_max;
	struct res_shares *parent;
	int depth;
	struct res_group *group;
};

/**
 * enum res_group_event - why a task changes group, for move_task()
 * @RES_GROUP_FORK: a new task; can_fork() allowed it just before
 * @RES_GROUP_ATTACH: a task enters without a can_fork(): at controller
 *	registration, module load, or a fork that raced with the load
 * @RES_GROUP_MOVE: moved by a write to a group's members file, or by the
 *	removal of its group
 * @RES_GROUP_EXIT: the task was reaped
 * @RES_GROUP_DETACH: the controller is unregistering
 * @RES_GROUP_RETELL: the controller asked to be told again
 *	(res_group_retell_tasks()): @from == @to, the task's group
 */
enum res_group_event {
	RES_GROUP_FORK,
	RES_GROUP_ATTACH,
	RES_GROUP_MOVE,
	RES_GROUP_EXIT,
	RES_GROUP_DETACH,
	RES_GROUP_RETELL,
};

/**
 * struct res_controller - a resource controller
 * @name: unique name, shown as res=NAME
 * @depth: the deepest group depth given shares (0..RES_GROUP_MAX_DEPTH);
 *	tasks of deeper groups count in their nearest ancestor that has shares
 * @owner: the module that implements the callbacks (THIS_MODULE).
 *	Registration fails if it is already going away. No reference is
 *	held while registered: the module's exit must unregister, and
 *	unregistering waits for the callbacks.
 * @precedes_cgroup: for tasks in non-root groups this controller takes
 *	precedence over cgroup's controller of the same resource (cpu,
 *	kmem): a move into a non-root group takes the task out of
 *	cgroup's limits. A writer of members without CAP_SYS_RESOURCE
 *	may then move tasks only into a group that has, or has an
 *	ancestor below the root with, a ceiling (max_shares >= 0) of
 *	this controller that the writer cannot change, and may not lift
 *	such a ceiling over the tasks it holds (docs, "Delegation").
 * @alloc_shares: allocate shares for a group whose parent has @parent
 *	(NULL for the root) (required); may sleep. Return NULL on failure.
 * @free_shares: free what alloc_shares() returned (required); may sleep.
 *	A group's shares are freed only after those of all its descendants.
 * @shares_changed: a write changed @shares (after the change); may sleep.
 *	The amounts of @shares' descendants may have changed too.
 * @show_stats: print statistics, each line starting with "res=NAME,".
 * @reset_stats: handle "res=NAME[,ARGS]" written to stats; @args is ""
 *	without ARGS. Return 0 or a negative errno.
 * @move_task: @tsk leaves @from (NULL: it was in no group of this
 *	controller) and enters @to (NULL: it leaves). Called with spinlocks
 *	held: must not sleep. @from != @to, but for RES_GROUP_RETELL.
 * @can_fork: may refuse, with a negative errno, a fork into @shares.
 *	Must not sleep. If it returns 0, either cancel_fork() or a
 *	move_task(RES_GROUP_FORK) follows for the same @shares. Never
 *	called for kernel threads: they join the root with a
 *	move_task(RES_GROUP_ATTACH) and cannot be refused.
 * @cancel_fork: the fork can_fork() allowed failed. Must not sleep.
 * @list: private to res_groups.ko
 * @id: private to res_groups.ko
 *
 * The framework's locks keep @shares alive during every callback:
 * move_task(), can_fork() and cancel_fork() run under the fork semaphore
 * or the group locks, the others under the framework's mutex, and shares
 * are freed only with all of these held off. A task never gets a
 * move_task(RES_GROUP_MOVE) before its move_task(RES_GROUP_FORK).
 * res_controller_unregister() returns once no callback runs.
 */
struct res_controller {
	const char *name;
	int depth;
	struct module *owner;
	bool precedes_cgroup;

	struct res_shares *(*alloc_shares)(struct res_controller *ctl,
					   struct res_shares *parent);
	void (*free_shares)(struct res_shares *shares);
	void (*shares_changed)(struct res_shares *shares);
	void (*show_stats)(struct res_shares *shares, struct seq_buf *sb);
	int (*reset_stats)(struct res_shares *shares, const char *args);
	void (*move_task)(struct task_struct *tsk, struct res_shares *from,
			  struct res_shares *to, enum res_group_event event);
	int (*can_fork)(struct res_shares *shares);
	void (*cancel_fork)(struct res_shares *shares);

	struct list_head list;
	int id;
};

/**
 * res_controller_register - add a controller
 * @ctl: the controller; must stay valid until unregistered
 *
 * Allocates its shares in every existing group no deeper than @ctl->depth
 * and tells it of every task already in a group (RES_GROUP_ATTACH).
 *
 * Return: 0; -EINVAL for a bad @ctl (NULL, no name or a name with a space,
 * comma or '=', no alloc_shares/free_shares, depth out of range, owner
 * going away); -EEXIST if a controller of that name
 * is registered; -ENOSPC if RES_GROUP_MAX_CONTROLLERS are; -ENOMEM.
 */
int res_controller_register(struct res_controller *ctl);

/**
 * res_controller_unregister - remove a controller
 * @ctl: a registered controller
 *
 * Tells it every task leaves (RES_GROUP_DETACH), resets and frees its
 * shares in every group. Always succeeds; returns once no callback of
 * @ctl runs or can start. Does nothing for NULL or a controller that is
 * not registered.
 */
void res_controller_unregister(struct res_controller *ctl);

/**
 * res_group_retell_tasks - tell a controller of a group's tasks again
 * @ctl: the controller
 * @shares: a group's own shares of @ctl (not a deeper group's)
 *
 * Calls @ctl->move_task(tsk, @shares, @shares, RES_GROUP_RETELL) for each
 * task on the group's own list (not its descendants', nor those of
 * deeper groups that count in @shares), under the group's lock as every
 * move_task() is, a batch of 64 per hold of the lock: for a controller
 * that places a group's tasks anew when something it publishes first
 * has changed (rg_cpu.ko: a group's first child). A task that joins the
 * group meanwhile gets its own move_task() after the change; one that
 * leaves is not visited after its move_task(). Does nothing while @ctl
 * registers or unregisters (its tasks are told then with
 * RES_GROUP_ATTACH or RES_GROUP_DETACH), nor from alloc_shares() for the
 * group of @shares itself. Caller holds the framework's mutex: call it
 * from shares_changed(), or from alloc_shares() or free_shares() for
 * another group.
 */
void res_group_retell_tasks(struct res_controller *ctl,
			    struct res_shares *shares);

#endif /* _LINUX_RES_GROUP_H */

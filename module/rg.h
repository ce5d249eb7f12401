/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the files of res_groups.ko.
 *
 * Locks, outermost first (each file says which it takes):
 * 1. rg_fork_sem (percpu rwsem): read-held by a fork from can_fork to
 *    post_fork/cancel_fork; write-held by whatever changes which shares
 *    every fork would charge: controller (un)registration, module load
 *    and unload. An rmdir takes no lock that forks elsewhere wait for: it
 *    marks its group @dying, waits for the forks pinned to it (@forking)
 *    before it takes rg_mutex, then moves its tasks out a batch at a time
 *    (tasks.c).
 * 2. rg_mutex: the group tree, the controller list, every res_shares value.
 * 3. res_group.lock (spinlock), two at most, taken in address order
 *    (rg_lock_two()): the group's task list, task->res_group of its
 *    tasks, writes to its eff[] slots, the move_task() calls for its
 *    tasks, and the reads of members walking its list (members.c).
 */
#ifndef _RES_GROUPS_RG_H
#define _RES_GROUPS_RG_H

#include <linux/atomic.h>
#include <linux/configfs.h>
#include <linux/mutex.h>
#include <linux/percpu-rwsem.h>
#include <linux/res_group.h>
#include <linux/res_group_hooks.h>
#include <linux/spinlock.h>

/**
 * struct res_group - a resource group
 * @cg: its configfs directory (unused for the root, which is the
 *	subsystem's directory)
 * @parent: NULL for the root
 * @depth: 0 for the root
 * @lock: see the top of this file
 * @tasks: the tasks in this group, linked by task->res_group_node
 * @nr_tasks: length of @tasks
 * @walks: the reads of members walking @tasks (members.c)
 * @shares: this group's own shares, per controller id (NULL if too deep)
 * @eff: shares its tasks count in: @shares or the nearest ancestor's
 * @shares_gen: per controller id, bumped by every commit or reset of
 *	@shares (rg_mutex): a shares write's undo sees another write came
 *	in between (rgcs.c)
 * @children: child groups (rg_mutex)
 * @sibling: entry in the parent's @children (rg_mutex)
 * @nr_descendants: groups in the subtree below, this one not counted
 *	(rg_mutex)
 * @max_descendants: a mkdir that would take @nr_descendants past this
 *	fails (rg_mutex; RG_CAP_MAX: no cap)
 * @max_depth: a mkdir of a group deeper than this below this group fails
 *	(rg_mutex; RG_CAP_MAX: no cap)
 * @forking: forks between can_fork and post_fork (or cancel_fork) whose
 *	child is to join this group (not counted for the root)
 * @dying: set once by rmdir: no fork may pin the group any more (read
 *	without locks)
 * @rcu: frees the group after readers of task->res_group are done
 * @shadow: its shadow cgroup, if a controller asked for one (shadow.c;
 *	rg_mutex)
 * @name: the directory name (copied: configfs frees its own copy early)
 */
struct res_group {
	struct config_group cg;
	struct res_group *parent;
	int depth;
	spinlock_t lock;	/* see the top of this file */
	struct list_head tasks;
	unsigned int nr_tasks;
	struct list_head walks;
	struct res_shares *shares[RES_GROUP_MAX_CONTROLLERS];
	struct res_shares *eff[RES_GROUP_MAX_CONTROLLERS];
	unsigned long shares_gen[RES_GROUP_MAX_CONTROLLERS];
	struct list_head children;
	struct list_head sibling;
	int nr_descendants;
	int max_descendants;
	int max_depth;
	atomic_t forking;
	bool dying;
	struct rcu_head rcu;
	struct res_shadow *shadow;
	char name[];
};

/* max_descendants and max_depth: "max", as cgroup v2's INT_MAX. */
#define RG_CAP_MAX	INT_MAX

extern struct percpu_rw_semaphore rg_fork_sem;
extern struct mutex rg_mutex;
extern struct res_group rg_root;
extern struct list_head rg_controllers;
extern struct res_controller *rg_ctls[RES_GROUP_MAX_CONTROLLERS];
/* The ids whose controller has can_fork, move_task (registry.c). */
extern unsigned long rg_fork_ids;
extern unsigned long rg_move_ids;

/* group.c: the tree */
void rg_group_init_root(void);
struct res_group *rg_group_next(struct res_group *pos);
struct res_group *rg_group_next_post(struct res_group *pos);
void rg_lock_two(struct res_group *a, struct res_group *b);
void rg_unlock_two(struct res_group *a, struct res_group *b);
int rg_group_alloc_shares(struct res_group *grp, struct res_controller *ctl,
			  struct res_shares **out);
void rg_group_drop_shares(struct res_group *grp, struct res_controller *ctl,
			  bool parent_too);
void rg_children_max_update(struct res_group *grp, int id);
struct res_group *rg_group_create(struct res_group *parent, const char *name);
struct rg_shadow_batch;
void rg_group_remove(struct res_group *grp, struct rg_shadow_batch *b);
void rg_group_free(struct res_group *grp);

/* shares.c: the arithmetic of docs/res_groups.rst "Shares", no locking */
void rg_shares_init(struct res_shares *s, struct res_shares *parent,
		    int depth);
int rg_shares_check(const struct res_shares *s, const struct res_shares *req,
		    const struct res_shares *parent, struct res_shares *f);
void rg_shares_commit(struct res_shares *s, const struct res_shares *f,
		      struct res_shares *parent);
void rg_shares_reset(struct res_shares *s, struct res_shares *parent);
int rg_shares_max_of(int acc, const struct res_shares *child);

/* tasks.c: membership and the hooks */
extern const struct res_group_hooks rg_hooks;
int rg_tasks_init(void);
void rg_tasks_exit(void);
void rg_tasks_attach_all(void);
void rg_tasks_detach_all(void);
int rg_task_move(struct task_struct *tsk, struct res_group *to);
void rg_tasks_seal(struct res_group *grp);
void rg_tasks_move_out(struct res_group *grp);
void rg_tasks_set_eff(struct res_group *grp, int id, struct res_shares *eff);

/* members.c: reading the members file */
ssize_t rg_members_read(struct res_group *grp, char *buf, size_t size);
void rg_members_note(struct res_group *grp, struct task_struct *tsk,
		     bool leave);

/* registry.c: controllers */
struct res_controller *rg_controller_find(const char *name, size_t len);

/* rgcs.c: configfs */
int rgcs_init(void);
void rgcs_exit(void);

/* shadow.c: shadow cgroups (<linux/res_group_shadow.h>) */

/**
 * struct rg_shadow_batch - the shadow requests one caller queues under
 *	rg_mutex (between rg_shadow_batch_begin() and _end()) and then
 *	waits for, without it, with rg_shadow_batch_wait(): its own only
 * @reqs: the requests
 */
struct rg_shadow_batch {
	struct list_head reqs;
};

#ifdef CONFIG_RES_GROUPS_CGROUPS
int rg_shadow_init(void);
void rg_shadow_exit(void);
int rg_shadow_group_create(struct res_group *grp);
void rg_shadow_group_remove(struct res_group *grp);
void rg_shadow_batch_begin(struct rg_shadow_batch *b);
void rg_shadow_batch_end(struct rg_shadow_batch *b);
int rg_shadow_batch_wait(struct rg_shadow_batch *b, bool killable);
#else
static inline int rg_shadow_init(void)
{
	return 0;
}

static inline void rg_shadow_exit(void) {}
static inline int rg_shadow_group_create(struct res_group *grp)
{
	return 0;
}

static inline void rg_shadow_group_remove(struct res_group *grp) {}
static inline void rg_shadow_batch_begin(struct rg_shadow_batch *b) {}
static inline void rg_shadow_batch_end(struct rg_shadow_batch *b) {}
static inline int rg_shadow_batch_wait(struct rg_shadow_batch *b,
				       bool killable)
{
	return 0;
}
#endif

/* proc.c */
int rg_proc_show(struct seq_file *m, struct pid_namespace *ns,
		 struct pid *pid, struct task_struct *tsk);

#endif /* _RES_GROUPS_RG_H */

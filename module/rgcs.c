// SPDX-License-Identifier: GPL-2.0
/*
 * RGCS: the configfs interface, /sys/kernel/config/res_groups.
 *
 * Every directory is a group with five files: shares, stats, members,
 * max_descendants, max_depth (formats in docs/res_groups.rst, "The
 * configfs interface").
 *
 * Locking: the shares and stats handlers take rg_mutex; members is read
 * as members.c says, and takes rg_mutex to move a task (checking the
 * ceiling rule under the same hold as the move); max_descendants and
 * max_depth are read and written under rg_mutex, and checked by mkdir
 * under it. mkdir takes rg_mutex, rmdir (with configfs' directory locks
 * held) waits for the forks that pinned its group (tasks.c), then takes
 * rg_mutex: so nothing here takes a VFS lock while
 * holding rg_mutex, and the permission checks that look files up
 * (members of a common ancestor, a parent's cap files, the shares of a
 * group's parent and ancestors for the ceiling rule) only try the
 * directory's lock (rgcs_may_write()), with rg_mutex dropped. The
 * writes to shares, members and the caps are judged with the opener's
 * credentials (ca_opener_cred).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/namei.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/threads.h>

#include "rg.h"

static struct configfs_subsystem rgcs_subsys;

static struct res_group *to_rg(struct config_item *item)
{
	if (item == &rgcs_subsys.su_group.cg_item)
		return &rg_root;
	return container_of(to_config_group(item), struct res_group, cg);
}

/*
 * configfs' SIMPLE_ATTR_SIZE, whatever the page size: a show() may return
 * at most this much, and a store() is given at most this much less one
 * (the rest of a longer write is dropped).
 */
#define RGCS_ATTR_SIZE	4096

/* The configfs directory of @grp (the subsystem's for the root). */
static struct dentry *rgcs_dentry(struct res_group *grp)
{
	return grp == &rg_root ? rgcs_subsys.su_group.cg_item.ci_dentry :
				 grp->cg.cg_item.ci_dentry;
}

/*
 * A string written to a file: NUL-free, one trailing newline allowed. No
 * valid input is RGCS_ATTR_SIZE - 1 bytes long, so refuse that rather
 * than act on a prefix cut off by configfs.
 */
static char *rgcs_dup_input(const char *page, size_t count)
{
	if (count >= RGCS_ATTR_SIZE - 1 || strnlen(page, count) != count)
		return ERR_PTR(-EINVAL);
	if (count && page[count - 1] == '\n')
		count--;
	return kmemdup_nul(page, count, GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
}

static ssize_t rgcs_shares_show(struct config_item *item, char *page)
{
	struct res_group *grp = to_rg(item);
	struct res_controller *ctl;
	struct res_shares *s;
	int len = 0;

	mutex_lock(&rg_mutex);
	list_for_each_entry(ctl, &rg_controllers, list) {
		s = grp->shares[ctl->id];
		if (s)
			len += scnprintf(page + len, RGCS_ATTR_SIZE - len,
					 "res=%s,min_shares=%d,max_shares=%d,child_shares_divisor=%d\n",
					 ctl->name, s->min_shares,
					 s->max_shares,
					 s->child_shares_divisor);
	}
	mutex_unlock(&rg_mutex);
	return len;
}

/* Index of a shares key: 0 min, 1 max, 2 divisor; -1 if unknown. */
static int rgcs_shares_key(const char *key)
{
	static const char * const keys[] = {
		"min_shares", "max_shares", "child_shares_divisor",
		"child_total_divisor",	/* the 2006 spelling */
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(key, keys[i]))
			return min(i, 2);
	return -1;
}

/*
 * Parse "res=NAME,key=value,..." into *@ctl and @req (fields not given:
 * UNCHANGED). Every key at most once. Caller holds rg_mutex.
 */
static int rgcs_shares_parse(char *str, struct res_controller **ctl,
			     struct res_shares *req)
{
	int val[3] = { RES_SHARES_UNCHANGED, RES_SHARES_UNCHANGED,
		       RES_SHARES_UNCHANGED };
	unsigned int seen = 0;
	char *tok, *v;
	int key;

	*ctl = NULL;
	while ((tok = strsep(&str, ","))) {
		v = strchr(tok, '=');
		if (!v)
			return -EINVAL;
		*v++ = '\0';
		if (!strcmp(tok, "res")) {
			if (*ctl)
				return -EINVAL;
			*ctl = rg_controller_find(v, strlen(v));
			if (!*ctl)
				return -EINVAL;
			continue;
		}
		key = rgcs_shares_key(tok);
		/* kstrtoint() would take one trailing newline: not here. */
		if (key < 0 || (seen & BIT(key)) || strchr(v, '\n') ||
		    kstrtoint(v, 10, &val[key]))
			return -EINVAL;
		seen |= BIT(key);
	}
	req->min_shares = val[0];
	req->max_shares = val[1];
	req->child_shares_divisor = val[2];
	return *ctl ? 0 : -EINVAL;
}

static int rgcs_may_write_parent(struct res_group *grp, const char *name);

/*
 * The ceiling rule (docs/res_groups.rst, "Delegation"), for controllers
 * that take precedence over cgroup. A writer without CAP_SYS_RESOURCE
 * changes the guarantee or the ceiling of a group only if he may also
 * write the parent's shares, as cgroup v2's cpu.max belongs to the
 * parent's owner. So a ceiling on a group whose parent's shares the
 * writer may write is one he can lift: it does not count for him. For
 * his moves into a non-root group, for each such controller, a ceiling
 * must hold that he cannot change (rgcs_under_ceilings()); and he may
 * not lift a ceiling (raise or remove a max_shares, lower a divisor
 * below a child's) over a task that would be left without one
 * (rgcs_lift_refused()).
 *
 * rgcs_changeable() finds the ceilings the writer may change: bit d of
 * the mask for the group at depth d on the way from @grp up to the root's
 * children, set if the writer may write its parent's shares. It looks
 * files up (rgcs_may_write()): not under rg_mutex. @grp is pinned by the
 * caller (the store() of one of its files), and with it its ancestors.
 */
static int rgcs_changeable(struct res_group *grp, unsigned long *mask)
{
	struct res_group *g;
	int ret;

	BUILD_BUG_ON(RES_GROUP_MAX_DEPTH >= BITS_PER_LONG);
	*mask = 0;
	for (g = grp; g->parent; g = g->parent) {
		ret = rgcs_may_write_parent(g, "shares");
		if (!ret)
			*mask |= BIT(g->depth);
		else if (ret != -EPERM)
			return ret;
	}
	return 0;
}

/*
 * Has @g or an ancestor below the root a ceiling of @ctl that the writer
 * cannot change (its bit clear in @changeable)? Caller holds rg_mutex.
 */
static bool rgcs_fixed_ceiling(struct res_group *g,
			       const struct res_controller *ctl,
			       unsigned long changeable)
{
	const struct res_shares *s;

	for (; g != &rg_root; g = g->parent) {
		s = g->shares[ctl->id];
		if (s && s->max_shares >= 0 && !(changeable & BIT(g->depth)))
			return true;
	}
	return false;
}

/* The group after @pos in a pre-order walk of @top's subtree, or NULL. */
static struct res_group *rgcs_next_below(struct res_group *pos,
					 struct res_group *top)
{
	if (!list_empty(&pos->children))
		return list_first_entry(&pos->children, struct res_group,
					sibling);
	for (; pos != top; pos = pos->parent)
		if (!list_is_last(&pos->sibling, &pos->parent->children))
			return list_next_entry(pos, sibling);
	return NULL;
}

/*
 * Does @top's subtree hold a task, or a fork whose child is to join it?
 * Caller holds rg_mutex: no move into it and no new group meanwhile, and
 * only its own tasks can fork into it.
 */
static bool rgcs_populated(struct res_group *top)
{
	struct res_group *g;
	bool busy;

	for (g = top; g; g = rgcs_next_below(g, top)) {
		spin_lock(&g->lock);
		busy = g->nr_tasks || atomic_read(&g->forking);
		spin_unlock(&g->lock);
		if (busy)
			return true;
	}
	return false;
}

/*
 * Would a write of @ctl's shares of @grp from @s to @f lift a ceiling
 * over a task that would then have no ceiling the writer cannot change?
 * A raised or removed max_shares lifts @grp's for the tasks of its
 * subtree, left with its ancestors'; a lowered divisor lifts those of
 * @grp's children that have one (above 0), left with @grp's and its
 * ancestors'. Ceilings below the group that is lifted do not count.
 * Caller holds rg_mutex.
 */
static bool rgcs_lift_refused(struct res_group *grp,
			      const struct res_controller *ctl,
			      const struct res_shares *s,
			      const struct res_shares *f,
			      unsigned long changeable)
{
	const struct res_shares *cs;
	struct res_group *c;

	if (grp->parent && s->max_shares >= 0 &&
	    (f->max_shares == RES_SHARES_DONT_CARE ||
	     f->max_shares > s->max_shares) &&
	    !rgcs_fixed_ceiling(grp->parent, ctl, changeable) &&
	    rgcs_populated(grp))
		return true;
	if (f->child_shares_divisor >= s->child_shares_divisor ||
	    s->children_max <= 0 || rgcs_fixed_ceiling(grp, ctl, changeable))
		return false;
	list_for_each_entry(c, &grp->children, sibling) {
		cs = c->shares[ctl->id];
		if (cs && cs->max_shares > 0 && rgcs_populated(c))
			return true;
	}
	return false;
}

/*
 * Is the ceiling rule to be checked for this write (before anything is
 * known of the values it changes)? Any field of such a controller, from
 * a writer without CAP_SYS_RESOURCE (the opener's credentials).
 */
static bool rgcs_shares_ruled(const struct res_controller *ctl,
			      const struct res_shares *req)
{
	return ctl->precedes_cgroup &&
	       (req->min_shares != RES_SHARES_UNCHANGED ||
		req->max_shares != RES_SHARES_UNCHANGED ||
		req->child_shares_divisor != RES_SHARES_UNCHANGED) &&
	       !capable(CAP_SYS_RESOURCE);
}

/* Does the write change @grp's guarantee or ceiling (not the root's)? */
static bool rgcs_shares_need_parent(struct res_group *grp,
				    const struct res_shares *s,
				    const struct res_shares *req)
{
	return grp->parent &&
	       ((req->min_shares != RES_SHARES_UNCHANGED &&
		 req->min_shares != s->min_shares) ||
		(req->max_shares != RES_SHARES_UNCHANGED &&
		 req->max_shares != s->max_shares));
}

/*
 * Commit @f to @grp's shares of @ctl, tell the controller; the shadow
 * requests it queues go to @b. Caller holds rg_mutex.
 */
static void rgcs_shares_apply(struct res_group *grp,
			      struct res_controller *ctl,
			      const struct res_shares *f,
			      struct rg_shadow_batch *b)
{
	struct res_shares *s = grp->shares[ctl->id];
	struct res_shares *parent = grp->parent ?
				    grp->parent->shares[ctl->id] : NULL;
	bool max_changed = f->max_shares != s->max_shares;

	grp->shares_gen[ctl->id]++;
	rg_shares_commit(s, f, parent);
	if (max_changed && grp->parent)
		rg_children_max_update(grp->parent, ctl->id);
	rg_shadow_batch_begin(b);
	if (ctl->shares_changed)
		ctl->shares_changed(s);
	rg_shadow_batch_end(b);
}

/*
 * The shadow side of a shares write failed: write @old back, the shares
 * as a write of them would, if no other write or reset came in between
 * (@gen, the generation that write left, is still the shares') and @old
 * is still valid, and wait for the shadows to get the old values again
 * (those that could: a knob whose write fails is written again by the
 * next write that asks for it). Values are not compared: a write of the
 * same values that succeeded meanwhile must stay.
 * @ctl was controller @id when the write committed; it may have been
 * unregistered (its module gone) since, so it is only compared with
 * rg_ctls[@id] before anything reads it.
 */
static void rgcs_shares_undo(struct res_group *grp, int id,
			     struct res_controller *ctl,
			     const struct res_shares *old, unsigned long gen)
{
	struct res_shares back, f2, *s, *parent;
	struct rg_shadow_batch b;
	bool undone = false;

	back.min_shares = old->min_shares;
	back.max_shares = old->max_shares;
	back.child_shares_divisor = old->child_shares_divisor;
	mutex_lock(&rg_mutex);
	if (rg_ctls[id] != ctl)
		goto out;
	s = grp->shares[id];
	parent = grp->parent ? grp->parent->shares[id] : NULL;
	if (s && grp->shares_gen[id] == gen &&
	    !rg_shares_check(s, &back, parent, &f2)) {
		rgcs_shares_apply(grp, ctl, &f2, &b);
		undone = true;
	}
out:
	mutex_unlock(&rg_mutex);
	if (undone)
		rg_shadow_batch_wait(&b, true);
}

static ssize_t rgcs_shares_store(struct config_item *item, const char *page,
				 size_t count)
{
	struct res_group *grp = to_rg(item);
	struct res_shares req, f, old, *s, *parent;
	struct rg_shadow_batch b;
	struct res_controller *ctl;
	bool ruled = false, committed = false;
	unsigned long changeable = 0, gen;
	char *str;
	int ret, id;

again:
	str = rgcs_dup_input(page, count);
	if (IS_ERR(str))
		return PTR_ERR(str);
	mutex_lock(&rg_mutex);
	ret = rgcs_shares_parse(str, &ctl, &req);
	if (ret)
		goto out;
	s = grp->shares[ctl->id];
	ret = -EINVAL;
	if (!s)
		goto out;
	/* The checks take VFS locks: not under rg_mutex (see the top). */
	if (!ruled && rgcs_shares_ruled(ctl, &req)) {
		mutex_unlock(&rg_mutex);
		kfree(str);
		ret = rgcs_changeable(grp, &changeable);
		if (ret)
			return ret;
		ruled = true;
		goto again;
	}
	ret = -EPERM;
	if (ruled && rgcs_shares_need_parent(grp, s, &req) &&
	    !(changeable & BIT(grp->depth)))
		goto out;
	parent = grp->parent ? grp->parent->shares[ctl->id] : NULL;
	ret = rg_shares_check(s, &req, parent, &f);
	if (ret)
		goto out;
	if (ruled && rgcs_lift_refused(grp, ctl, s, &f, changeable)) {
		ret = -EPERM;
		goto out;
	}
	old = *s;
	id = ctl->id;
	rgcs_shares_apply(grp, ctl, &f, &b);
	gen = grp->shares_gen[id];
	committed = true;
out:
	mutex_unlock(&rg_mutex);
	kfree(str);
	if (!committed)
		return ret ?: count;
	/* The shadow cgroups' files hold the new values (shadow.c). */
	ret = rg_shadow_batch_wait(&b, true);
	if (ret && ret != -EINTR)
		rgcs_shares_undo(grp, id, ctl, &old, gen);
	return ret ?: count;
}

/*
 * stats, read: every controller's lines, never cut: the length of the
 * whole content, or, since a seq_buf cannot tell how much it lacked, on
 * overflow twice the room, which makes configfs retry with a larger
 * buffer.
 */
static ssize_t rgcs_stats_read(struct config_item *item, char *buf,
			       size_t size)
{
	struct res_group *grp = to_rg(item);
	struct res_controller *ctl;
	struct seq_buf sb;

	seq_buf_init(&sb, buf, size);
	mutex_lock(&rg_mutex);
	list_for_each_entry(ctl, &rg_controllers, list)
		if (grp->shares[ctl->id] && ctl->show_stats)
			ctl->show_stats(grp->shares[ctl->id], &sb);
	mutex_unlock(&rg_mutex);
	return seq_buf_has_overflowed(&sb) ? 2 * size : seq_buf_used(&sb);
}

/* "res=NAME[,ARGS]": hand ARGS to that controller's reset_stats. */
static ssize_t rgcs_stats_store(struct config_item *item, const char *page,
				size_t count)
{
	struct res_group *grp = to_rg(item);
	struct res_controller *ctl;
	char *str, *args;
	int ret = -EINVAL;

	str = rgcs_dup_input(page, count);
	if (IS_ERR(str))
		return PTR_ERR(str);
	if (strncmp(str, "res=", 4))
		goto out_free;
	args = strchrnul(str + 4, ',');
	/* "res=NAME," is neither no ARGS nor some. */
	if (*args && !args[1])
		goto out_free;
	mutex_lock(&rg_mutex);
	ctl = rg_controller_find(str + 4, args - (str + 4));
	if (ctl && ctl->reset_stats && grp->shares[ctl->id])
		ret = ctl->reset_stats(grp->shares[ctl->id],
				       *args ? args + 1 : args);
	mutex_unlock(&rg_mutex);
out_free:
	kfree(str);
	return ret ?: count;
}

/* members, read: see members.c. */
static ssize_t rgcs_members_read(struct config_item *item, char *buf,
				 size_t size)
{
	return rg_members_read(to_rg(item), buf, size);
}

/* The writer may move @tsk at all: same real uid, or privileged. */
static bool rgcs_may_move(struct task_struct *tsk)
{
	bool same_uid;

	rcu_read_lock();
	same_uid = uid_eq(current_uid(), __task_cred(tsk)->uid);
	rcu_read_unlock();
	return same_uid;
}

/* Is a controller that takes precedence over cgroup registered? */
static bool rgcs_any_precedes(void)
{
	struct res_controller *ctl;

	lockdep_assert_held(&rg_mutex);
	list_for_each_entry(ctl, &rg_controllers, list)
		if (ctl->precedes_cgroup)
			return true;
	return false;
}

/*
 * The ceiling rule for a move (see rgcs_changeable()): a move into a
 * non-root group takes the task out of cgroup's control of every
 * resource whose controller takes precedence over cgroup. A writer
 * without CAP_SYS_RESOURCE may do that only if, for each such controller
 * now registered, @to or an ancestor below the root has a ceiling that he
 * cannot change (none of @changeable's). Caller holds rg_mutex, as every
 * shares write and (un)registration does: the ceiling seen is the one in
 * force when the task moves.
 */
static bool rgcs_under_ceilings(struct res_group *to, unsigned long changeable)
{
	struct res_controller *ctl;

	lockdep_assert_held(&rg_mutex);
	if (to == &rg_root)
		return true;
	list_for_each_entry(ctl, &rg_controllers, list)
		if (ctl->precedes_cgroup &&
		    !rgcs_fixed_ceiling(to, ctl, changeable))
			return false;
	return true;
}

/*
 * For a move into @to by a writer without CAP_SYS_RESOURCE: the ceilings
 * on @to's path that he may change, looked up (without rg_mutex) only if
 * a controller that takes precedence over cgroup is registered; if none
 * is, all of them (so that, should one register meanwhile, no ceiling
 * counts and the move is refused).
 */
static int rgcs_move_changeable(struct res_group *to, unsigned long *mask)
{
	bool any;

	*mask = ~0UL;
	if (to == &rg_root)
		return 0;
	mutex_lock(&rg_mutex);
	any = rgcs_any_precedes();
	mutex_unlock(&rg_mutex);
	return any ? rgcs_changeable(to, mask) : 0;
}

/*
 * rg_task_move() for a write to members; @ceiling: the writer lacks
 * CAP_SYS_RESOURCE, apply the ceiling rule with the ceilings he may
 * change, @changeable (not to a task already in @to: that move changes
 * nothing). Caller holds rg_mutex.
 */
static int rgcs_task_move(struct task_struct *tsk, struct res_group *to,
			  bool ceiling, unsigned long changeable)
{
	if (ceiling && rcu_access_pointer(tsk->res_group) != to &&
	    !rgcs_under_ceilings(to, changeable))
		return -EPERM;
	return rg_task_move(tsk, to);
}

/* The nearest group that has both @a and @b in its subtree. */
static struct res_group *rgcs_common_ancestor(struct res_group *a,
					      struct res_group *b)
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
 * May the writer write the file @name of the group whose directory is
 * @dir? Checked on the file itself, so that chmod/chown of the file is
 * what delegates it. We run inside a store(), holding configfs' frag_sem
 * of the group written to, and an rmdir of that group holds the inode
 * lock of its directory and of its parent's while it waits for that
 * frag_sem (@dir may be either): so only try the lock, for a while, then
 * give up (-EBUSY).
 */
static int rgcs_may_write(struct dentry *dir, const char *name)
{
	struct inode *inode = d_inode(dir);
	struct dentry *d;
	int tries, ret;

	for (tries = 0; !inode_trylock_shared(inode); tries++) {
		if (tries >= 100 || fatal_signal_pending(current))
			return -EBUSY;
		schedule_timeout_killable(1);
	}
	d = lookup_one_len(name, dir, strlen(name));
	inode_unlock_shared(inode);
	if (IS_ERR(d))
		return PTR_ERR(d);
	ret = d_really_is_positive(d) ?
		inode_permission(&init_user_ns, d_inode(d), MAY_WRITE) :
		-ENOENT;
	dput(d);
	/* Not allowed to write it: the move is not allowed. */
	return ret == -EACCES ? -EPERM : ret;
}

/*
 * May the writer write the file @name of @grp's parent? The parent is
 * pinned by @grp, whose file the writer is writing; its directory by
 * configfs (or by an rmdir under way).
 */
static int rgcs_may_write_parent(struct res_group *grp, const char *name)
{
	struct dentry *dir = dget(rgcs_dentry(grp->parent));
	int ret;

	/*
	 * Not -EPERM: that means "may not write", which makes a ceiling
	 * count for rgcs_changeable(); a directory going away is no answer.
	 */
	if (!dir)
		return -ENOENT;
	ret = rgcs_may_write(dir, name);
	dput(dir);
	return ret;
}

/*
 * Move @tsk to @to for an unprivileged writer: as with cgroup v2's
 * delegation, the writer must also be allowed to write the members file
 * of the common ancestor of @tsk's group and @to, so that a delegated
 * subtree cannot be left. The permission check looks the file up, which
 * takes VFS locks that rmdir holds while it waits for rg_mutex: it is
 * done without rg_mutex, and the move retried (a few times) if the task
 * changed group meanwhile. Caller holds a reference to @tsk.
 */
static int rgcs_move_delegated(struct task_struct *tsk, struct res_group *to,
			       unsigned long changeable)
{
	struct res_group *from, *anc;
	struct dentry *dir;
	int tries, ret;

	for (tries = 0; tries < 16; tries++) {
		mutex_lock(&rg_mutex);
		/* Stable: moves and rmdir take rg_mutex. */
		from = rcu_dereference_protected(tsk->res_group,
						 lockdep_is_held(&rg_mutex));
		if (!from) {
			mutex_unlock(&rg_mutex);
			return -ESRCH;
		}
		/*
		 * A group in the tree has its directory pinned (by configfs,
		 * or by an rmdir under way until it has removed the group).
		 */
		anc = rgcs_common_ancestor(from, to);
		dir = dget(rgcs_dentry(anc));
		mutex_unlock(&rg_mutex);
		if (!dir)
			return -EPERM;
		ret = rgcs_may_write(dir, "members");
		dput(dir);
		if (ret)
			return ret;

		mutex_lock(&rg_mutex);
		if (rcu_access_pointer(tsk->res_group) == from) {
			ret = rgcs_task_move(tsk, to, true, changeable);
			mutex_unlock(&rg_mutex);
			return ret;
		}
		mutex_unlock(&rg_mutex);
	}
	/* Moved by others all the while: as if they had come later. */
	return -EBUSY;
}

/*
 * Move @tsk to @to for a writer allowed to move it at all (privileged:
 * with CAP_SYS_NICE or CAP_SYS_RESOURCE, else by the delegation rule),
 * applying the ceiling rule unless @sys_resource.
 */
static int rgcs_move(struct task_struct *tsk, struct res_group *to,
		     bool sys_resource, bool privileged)
{
	unsigned long changeable = 0;
	int ret;

	/*
	 * Already there: nothing to do, and nothing to look up (a lookup may
	 * fail). If it moves meanwhile, this move came first.
	 */
	if (rcu_access_pointer(tsk->res_group) == to)
		return 0;
	if (!sys_resource) {
		ret = rgcs_move_changeable(to, &changeable);
		if (ret)
			return ret;
	}
	if (!privileged)
		return rgcs_move_delegated(tsk, to, changeable);
	mutex_lock(&rg_mutex);
	ret = rgcs_task_move(tsk, to, !sys_resource, changeable);
	mutex_unlock(&rg_mutex);
	return ret;
}

static ssize_t rgcs_members_store(struct config_item *item, const char *page,
				  size_t count)
{
	bool sys_resource, privileged;
	struct task_struct *tsk;
	char *str;
	int pid, ret;

	str = rgcs_dup_input(page, count);
	if (IS_ERR(str))
		return PTR_ERR(str);
	ret = kstrtoint(strim(str), 10, &pid);
	kfree(str);
	if (ret || pid <= 0)
		return -EINVAL;

	rcu_read_lock();
	tsk = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (tsk)
		get_task_struct(tsk);
	rcu_read_unlock();
	if (!tsk)
		return -ESRCH;

	/*
	 * Either capability spares the uid and common-ancestor checks; only
	 * CAP_SYS_RESOURCE spares the ceiling rule.
	 */
	sys_resource = capable(CAP_SYS_RESOURCE);
	privileged = sys_resource || capable(CAP_SYS_NICE);
	if (tsk->flags & PF_EXITING)
		ret = -ESRCH;
	else if (tsk->flags & PF_KTHREAD)
		ret = -EINVAL;
	else if (!privileged && !rgcs_may_move(tsk))
		ret = -EPERM;
	else
		ret = rgcs_move(tsk, to_rg(item), sys_resource, privileged);
	put_task_struct(tsk);
	return ret ?: count;
}

/* max_descendants and max_depth, read: "max" or the number. */
static ssize_t rgcs_cap_show(int *cap, char *page)
{
	int val;

	mutex_lock(&rg_mutex);
	val = *cap;
	mutex_unlock(&rg_mutex);
	if (val == RG_CAP_MAX)
		return scnprintf(page, RGCS_ATTR_SIZE, "max\n");
	return scnprintf(page, RGCS_ATTR_SIZE, "%d\n", val);
}

/*
 * max_descendants and max_depth, write: "max" or a decimal in 0..INT_MAX
 * (INT_MAX is "max", as in cgroup v2), one trailing newline allowed.
 * Like cgroup v2, whose delegated user owns the directory but not its
 * top's cgroup.max.* files, the writer must also be allowed to write the
 * parent's file of the same name: a user given a group (its files
 * chowned) cannot raise its own caps, only those of the groups below.
 * @grp is pinned by the store() (rmdir waits for it), its parent by @grp.
 */
static ssize_t rgcs_cap_store(struct res_group *grp, int *cap,
			      const char *name, const char *page,
			      size_t count)
{
	unsigned int val;
	int ret = 0;
	char *str;

	str = rgcs_dup_input(page, count);
	if (IS_ERR(str))
		return PTR_ERR(str);
	if (!strcmp(str, "max"))
		val = RG_CAP_MAX;
	/* kstrtouint() would take one more trailing newline: not here. */
	else if (strchr(str, '\n') || kstrtouint(str, 10, &val) ||
		 val > INT_MAX)
		ret = -EINVAL;
	kfree(str);
	if (ret)
		return ret;

	if (grp->parent) {
		ret = rgcs_may_write_parent(grp, name);
		if (ret)
			return ret;
	}
	mutex_lock(&rg_mutex);
	*cap = val;
	mutex_unlock(&rg_mutex);
	return count;
}

static ssize_t rgcs_max_descendants_show(struct config_item *item,
					 char *page)
{
	return rgcs_cap_show(&to_rg(item)->max_descendants, page);
}

static ssize_t rgcs_max_descendants_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct res_group *grp = to_rg(item);

	return rgcs_cap_store(grp, &grp->max_descendants, "max_descendants",
			      page, count);
}

static ssize_t rgcs_max_depth_show(struct config_item *item, char *page)
{
	return rgcs_cap_show(&to_rg(item)->max_depth, page);
}

static ssize_t rgcs_max_depth_store(struct config_item *item,
				    const char *page, size_t count)
{
	struct res_group *grp = to_rg(item);

	return rgcs_cap_store(grp, &grp->max_depth, "max_depth", page, count);
}

/*
 * A write's ceiling rule is judged by whoever opened the file (the
 * capability, the permission on the parent's shares): a descriptor handed
 * to a privileged program grants nothing its opener did not have.
 */
static struct configfs_attribute rgcs_attr_shares = {
	.ca_name	= "shares",
	.ca_mode	= 0644,
	.ca_owner	= THIS_MODULE,
	.show		= rgcs_shares_show,
	.store		= rgcs_shares_store,
	.ca_opener_cred	= true,
};

/* CONFIGFS_ATTR() has no ->read: spelled out. */
static struct configfs_attribute rgcs_attr_stats = {
	.ca_name	= "stats",
	.ca_mode	= 0644,
	.ca_owner	= THIS_MODULE,
	.read		= rgcs_stats_read,
	.store		= rgcs_stats_store,
};

static struct configfs_attribute rgcs_attr_members = {
	.ca_name	= "members",
	.ca_mode	= 0644,
	.ca_owner	= THIS_MODULE,
	.read		= rgcs_members_read,
	.store		= rgcs_members_store,
	/* Who may move what is decided by whoever opened the file. */
	.ca_opener_cred	= true,
};

/* The permission check on the parent's file is the opener's too. */
static struct configfs_attribute rgcs_attr_max_descendants = {
	.ca_name	= "max_descendants",
	.ca_mode	= 0644,
	.ca_owner	= THIS_MODULE,
	.show		= rgcs_max_descendants_show,
	.store		= rgcs_max_descendants_store,
	.ca_opener_cred	= true,
};

static struct configfs_attribute rgcs_attr_max_depth = {
	.ca_name	= "max_depth",
	.ca_mode	= 0644,
	.ca_owner	= THIS_MODULE,
	.show		= rgcs_max_depth_show,
	.store		= rgcs_max_depth_store,
	.ca_opener_cred	= true,
};

static struct configfs_attribute *rgcs_attrs[] = {
	&rgcs_attr_shares,
	&rgcs_attr_stats,
	&rgcs_attr_members,
	&rgcs_attr_max_descendants,
	&rgcs_attr_max_depth,
	NULL,
};

static const struct config_item_type rgcs_group_type;

static struct config_group *rgcs_make_group(struct config_group *group,
					    const char *name)
{
	struct res_group *grp;
	struct rg_shadow_batch b;
	int ret;

	mutex_lock(&rg_mutex);
	rg_shadow_batch_begin(&b);
	grp = rg_group_create(to_rg(&group->cg_item), name);
	rg_shadow_batch_end(&b);
	mutex_unlock(&rg_mutex);
	/* Its shadow cgroup exists once mkdir returns (shadow.c). */
	ret = rg_shadow_batch_wait(&b, true);
	if (IS_ERR(grp))
		return ERR_CAST(grp);
	if (ret) {
		rg_group_remove(grp, NULL);
		rg_group_free(grp);
		return ERR_PTR(ret);
	}
	config_group_init_type_name(&grp->cg, name, &rgcs_group_type);
	return &grp->cg;
}

static void rgcs_drop_item(struct config_group *group,
			   struct config_item *item)
{
	struct rg_shadow_batch b;

	rg_group_remove(to_rg(item), &b);
	/* Its shadow cgroup is gone once rmdir returns (shadow.c). */
	rg_shadow_batch_wait(&b, true);
	config_item_put(item);
}

static void rgcs_release(struct config_item *item)
{
	rg_group_free(to_rg(item));
}

static struct configfs_group_operations rgcs_group_ops = {
	.make_group	= rgcs_make_group,
	.drop_item	= rgcs_drop_item,
};

static struct configfs_item_operations rgcs_item_ops = {
	.release	= rgcs_release,
};

static const struct config_item_type rgcs_group_type = {
	.ct_item_ops	= &rgcs_item_ops,
	.ct_group_ops	= &rgcs_group_ops,
	.ct_attrs	= rgcs_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type rgcs_root_type = {
	.ct_group_ops	= &rgcs_group_ops,
	.ct_attrs	= rgcs_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem rgcs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "res_groups",
			.ci_type	= &rgcs_root_type,
		},
	},
};

int rgcs_init(void)
{
	config_group_init(&rgcs_subsys.su_group);
	mutex_init(&rgcs_subsys.su_mutex);
	return configfs_register_subsystem(&rgcs_subsys);
}

void rgcs_exit(void)
{
	configfs_unregister_subsystem(&rgcs_subsys);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Resource Groups: the group tree.
 *
 * Locking: the tree (parent, children, sibling), the descendant counts
 * and caps, every group's shares[] and every res_shares value are under
 * rg_mutex. A group's eff[] is
 * written under rg_mutex and the group's lock, with rg_fork_sem held for
 * write (forks read it holding rg_fork_sem for read), or by its rmdir
 * once no fork has it pinned and none can (tasks.c). Group memory is
 * freed after an RCU grace period, so task->res_group may be followed
 * under rcu_read_lock().
 */
#include <linux/ctype.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "rg.h"

/* The tree, the controller list and every res_shares value. */
DEFINE_MUTEX(rg_mutex);
struct res_group rg_root = {
	.max_descendants = RG_CAP_MAX,
	.max_depth = RG_CAP_MAX,
	.name = "",
};

void rg_group_init_root(void)
{
	spin_lock_init(&rg_root.lock);
	INIT_LIST_HEAD(&rg_root.tasks);
	INIT_LIST_HEAD(&rg_root.walks);
	INIT_LIST_HEAD(&rg_root.children);
	INIT_LIST_HEAD(&rg_root.sibling);
}

/**
 * rg_group_next - pre-order walk of the tree (parents before children)
 * @pos: the current group
 *
 * Caller holds rg_mutex. Return: the next group, or NULL after the last.
 */
struct res_group *rg_group_next(struct res_group *pos)
{
	if (!list_empty(&pos->children))
		return list_first_entry(&pos->children, struct res_group,
					sibling);
	for (; pos != &rg_root; pos = pos->parent)
		if (!list_is_last(&pos->sibling, &pos->parent->children))
			return list_next_entry(pos, sibling);
	return NULL;
}

static struct res_group *rg_leftmost_leaf(struct res_group *pos)
{
	while (!list_empty(&pos->children))
		pos = list_first_entry(&pos->children, struct res_group,
				       sibling);
	return pos;
}

/**
 * rg_group_next_post - post-order walk of the tree (children before parents)
 * @pos: the current group, NULL to start
 *
 * For freeing shares: a controller may unlink a group's shares from its
 * parent's. Caller holds rg_mutex. Return: the next group, or NULL after
 * the root, which is the last.
 */
struct res_group *rg_group_next_post(struct res_group *pos)
{
	if (!pos)
		return rg_leftmost_leaf(&rg_root);
	if (pos == &rg_root)
		return NULL;
	if (!list_is_last(&pos->sibling, &pos->parent->children))
		return rg_leftmost_leaf(list_next_entry(pos, sibling));
	return pos->parent;
}

/* Two group locks, always in address order so that no two CPUs deadlock. */
void rg_lock_two(struct res_group *a, struct res_group *b)
	__acquires(&a->lock) __acquires(&b->lock)
{
	if (a == b) {
		spin_lock(&a->lock);
		__acquire(&b->lock);	/* for sparse: one lock, two names */
		return;
	}
	if (a > b)
		swap(a, b);
	spin_lock(&a->lock);
	spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
}

void rg_unlock_two(struct res_group *a, struct res_group *b)
	__releases(&a->lock) __releases(&b->lock)
{
	if (a != b)
		spin_unlock(&b->lock);
	else
		__release(&b->lock);
	spin_unlock(&a->lock);
}

/**
 * rg_group_alloc_shares - allocate @ctl's shares for @grp, if deep enough
 * @grp: a group whose parent already has its shares of @ctl
 * @ctl: the controller
 * @out: the new shares, or NULL if @grp is deeper than @ctl supports
 *
 * Caller holds rg_mutex. Return: 0 or -ENOMEM.
 */
int rg_group_alloc_shares(struct res_group *grp, struct res_controller *ctl,
			  struct res_shares **out)
{
	struct res_shares *parent, *s;

	*out = NULL;
	if (grp->depth > ctl->depth)
		return 0;
	parent = grp->parent ? grp->parent->shares[ctl->id] : NULL;
	s = ctl->alloc_shares(ctl, parent);
	if (!s)
		return -ENOMEM;
	rg_shares_init(s, parent, grp->depth);
	s->group = grp;
	*out = s;
	return 0;
}

/* The controller slot @id of a new group: own shares or the parent's. */
static void rg_group_init_slot(struct res_group *grp, int id,
			       struct res_shares *s)
{
	grp->shares[id] = s;
	grp->eff[id] = s ?: grp->parent->eff[id];
}

/*
 * Reset @s, @grp's shares of controller @id (docs: "Resets"); with
 * @parent_too, give the parent back the min_shares and recompute its
 * children_max. Only the removal of the largest ceiling can lower
 * children_max: the others leave the siblings alone (an rmdir costs the
 * same however many siblings there are). Caller holds rg_mutex.
 */
static void rg_group_reset_one(struct res_group *grp, int id,
			       struct res_shares *s, bool parent_too)
{
	int max = s->max_shares;

	grp->shares_gen[id]++;
	rg_shares_reset(s, parent_too ? s->parent : NULL);
	if (parent_too && s->parent && max >= s->parent->children_max)
		rg_children_max_update(grp->parent, id);
}

/**
 * rg_group_drop_shares - reset @ctl's shares of @grp (docs: "Resets"), free them
 * @grp: a group no task of which counts in these shares any more
 * @ctl: the controller
 * @parent_too: give the parent back the min_shares and recompute its
 *	children_max (not when every group's shares are going)
 *
 * Caller holds rg_mutex.
 */
void rg_group_drop_shares(struct res_group *grp, struct res_controller *ctl,
			  bool parent_too)
{
	struct res_shares *s = grp->shares[ctl->id];

	if (!s)
		return;
	grp->shares[ctl->id] = NULL;
	grp->eff[ctl->id] = NULL;
	rg_group_reset_one(grp, ctl->id, s, parent_too);
	ctl->free_shares(s);
}

/*
 * rmdir, before the tasks leave: every controller's shares of @grp back
 * to the defaults (docs: "Resets"), and the controllers told, so that no
 * guarantee of @grp is still reserved in its parent while its tasks
 * arrive there. Caller holds rg_mutex.
 */
static void rg_group_reset_shares(struct res_group *grp)
{
	struct res_controller *ctl;
	struct res_shares *s;

	list_for_each_entry(ctl, &rg_controllers, list) {
		s = grp->shares[ctl->id];
		if (!s)
			continue;
		rg_group_reset_one(grp, ctl->id, s, true);
		if (ctl->shares_changed)
			ctl->shares_changed(s);
	}
}

/* Every controller's shares of @grp, which is out of the tree. */
static void rg_group_free_shares(struct res_group *grp)
{
	struct res_controller *ctl;

	list_for_each_entry(ctl, &rg_controllers, list)
		rg_group_drop_shares(grp, ctl, true);
}

static bool rg_name_ok(const char *name)
{
	for (; *name; name++)
		if (iscntrl(*name))
			return false;
	return true;
}

/*
 * May a new group go under @parent? Not if it would take the number of
 * descendants of @parent or of an ancestor past its max_descendants, or
 * the new group's depth below one of them past its max_depth (as cgroup
 * v2's cgroup_check_hierarchy_limits()). Caller holds rg_mutex.
 */
static bool rg_caps_allow_child(struct res_group *parent)
{
	struct res_group *anc;
	int level = 1;

	for (anc = parent; anc; anc = anc->parent, level++)
		if (anc->nr_descendants >= anc->max_descendants ||
		    level > anc->max_depth)
			return false;
	return true;
}

/* @n more (or fewer) groups below @grp: count them in @grp and up. */
static void rg_descendants_add(struct res_group *grp, int n)
{
	for (; grp; grp = grp->parent)
		grp->nr_descendants += n;
}

/**
 * rg_group_create - a new group under @parent (mkdir)
 * @parent: the parent group
 * @name: the directory name
 *
 * The group and the controllers' shares are charged to the caller's
 * memory cgroup (GFP_KERNEL_ACCOUNT). Caller holds rg_mutex.
 *
 * Return: the group, or ERR_PTR(-EMLINK) beyond RES_GROUP_MAX_DEPTH,
 * -EINVAL for a name with a control character, -EAGAIN beyond the
 * max_descendants or max_depth of @parent or of an ancestor, -ENOMEM.
 */
struct res_group *rg_group_create(struct res_group *parent, const char *name)
{
	struct res_controller *ctl;
	struct res_group *grp;
	struct res_shares *s;

	if (parent->depth >= RES_GROUP_MAX_DEPTH)
		return ERR_PTR(-EMLINK);
	if (!rg_name_ok(name))
		return ERR_PTR(-EINVAL);
	if (!rg_caps_allow_child(parent))
		return ERR_PTR(-EAGAIN);
	grp = kzalloc(struct_size(grp, name, strlen(name) + 1),
		      GFP_KERNEL_ACCOUNT);
	if (!grp)
		return ERR_PTR(-ENOMEM);
	strcpy(grp->name, name);
	grp->parent = parent;
	grp->depth = parent->depth + 1;
	grp->max_descendants = RG_CAP_MAX;
	grp->max_depth = RG_CAP_MAX;
	spin_lock_init(&grp->lock);
	INIT_LIST_HEAD(&grp->tasks);
	INIT_LIST_HEAD(&grp->walks);
	INIT_LIST_HEAD(&grp->children);
	/* Its shadow cgroup, if a controller uses them (shadow.c). */
	if (rg_shadow_group_create(grp)) {
		kfree(grp);
		return ERR_PTR(-ENOMEM);
	}

	list_for_each_entry(ctl, &rg_controllers, list) {
		if (rg_group_alloc_shares(grp, ctl, &s)) {
			rg_group_free_shares(grp);
			rg_shadow_group_remove(grp);
			kfree(grp);
			return ERR_PTR(-ENOMEM);
		}
		rg_group_init_slot(grp, ctl->id, s);
	}
	/* No task can be in it yet: no need for its lock or rg_fork_sem. */
	list_add_tail(&grp->sibling, &parent->children);
	rg_descendants_add(parent, 1);
	return grp;
}

/**
 * rg_children_max_update - recompute children_max of @grp's shares @id
 * @grp: the parent group
 * @id: a controller id
 *
 * Caller holds rg_mutex.
 */
void rg_children_max_update(struct res_group *grp, int id)
{
	struct res_group *child;
	int max = 0;

	if (!grp->shares[id])
		return;
	list_for_each_entry(child, &grp->children, sibling)
		if (child->shares[id])
			max = rg_shares_max_of(max, child->shares[id]);
	grp->shares[id]->children_max = max;
}

/**
 * rg_group_remove - rmdir: move the tasks to the parent, drop the shares
 * @grp: a group without children
 * @b: where the removal of its shadow goes (rg_shadow_batch_wait()), or
 *	NULL not to wait for it
 *
 * Waits for the forks that pinned @grp (tasks.c), then takes rg_mutex.
 */
void rg_group_remove(struct res_group *grp, struct rg_shadow_batch *b)
{
	rg_tasks_seal(grp);
	mutex_lock(&rg_mutex);
	if (b)
		rg_shadow_batch_begin(b);
	list_del_init(&grp->sibling);
	rg_group_reset_shares(grp);
	rg_tasks_move_out(grp);
	rg_descendants_add(grp->parent, -1);
	rg_group_free_shares(grp);
	rg_shadow_group_remove(grp);
	if (b)
		rg_shadow_batch_end(b);
	mutex_unlock(&rg_mutex);
}

/* The last reference is gone (configfs release). */
void rg_group_free(struct res_group *grp)
{
	WARN_ON_ONCE(!list_empty(&grp->tasks));
	WARN_ON_ONCE(!list_empty(&grp->walks));
	kfree_rcu(grp, rcu);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Resource Groups: the controller registry.
 *
 * Locking: rg_controllers (registration order) and rg_ctls[] (by id)
 * change under rg_fork_sem held for write and rg_mutex. rg_ctls[id] is
 * set before any group's eff[id] and cleared after all of them, so code
 * holding a group's lock may use rg_ctls[id] wherever that group has
 * eff[id]. So are id's bits in rg_fork_ids and rg_move_ids (the ids
 * whose controller has can_fork, move_task): the fork and move paths
 * look at those ids only, and a bit they miss is one whose eff[id] they
 * would find NULL.
 */
#include <linux/ctype.h>
#include <linux/export.h>
#include <linux/module.h>
#include <linux/string.h>

#include "rg.h"

LIST_HEAD(rg_controllers);
struct res_controller *rg_ctls[RES_GROUP_MAX_CONTROLLERS];
unsigned long rg_fork_ids __read_mostly;
unsigned long rg_move_ids __read_mostly;

/* Set (@on) or clear @id's bit in @ids. */
static void rg_ids_set(unsigned long *ids, int id, bool on)
{
	BUILD_BUG_ON(RES_GROUP_MAX_CONTROLLERS > BITS_PER_LONG);
	WRITE_ONCE(*ids, on ? *ids | BIT(id) : *ids & ~BIT(id));
}

/**
 * rg_controller_find - a registered controller by name
 * @name: the name, not necessarily NUL-terminated
 * @len: its length
 *
 * Caller holds rg_mutex. Return: the controller or NULL.
 */
struct res_controller *rg_controller_find(const char *name, size_t len)
{
	struct res_controller *ctl;

	list_for_each_entry(ctl, &rg_controllers, list)
		if (strlen(ctl->name) == len && !memcmp(ctl->name, name, len))
			return ctl;
	return NULL;
}

/* A name must survive the "res=NAME,key=value" syntax. */
static bool rg_controller_name_ok(const char *name)
{
	if (!name || !*name)
		return false;
	for (; *name; name++)
		if (!isgraph(*name) || *name == ',' || *name == '=')
			return false;
	return true;
}

static int rg_free_id(void)
{
	int id;

	for (id = 0; id < RES_GROUP_MAX_CONTROLLERS; id++)
		if (!rg_ctls[id])
			return id;
	return -ENOSPC;
}

/* Undo the allocations of a registration that failed part way. */
static void rg_controller_free_all(struct res_controller *ctl)
{
	struct res_group *grp = NULL;

	while ((grp = rg_group_next_post(grp))) {
		if (grp->shares[ctl->id])
			ctl->free_shares(grp->shares[ctl->id]);
		grp->shares[ctl->id] = NULL;
	}
}

int res_controller_register(struct res_controller *ctl)
{
	struct res_group *grp;
	int id, ret = 0;

	if (!ctl || !rg_controller_name_ok(ctl->name) || !ctl->alloc_shares ||
	    !ctl->free_shares || ctl->depth < 0 ||
	    ctl->depth > RES_GROUP_MAX_DEPTH)
		return -EINVAL;

	/*
	 * Best effort: a module already on its way out (its init failed, or
	 * an exit racing with this) is refused. Past this check, its exit
	 * unregisters, which is what keeps the callbacks valid.
	 */
	if (ctl->owner && !try_module_get(ctl->owner))
		return -EINVAL;
	module_put(ctl->owner);

	percpu_down_write(&rg_fork_sem);
	mutex_lock(&rg_mutex);
	if (rg_controller_find(ctl->name, strlen(ctl->name))) {
		ret = -EEXIST;
		goto out;
	}
	id = rg_free_id();
	if (id < 0) {
		ret = id;
		goto out;
	}
	ctl->id = id;
	/* Allocate everything first: past this point nothing can fail. */
	for (grp = &rg_root; grp; grp = rg_group_next(grp)) {
		ret = rg_group_alloc_shares(grp, ctl, &grp->shares[id]);
		if (ret) {
			rg_controller_free_all(ctl);
			goto out;
		}
	}
	rg_ctls[id] = ctl;
	rg_ids_set(&rg_fork_ids, id, ctl->can_fork);
	rg_ids_set(&rg_move_ids, id, ctl->move_task);
	for (grp = &rg_root; grp; grp = rg_group_next(grp))
		rg_tasks_set_eff(grp, id, grp->shares[id] ?: grp->parent->eff[id]);
	list_add_tail(&ctl->list, &rg_controllers);
out:
	mutex_unlock(&rg_mutex);
	percpu_up_write(&rg_fork_sem);
	return ret;
}
EXPORT_SYMBOL_GPL(res_controller_register);

void res_controller_unregister(struct res_controller *ctl)
{
	struct res_group *grp;

	if (!ctl)
		return;
	percpu_down_write(&rg_fork_sem);
	mutex_lock(&rg_mutex);
	/* Never registered (or already gone): nothing to undo. */
	if (ctl->id < 0 || ctl->id >= RES_GROUP_MAX_CONTROLLERS ||
	    rg_ctls[ctl->id] != ctl)
		goto out;
	list_del(&ctl->list);
	for (grp = &rg_root; grp; grp = rg_group_next(grp))
		rg_tasks_set_eff(grp, ctl->id, NULL);
	/* Shares have no users now; reset (docs: "Resets") and free them. */
	for (grp = rg_group_next_post(NULL); grp; grp = rg_group_next_post(grp))
		rg_group_drop_shares(grp, ctl, false);
	rg_ids_set(&rg_fork_ids, ctl->id, false);
	rg_ids_set(&rg_move_ids, ctl->id, false);
	rg_ctls[ctl->id] = NULL;
out:
	mutex_unlock(&rg_mutex);
	percpu_up_write(&rg_fork_sem);
}
EXPORT_SYMBOL_GPL(res_controller_unregister);

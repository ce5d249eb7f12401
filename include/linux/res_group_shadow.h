/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resource Groups: shadow cgroups, for controllers built on cgroup v2's
 * own controllers (rg_memory.ko; rg_io.ko later).
 *
 * While a controller uses them, each non-root group has a shadow: a cgroup v2
 * directory under res_groups.ko's shadow_root, at the group's own path
 * (group /a/b: SHADOW_ROOT/a/b), that holds the group's charges and knobs
 * and never a task. The root group's shadow is shadow_root itself.
 *
 * res_groups.ko makes, writes and removes the directories on one ordered
 * workqueue, through the VFS, as the workqueue's worker (init's
 * credentials and namespaces), never holding the framework's locks: a
 * cgroup's subtree_control write waits for every fork in progress, and a
 * fork may wait for the framework. The calls below only queue; the
 * framework waits after it has dropped its mutex (mkdir, a shares write),
 * so that users see the shadow made or written when their call returns,
 * or see it fail with the shadow's errno. A controller that queues
 * anything else waits itself with res_shadow_sync(), holding no lock of
 * the framework's. Shadows are made and removed with their groups; a
 * removed shadow's charges go to its parent (memcg's reparenting).
 */
#ifndef _LINUX_RES_GROUP_SHADOW_H
#define _LINUX_RES_GROUP_SHADOW_H

#include <linux/types.h>

struct cgroup_subsys_state;
struct res_shares;

/* Value for res_shadow_write(): the file's "max". */
#define RES_SHADOW_MAX	U64_MAX

/**
 * res_shadow_enable - give every non-root group a shadow, from now on
 * @subsys: the cgroup v2 controller the caller drives: "memory"
 *
 * The first call makes shadow_root if it is missing and enables @subsys
 * in its parent's and its own cgroup.subtree_control, and makes the
 * shadows of the existing groups; waits for all of it. Call it before
 * res_controller_register(), so that the tasks the registration tells of
 * find their shadows. May sleep; caller holds no lock of the framework's.
 *
 * Return: 0; -ENODEV if @subsys is not a cgroup v2 controller here (no
 * memory cgroups, cgroup v1 only, shadow_root not on cgroup2); -ENOENT if
 * shadow_root's parent is missing or has no @subsys; another errno of
 * the VFS or cgroup.
 */
int res_shadow_enable(const char *subsys);

/**
 * res_shadow_disable - undo res_shadow_enable()
 * @subsys: as given to it
 *
 * After res_controller_unregister(): the last user's call removes every
 * shadow (not shadow_root), children first, and waits for it.
 */
void res_shadow_disable(const char *subsys);

/**
 * res_shadow_css - the css of @s's group's shadow
 * @s: a group's shares; the root group's shadow is shadow_root
 * @subsys: "memory"
 *
 * Any context; the css is valid while the group's shares are. Return:
 * the css, or NULL if the shadow could not be made.
 */
struct cgroup_subsys_state *res_shadow_css(struct res_shares *s,
					   const char *subsys);

/**
 * res_shadow_write - queue writing @val to a file of @s's group's shadow
 * @s: a non-root group's shares (the root's: ignored)
 * @file: e.g. "memory.max"
 * @val: bytes, or RES_SHADOW_MAX
 *
 * May sleep (allocates). A shares write waits for it before it returns.
 */
void res_shadow_write(struct res_shares *s, const char *file, u64 val);

/**
 * res_shadow_sync - wait for everything queued so far
 *
 * Return: 0, or the first errno of a write queued since the last call.
 */
int res_shadow_sync(void);

/**
 * res_shadow_path - the directory of @s's group's shadow, for messages
 * @s: a group's shares
 */
const char *res_shadow_path(struct res_shares *s);

#endif /* _LINUX_RES_GROUP_SHADOW_H */

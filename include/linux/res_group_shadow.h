/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resource Groups: shadow cgroups, for controllers built on cgroup v2's
 * own controllers (rg_memory.ko on "memory", rg_io.ko on "io").
 *
 * While a controller uses them, each non-root group has a shadow: a cgroup v2
 * directory under res_groups.ko's shadow_root, at the group's own path
 * (group /a/b: SHADOW_ROOT/a/b), that holds the group's charges and knobs
 * and never a task. The root group's shadow is shadow_root itself.
 *
 * res_groups.ko makes, writes and removes the directories on ordered
 * workqueues of its own, through the VFS, as the workqueue's worker (init's
 * credentials and namespaces), never holding the framework's locks: a
 * cgroup's subtree_control write waits for every fork in progress, and a
 * fork may wait for the framework. The calls below only queue; the
 * framework waits, for the requests of that call only and killably, after
 * it has dropped its mutex (mkdir, a shares write), so that users see the
 * shadow made or written when their call returns, or see it fail with
 * the shadow's errno (a shares write then writes the old shares back).
 * Directories and file writes go on two queues: a memory.max write that
 * reclaims for long delays no mkdir or rmdir (but the writes after it). Shadows are made and
 * removed with their groups; a removed shadow's charges go to its parent
 * (memcg's reparenting). A shadow whose directory was removed from
 * outside (systemd restarting a delegated unit) is made again by the
 * next write to it or mkdir below it.
 */
#ifndef _LINUX_RES_GROUP_SHADOW_H
#define _LINUX_RES_GROUP_SHADOW_H

#include <linux/res_group_css.h>
#include <linux/types.h>

struct cgroup_subsys_state;
struct res_shares;
struct task_struct;

/* Value for res_shadow_write(): the file's "max". */
#define RES_SHADOW_MAX	U64_MAX

/*
 * Flags of res_shadow_write_str(). RES_SHADOW_KEYED: the value's first
 * word names what it sets within the file (io.max's "MAJ:MIN ..."), and
 * each key is a knob of its own. RES_SHADOW_OPTIONAL: a failure is
 * logged, not the shares write's errno (io.bfq.weight without BFQ, a
 * device that went away).
 */
#define RES_SHADOW_KEYED	0x1
#define RES_SHADOW_OPTIONAL	0x2

/**
 * res_shadow_enable - give every non-root group a shadow, from now on
 * @slot: the cgroup v2 controller the caller drives, named by a task's css
 *	slot for it: RES_GROUP_CSS_MEMORY ("memory") or RES_GROUP_CSS_IO ("io")
 *
 * The first call makes shadow_root if it is missing and enables @slot's
 * controller in its parent's and its own cgroup.subtree_control, makes the
 * shadows of the existing groups; a call for another @slot enables it
 * in every shadow too. Waits for all of it. Call it before
 * res_controller_register(), so that the tasks the registration tells of
 * find their shadows. May sleep; caller holds no lock of the framework's.
 *
 * Return: 0; -EINVAL for an unknown @slot; -EBUSY if another caller has
 * it; -ENODEV if its controller is not a cgroup v2 controller here (no
 * memory cgroups, cgroup v1 only, shadow_root not on cgroup2); -ENOENT
 * if shadow_root's parent is missing or lacks the controller; another
 * errno of the VFS or cgroup.
 */
int res_shadow_enable(enum res_group_css_slot slot);

/**
 * res_shadow_disable - undo res_shadow_enable()
 * @slot: as given to it
 *
 * After res_controller_unregister(): the last user's call removes every
 * shadow (not shadow_root), children first, and waits for it; while
 * another controller still uses them, @slot's files written through
 * res_shadow_write*() are set back to their defaults instead.
 */
void res_shadow_disable(enum res_group_css_slot slot);

/**
 * res_shadow_css - the css of @s's group's shadow
 * @s: a group's shares; the root group's shadow is shadow_root
 * @slot: RES_GROUP_CSS_MEMORY or RES_GROUP_CSS_IO
 *
 * Any context; the css is valid while the group's shares are, under
 * the framework's mutex or a group's lock (the callbacks): a directory
 * made again gets a new css, the old one is put a grace period after
 * every task of the group was told (move_task(), RES_GROUP_RETELL).
 * Return: the css, or NULL if the shadow could not be made.
 */
struct cgroup_subsys_state *res_shadow_css(struct res_shares *s,
					   enum res_group_css_slot slot);

/**
 * res_shadow_css_get - res_shadow_css(), with a reference
 * @s: a group's shares
 * @slot: RES_GROUP_CSS_MEMORY or RES_GROUP_CSS_IO
 *
 * Any context. For a caller that may run while the shadow's directory is
 * made again (removed from outside): the css may change then. Return:
 * the css (css_put() it), or NULL.
 */
struct cgroup_subsys_state *res_shadow_css_get(struct res_shares *s,
					       enum res_group_css_slot slot);

/**
 * res_shadow_place_task - a controller's move_task(): point @tsk's @slot
 *	at its group's shadow
 * @tsk: the task moved, forked or leaving
 * @to: its group's shares, or NULL when it leaves the controller
 * @slot: RES_GROUP_CSS_MEMORY or RES_GROUP_CSS_IO
 *
 * A task of a non-root group charges (issues its bios as) the group's
 * shadow; the root group's tasks, tasks leaving and kernel threads are
 * left to their own cgroups (the slot cleared; a kernel thread's is
 * never set). Under the locks move_task() is called with.
 */
void res_shadow_place_task(struct task_struct *tsk, struct res_shares *to,
			   enum res_group_css_slot slot);

/**
 * res_shadow_write - queue writing @val to a file of @s's group's shadow
 * @s: a non-root group's shares (the root's: ignored)
 * @file: e.g. "memory.max"
 * @val: bytes, or RES_SHADOW_MAX
 *
 * May sleep (allocates). Called from shares_changed() (the framework
 * holds its mutex), the request is the shares write's: the write waits
 * for it and fails with its errno (the old shares are then written
 * back). From anywhere else nobody waits for it and its failure is only
 * logged. A file is written only if it may not hold @val already (the
 * last write of it failed, or wrote something else), so a controller
 * may queue every knob every time. A shadow whose directory was
 * removed from outside is made again first.
 */
void res_shadow_write(struct res_shares *s, const char *file, u64 val);

/**
 * res_shadow_write_str - res_shadow_write() with a string value
 * @s: a non-root group's shares (the root's: ignored)
 * @file: e.g. "io.max", "io.weight", "io.bfq.weight"
 * @val: what to write, e.g. "8:0 rbps=1048576 wbps=max riops=max wiops=max"
 * @flags: RES_SHADOW_KEYED, RES_SHADOW_OPTIONAL
 *
 * As res_shadow_write(). The service knows each file's default, to which
 * it sets the file back when @file's controller is disabled while the
 * shadows stay (io.max: "KEY rbps=max wbps=max riops=max wiops=max";
 * the weights: "default 100").
 */
void res_shadow_write_str(struct res_shares *s, const char *file,
			  const char *val, unsigned int flags);

/**
 * res_shadow_read - read a file of @s's group's shadow
 * @s: a group's shares (the root's: shadow_root's file)
 * @file: "io.stat" (the files the service keeps open for reading)
 * @buf: where to put its content, NUL-terminated
 * @size: the room in @buf
 *
 * From the file the service's worker opened when it made the shadow (or
 * enabled its controller there): no path walk, no credentials of the
 * caller's. May sleep; fine under the framework's mutex (show_stats()).
 * Return: the length read (a longer file is cut), or a negative errno
 * (-ENOENT: no shadow, or the file is not open).
 */
ssize_t res_shadow_read(struct res_shares *s, const char *file, char *buf,
			size_t size);

/**
 * res_shadow_sync - wait for everything queued so far, everyone's
 *
 * For module load and unload only: a caller of the framework waits for
 * its own requests only.
 */
void res_shadow_sync(void);

/**
 * res_shadow_path - the directory of @s's group's shadow, for messages
 * @s: a group's shares
 */
const char *res_shadow_path(struct res_shares *s);

#endif /* _LINUX_RES_GROUP_SHADOW_H */

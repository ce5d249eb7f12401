// SPDX-License-Identifier: GPL-2.0
/*
 * Resource Groups: shadow cgroups (<linux/res_group_shadow.h>).
 *
 * A shadow is a cgroup v2 directory under shadow_root at its group's path
 * (group /a/b: SHADOW_ROOT/a/b), so that a reader of /sys/fs/cgroup sees
 * which group each backs. The root group's shadow is shadow_root.
 *
 * Every directory operation and file write is a request to a worker:
 * directories (shadow_root's setup, mkdir, rmdir) on rg_shadow_wq, file
 * writes on rg_shadow_write_wq, both ordered, in a kworker (init's
 * credentials, mount and cgroup namespaces): a child's mkdir follows its
 * parent's, a write waits for its shadow's first mkdir (@made), and a
 * memory.max write that reclaims for long delays no mkdir (but the
 * writes queued after it: docs). The value is taken when a write is
 * queued (the knob's @val, in the callers' order) and the worker writes
 * the knob's latest. Nothing here
 * sleeps on the VFS or cgroup under the framework's locks: cgroup's
 * subtree_control writes wait for every fork in progress
 * (cgroup_threadgroup_rwsem), and forks may wait for rg_fork_sem.
 * Directories are made with vfs_mkdir() and removed with vfs_rmdir() on
 * the mounted cgroup2 (never a mount of our own), files written with
 * kernel_write().
 *
 * Waiting: a request has its own completion, errno and refcount (the
 * worker's, and its waiter's). The framework keeps the requests it
 * queues under rg_mutex for one call (mkdir, rmdir, a shares write) in a
 * struct rg_shadow_batch and waits for those only, killably, after it
 * dropped rg_mutex: another caller's failure or slow reclaim is not its
 * business. Requests queued outside a batch (parameter writes) are waited
 * for by nobody; their failures are logged.
 *
 * Knobs: the workers remember, per shadow file (per key of a keyed file:
 * io.max's devices), the value last asked for and what the file holds
 * (what the last write that succeeded wrote), and skip a write of what it
 * holds: a controller queues every knob every time, and a write that
 * failed is done again when asked again.
 *
 * Controllers: a shadow carries the cgroup v2 controllers whose module
 * enabled the service (rg_shadow_mask: "memory" for rg_memory.ko, "io"
 * for rg_io.ko), each with its css. The first enable makes the shadows;
 * a second controller is enabled in each existing one, parents first
 * (rg_shadow_ss_add()); a controller disabled while another stays is
 * disabled below each, children first, its files set back to their
 * defaults (rg_shadow_off()); the last disable removes the shadows.
 *
 * Removed from outside: a shadow whose css is dying while its group
 * lives was removed by someone else (systemd restarting a delegated
 * unit, an rmdir). The next write to it or mkdir below it makes it again
 * (rg_shadow_remake()), with the subtree below its highest removed
 * ancestor: directories and knobs first, without rg_mutex; then, under
 * it, the new css's are published and the groups' tasks retold; the old
 * css's are put a grace period later.
 *
 * Lifetime: while a controller has the service enabled
 * (res_shadow_enable(), counted in rg_shadow_users), every non-root group
 * has a shadow, made with the group (rg_shadow_group_create(), from
 * rg_group_create()) and removed after its tasks left and its shares were
 * freed (rg_shadow_group_remove(), from rg_group_remove()); enabling makes
 * the existing groups' shadows, disabling removes them all, children
 * first. A removal drops the css reference a grace period after the
 * controllers replaced the tasks' pointers to it, then removes the
 * directory: memcg moves its charges to the parent.
 *
 * Locking: a group's @shadow and rg_shadow_users are under rg_mutex (and
 * stable for a controller's move_task(): set before the first task can
 * join, cleared after the last left). A shadow's @css's are written by
 * the workers under rg_shadow_dir_mutex (and rg_mutex when they are
 * replaced while the controllers are registered) with release, and read
 * anywhere with acquire; rg_shadow_mask under rg_shadow_dir_mutex. @err
 * is the mkdir's result, written before @made completes. A shadow's
 * @knob_mutex is held across its file writes, @knob_lock (innermost)
 * while its knobs are asked for or listed. The write queue is ordered: a
 * memory.max write that reclaims for long delays the writes queued after
 * it, and a remake or rmdir of its shadow (they take its @knob_mutex
 * under rg_shadow_dir_mutex), not other mkdirs. Order:
 * rg_shadow_enable_mutex (waits for the workers), rg_shadow_dir_mutex, a
 * shadow's @knob_mutex, rg_mutex (the workers take rg_mutex only to walk
 * the groups and publish css's; its holders never wait for a worker; it
 * is never taken under @knob_mutex), but for res_shadow_read(), whose
 * reader on rg_shadow_read_wq takes no lock and needs no fork to run. It
 * reads files the workers keep open (@rd, under @knob_lock): no path
 * walk under rg_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/magic.h>
#include <linux/memcontrol.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/rcupdate.h>
#include <linux/res_group_css.h>
#include <linux/res_group_shadow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "rg.h"

static char *shadow_root = "/sys/fs/cgroup/res_groups";
module_param(shadow_root, charp, 0444);
MODULE_PARM_DESC(shadow_root,
		 "cgroup v2 directory under which the groups' shadow cgroups are made");

/* The cgroup v2 controllers a shadow carries, for whom enabled them. */
enum rg_shadow_ss {
	RG_SS_MEMORY = RES_GROUP_CSS_MEMORY,
	RG_SS_IO = RES_GROUP_CSS_IO,
	RG_SS_NR,
};

static_assert(ARRAY_SIZE(((struct task_struct *)NULL)->res_group_css) ==
	      RG_SS_NR, "a shadow's controllers are a task's css slots");

static const char * const rg_ss_name[RG_SS_NR] = {
	[RG_SS_MEMORY]	= "memory",
	[RG_SS_IO]	= "io",
};

/*
 * The files res_shadow_read() reads, kept open by the workers from the
 * moment their controller's css is taken: a path walk there (under the
 * framework's mutex) would take the shadow directory's lock, which a
 * worker's rmdir holds while it takes cgroup_mutex.
 */
static const struct {
	const char *file;
	enum rg_shadow_ss ss;
} rg_shadow_reads[] = {
	{ "io.stat", RG_SS_IO },
};

#define RG_SHADOW_READS	ARRAY_SIZE(rg_shadow_reads)

/* The longest value a knob takes (an io.max line) and file name. */
#define RG_SHADOW_VAL_MAX	128
#define RG_SHADOW_NAME_MAX	24

/**
 * struct rg_shadow_knob - one file of a shadow (or one key of it), as the
 *	workers know it
 * @node: in its shadow's @knobs (added under @knob_lock, removed under
 *	it and @knob_mutex)
 * @flags: RES_SHADOW_KEYED, RES_SHADOW_OPTIONAL, as last asked (@knob_lock)
 * @ok: the last write of it succeeded: the file holds @has (@knob_mutex)
 * @file: its file
 * @key: the first word of its values if keyed, else ""
 * @val: the value last asked for (@knob_lock)
 * @has: what the file holds, if @ok (@knob_mutex)
 */
struct rg_shadow_knob {
	struct list_head node;
	unsigned int flags;
	bool ok;
	char file[RG_SHADOW_NAME_MAX];
	char key[RG_SHADOW_NAME_MAX];
	char val[RG_SHADOW_VAL_MAX];
	char has[RG_SHADOW_VAL_MAX];
};

/**
 * struct res_shadow - one group's shadow directory
 * @parent: the parent group's shadow (a reference), NULL for the root's
 * @grp: its group, NULL once the group is removed (rg_mutex)
 * @css: its css of each enabled controller (a reference each), once
 *	made; replaced when the directory is made again (rg_mutex and
 *	rg_shadow_dir_mutex)
 * @ref: the group's reference and one per request and child shadow
 * @made: completed once the first mkdir was tried
 * @err: the mkdir's errno, 0 once made
 * @knob_mutex: held across the writes of @knobs: protects what they hold
 * @knob_lock: protects what @knobs are asked for, adding to the list,
 *	and @rd
 * @rd: rg_shadow_reads[]'s files, open (a reference each), or NULL
 * @knobs: its files' values (struct rg_shadow_knob)
 * @path: the directory
 */
struct res_shadow {
	struct res_shadow *parent;
	struct res_group *grp;
	struct cgroup_subsys_state *css[RG_SS_NR];
	refcount_t ref;
	struct completion made;
	int err;
	struct mutex knob_mutex;	/* see above */
	spinlock_t knob_lock;		/* see above */
	struct list_head knobs;
	struct file *rd[RG_SHADOW_READS];
	char path[];
};

enum rg_shadow_op {
	RG_SHADOW_SETUP,
	RG_SHADOW_OFF,
	RG_SHADOW_MKDIR,
	RG_SHADOW_WRITE,
	RG_SHADOW_RMDIR,
};

/**
 * struct rg_shadow_req - one request to a worker
 * @work: on rg_shadow_wq (directories) or rg_shadow_write_wq (files)
 * @node: in its waiter's batch
 * @ref: the worker's and, if one waits, the waiter's
 * @done: completed when the worker is done with it
 * @err: its result, for its waiter only
 * @op: what to do
 * @ss: the controller to set up or turn off (RG_SHADOW_SETUP, _OFF)
 * @sh: the shadow (a reference), NULL for RG_SHADOW_SETUP and _OFF
 * @file: the file to write
 * @key: the key within it (RES_SHADOW_KEYED), else ""
 */
struct rg_shadow_req {
	struct work_struct work;
	struct list_head node;
	refcount_t ref;
	struct completion done;
	int err;
	enum rg_shadow_op op;
	enum rg_shadow_ss ss;
	struct res_shadow *sh;
	char file[RG_SHADOW_NAME_MAX];
	char key[RG_SHADOW_NAME_MAX];
};

static struct workqueue_struct *rg_shadow_wq;
static struct workqueue_struct *rg_shadow_write_wq;
/*
 * res_shadow_read()'s reads: its caller holds rg_mutex and waits, so its
 * work may not wait for a new kworker (a fork, which may wait for
 * rg_fork_sem, whose writer may wait for rg_mutex): WQ_MEM_RECLAIM gives
 * it a rescuer made at load.
 */
static struct workqueue_struct *rg_shadow_read_wq;
static struct res_shadow *rg_shadow_root;
static DEFINE_MUTEX(rg_shadow_enable_mutex);
/* Directories: mkdir, rmdir and making removed ones again; the css's. */
static DEFINE_MUTEX(rg_shadow_dir_mutex);
/*
 * The batch of rg_mutex's holder, if it keeps one, and that holder
 * (written under rg_mutex). A queuer without rg_mutex compares the owner
 * with current before it reads the batch: it lies in the owner's stack.
 */
static struct rg_shadow_batch *rg_shadow_batch_cur;
static struct task_struct *rg_shadow_batch_owner;
/* Groups have shadows: some controller enabled them (rg_mutex). */
static int rg_shadow_users;
/* The users of each controller (rg_shadow_enable_mutex). */
static int rg_shadow_ss_users[RG_SS_NR];
/* Which of them counts in rg_shadow_users (rg_mutex). */
static bool rg_shadow_counted[RG_SS_NR];
/* The controllers the shadows carry: bit per ss (rg_shadow_dir_mutex). */
static unsigned long rg_shadow_mask;

static int rg_shadow_root_setup(enum rg_shadow_ss ss);
static int rg_shadow_root_make(struct res_shadow *sh,
			       struct cgroup_subsys_state **css);

/* Write @str to @dir/@file. */
static int rg_shadow_write_file(const char *dir, const char *file,
				const char *str)
{
	struct file *f;
	char *path;
	loff_t pos = 0;
	ssize_t n;

	path = kasprintf(GFP_KERNEL, "%s/%s", dir, file);
	if (!path)
		return -ENOMEM;
	f = filp_open(path, O_WRONLY, 0);
	kfree(path);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, str, strlen(str), &pos);
	filp_close(f, NULL);
	return n < 0 ? n : 0;
}

/*
 * mkdir @path: 0 if made, 1 if it was there already (its settings are
 * then not ours: the caller resets them), else an errno.
 */
static int rg_shadow_mkdir_path(const char *path)
{
	struct dentry *dentry;
	struct path parent;
	int ret;

	dentry = kern_path_create(AT_FDCWD, path, &parent, LOOKUP_DIRECTORY);
	if (IS_ERR(dentry))
		return PTR_ERR(dentry) == -EEXIST ? 1 : PTR_ERR(dentry);
	ret = vfs_mkdir(mnt_user_ns(parent.mnt), d_inode(parent.dentry),
			dentry, 0755);
	done_path_create(&parent, dentry);
	return ret;
}

static int rg_shadow_rmdir_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct dentry *dentry;
	struct path parent;
	struct qstr last;
	char *dir;
	int ret;

	/* kern_path_locked() is not exported: look the last name up. */
	if (!slash)
		return -EINVAL;
	dir = kstrndup(path, slash - path, GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	ret = kern_path(dir, LOOKUP_DIRECTORY, &parent);
	kfree(dir);
	if (ret)
		return ret;
	last.name = slash + 1;
	last.len = strlen(last.name);
	ret = mnt_want_write(parent.mnt);
	if (ret)
		goto out;
	inode_lock_nested(d_inode(parent.dentry), I_MUTEX_PARENT);
	dentry = lookup_one_len(last.name, parent.dentry, last.len);
	ret = PTR_ERR_OR_ZERO(dentry);
	if (!ret) {
		ret = d_really_is_positive(dentry) ?
		      vfs_rmdir(mnt_user_ns(parent.mnt),
				d_inode(parent.dentry), dentry) : -ENOENT;
		dput(dentry);
	}
	inode_unlock(d_inode(parent.dentry));
	mnt_drop_write(parent.mnt);
out:
	path_put(&parent);
	return ret;
}

static struct cgroup_subsys *rg_ss_subsys(enum rg_shadow_ss ss)
{
#ifdef CONFIG_BLK_CGROUP
	if (ss == RG_SS_IO)
		return &io_cgrp_subsys;
#endif
	return ss == RG_SS_MEMORY ? &memory_cgrp_subsys : NULL;
}

/* Is @ss's controller in this kernel, and on cgroup v2? */
static bool rg_ss_on_dfl(enum rg_shadow_ss ss)
{
#ifdef CONFIG_BLK_CGROUP
	if (ss == RG_SS_IO)
		return cgroup_subsys_on_dfl(io_cgrp_subsys);
#endif
	return ss == RG_SS_MEMORY && cgroup_subsys_on_dfl(memory_cgrp_subsys);
}

static int rg_ss_find(enum res_group_css_slot slot)
{
	return (unsigned int)slot < RG_SS_NR ? (int)slot : -EINVAL;
}

/* The css of @ss of the cgroup at @path, with a reference. */
static struct cgroup_subsys_state *rg_shadow_css_of(const char *path,
						    enum rg_shadow_ss ss)
{
	struct cgroup_subsys_state *css;
	struct path p;
	int ret;

	ret = kern_path(path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &p);
	if (ret)
		return ERR_PTR(ret);
	css = css_tryget_online_from_dir(p.dentry, rg_ss_subsys(ss));
	path_put(&p);
	/* Not cgroupfs, or cgroup v1's controller: not ours to use. */
	if (PTR_ERR_OR_ZERO(css) == -EBADF ||
	    (!IS_ERR(css) && !rg_ss_on_dfl(ss))) {
		if (!IS_ERR(css))
			css_put(css);
		return ERR_PTR(-ENODEV);
	}
	return css;
}

static void rg_shadow_get(struct res_shadow *sh)
{
	refcount_inc(&sh->ref);
}

static void rg_shadow_put(struct res_shadow *sh)
{
	struct rg_shadow_knob *k, *n;
	struct res_shadow *parent;
	int i;

	while (sh && refcount_dec_and_test(&sh->ref)) {
		parent = sh->parent;
		list_for_each_entry_safe(k, n, &sh->knobs, node)
			kfree(k);
		for (i = 0; i < RG_SHADOW_READS; i++)
			if (sh->rd[i])
				fput(sh->rd[i]);
		mutex_destroy(&sh->knob_mutex);
		kfree(sh);
		sh = parent;
	}
}

/* A new shadow with room for a path of @len, the caller's reference. */
static struct res_shadow *rg_shadow_alloc(size_t len)
{
	struct res_shadow *sh;

	sh = kzalloc(struct_size(sh, path, len + 1), GFP_KERNEL);
	if (!sh)
		return NULL;
	refcount_set(&sh->ref, 1);
	init_completion(&sh->made);
	mutex_init(&sh->knob_mutex);
	spin_lock_init(&sh->knob_lock);
	INIT_LIST_HEAD(&sh->knobs);
	return sh;
}

/*
 * The files the service writes and their defaults: what a new directory
 * holds, and what a controller's files are set back to when it is
 * disabled while the shadows stay. A keyed file's default follows its
 * key.
 */
static const struct {
	const char *file;
	const char *dflt;
	enum rg_shadow_ss ss;
	bool keyed;
} rg_shadow_files[] = {
	{ "memory.max", "max", RG_SS_MEMORY },
	{ "memory.high", "max", RG_SS_MEMORY },
	{ "memory.low", "0", RG_SS_MEMORY },
	{ "memory.min", "0", RG_SS_MEMORY },
	{ "io.max", "rbps=max wbps=max riops=max wiops=max", RG_SS_IO, true },
	{ "io.weight", "default 100", RG_SS_IO },
	{ "io.bfq.weight", "default 100", RG_SS_IO },
};

static int rg_shadow_file_find(const char *file)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rg_shadow_files); i++)
		if (!strcmp(file, rg_shadow_files[i].file))
			return i;
	return -ENOENT;
}

/* "+memory +io" (or "-"), for the controllers in @mask. */
static void rg_shadow_ss_str(char *buf, size_t size, unsigned long mask,
			     char sign)
{
	int ss, n = 0;

	buf[0] = '\0';
	for_each_set_bit(ss, &mask, RG_SS_NR)
		n += scnprintf(buf + n, size - n, "%s%c%s", n ? " " : "",
			       sign, rg_ss_name[ss]);
}

static int rg_shadow_ss_write(const char *dir, unsigned long mask, char sign)
{
	char buf[32];

	if (!mask)
		return 0;
	rg_shadow_ss_str(buf, sizeof(buf), mask, sign);
	return rg_shadow_write_file(dir, "cgroup.subtree_control", buf);
}

/*
 * Set the files of @ss in the directory @dir back to their defaults: a
 * directory found there (an rmdir that failed, an older run's, an
 * administrator's). io.max lists the devices that have a limit; the
 * weights' files may be missing (no BFQ, no iocost). Return: 0 or the
 * errno of the first memory file that could not be written.
 */
static int rg_shadow_reset_dir(const char *dir, enum rg_shadow_ss ss)
{
	char *buf, *line, *cur, *val;
	struct file *f;
	char *path;
	loff_t pos = 0;
	ssize_t n;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rg_shadow_files); i++) {
		if (rg_shadow_files[i].ss != ss || rg_shadow_files[i].keyed)
			continue;
		ret = rg_shadow_write_file(dir, rg_shadow_files[i].file,
					   rg_shadow_files[i].dflt);
		/* Only memory.min may be missing. */
		if (ret && ss == RG_SS_MEMORY &&
		    strcmp(rg_shadow_files[i].file, "memory.min"))
			return ret;
	}
	if (ss != RG_SS_IO)
		return 0;
	path = kasprintf(GFP_KERNEL, "%s/io.max", dir);
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	val = kmalloc(RG_SHADOW_VAL_MAX, GFP_KERNEL);
	if (!path || !buf || !val)
		goto out;
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		goto out;
	n = kernel_read(f, buf, PAGE_SIZE - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		goto out;
	buf[n] = '\0';
	cur = buf;
	while ((line = strsep(&cur, "\n"))) {
		char *key = strsep(&line, " ");

		if (!*key)
			continue;
		snprintf(val, RG_SHADOW_VAL_MAX, "%s %s", key,
			 rg_shadow_files[rg_shadow_file_find("io.max")].dflt);
		rg_shadow_write_file(dir, "io.max", val);
	}
out:
	kfree(val);
	kfree(buf);
	kfree(path);
	return 0;
}

/* Put @f in @sh's @rd[@i] (NULL: close it). */
static void rg_shadow_rd_set(struct res_shadow *sh, int i, struct file *f)
{
	struct file *old;

	spin_lock(&sh->knob_lock);
	old = sh->rd[i];
	sh->rd[i] = f;
	spin_unlock(&sh->knob_lock);
	if (old)
		fput(old);
}

/*
 * Open @sh's files of rg_shadow_reads[] for the controllers in @mask
 * (again: a directory made again), close those of the others. Caller
 * holds rg_shadow_dir_mutex (a worker: init's namespaces).
 */
static void rg_shadow_rd_update(struct res_shadow *sh, unsigned long mask,
				unsigned long touch)
{
	struct file *f;
	char *path;
	int i;

	for (i = 0; i < RG_SHADOW_READS; i++) {
		if (!test_bit(rg_shadow_reads[i].ss, &touch))
			continue;
		f = NULL;
		if (test_bit(rg_shadow_reads[i].ss, &mask)) {
			path = kasprintf(GFP_KERNEL, "%s/%s", sh->path,
					 rg_shadow_reads[i].file);
			f = path ? filp_open(path, O_RDONLY, 0) :
			    ERR_PTR(-ENOMEM);
			kfree(path);
			if (IS_ERR(f)) {
				pr_warn_ratelimited("%s/%s: cannot open: %ld\n",
						    sh->path,
						    rg_shadow_reads[i].file,
						    PTR_ERR(f));
				f = NULL;
			}
		}
		rg_shadow_rd_set(sh, i, f);
	}
}

/* Open @sh's reads of the controllers in @mask, close the others. */
static void rg_shadow_rd_open(struct res_shadow *sh, unsigned long mask)
{
	rg_shadow_rd_update(sh, mask, ~0UL);
}

/*
 * The directory part of a mkdir: make it (or reset one found there to
 * what a new one has), let its children have the controllers of
 * rg_shadow_mask, take their css's into @css. Caller holds
 * rg_shadow_dir_mutex. Return: 0 or an errno (no css is then taken).
 */
static int rg_shadow_make_dir(struct res_shadow *sh,
			      struct cgroup_subsys_state **css)
{
	unsigned long mask = rg_shadow_mask;
	int ret, ss;

	ret = rg_shadow_mkdir_path(sh->path);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		for_each_set_bit(ss, &mask, RG_SS_NR) {
			ret = rg_shadow_reset_dir(sh->path, ss);
			if (ret)
				return ret;
		}
	}
	/* It never has tasks. */
	ret = rg_shadow_ss_write(sh->path, mask, '+');
	if (ret)
		return ret;
	memset(css, 0, sizeof(*css) * RG_SS_NR);
	for_each_set_bit(ss, &mask, RG_SS_NR) {
		css[ss] = rg_shadow_css_of(sh->path, ss);
		if (IS_ERR(css[ss])) {
			ret = PTR_ERR(css[ss]);
			css[ss] = NULL;
			break;
		}
	}
	if (ret) {
		for (ss = 0; ss < RG_SS_NR; ss++) {
			if (css[ss])
				css_put(css[ss]);
			css[ss] = NULL;
		}
		return ret;
	}
	rg_shadow_rd_open(sh, mask);
	return 0;
}

/* Publish @css as @sh's: pairs with res_shadow_css()'s acquire. */
static void rg_shadow_set_css(struct res_shadow *sh,
			      struct cgroup_subsys_state **css)
{
	int ss;

	for (ss = 0; ss < RG_SS_NR; ss++)
		smp_store_release(&sh->css[ss], css[ss]); /* whole when seen */
}

/* Is @sh's directory gone (removed from outside)? */
static bool rg_shadow_gone(struct res_shadow *sh)
{
	int ss;

	for (ss = 0; ss < RG_SS_NR; ss++) {
		struct cgroup_subsys_state *css = READ_ONCE(sh->css[ss]);

		if (css)
			return css_is_dying(css);
	}
	return false;
}

static int rg_shadow_remake(struct res_shadow *sh);
static void rg_shadow_reset_knobs(struct res_shadow *sh, enum rg_shadow_ss ss);

static void rg_shadow_do_mkdir(struct res_shadow *sh)
{
	struct cgroup_subsys_state *css[RG_SS_NR];
	int ret;

	ret = sh->err;
	if (!ret && sh->parent && READ_ONCE(sh->parent->err))
		ret = -ENOENT;
	if (ret)
		goto out;
	/* Its parent's directory removed from outside: make it again. */
	if (sh->parent) {
		ret = rg_shadow_remake(sh->parent);
		if (ret)
			goto out;
	}
	mutex_lock(&rg_shadow_dir_mutex);
	ret = rg_shadow_make_dir(sh, css);
	if (!ret)
		rg_shadow_set_css(sh, css);
	mutex_unlock(&rg_shadow_dir_mutex);
out:
	if (ret)
		pr_warn("shadow %s not made: %d\n", sh->path, ret);
	WRITE_ONCE(sh->err, ret);
	complete_all(&sh->made);
}

/* Put @sh's css's, a grace period after nobody may see them. */
static void rg_shadow_put_css(struct res_shadow *sh)
{
	struct cgroup_subsys_state *css[RG_SS_NR];
	bool any = false;
	int ss;

	for (ss = 0; ss < RG_SS_NR; ss++) {
		css[ss] = sh->css[ss];
		any |= !!css[ss];
		WRITE_ONCE(sh->css[ss], NULL);
	}
	if (!any)
		return;
	synchronize_rcu();
	for (ss = 0; ss < RG_SS_NR; ss++)
		if (css[ss])
			css_put(css[ss]);
}

static void rg_shadow_do_rmdir(struct res_shadow *sh)
{
	int ret;

	mutex_lock(&rg_shadow_dir_mutex);
	/* Readers of a task's pointer to it are done. */
	rg_shadow_put_css(sh);
	/*
	 * Bios still throttled in it go on at its io.max after the rmdir
	 * (blk-throttle keeps an offline group's limits): lift them first.
	 */
	rg_shadow_rd_open(sh, 0);
	if (!sh->err)
		rg_shadow_reset_knobs(sh, RG_SS_IO);
	if (!sh->err) {
		ret = rg_shadow_rmdir_path(sh->path);
		/* Gone already (removed from outside): fine. */
		if (ret && ret != -ENOENT)
			pr_warn("shadow %s not removed: %d\n", sh->path, ret);
	}
	mutex_unlock(&rg_shadow_dir_mutex);
}

/*
 * Write @k's value as last asked for, unless the file holds it already.
 * The workers know what each file holds: it is what the last write that
 * succeeded wrote; after a failure, the file is written again whatever it
 * is asked for. Caller holds @sh's knob_mutex.
 */
static int rg_shadow_knob_put(struct res_shadow *sh, struct rg_shadow_knob *k)
{
	char val[RG_SHADOW_VAL_MAX];
	unsigned int flags;
	int i, ret;

	i = rg_shadow_file_find(k->file);
	/* A knob of a controller disabled meanwhile: not ours to write. */
	if (i < 0 || !test_bit(rg_shadow_files[i].ss, &rg_shadow_mask))
		return 0;
	spin_lock(&sh->knob_lock);
	strscpy(val, k->val, sizeof(val));
	flags = k->flags;
	spin_unlock(&sh->knob_lock);
	/*
	 * A keyed line is written every time: a device made again with the
	 * same number (a loop or dm device, a disk plugged in again) has
	 * lost its blk-cgroup settings, and the file cannot tell.
	 */
	if (k->ok && !k->key[0] && !strcmp(k->has, val))
		return 0;
	k->ok = false;
	ret = rg_shadow_write_file(sh->path, k->file, val);
	if (!ret) {
		strscpy(k->has, val, sizeof(k->has));
		k->ok = true;
		return 0;
	}
	pr_warn_ratelimited("%s/%s: writing \"%s\" failed: %d\n", sh->path,
			    k->file, val, ret);
	return flags & RES_SHADOW_OPTIONAL ? 0 : ret;
}

static struct rg_shadow_knob *rg_shadow_knob_find(struct res_shadow *sh,
						  const char *file,
						  const char *key)
{
	struct rg_shadow_knob *k;

	lockdep_assert_held(&sh->knob_lock);
	list_for_each_entry(k, &sh->knobs, node)
		if (!strcmp(k->file, file) && !strcmp(k->key, key))
			return k;
	return NULL;
}

/* The first word of @val, for a keyed file's knob; "" if not keyed. */
static int rg_shadow_key(char *key, const char *file, const char *val)
{
	size_t len = strcspn(val, " ");
	int i = rg_shadow_file_find(file);

	key[0] = '\0';
	if (i < 0)
		return i;
	if (!rg_shadow_files[i].keyed)
		return 0;
	if (!len || len >= RG_SHADOW_NAME_MAX)
		return -EINVAL;
	memcpy(key, val, len);
	key[len] = '\0';
	return 0;
}

/*
 * Ask @sh's @file (its @key) for @val: a worker writes what was last asked
 * for, so that writes of one knob need no order among them.
 */
static void rg_shadow_ask(struct res_shadow *sh, const char *file,
			  const char *key, const char *val, unsigned int flags)
{
	struct rg_shadow_knob *k, *new = NULL;

	spin_lock(&sh->knob_lock);
	k = rg_shadow_knob_find(sh, file, key);
	if (!k) {
		spin_unlock(&sh->knob_lock);
		new = kzalloc(sizeof(*new), GFP_KERNEL | __GFP_NOFAIL);
		strscpy(new->file, file, sizeof(new->file));
		strscpy(new->key, key, sizeof(new->key));
		spin_lock(&sh->knob_lock);
		k = rg_shadow_knob_find(sh, file, key);
	}
	if (!k) {
		k = new;
		new = NULL;
		list_add_tail(&k->node, &sh->knobs);
	}
	k->flags = flags;
	strscpy(k->val, val, sizeof(k->val));
	spin_unlock(&sh->knob_lock);
	kfree(new);
}

/* A worker's write of @sh's @file (@key): caller holds knob_mutex. */
static int rg_shadow_do_write(struct res_shadow *sh, const char *file,
			      const char *key)
{
	struct rg_shadow_knob *k;

	spin_lock(&sh->knob_lock);
	k = rg_shadow_knob_find(sh, file, key);
	spin_unlock(&sh->knob_lock);
	/* Set back and forgotten (its controller disabled): done. */
	return k ? rg_shadow_knob_put(sh, k) : 0;
}

/*
 * The knob after @k (the first for NULL) of @sh, or NULL. Caller holds
 * knob_mutex: no knob is removed meanwhile.
 */
static struct rg_shadow_knob *rg_shadow_knob_next(struct res_shadow *sh,
						  struct rg_shadow_knob *k)
{
	struct list_head *next;

	spin_lock(&sh->knob_lock);
	next = k ? k->node.next : sh->knobs.next;
	spin_unlock(&sh->knob_lock);
	return next == &sh->knobs ? NULL :
	       list_entry(next, struct rg_shadow_knob, node);
}

/* Write every knob of @sh again (a directory made again). */
static int rg_shadow_rewrite(struct res_shadow *sh)
{
	struct rg_shadow_knob *k = NULL;
	int ret = 0, err;

	mutex_lock(&sh->knob_mutex);
	while ((k = rg_shadow_knob_next(sh, k))) {
		k->ok = false;
		err = rg_shadow_knob_put(sh, k);
		if (err && !ret)
			ret = err;
	}
	mutex_unlock(&sh->knob_mutex);
	return ret;
}

/*
 * @sh's knobs of @ss back to their defaults (best effort: logged), and
 * forgotten: @ss's controller is disabled while the shadows stay.
 */
static void rg_shadow_reset_knobs(struct res_shadow *sh, enum rg_shadow_ss ss)
{
	struct rg_shadow_knob *k, *n = NULL;
	int i;

	mutex_lock(&sh->knob_mutex);
	for (k = rg_shadow_knob_next(sh, NULL); k; k = n) {
		n = rg_shadow_knob_next(sh, k);
		i = rg_shadow_file_find(k->file);
		if (i < 0 || rg_shadow_files[i].ss != ss)
			continue;
		spin_lock(&sh->knob_lock);
		if (k->key[0])
			snprintf(k->val, sizeof(k->val), "%s %s", k->key,
				 rg_shadow_files[i].dflt);
		else
			strscpy(k->val, rg_shadow_files[i].dflt,
				sizeof(k->val));
		spin_unlock(&sh->knob_lock);
		if (rg_shadow_write_file(sh->path, k->file, k->val))
			pr_warn_ratelimited("%s/%s: cannot set back to \"%s\"\n",
					    sh->path, k->file, k->val);
		spin_lock(&sh->knob_lock);
		list_del(&k->node);
		spin_unlock(&sh->knob_lock);
		kfree(k);
	}
	mutex_unlock(&sh->knob_mutex);
}

/*
 * The shadows of @grp's subtree, parents first, each with a reference
 * (the root group's is shadow_root's); NULL entries for groups without
 * one. Caller holds rg_mutex. Return: the array (kfree() it, after
 * rg_shadow_put() of each), or NULL; *@n its length.
 */
static struct res_shadow **rg_shadow_subtree(struct res_group *grp, int *n)
{
	struct res_shadow **shs;
	struct res_group *g;
	int i;

	lockdep_assert_held(&rg_mutex);
	for (g = grp, *n = 0; g; g = rg_group_next(g)) {
		if (g != grp && g->depth <= grp->depth)
			break;
		(*n)++;
	}
	shs = kcalloc(*n, sizeof(*shs), GFP_KERNEL);
	if (!shs) {
		*n = 0;
		return NULL;
	}
	for (g = grp, i = 0; i < *n; g = rg_group_next(g), i++) {
		shs[i] = g == &rg_root ? rg_shadow_root : g->shadow;
		if (shs[i])
			rg_shadow_get(shs[i]);
	}
	return shs;
}

static void rg_shadow_subtree_put(struct res_shadow **shs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		rg_shadow_put(shs[i]);
	kfree(shs);
}

/* Tell the controllers of rg_shadow_mask about @grp's tasks (rg_mutex). */
static void rg_shadow_retell(struct res_group *grp)
{
	unsigned long mask = rg_shadow_mask;
	struct res_controller *ctl;
	int ss;

	for_each_set_bit(ss, &mask, RG_SS_NR) {
		ctl = rg_controller_find(rg_ss_name[ss],
					 strlen(rg_ss_name[ss]));
		if (grp && ctl && grp->shares[ctl->id])
			res_group_retell_tasks(ctl, grp->shares[ctl->id]);
	}
}

/*
 * rg_shadow_remake - make @sh's directory again, removed from outside
 * (systemd removes a delegated unit's cgroups when it restarts it; an
 * administrator's rmdir), with its ancestors' that are gone too and the
 * whole subtree below the highest of them, each with the knobs it was
 * asked for; point the groups' tasks at the new cgroups.
 *
 * The directories are made without rg_mutex (see the top of the file),
 * then the css's swapped and the tasks told under it (the framework's
 * res_group_retell_tasks() to the controllers named as the cgroup
 * controllers, "memory" and "io"); the old css's are put a grace period
 * later, as at rmdir. Return: 0, or the errno of the first directory
 * that could not be made or knob not written.
 */
static int rg_shadow_remake(struct res_shadow *sh)
{
	struct cgroup_subsys_state *(*css)[RG_SS_NR] = NULL;
	struct res_shadow **shs = NULL, *top = sh;
	struct res_group *grp;
	int i, ss, err, n = 0, ret = 0;

	mutex_lock(&rg_shadow_dir_mutex);
	if (!rg_shadow_gone(sh))
		goto out_unlock;
	while (top->parent && rg_shadow_gone(top->parent))
		top = top->parent;
	/* The directories below @top, parents first, while rg_mutex holds. */
	mutex_lock(&rg_mutex);
	grp = top->grp;
	if (grp)
		shs = rg_shadow_subtree(grp, &n);
	mutex_unlock(&rg_mutex);
	if (n)
		css = kcalloc(n, sizeof(*css), GFP_KERNEL);
	if (!css) {
		ret = grp ? -ENOMEM : 0;
		goto out_unlock;
	}
	pr_info("shadow %s removed from outside: making it again\n",
		top->path);
	for (i = 0; i < n; i++) {
		/* Never made (its own mkdir is queued), or failed: skip. */
		if (!shs[i] || READ_ONCE(shs[i]->err) ||
		    !completion_done(&shs[i]->made))
			continue;
		if (shs[i] == rg_shadow_root)
			err = rg_shadow_root_make(shs[i], css[i]);
		else
			err = rg_shadow_make_dir(shs[i], css[i]);
		/* The caller's shadow's errno only; the others' logged. */
		if (err) {
			pr_warn("shadow %s not made again: %d\n",
				shs[i]->path, err);
			if (shs[i] == sh)
				ret = err;
			continue;
		}
		err = rg_shadow_rewrite(shs[i]);
		if (err && shs[i] == sh)
			ret = err;
	}
	mutex_lock(&rg_mutex);
	for (i = 0; i < n; i++) {
		bool any = false;

		if (!shs[i])
			continue;
		for (ss = 0; ss < RG_SS_NR; ss++) {
			struct cgroup_subsys_state *new = css[i][ss];

			if (!new)
				continue;
			any = true;
			/* The old one, to put below. */
			css[i][ss] = shs[i]->css[ss];
			/* Pairs with res_shadow_css(): whole when seen. */
			smp_store_release(&shs[i]->css[ss], new);
		}
		/* The root group's tasks never point at shadow_root. */
		if (any && shs[i] != rg_shadow_root)
			rg_shadow_retell(shs[i]->grp);
	}
	mutex_unlock(&rg_mutex);
	/* Readers of the tasks' old pointers are done. */
	synchronize_rcu();
	for (i = 0; i < n; i++)
		for (ss = 0; ss < RG_SS_NR; ss++)
			if (css[i][ss])
				css_put(css[i][ss]);
out_unlock:
	mutex_unlock(&rg_shadow_dir_mutex);
	if (shs)
		rg_shadow_subtree_put(shs, n);
	kfree(css);
	return ret;
}

static void rg_shadow_work(struct work_struct *work);

static void rg_shadow_req_put(struct rg_shadow_req *req)
{
	if (refcount_dec_and_test(&req->ref)) {
		rg_shadow_put(req->sh);
		kfree(req);
	}
}

static void rg_shadow_off(enum rg_shadow_ss ss);

static void rg_shadow_work(struct work_struct *work)
{
	struct rg_shadow_req *req = container_of(work, struct rg_shadow_req,
						 work);
	struct res_shadow *sh = req->sh;
	bool gone;
	int ret = 0;

	switch (req->op) {
	case RG_SHADOW_SETUP:
		ret = rg_shadow_root_setup(req->ss);
		break;
	case RG_SHADOW_OFF:
		rg_shadow_off(req->ss);
		break;
	case RG_SHADOW_MKDIR:
		rg_shadow_do_mkdir(sh);
		ret = READ_ONCE(sh->err);
		break;
	case RG_SHADOW_WRITE:
		/* Queued for a child whose mkdir is not done yet. */
		wait_for_completion(&sh->made);
		if (READ_ONCE(sh->err)) {
			ret = READ_ONCE(sh->err);
			break;
		}
		/* Removed from outside: made again first. */
		mutex_lock(&rg_shadow_dir_mutex);
		gone = READ_ONCE(sh->grp) && rg_shadow_gone(sh);
		mutex_unlock(&rg_shadow_dir_mutex);
		if (gone) {
			ret = rg_shadow_remake(sh);
			if (ret)
				break;
		}
		/*
		 * Not once the group is gone (its rmdir may be done). Not
		 * under rg_shadow_dir_mutex: a memory.max write may reclaim
		 * for long, and mkdirs do not wait for it.
		 */
		mutex_lock(&sh->knob_mutex);
		if (READ_ONCE(sh->grp))
			ret = rg_shadow_do_write(sh, req->file, req->key);
		mutex_unlock(&sh->knob_mutex);
		break;
	case RG_SHADOW_RMDIR:
		rg_shadow_do_rmdir(sh);
		break;
	}
	req->err = ret;
	complete(&req->done);
	rg_shadow_req_put(req);
}

/*
 * Queue @op; a request that cannot be allocated waits here instead. If
 * rg_mutex's holder (the caller) keeps a batch, the request joins it and
 * the batch's wait returns its errno.
 */
static void rg_shadow_queue(enum rg_shadow_op op, struct res_shadow *sh,
			    int ss, const char *file, const char *key)
{
	struct rg_shadow_batch *b = NULL;
	struct rg_shadow_req *req;

	/* Only current sets itself as owner: then it holds rg_mutex. */
	if (READ_ONCE(rg_shadow_batch_owner) == current)
		b = rg_shadow_batch_cur;

	req = kzalloc(sizeof(*req), GFP_KERNEL | __GFP_NOFAIL);
	INIT_WORK(&req->work, rg_shadow_work);
	INIT_LIST_HEAD(&req->node);
	refcount_set(&req->ref, 1);
	init_completion(&req->done);
	req->op = op;
	req->ss = ss;
	req->sh = sh;
	if (sh)
		rg_shadow_get(sh);
	if (file)
		strscpy(req->file, file, sizeof(req->file));
	if (key)
		strscpy(req->key, key, sizeof(req->key));
	if (b) {
		refcount_inc(&req->ref);
		list_add_tail(&req->node, &b->reqs);
	}
	queue_work(op == RG_SHADOW_WRITE ? rg_shadow_write_wq : rg_shadow_wq,
		   &req->work);
}

/*
 * rg_shadow_batch_begin - keep the requests queued from now on, by this
 * task under rg_mutex, in @b. Caller holds rg_mutex until
 * rg_shadow_batch_end().
 */
void rg_shadow_batch_begin(struct rg_shadow_batch *b)
{
	lockdep_assert_held(&rg_mutex);
	INIT_LIST_HEAD(&b->reqs);
	rg_shadow_batch_cur = b;
	WRITE_ONCE(rg_shadow_batch_owner, current);
}

void rg_shadow_batch_end(struct rg_shadow_batch *b)
{
	lockdep_assert_held(&rg_mutex);
	WRITE_ONCE(rg_shadow_batch_owner, NULL);
	rg_shadow_batch_cur = NULL;
}

/**
 * rg_shadow_batch_wait - wait for the requests of a batch
 * @b: the batch, ended
 * @killable: a fatal signal stops the wait (the requests go on)
 *
 * Caller holds no lock of the framework's. Waits for its own requests
 * only, never for other callers'. Return: 0, the errno of the first
 * request that failed, or -EINTR if killed.
 */
int rg_shadow_batch_wait(struct rg_shadow_batch *b, bool killable)
{
	struct rg_shadow_req *req, *n;
	int ret = 0;

	list_for_each_entry_safe(req, n, &b->reqs, node) {
		if (!ret) {
			if (!killable)
				wait_for_completion(&req->done);
			else if (wait_for_completion_killable(&req->done))
				ret = -EINTR;
			if (!ret)
				ret = req->err;
		}
		list_del(&req->node);
		rg_shadow_req_put(req);
	}
	return ret;
}

/* 0 if @dir is on a cgroup v2 mount, else -ENODEV (or the lookup's errno). */
static int rg_shadow_on_cgroup2(const char *dir)
{
	struct path p;
	int ret;

	ret = kern_path(dir, LOOKUP_DIRECTORY, &p);
	if (ret)
		return ret;
	ret = p.dentry->d_sb->s_magic == CGROUP2_SUPER_MAGIC ? 0 : -ENODEV;
	path_put(&p);
	return ret;
}

/* @path's parent directory, allocated. */
static char *rg_shadow_parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash == path ? kstrdup("/", GFP_KERNEL) :
	       kstrndup(path, slash - path, GFP_KERNEL);
}

/*
 * Enable the controllers of @mask below @path's parent (best effort: a
 * delegated parent, systemd's, has them already) and below @path, and
 * take @path's css of each into @css (those not in @mask untouched).
 */
static int rg_shadow_root_enable(const char *path, unsigned long mask,
				 struct cgroup_subsys_state **css)
{
	char *parent = rg_shadow_parent_of(path);
	int ss, ret = 0;

	if (!parent)
		return -ENOMEM;
	rg_shadow_ss_write(parent, mask, '+');
	kfree(parent);
	for_each_set_bit(ss, &mask, RG_SS_NR) {
		css[ss] = rg_shadow_css_of(path, ss);
		if (IS_ERR(css[ss])) {
			ret = PTR_ERR(css[ss]);
			css[ss] = NULL;
			pr_err("shadow_root %s has no cgroup v2 %s controller (%d)\n",
			       path, rg_ss_name[ss], ret);
			goto fail;
		}
	}
	ret = rg_shadow_ss_write(path, mask, '+');
	/*
	 * The root group's guarantee is the whole: memcg caps a child's
	 * protection by its parent's (effective_protection()), so without
	 * this no shadow's memory.low would protect anything. (The shadow
	 * root's own ancestors must protect it too: docs.)
	 */
	if (!ret && test_bit(RG_SS_MEMORY, &mask))
		ret = rg_shadow_write_file(path, "memory.low", "max");
	if (!ret)
		return 0;
	pr_err("cannot enable controllers below shadow_root %s: %d\n", path,
	       ret);
fail:
	for_each_set_bit(ss, &mask, RG_SS_NR) {
		if (css[ss])
			css_put(css[ss]);
		css[ss] = NULL;
	}
	return ret;
}

/*
 * Make shadow_root (again) with the controllers of rg_shadow_mask: its
 * css's into @css, its files for res_shadow_read() open.
 * Caller holds rg_shadow_dir_mutex.
 */
static int rg_shadow_root_make(struct res_shadow *sh,
			       struct cgroup_subsys_state **css)
{
	int ret;

	memset(css, 0, sizeof(*css) * RG_SS_NR);
	ret = rg_shadow_mkdir_path(sh->path);
	if (ret < 0) {
		pr_err("cannot make shadow_root %s: %d\n", sh->path, ret);
		return ret;
	}
	ret = rg_shadow_root_enable(sh->path, rg_shadow_mask, css);
	if (ret)
		return ret;
	rg_shadow_rd_open(sh, rg_shadow_mask);
	return 0;
}

/*
 * The shadows that exist get @ss too (a second controller enabled):
 * parents first, each lets its children have it and takes its css.
 * Caller holds rg_shadow_dir_mutex.
 */
static int rg_shadow_ss_add(enum rg_shadow_ss ss)
{
	struct cgroup_subsys_state *css[RG_SS_NR] = {};
	struct res_shadow **shs;
	int i, n, ret;

	ret = rg_shadow_root_enable(rg_shadow_root->path, BIT(ss), css);
	if (ret)
		return ret;
	/* Pairs with res_shadow_css(): whole when seen. */
	smp_store_release(&rg_shadow_root->css[ss], css[ss]);
	rg_shadow_rd_update(rg_shadow_root, BIT(ss), BIT(ss));
	mutex_lock(&rg_mutex);
	shs = rg_shadow_subtree(&rg_root, &n);
	mutex_unlock(&rg_mutex);
	if (!shs)
		return -ENOMEM;
	for (i = 1; i < n && !ret; i++) {
		struct res_shadow *sh = shs[i];

		/* (One removed from outside gets @ss when made again.) */
		if (!sh || READ_ONCE(sh->err) || !completion_done(&sh->made) ||
		    rg_shadow_gone(sh))
			continue;
		ret = rg_shadow_ss_write(sh->path, BIT(ss), '+');
		if (!ret) {
			css[ss] = rg_shadow_css_of(sh->path, ss);
			ret = PTR_ERR_OR_ZERO(css[ss]);
		}
		if (ret)
			pr_err("shadow %s: cannot enable %s: %d\n", sh->path,
			       rg_ss_name[ss], ret);
		else	/* Pairs with res_shadow_css(): whole when seen. */
			smp_store_release(&sh->css[ss], css[ss]);
		if (!ret)
			rg_shadow_rd_update(sh, BIT(ss), BIT(ss));
	}
	rg_shadow_subtree_put(shs, n);
	return ret;
}

/* shadow_root made and set up (the first enable), or given @ss. */
static int rg_shadow_root_setup(enum rg_shadow_ss ss)
{
	struct cgroup_subsys_state *css[RG_SS_NR];
	struct res_shadow *sh;
	char *parent;
	int ret;

	if (rg_shadow_root) {
		/* Removed from outside meanwhile: made again first. */
		ret = rg_shadow_remake(rg_shadow_root);
		if (ret)
			return ret;
		mutex_lock(&rg_shadow_dir_mutex);
		if (!rg_shadow_mask) {
			/* Every controller left: made anew, maybe again. */
			rg_shadow_mask = BIT(ss);
			ret = rg_shadow_root_make(rg_shadow_root, css);
			if (!ret)
				rg_shadow_set_css(rg_shadow_root, css);
			else
				rg_shadow_mask = 0;
		} else if (!test_bit(ss, &rg_shadow_mask)) {
			__set_bit(ss, &rg_shadow_mask);
			ret = rg_shadow_ss_add(ss);
		}
		mutex_unlock(&rg_shadow_dir_mutex);
		return ret;
	}
	if (shadow_root[0] != '/' || strlen(shadow_root) < 2) {
		pr_err("shadow_root %s: not an absolute path\n", shadow_root);
		return -EINVAL;
	}
	parent = rg_shadow_parent_of(shadow_root);
	sh = rg_shadow_alloc(strlen(shadow_root));
	ret = -ENOMEM;
	if (!parent || !sh)
		goto out;
	strcpy(sh->path, shadow_root);
	complete_all(&sh->made);
	sh->grp = &rg_root;
	/* cgroup v2, before anything is made there (a v1 or hybrid boot). */
	ret = rg_shadow_on_cgroup2(parent);
	if (ret) {
		pr_err("shadow_root %s has no cgroup v2 %s controller: %s is not on cgroup v2 (%d)\n",
		       shadow_root, rg_ss_name[ss], parent, ret);
		goto out;
	}
	mutex_lock(&rg_shadow_dir_mutex);
	rg_shadow_mask = BIT(ss);
	ret = rg_shadow_root_make(sh, css);
	if (!ret) {
		rg_shadow_set_css(sh, css);
		rg_shadow_root = sh;
		sh = NULL;
	} else {
		rg_shadow_mask = 0;
	}
	mutex_unlock(&rg_shadow_dir_mutex);
out:
	kfree(parent);
	if (sh)
		rg_shadow_put(sh);
	return ret;
}

/*
 * @ss's controller is disabled: the shadows stop carrying @ss. Its
 * tasks point at no css of @ss any more (the controller unregistered).
 * @ss's files are set back to their defaults (io.max first of all:
 * blk-throttle keeps a removed group's limits for the bios it still
 * holds) and, while other controllers keep the shadows, @ss is disabled
 * below each, children first; shadow_root's parent keeps it. If the
 * shadows cannot be listed (no memory), @ss stays on, its css's held
 * until unload. Best effort: failures are logged.
 */
static void rg_shadow_off(enum rg_shadow_ss ss)
{
	struct cgroup_subsys_state *css;
	struct res_shadow **shs;
	bool others;
	int i, n;

	mutex_lock(&rg_shadow_dir_mutex);
	if (!rg_shadow_root || !test_bit(ss, &rg_shadow_mask))
		goto out;
	others = rg_shadow_mask & ~BIT(ss);
	mutex_lock(&rg_mutex);
	shs = rg_shadow_subtree(&rg_root, &n);
	mutex_unlock(&rg_mutex);
	if (!shs) {
		pr_warn("cannot list the shadows: %s stays on in them\n",
			rg_ss_name[ss]);
		goto out;
	}
	/* Readers of the tasks' pointers to them are done. */
	synchronize_rcu();
	for (i = n - 1; i >= 0; i--) {
		struct res_shadow *sh = shs[i];

		if (!sh || !completion_done(&sh->made))
			continue;
		rg_shadow_reset_knobs(sh, ss);
		/* Children first: each drops @ss for its children. */
		if (others && !READ_ONCE(sh->err) &&
		    rg_shadow_ss_write(sh->path, BIT(ss), '-'))
			pr_warn("shadow %s: cannot disable %s\n", sh->path,
				rg_ss_name[ss]);
		css = sh->css[ss];
		WRITE_ONCE(sh->css[ss], NULL);
		if (css)
			css_put(css);
		/* Only @ss's reads closed: the others stay as they are. */
		rg_shadow_rd_update(sh, 0, BIT(ss));
	}
	/* Its protection of the whole, for memory (rg_shadow_root_enable()). */
	if (ss == RG_SS_MEMORY &&
	    rg_shadow_write_file(rg_shadow_root->path, "memory.low", "0"))
		pr_warn("shadow_root %s: cannot set memory.low back to 0\n",
			rg_shadow_root->path);
	__clear_bit(ss, &rg_shadow_mask);
	rg_shadow_subtree_put(shs, n);
out:
	mutex_unlock(&rg_shadow_dir_mutex);
}

/**
 * rg_shadow_group_create - queue the making of @grp's shadow
 * @grp: a new non-root group, not yet in the tree (or, when the service
 *	is enabled, any non-root group, parents first)
 *
 * Caller holds rg_mutex. Return: 0 (also when no controller uses
 * shadows), or -ENOMEM.
 */
int rg_shadow_group_create(struct res_group *grp)
{
	struct res_shadow *sh, *parent;
	struct res_group *g;
	size_t len, root_len;
	char *p;

	lockdep_assert_held(&rg_mutex);
	if (!rg_shadow_users || !grp->parent)
		return 0;
	parent = grp->parent->parent ? grp->parent->shadow : rg_shadow_root;
	root_len = strlen(rg_shadow_root->path);
	len = root_len;
	for (g = grp; g->parent; g = g->parent)
		len += 1 + strlen(g->name);
	sh = rg_shadow_alloc(len);
	if (!sh)
		return -ENOMEM;
	memcpy(sh->path, rg_shadow_root->path, root_len);
	/* SHADOW_ROOT/a/b, written from its end. */
	p = sh->path + len;
	*p = '\0';
	for (g = grp; g->parent; g = g->parent) {
		p -= strlen(g->name);
		memcpy(p, g->name, strlen(g->name));
		*--p = '/';
	}
	sh->parent = parent;
	if (parent)
		rg_shadow_get(parent);
	else	/* A parent without a shadow (its mkdir failed): fail too. */
		sh->err = -ENOENT;
	WRITE_ONCE(sh->grp, grp);
	grp->shadow = sh;
	rg_shadow_queue(RG_SHADOW_MKDIR, sh, 0, NULL, NULL);
	return 0;
}

/**
 * rg_shadow_group_remove - queue the removal of @grp's shadow
 * @grp: a group none of whose tasks a controller points at the shadow
 *	any more, and whose descendants' shadows are gone
 *
 * Caller holds rg_mutex.
 */
void rg_shadow_group_remove(struct res_group *grp)
{
	struct res_shadow *sh = grp->shadow;

	lockdep_assert_held(&rg_mutex);
	if (!sh)
		return;
	grp->shadow = NULL;
	WRITE_ONCE(sh->grp, NULL);
	rg_shadow_queue(RG_SHADOW_RMDIR, sh, 0, NULL, NULL);
	/* The group's reference: the request holds its own. */
	rg_shadow_put(sh);
}

static void __res_shadow_disable(enum rg_shadow_ss ss);

int res_shadow_enable(enum res_group_css_slot slot)
{
	int ss = rg_ss_find(slot);
	struct rg_shadow_batch b;
	struct res_group *grp;
	int ret, err;

	if (ss < 0 || !rg_ss_subsys(ss))
		return ss < 0 ? ss : -ENODEV;
	if (ss == RG_SS_MEMORY && mem_cgroup_disabled()) {
		pr_err("no memory cgroups in this kernel (cgroup_disable=memory?)\n");
		return -ENODEV;
	}
	mutex_lock(&rg_shadow_enable_mutex);
	if (rg_shadow_ss_users[ss]) {
		/* One controller per cgroup controller. */
		mutex_unlock(&rg_shadow_enable_mutex);
		return -EBUSY;
	}
	/* In the worker too: init's credentials and namespaces. */
	mutex_lock(&rg_mutex);
	rg_shadow_batch_begin(&b);
	rg_shadow_queue(RG_SHADOW_SETUP, NULL, ss, NULL, NULL);
	rg_shadow_batch_end(&b);
	mutex_unlock(&rg_mutex);
	ret = rg_shadow_batch_wait(&b, false);
	rg_shadow_ss_users[ss]++;
	if (ret)
		goto fail;
	mutex_lock(&rg_mutex);
	rg_shadow_batch_begin(&b);
	rg_shadow_counted[ss] = true;
	if (rg_shadow_users++ == 0) {
		for (grp = rg_group_next(&rg_root); grp && !ret;
		     grp = rg_group_next(grp))
			ret = rg_shadow_group_create(grp);
	}
	rg_shadow_batch_end(&b);
	mutex_unlock(&rg_mutex);
	/* Every shadow made? */
	err = rg_shadow_batch_wait(&b, false);
	if (!ret)
		ret = err;
	mutex_lock(&rg_mutex);
	for (grp = rg_group_next(&rg_root); grp && !ret;
	     grp = rg_group_next(grp))
		if (grp->shadow)
			ret = READ_ONCE(grp->shadow->err);
	mutex_unlock(&rg_mutex);
	if (!ret) {
		mutex_unlock(&rg_shadow_enable_mutex);
		return 0;
	}
	pr_err("cannot make the groups' shadows for %s: %d\n", rg_ss_name[ss],
	       ret);
fail:
	/* Undone before another controller's enable or disable runs. */
	__res_shadow_disable(ss);
	mutex_unlock(&rg_shadow_enable_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(res_shadow_enable);

/* res_shadow_disable(); caller holds rg_shadow_enable_mutex. */
static void __res_shadow_disable(enum rg_shadow_ss ss)
{
	struct rg_shadow_batch b;
	struct res_group *grp;

	lockdep_assert_held(&rg_shadow_enable_mutex);
	if (!rg_shadow_ss_users[ss])
		return;
	rg_shadow_ss_users[ss]--;
	mutex_lock(&rg_mutex);
	rg_shadow_batch_begin(&b);
	/* First, while the shadows are all there (an ordered queue). */
	rg_shadow_queue(RG_SHADOW_OFF, NULL, ss, NULL, NULL);
	/* A failed enable may not have counted itself yet. */
	if (rg_shadow_counted[ss] && rg_shadow_users-- == 1) {
		for (grp = rg_group_next_post(NULL); grp;
		     grp = rg_group_next_post(grp))
			rg_shadow_group_remove(grp);
	}
	rg_shadow_counted[ss] = false;
	rg_shadow_batch_end(&b);
	mutex_unlock(&rg_mutex);
	/* And the writes a parameter write may still have queued. */
	res_shadow_sync();
	rg_shadow_batch_wait(&b, false);
}

void res_shadow_disable(enum res_group_css_slot slot)
{
	int ss = rg_ss_find(slot);

	if (ss < 0)
		return;
	mutex_lock(&rg_shadow_enable_mutex);
	__res_shadow_disable(ss);
	mutex_unlock(&rg_shadow_enable_mutex);
}
EXPORT_SYMBOL_GPL(res_shadow_disable);

/* The shadow of @s's group: shadow_root's for the root. */
static struct res_shadow *rg_shadow_of(struct res_shares *s)
{
	struct res_group *grp = s->group;

	return grp->parent ? grp->shadow : rg_shadow_root;
}

struct cgroup_subsys_state *res_shadow_css(struct res_shares *s,
					   enum res_group_css_slot slot)
{
	struct res_shadow *sh = rg_shadow_of(s);
	int ss = rg_ss_find(slot);

	if (!sh || ss < 0)
		return NULL;
	/* Pairs with rg_shadow_set_css()'s release. */
	return smp_load_acquire(&sh->css[ss]);
}
EXPORT_SYMBOL_GPL(res_shadow_css);

struct cgroup_subsys_state *res_shadow_css_get(struct res_shares *s,
					       enum res_group_css_slot slot)
{
	struct cgroup_subsys_state *css;

	rcu_read_lock();
	css = res_shadow_css(s, slot);
	if (css && !css_tryget(css))
		css = NULL;
	rcu_read_unlock();
	return css;
}
EXPORT_SYMBOL_GPL(res_shadow_css_get);

void res_shadow_place_task(struct task_struct *tsk, struct res_shares *to,
			   enum res_group_css_slot slot)
{
	struct cgroup_subsys_state *css = NULL;

	if (WARN_ON_ONCE(rg_ss_find(slot) < 0) || (tsk->flags & PF_KTHREAD))
		return;
	if (to && to->parent)
		css = res_shadow_css(to, slot);
	res_group_css_set_task(tsk, slot, css);
}
EXPORT_SYMBOL_GPL(res_shadow_place_task);

void res_shadow_write_str(struct res_shares *s, const char *file,
			  const char *val, unsigned int flags)
{
	struct res_shadow *sh = rg_shadow_of(s);
	char key[RG_SHADOW_NAME_MAX];

	if (WARN_ON_ONCE(strlen(val) >= RG_SHADOW_VAL_MAX ||
			 rg_shadow_key(key, file, val)))
		return;
	if (!sh || sh == rg_shadow_root)
		return;
	rg_shadow_ask(sh, file, key, val, flags);
	rg_shadow_queue(RG_SHADOW_WRITE, sh, 0, file, key);
}
EXPORT_SYMBOL_GPL(res_shadow_write_str);

void res_shadow_write(struct res_shares *s, const char *file, u64 val)
{
	char buf[24];

	if (val == RES_SHADOW_MAX)
		strscpy(buf, "max", sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%llu", val);
	res_shadow_write_str(s, file, buf, 0);
}
EXPORT_SYMBOL_GPL(res_shadow_write);

/* One res_shadow_read(), done by a worker: see there. */
struct rg_shadow_read {
	struct work_struct work;
	struct completion done;
	struct file *f;
	char *buf;
	size_t size;
	ssize_t ret;
};

static void rg_shadow_read_work(struct work_struct *work)
{
	struct rg_shadow_read *rd = container_of(work, struct rg_shadow_read,
						 work);
	loff_t pos = 0;
	ssize_t n = 0, ret = 0;

	while (n < rd->size - 1) {
		ret = kernel_read(rd->f, rd->buf + n, rd->size - 1 - n, &pos);
		if (ret <= 0)
			break;
		n += ret;
	}
	rd->buf[n] = '\0';
	rd->ret = ret < 0 ? ret : n;
	complete(&rd->done);
}

/*
 * The read itself is a worker's, on rg_shadow_read_wq: a cgroup file's
 * read takes kernfs's and seq_file's locks, of one lockdep class for
 * every such file, which a cgroup.subtree_control write holds while it
 * takes cgroup_mutex; read under rg_mutex, they would tie rg_mutex to
 * cgroup_mutex (and forks). The worker takes no lock of ours, and needs
 * no fork to run (the queue's rescuer). The readers share each kept-open
 * file (and its position): rg_mutex serialises them.
 */
ssize_t res_shadow_read(struct res_shares *s, const char *file, char *buf,
			size_t size)
{
	struct res_shadow *sh = rg_shadow_of(s);
	struct rg_shadow_read rd = { .buf = buf, .size = size };
	int i;

	lockdep_assert_held(&rg_mutex);
	if (!size)
		return -EINVAL;
	buf[0] = '\0';
	for (i = 0; i < RG_SHADOW_READS; i++)
		if (!strcmp(file, rg_shadow_reads[i].file))
			break;
	if (WARN_ON_ONCE(i == RG_SHADOW_READS))
		return -EINVAL;
	if (!sh)
		return -ENOENT;
	spin_lock(&sh->knob_lock);
	rd.f = sh->rd[i];
	if (rd.f)
		get_file(rd.f);
	spin_unlock(&sh->knob_lock);
	if (!rd.f)
		return -ENOENT;
	INIT_WORK_ONSTACK(&rd.work, rg_shadow_read_work);
	init_completion(&rd.done);
	queue_work(rg_shadow_read_wq, &rd.work);
	/* Not killable: the worker writes into @buf. */
	wait_for_completion(&rd.done);
	destroy_work_on_stack(&rd.work);
	fput(rd.f);
	/* A directory removed from outside: no shadow (until made again). */
	return rd.ret == -ENODEV ? -ENOENT : rd.ret;
}
EXPORT_SYMBOL_GPL(res_shadow_read);

void res_shadow_sync(void)
{
	flush_workqueue(rg_shadow_wq);
	flush_workqueue(rg_shadow_write_wq);
}
EXPORT_SYMBOL_GPL(res_shadow_sync);

const char *res_shadow_path(struct res_shares *s)
{
	struct res_shadow *sh = rg_shadow_of(s);

	return sh ? sh->path : "";
}
EXPORT_SYMBOL_GPL(res_shadow_path);

int rg_shadow_init(void)
{
	rg_shadow_wq = alloc_ordered_workqueue("rg_shadow", 0);
	rg_shadow_write_wq = alloc_ordered_workqueue("rg_shadow_write", 0);
	rg_shadow_read_wq = alloc_workqueue("rg_shadow_read",
					    WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (rg_shadow_wq && rg_shadow_write_wq && rg_shadow_read_wq)
		return 0;
	if (rg_shadow_wq)
		destroy_workqueue(rg_shadow_wq);
	if (rg_shadow_write_wq)
		destroy_workqueue(rg_shadow_write_wq);
	if (rg_shadow_read_wq)
		destroy_workqueue(rg_shadow_read_wq);
	return -ENOMEM;
}

/* Unload: no controller is left, nor a shadow but shadow_root's. */
void rg_shadow_exit(void)
{
	int ss;

	destroy_workqueue(rg_shadow_read_wq);
	destroy_workqueue(rg_shadow_write_wq);
	destroy_workqueue(rg_shadow_wq);
	if (rg_shadow_root) {
		for (ss = 0; ss < RG_SS_NR; ss++)
			if (rg_shadow_root->css[ss])
				css_put(rg_shadow_root->css[ss]);
		rg_shadow_put(rg_shadow_root);
		rg_shadow_root = NULL;
	}
}

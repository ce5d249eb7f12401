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
 * memory.max write that reclaims for long delays no mkdir. Nothing here
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
 * Knobs: the workers remember, per shadow file, the value last asked for
 * and what the file holds (what the last write that succeeded wrote), and
 * skip a write of what it holds: a controller queues every knob every
 * time, and a write that failed is done again when asked again.
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
 * join, cleared after the last left). A shadow's @css is written by the
 * workers under rg_shadow_dir_mutex (and rg_mutex when it is replaced)
 * with release, and read anywhere with acquire. @err is the mkdir's
 * result, written before @made completes. Order: rg_shadow_dir_mutex,
 * rg_shadow_knob_mutex, rg_mutex (the workers take rg_mutex only to walk
 * the groups and publish css's; its holders never wait for a worker).
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
#include <linux/res_group_shadow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "rg.h"

static char *shadow_root = "/sys/fs/cgroup/res_groups";
module_param(shadow_root, charp, 0444);
MODULE_PARM_DESC(shadow_root,
		 "cgroup v2 directory under which the groups' shadow cgroups are made");

/* The knobs a shadow remembers, per file: at most this many files. */
#define RG_SHADOW_KNOBS	4

/**
 * struct rg_shadow_knob - one file of a shadow, as the workers know it
 * @file: its name ("" if the slot is free)
 * @val: the value last asked for
 * @has: what the file holds, if @ok
 * @ok: the last write of the file succeeded (it holds @has)
 */
struct rg_shadow_knob {
	char file[24];
	u64 val;
	u64 has;
	bool ok;
};

/**
 * struct res_shadow - one group's shadow directory
 * @parent: the parent group's shadow (a reference), NULL for the root's
 * @grp: its group, NULL once the group is removed (rg_mutex)
 * @css: its memory css (a reference), once made; replaced when the
 *	directory is made again (rg_mutex and rg_shadow_dir_mutex)
 * @ref: the group's reference and one per request and child shadow
 * @made: completed once the first mkdir was tried
 * @err: the mkdir's errno, 0 once made
 * @knobs: its files' values (rg_shadow_knob_mutex)
 * @path: the directory
 */
struct res_shadow {
	struct res_shadow *parent;
	struct res_group *grp;
	struct cgroup_subsys_state *css;
	refcount_t ref;
	struct completion made;
	int err;
	struct rg_shadow_knob knobs[RG_SHADOW_KNOBS];
	char path[];
};

enum rg_shadow_op {
	RG_SHADOW_SETUP,
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
 * @sh: the shadow (a reference), NULL for RG_SHADOW_SETUP
 * @file: the file to write
 * @val: the value to write
 */
struct rg_shadow_req {
	struct work_struct work;
	struct list_head node;
	refcount_t ref;
	struct completion done;
	int err;
	enum rg_shadow_op op;
	struct res_shadow *sh;
	char file[24];
	u64 val;
};

static struct workqueue_struct *rg_shadow_wq;
static struct workqueue_struct *rg_shadow_write_wq;
static struct res_shadow *rg_shadow_root;
static DEFINE_MUTEX(rg_shadow_enable_mutex);
/* Directories: mkdir, rmdir and making removed ones again; the css's. */
static DEFINE_MUTEX(rg_shadow_dir_mutex);
/* The shadows' knobs (struct rg_shadow_knob); after rg_shadow_dir_mutex. */
static DEFINE_MUTEX(rg_shadow_knob_mutex);
/*
 * The batch of rg_mutex's holder, if it keeps one, and that holder
 * (written under rg_mutex). A queuer without rg_mutex compares the owner
 * with current before it reads the batch: it lies in the owner's stack.
 */
static struct rg_shadow_batch *rg_shadow_batch_cur;
static struct task_struct *rg_shadow_batch_owner;
static int rg_shadow_users;

static int rg_shadow_root_setup(void);
static struct cgroup_subsys_state *rg_shadow_root_make(const char *path);

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

/* The memory css of the cgroup at @path, with a reference. */
static struct cgroup_subsys_state *rg_shadow_css_of(const char *path)
{
	struct cgroup_subsys_state *css;
	struct path p;
	int ret;

	ret = kern_path(path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &p);
	if (ret)
		return ERR_PTR(ret);
	css = css_tryget_online_from_dir(p.dentry, &memory_cgrp_subsys);
	path_put(&p);
	/* Not cgroupfs, or cgroup v1's memory: not ours to use. */
	if (PTR_ERR_OR_ZERO(css) == -EBADF ||
	    (!IS_ERR(css) && !cgroup_subsys_on_dfl(memory_cgrp_subsys))) {
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
	struct res_shadow *parent;

	while (sh && refcount_dec_and_test(&sh->ref)) {
		parent = sh->parent;
		kfree(sh);
		sh = parent;
	}
}

/* Write @val to @sh's @file: "max" for RES_SHADOW_MAX. */
static int rg_shadow_put_val(struct res_shadow *sh, const char *file,
			     u64 val)
{
	char buf[24];
	int ret;

	if (val == RES_SHADOW_MAX)
		strscpy(buf, "max", sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%llu", val);
	ret = rg_shadow_write_file(sh->path, file, buf);
	if (ret)
		pr_warn("%s/%s: writing %s failed: %d\n", sh->path, file, buf,
			ret);
	return ret;
}

/*
 * The directory part of a mkdir: make it (or reset one found there: an
 * rmdir that failed, an older run's, an administrator's, to what a new
 * one has), let its children have memory cgroups, take its css. Caller
 * holds rg_shadow_dir_mutex.
 */
static struct cgroup_subsys_state *rg_shadow_make_dir(struct res_shadow *sh)
{
	int ret;

	ret = rg_shadow_mkdir_path(sh->path);
	if (ret < 0)
		return ERR_PTR(ret);
	if (ret > 0) {
		ret = rg_shadow_write_file(sh->path, "memory.max", "max");
		if (!ret)
			ret = rg_shadow_write_file(sh->path, "memory.high",
						   "max");
		if (!ret)
			ret = rg_shadow_write_file(sh->path, "memory.low", "0");
		if (ret)
			return ERR_PTR(ret);
	}
	/* It never has tasks. */
	ret = rg_shadow_write_file(sh->path, "cgroup.subtree_control",
				   "+memory");
	if (ret)
		return ERR_PTR(ret);
	return rg_shadow_css_of(sh->path);
}

/* Is @sh's directory gone (removed from outside)? */
static bool rg_shadow_gone(struct res_shadow *sh)
{
	struct cgroup_subsys_state *css = READ_ONCE(sh->css);

	return css && css_is_dying(css);
}

static int rg_shadow_remake(struct res_shadow *sh);

static void rg_shadow_do_mkdir(struct res_shadow *sh)
{
	struct cgroup_subsys_state *css;
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
	css = rg_shadow_make_dir(sh);
	ret = PTR_ERR_OR_ZERO(css);
	if (!ret) {
		/* Pairs with res_shadow_css(): the css is whole when seen. */
		smp_store_release(&sh->css, css);
	}
	mutex_unlock(&rg_shadow_dir_mutex);
out:
	if (ret)
		pr_warn("shadow %s not made: %d\n", sh->path, ret);
	WRITE_ONCE(sh->err, ret);
	complete_all(&sh->made);
}

static void rg_shadow_do_rmdir(struct res_shadow *sh)
{
	int ret;

	mutex_lock(&rg_shadow_dir_mutex);
	if (sh->css) {
		/* Readers of a task's pointer to it are done. */
		synchronize_rcu();
		css_put(sh->css);
		sh->css = NULL;
	}
	if (!sh->err) {
		ret = rg_shadow_rmdir_path(sh->path);
		/* Gone already (removed from outside): fine. */
		if (ret && ret != -ENOENT)
			pr_warn("shadow %s not removed: %d\n", sh->path, ret);
	}
	mutex_unlock(&rg_shadow_dir_mutex);
}

/*
 * Write a knob, unless the file holds the value already. The workers
 * know what each file holds: it is what the last write that succeeded
 * wrote; after a failure, the file is written again whatever it is
 * asked for. Caller holds rg_shadow_dir_mutex.
 */
static int rg_shadow_do_write(struct res_shadow *sh, const char *file,
			      u64 val)
{
	struct rg_shadow_knob *k = NULL;
	int i, ret;

	for (i = 0; i < RG_SHADOW_KNOBS; i++) {
		if (!strcmp(sh->knobs[i].file, file)) {
			k = &sh->knobs[i];
			break;
		}
		if (!k && !sh->knobs[i].file[0])
			k = &sh->knobs[i];
	}
	if (WARN_ON_ONCE(!k))
		return -ENOSPC;
	if (!k->file[0])
		strscpy(k->file, file, sizeof(k->file));
	k->val = val;
	if (k->ok && k->has == val)
		return 0;
	k->ok = false;
	ret = rg_shadow_put_val(sh, file, val);
	if (!ret) {
		k->has = val;
		k->ok = true;
	}
	return ret;
}

/*
 * rg_shadow_remake - make @sh's directory again, removed from outside
 * (systemd removes a delegated unit's cgroups when it restarts it; an
 * administrator's rmdir), with its ancestors' that are gone too and the
 * whole subtree below the highest of them, each with the knobs it was
 * asked for; point the groups' tasks at the new memory cgroups.
 *
 * The directories are made without rg_mutex (see the top of the file),
 * then the css's swapped and the tasks told under it (the framework's
 * res_group_retell_tasks() to the controller named as the cgroup
 * controller, "memory"); the old css's are put a grace period later, as
 * at rmdir. Return: 0, or the errno of the first directory that could
 * not be made.
 */
static int rg_shadow_remake(struct res_shadow *sh)
{
	struct cgroup_subsys_state **old = NULL;
	struct res_shadow **shs = NULL, *top = sh;
	struct res_controller *ctl;
	struct res_group *grp, *g;
	int i, n = 0, ret = 0;

	mutex_lock(&rg_shadow_dir_mutex);
	if (!rg_shadow_gone(sh))
		goto out_unlock;
	while (top->parent && rg_shadow_gone(top->parent))
		top = top->parent;
	/* The directories below @top, parents first, while rg_mutex holds. */
	mutex_lock(&rg_mutex);
	grp = top->grp;
	if (grp) {
		for (g = grp, n = 0; g; g = rg_group_next(g)) {
			if (g != grp && g->depth <= grp->depth)
				break;
			n++;
		}
		shs = kcalloc(n, sizeof(*shs), GFP_KERNEL);
		old = kcalloc(n, sizeof(*old), GFP_KERNEL);
		if (!shs || !old)
			n = 0;
		for (g = grp, i = 0; i < n; g = rg_group_next(g), i++) {
			shs[i] = g == &rg_root ? rg_shadow_root : g->shadow;
			if (shs[i])
				rg_shadow_get(shs[i]);
		}
	}
	mutex_unlock(&rg_mutex);
	if (!n) {
		ret = grp ? -ENOMEM : 0;
		goto out_unlock;
	}
	pr_info("shadow %s removed from outside: making it again\n",
		top->path);
	for (i = 0; i < n; i++) {
		struct cgroup_subsys_state *css;
		struct rg_shadow_knob *k;

		/* Never made (its own mkdir is queued), or failed: skip. */
		if (!shs[i] || !shs[i]->css)
			continue;
		if (shs[i] == rg_shadow_root)
			css = rg_shadow_root_make(shs[i]->path);
		else
			css = rg_shadow_make_dir(shs[i]);
		if (IS_ERR(css)) {
			pr_warn("shadow %s not made again: %ld\n",
				shs[i]->path, PTR_ERR(css));
			if (!ret)
				ret = PTR_ERR(css);
			continue;
		}
		/* The new css for now; swapped under rg_mutex below. */
		old[i] = css;
		mutex_lock(&rg_shadow_knob_mutex);
		for (k = shs[i]->knobs; k < shs[i]->knobs + RG_SHADOW_KNOBS;
		     k++) {
			if (!k->file[0])
				continue;
			k->ok = false;
			if (rg_shadow_do_write(shs[i], k->file, k->val) && !ret)
				ret = -EIO;
		}
		mutex_unlock(&rg_shadow_knob_mutex);
	}
	mutex_lock(&rg_mutex);
	ctl = rg_controller_find("memory", strlen("memory"));
	for (i = 0; i < n; i++) {
		struct cgroup_subsys_state *new = old[i];

		if (!new)
			continue;
		old[i] = shs[i]->css;
		/* Pairs with res_shadow_css(): the css is whole when seen. */
		smp_store_release(&shs[i]->css, new);
		grp = shs[i]->grp;
		if (grp && ctl && grp->shares[ctl->id])
			res_group_retell_tasks(ctl, grp->shares[ctl->id]);
	}
	mutex_unlock(&rg_mutex);
	/* Readers of the tasks' old pointers are done. */
	synchronize_rcu();
	for (i = 0; i < n; i++) {
		if (old[i])
			css_put(old[i]);
		rg_shadow_put(shs[i]);
	}
out_unlock:
	mutex_unlock(&rg_shadow_dir_mutex);
	kfree(shs);
	kfree(old);
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

static void rg_shadow_work(struct work_struct *work)
{
	struct rg_shadow_req *req = container_of(work, struct rg_shadow_req,
						 work);
	struct res_shadow *sh = req->sh;
	bool gone;
	int ret = 0;

	switch (req->op) {
	case RG_SHADOW_SETUP:
		ret = rg_shadow_root_setup();
		break;
	case RG_SHADOW_MKDIR:
		rg_shadow_do_mkdir(sh);
		ret = READ_ONCE(sh->err);
		break;
	case RG_SHADOW_WRITE:
		/* Queued for a child whose mkdir is not done yet. */
		wait_for_completion(&sh->made);
		if (READ_ONCE(sh->err))
			break;
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
		mutex_lock(&rg_shadow_knob_mutex);
		if (READ_ONCE(sh->grp))
			ret = rg_shadow_do_write(sh, req->file, req->val);
		mutex_unlock(&rg_shadow_knob_mutex);
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
			    const char *file, u64 val)
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
	req->sh = sh;
	if (sh)
		rg_shadow_get(sh);
	if (file)
		strscpy(req->file, file, sizeof(req->file));
	req->val = val;
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

/*
 * Make shadow_root at @path (again): memory for it in its parent (best
 * effort: a delegated parent, systemd's, has it already) and below it,
 * and the whole as its guarantee. Return: its css, with a reference.
 */
static struct cgroup_subsys_state *rg_shadow_root_make(const char *path)
{
	struct cgroup_subsys_state *css;
	const char *slash = strrchr(path, '/');
	char *parent;
	int ret;

	parent = slash == path ? kstrdup("/", GFP_KERNEL) :
		 kstrndup(path, slash - path, GFP_KERNEL);
	if (!parent)
		return ERR_PTR(-ENOMEM);
	rg_shadow_write_file(parent, "cgroup.subtree_control", "+memory");
	kfree(parent);
	ret = rg_shadow_mkdir_path(path);
	if (ret < 0) {
		pr_err("cannot make shadow_root %s: %d\n", path, ret);
		return ERR_PTR(ret);
	}
	css = rg_shadow_css_of(path);
	if (IS_ERR(css)) {
		pr_err("shadow_root %s has no cgroup v2 memory controller (%ld)\n",
		       path, PTR_ERR(css));
		return css;
	}
	ret = rg_shadow_write_file(path, "cgroup.subtree_control", "+memory");
	/*
	 * The root group's guarantee is the whole: memcg caps a child's
	 * protection by its parent's (effective_protection()), so without
	 * this no shadow's memory.low would protect anything. (The shadow
	 * root's own ancestors must protect it too: docs.)
	 */
	if (!ret)
		ret = rg_shadow_write_file(path, "memory.low", "max");
	if (ret) {
		pr_err("cannot enable memory below shadow_root %s: %d\n", path,
		       ret);
		css_put(css);
		return ERR_PTR(ret);
	}
	return css;
}

/* shadow_root, made and set up once (the first enable). */
static int rg_shadow_root_setup(void)
{
	struct cgroup_subsys_state *css;
	struct res_shadow *sh;
	const char *slash;
	char *parent;
	int ret;

	if (rg_shadow_root)
		return 0;
	if (shadow_root[0] != '/' || strlen(shadow_root) < 2) {
		pr_err("shadow_root %s: not an absolute path\n", shadow_root);
		return -EINVAL;
	}
	slash = strrchr(shadow_root, '/');
	parent = slash == shadow_root ? kstrdup("/", GFP_KERNEL) :
		 kstrndup(shadow_root, slash - shadow_root, GFP_KERNEL);
	sh = kzalloc(struct_size(sh, path, strlen(shadow_root) + 1),
		     GFP_KERNEL);
	ret = -ENOMEM;
	if (!parent || !sh)
		goto out;
	strcpy(sh->path, shadow_root);
	refcount_set(&sh->ref, 1);
	init_completion(&sh->made);
	complete_all(&sh->made);
	sh->grp = &rg_root;
	/* cgroup v2, before anything is made there (a v1 or hybrid boot). */
	ret = rg_shadow_on_cgroup2(parent);
	if (ret) {
		pr_err("shadow_root %s has no cgroup v2 memory controller: %s is not on cgroup v2 (%d)\n",
		       shadow_root, parent, ret);
		goto out;
	}
	mutex_lock(&rg_shadow_dir_mutex);
	css = rg_shadow_root_make(shadow_root);
	mutex_unlock(&rg_shadow_dir_mutex);
	ret = PTR_ERR_OR_ZERO(css);
	if (ret)
		goto out;
	sh->css = css;
	rg_shadow_root = sh;
	sh = NULL;
out:
	kfree(parent);
	kfree(sh);
	return ret;
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
	sh = kzalloc(struct_size(sh, path, len + 1), GFP_KERNEL);
	if (!sh)
		return -ENOMEM;
	/* SHADOW_ROOT/a/b, written from its end. */
	p = sh->path + len;
	*p = '\0';
	for (g = grp; g->parent; g = g->parent) {
		p -= strlen(g->name);
		memcpy(p, g->name, strlen(g->name));
		*--p = '/';
	}
	memcpy(sh->path, rg_shadow_root->path, root_len);
	refcount_set(&sh->ref, 1);
	init_completion(&sh->made);
	sh->parent = parent;
	if (parent)
		rg_shadow_get(parent);
	else	/* A parent without a shadow (its mkdir failed): fail too. */
		sh->err = -ENOENT;
	WRITE_ONCE(sh->grp, grp);
	grp->shadow = sh;
	rg_shadow_queue(RG_SHADOW_MKDIR, sh, NULL, 0);
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
	rg_shadow_queue(RG_SHADOW_RMDIR, sh, NULL, 0);
	/* The group's reference: the request holds its own. */
	rg_shadow_put(sh);
}

int res_shadow_enable(const char *subsys)
{
	struct rg_shadow_batch b;
	struct res_group *grp;
	int ret;

	if (strcmp(subsys, "memory"))
		return -EINVAL;
	if (mem_cgroup_disabled()) {
		pr_err("no memory cgroups in this kernel (cgroup_disable=memory?)\n");
		return -ENODEV;
	}
	mutex_lock(&rg_shadow_enable_mutex);
	/* In the worker too: init's credentials and namespaces. */
	mutex_lock(&rg_mutex);
	rg_shadow_batch_begin(&b);
	rg_shadow_queue(RG_SHADOW_SETUP, NULL, NULL, 0);
	rg_shadow_batch_end(&b);
	mutex_unlock(&rg_mutex);
	ret = rg_shadow_batch_wait(&b, false);
	if (ret)
		goto out;
	mutex_lock(&rg_mutex);
	rg_shadow_batch_begin(&b);
	if (rg_shadow_users++ == 0) {
		for (grp = rg_group_next(&rg_root); grp && !ret;
		     grp = rg_group_next(grp))
			ret = rg_shadow_group_create(grp);
	}
	rg_shadow_batch_end(&b);
	mutex_unlock(&rg_mutex);
	/* Every shadow made? */
	if (rg_shadow_batch_wait(&b, false) && !ret)
		ret = -ENOENT;
	mutex_lock(&rg_mutex);
	for (grp = rg_group_next(&rg_root); grp && !ret;
	     grp = rg_group_next(grp))
		if (grp->shadow)
			ret = READ_ONCE(grp->shadow->err);
	mutex_unlock(&rg_mutex);
	if (ret) {
		pr_err("cannot make the groups' shadows: %d\n", ret);
		mutex_unlock(&rg_shadow_enable_mutex);
		res_shadow_disable(subsys);
		return ret;
	}
out:
	mutex_unlock(&rg_shadow_enable_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(res_shadow_enable);

void res_shadow_disable(const char *subsys)
{
	struct rg_shadow_batch b;
	struct res_group *grp;

	mutex_lock(&rg_shadow_enable_mutex);
	mutex_lock(&rg_mutex);
	rg_shadow_batch_begin(&b);
	if (rg_shadow_users && --rg_shadow_users == 0) {
		for (grp = rg_group_next_post(NULL); grp;
		     grp = rg_group_next_post(grp))
			rg_shadow_group_remove(grp);
	}
	rg_shadow_batch_end(&b);
	mutex_unlock(&rg_mutex);
	/* And the writes a parameter write may still have queued. */
	res_shadow_sync();
	rg_shadow_batch_wait(&b, false);
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
					   const char *subsys)
{
	struct res_shadow *sh = rg_shadow_of(s);

	if (!sh || strcmp(subsys, "memory"))
		return NULL;
	/* Pairs with rg_shadow_do_mkdir()'s release. */
	return smp_load_acquire(&sh->css);
}
EXPORT_SYMBOL_GPL(res_shadow_css);

struct cgroup_subsys_state *res_shadow_css_get(struct res_shares *s,
					       const char *subsys)
{
	struct cgroup_subsys_state *css;

	rcu_read_lock();
	css = res_shadow_css(s, subsys);
	if (css && !css_tryget(css))
		css = NULL;
	rcu_read_unlock();
	return css;
}
EXPORT_SYMBOL_GPL(res_shadow_css_get);

void res_shadow_write(struct res_shares *s, const char *file, u64 val)
{
	struct res_shadow *sh = rg_shadow_of(s);

	if (sh && sh != rg_shadow_root)
		rg_shadow_queue(RG_SHADOW_WRITE, sh, file, val);
}
EXPORT_SYMBOL_GPL(res_shadow_write);

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
	if (rg_shadow_wq && rg_shadow_write_wq)
		return 0;
	if (rg_shadow_wq)
		destroy_workqueue(rg_shadow_wq);
	if (rg_shadow_write_wq)
		destroy_workqueue(rg_shadow_write_wq);
	return -ENOMEM;
}

/* Unload: no controller is left, nor a shadow but shadow_root's. */
void rg_shadow_exit(void)
{
	destroy_workqueue(rg_shadow_write_wq);
	destroy_workqueue(rg_shadow_wq);
	if (rg_shadow_root) {
		css_put(rg_shadow_root->css);
		rg_shadow_put(rg_shadow_root);
		rg_shadow_root = NULL;
	}
}

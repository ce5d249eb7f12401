// SPDX-License-Identifier: GPL-2.0
/*
 * Resource Groups: shadow cgroups (<linux/res_group_shadow.h>).
 *
 * A shadow is a cgroup v2 directory under shadow_root at its group's path
 * (group /a/b: SHADOW_ROOT/a/b), so that a reader of /sys/fs/cgroup sees
 * which group each backs. The root group's shadow is shadow_root.
 *
 * Every directory operation and file write is a request on rg_shadow_wq,
 * an ordered workqueue: they run one at a time, in the order they were
 * queued, in a kworker (init's credentials, mount and cgroup namespaces),
 * so a child's mkdir follows its parent's and a removal follows the
 * writes before it. Nothing here sleeps on the VFS or cgroup under the
 * framework's locks: cgroup's subtree_control writes wait for every fork
 * in progress (cgroup_threadgroup_rwsem), and forks may wait for
 * rg_fork_sem. Directories are made with vfs_mkdir() and removed with
 * vfs_rmdir() on the mounted cgroup2 (never a mount of our own), files
 * written with kernel_write().
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
 * join, cleared after the last left). @css is written once by the worker
 * (release) and read anywhere (acquire). @err is the mkdir's result,
 * written by the worker before the queue is flushed.
 * rg_shadow_write_err holds the first failed write since the last
 * res_shadow_sync().
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

/**
 * struct res_shadow - one group's shadow directory
 * @parent: the parent group's shadow (outlives it), NULL for the root's
 * @css: its memory css (a reference), once made
 * @err: the mkdir's errno, 0 once made
 * @path: the directory
 */
struct res_shadow {
	struct res_shadow *parent;
	struct cgroup_subsys_state *css;
	int err;
	char path[];
};

enum rg_shadow_op {
	RG_SHADOW_SETUP,
	RG_SHADOW_MKDIR,
	RG_SHADOW_WRITE,
	RG_SHADOW_RMDIR,
};

struct rg_shadow_req {
	struct work_struct work;
	enum rg_shadow_op op;
	struct res_shadow *sh;
	char file[32];
	u64 val;
};

static struct workqueue_struct *rg_shadow_wq;
static struct res_shadow *rg_shadow_root;
static DEFINE_MUTEX(rg_shadow_enable_mutex);
static atomic_t rg_shadow_write_err = ATOMIC_INIT(0);
static int rg_shadow_users;
/* What the last RG_SHADOW_SETUP gave (rg_shadow_enable_mutex). */
static int rg_shadow_setup_err;

static int rg_shadow_root_setup(void);

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

static void rg_shadow_do_mkdir(struct res_shadow *sh)
{
	struct cgroup_subsys_state *css;
	int ret;

	ret = sh->err;
	if (!ret && sh->parent && READ_ONCE(sh->parent->err))
		ret = -ENOENT;
	if (ret)
		goto out;
	ret = rg_shadow_mkdir_path(sh->path);
	if (ret < 0)
		goto out;
	/*
	 * A directory left there (an rmdir that failed, an older run's, an
	 * administrator's) gets the settings a new one has, which the
	 * controller takes as its starting point.
	 */
	if (ret > 0) {
		ret = rg_shadow_write_file(sh->path, "memory.max", "max");
		if (!ret)
			ret = rg_shadow_write_file(sh->path, "memory.high",
						   "max");
		if (!ret)
			ret = rg_shadow_write_file(sh->path, "memory.low", "0");
		if (ret)
			goto out;
	}
	/* Its children get memory cgroups too; it never has tasks. */
	ret = rg_shadow_write_file(sh->path, "cgroup.subtree_control",
				   "+memory");
	if (ret)
		goto out;
	css = rg_shadow_css_of(sh->path);
	ret = PTR_ERR_OR_ZERO(css);
	if (!ret) {
		/* Pairs with res_shadow_css(): the css is whole when seen. */
		smp_store_release(&sh->css, css);
	}
out:
	if (ret)
		pr_warn("shadow %s not made: %d\n", sh->path, ret);
	WRITE_ONCE(sh->err, ret);
}

static void rg_shadow_do_rmdir(struct res_shadow *sh)
{
	int ret;

	if (sh->css) {
		/* Readers of a task's pointer to it are done. */
		synchronize_rcu();
		css_put(sh->css);
	}
	if (!sh->err) {
		ret = rg_shadow_rmdir_path(sh->path);
		if (ret)
			pr_warn("shadow %s not removed: %d\n", sh->path, ret);
	}
	kfree(sh);
}

static void rg_shadow_work(struct work_struct *work)
{
	struct rg_shadow_req *req = container_of(work, struct rg_shadow_req,
						 work);
	struct res_shadow *sh = req->sh;
	char buf[24];
	int ret;

	switch (req->op) {
	case RG_SHADOW_SETUP:
		rg_shadow_setup_err = rg_shadow_root_setup();
		break;
	case RG_SHADOW_MKDIR:
		rg_shadow_do_mkdir(sh);
		break;
	case RG_SHADOW_WRITE:
		if (READ_ONCE(sh->err))
			break;
		if (req->val == RES_SHADOW_MAX)
			strscpy(buf, "max", sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%llu", req->val);
		ret = rg_shadow_write_file(sh->path, req->file, buf);
		if (ret) {
			pr_warn("%s/%s: writing %s failed: %d\n", sh->path,
				req->file, buf, ret);
			atomic_cmpxchg(&rg_shadow_write_err, 0, ret);
		}
		break;
	case RG_SHADOW_RMDIR:
		rg_shadow_do_rmdir(sh);
		break;
	}
	kfree(req);
}

/* Queue @op; a request that cannot be allocated waits here instead. */
static void rg_shadow_queue(enum rg_shadow_op op, struct res_shadow *sh,
			    const char *file, u64 val)
{
	struct rg_shadow_req *req;

	req = kzalloc(sizeof(*req), GFP_KERNEL | __GFP_NOFAIL);
	INIT_WORK(&req->work, rg_shadow_work);
	req->op = op;
	req->sh = sh;
	if (file)
		strscpy(req->file, file, sizeof(req->file));
	req->val = val;
	queue_work(rg_shadow_wq, &req->work);
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
	/* cgroup v2, before anything is made there (a v1 or hybrid boot). */
	ret = rg_shadow_on_cgroup2(parent);
	if (ret) {
		pr_err("shadow_root %s has no cgroup v2 memory controller: %s is not on cgroup v2 (%d)\n",
		       shadow_root, parent, ret);
		goto out;
	}
	/* Best effort: a delegated parent (systemd's) has it already. */
	rg_shadow_write_file(parent, "cgroup.subtree_control", "+memory");
	ret = rg_shadow_mkdir_path(shadow_root);
	if (ret < 0) {
		pr_err("cannot make shadow_root %s: %d\n", shadow_root, ret);
		goto out;
	}
	css = rg_shadow_css_of(shadow_root);
	ret = PTR_ERR_OR_ZERO(css);
	if (ret) {
		pr_err("shadow_root %s has no cgroup v2 memory controller (%d)\n",
		       shadow_root, ret);
		goto out;
	}
	ret = rg_shadow_write_file(shadow_root, "cgroup.subtree_control",
				   "+memory");
	/*
	 * The root group's guarantee is the whole: memcg caps a child's
	 * protection by its parent's (effective_protection()), so without
	 * this no shadow's memory.low would protect anything. (The shadow
	 * root's own ancestors must protect it too: docs.)
	 */
	if (!ret)
		ret = rg_shadow_write_file(shadow_root, "memory.low", "max");
	if (ret) {
		pr_err("cannot enable memory below shadow_root %s: %d\n",
		       shadow_root, ret);
		css_put(css);
		goto out;
	}
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
	sh->parent = parent;
	/* A parent without a shadow (its mkdir failed): fail too. */
	if (!parent)
		sh->err = -ENOENT;
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
	rg_shadow_queue(RG_SHADOW_RMDIR, sh, NULL, 0);
}

int res_shadow_enable(const char *subsys)
{
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
	rg_shadow_queue(RG_SHADOW_SETUP, NULL, NULL, 0);
	flush_workqueue(rg_shadow_wq);
	ret = rg_shadow_setup_err;
	if (ret)
		goto out;
	mutex_lock(&rg_mutex);
	if (rg_shadow_users++ == 0) {
		for (grp = rg_group_next(&rg_root); grp && !ret;
		     grp = rg_group_next(grp))
			ret = rg_shadow_group_create(grp);
	}
	mutex_unlock(&rg_mutex);
	if (!ret)
		res_shadow_sync();
	/* Every shadow made? */
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
	struct res_group *grp;

	mutex_lock(&rg_shadow_enable_mutex);
	mutex_lock(&rg_mutex);
	if (rg_shadow_users && --rg_shadow_users == 0) {
		for (grp = rg_group_next_post(NULL); grp;
		     grp = rg_group_next_post(grp))
			rg_shadow_group_remove(grp);
	}
	mutex_unlock(&rg_mutex);
	res_shadow_sync();
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

void res_shadow_write(struct res_shares *s, const char *file, u64 val)
{
	struct res_shadow *sh = rg_shadow_of(s);

	if (sh && sh != rg_shadow_root)
		rg_shadow_queue(RG_SHADOW_WRITE, sh, file, val);
}
EXPORT_SYMBOL_GPL(res_shadow_write);

int res_shadow_sync(void)
{
	flush_workqueue(rg_shadow_wq);
	return atomic_xchg(&rg_shadow_write_err, 0);
}
EXPORT_SYMBOL_GPL(res_shadow_sync);

const char *res_shadow_path(struct res_shares *s)
{
	struct res_shadow *sh = rg_shadow_of(s);

	return sh ? sh->path : "";
}
EXPORT_SYMBOL_GPL(res_shadow_path);

/**
 * rg_shadow_wait - wait for the shadow work a mkdir or shares write queued
 * @grp: its group
 *
 * Caller holds no lock. Return: 0, the errno of @grp's shadow's mkdir, or
 * that of a write queued since the last wait.
 */
int rg_shadow_wait(struct res_group *grp)
{
	struct res_shadow *sh;
	int ret;

	ret = res_shadow_sync();
	mutex_lock(&rg_mutex);
	sh = grp->shadow;
	if (sh && READ_ONCE(sh->err))
		ret = READ_ONCE(sh->err);
	mutex_unlock(&rg_mutex);
	return ret;
}

int rg_shadow_init(void)
{
	rg_shadow_wq = alloc_ordered_workqueue("rg_shadow", 0);
	return rg_shadow_wq ? 0 : -ENOMEM;
}

/* Unload: no controller is left, nor a shadow but shadow_root's. */
void rg_shadow_exit(void)
{
	destroy_workqueue(rg_shadow_wq);
	if (rg_shadow_root) {
		css_put(rg_shadow_root->css);
		kfree(rg_shadow_root);
		rg_shadow_root = NULL;
	}
}

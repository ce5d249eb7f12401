// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: writing anything to its "spawn" parameter creates a
 * kernel thread (and stops it before it runs); the write fails with the
 * errno of the creation. Lets a test check that kernel threads can still
 * be created when every limit is reached.
 */
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static int rg_kthread_fn(void *data)
{
	return 0;
}

static int rg_kthread_spawn(const char *val, const struct kernel_param *kp)
{
	struct task_struct *t;

	t = kthread_create(rg_kthread_fn, NULL, "rg_kthread");
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* Never woken: the thread exits without running rg_kthread_fn(). */
	kthread_stop(t);
	return 0;
}

static const struct kernel_param_ops rg_kthread_ops = {
	.set = rg_kthread_spawn,
};

module_param_cb(spawn, &rg_kthread_ops, NULL, 0200);
MODULE_PARM_DESC(spawn, "Write anything: create and stop a kernel thread");

MODULE_DESCRIPTION("Resource Groups: kernel thread creation for tests");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: accounted page allocations of kinds user space cannot
 * ask for, made in the context of the task that writes a parameter (so
 * charged to its group by rg_kmem.ko):
 *   nofail  write N: N pages with GFP_KERNEL_ACCOUNT | __GFP_NOFAIL
 *   atomic  write N: up to N pages with GFP_ATOMIC | __GFP_ACCOUNT (the
 *           flags only: it runs in process context); stops at the first
 *           failure (the write still succeeds)
 *   allocated (read): the pages the last write got
 *   free    write anything: free every page held
 * The pages are kept on a list until "free" or unload.
 */
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

static LIST_HEAD(rg_pages);
static DEFINE_MUTEX(rg_lock);
static unsigned int allocated;

static int rg_alloc(const char *val, gfp_t gfp)
{
	unsigned int n, i;
	struct page *p;

	if (kstrtouint(val, 10, &n) || n > 4096)
		return -EINVAL;
	mutex_lock(&rg_lock);
	for (i = 0; i < n; i++) {
		p = alloc_page(gfp);
		if (!p)
			break;
		list_add(&p->lru, &rg_pages);
	}
	allocated = i;
	mutex_unlock(&rg_lock);
	return 0;
}

static int rg_nofail(const char *val, const struct kernel_param *kp)
{
	return rg_alloc(val, GFP_KERNEL_ACCOUNT | __GFP_NOFAIL);
}

static int rg_atomic(const char *val, const struct kernel_param *kp)
{
	return rg_alloc(val, GFP_ATOMIC | __GFP_ACCOUNT | __GFP_NOWARN);
}

static void rg_free_all(void)
{
	struct page *p, *n;

	mutex_lock(&rg_lock);
	list_for_each_entry_safe(p, n, &rg_pages, lru) {
		list_del(&p->lru);
		__free_page(p);
	}
	mutex_unlock(&rg_lock);
}

static int rg_free(const char *val, const struct kernel_param *kp)
{
	rg_free_all();
	return 0;
}

static const struct kernel_param_ops rg_nofail_ops = { .set = rg_nofail };
static const struct kernel_param_ops rg_atomic_ops = { .set = rg_atomic };
static const struct kernel_param_ops rg_free_ops = { .set = rg_free };

module_param_cb(nofail, &rg_nofail_ops, NULL, 0200);
MODULE_PARM_DESC(nofail, "Write N: allocate N accounted pages, __GFP_NOFAIL");
module_param_cb(atomic, &rg_atomic_ops, NULL, 0200);
MODULE_PARM_DESC(atomic, "Write N: allocate up to N accounted pages, GFP_ATOMIC");
module_param_cb(free, &rg_free_ops, NULL, 0200);
MODULE_PARM_DESC(free, "Write anything: free every page");
module_param(allocated, uint, 0444);
MODULE_PARM_DESC(allocated, "Pages the last nofail or atomic write got");

static void __exit rg_kmem_alloc_exit(void)
{
	rg_free_all();
}

module_exit(rg_kmem_alloc_exit);
MODULE_DESCRIPTION("Resource Groups: accounted allocations for the kmem tests");
MODULE_LICENSE("GPL");

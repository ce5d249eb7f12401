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
 *
 * And a device, /dev/rg_kmem_alloc, for a user page fault that tries an
 * opportunistic accounted allocation and then fails for a reason of its
 * own, as a fault whose readahead is refused may still fail later:
 *   fault_oom  write N: the next fault of a (shared, read-only) mapping
 *              of the device first tries to allocate N accounted pages
 *              with __GFP_NORETRY (frees them at once if it got them),
 *              then returns VM_FAULT_OOM whatever came of it; every other
 *              fault maps a page of zeroes
 *   refused    (read): those allocations that failed
 */
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
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

static atomic_t fault_oom = ATOMIC_INIT(0);
static atomic_t refused = ATOMIC_INIT(0);
static struct page *rg_zero;

static int rg_fault_oom_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 10, &n) || n > 1024)
		return -EINVAL;
	atomic_set(&fault_oom, n);
	return 0;
}

static int rg_refused_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&refused));
}

static const struct kernel_param_ops rg_fault_oom_ops = {
	.set = rg_fault_oom_set,
};

static const struct kernel_param_ops rg_refused_ops = {
	.get = rg_refused_get,
};

module_param_cb(fault_oom, &rg_fault_oom_ops, NULL, 0200);
MODULE_PARM_DESC(fault_oom,
		 "Write N: the device's next fault tries N accounted pages (__GFP_NORETRY), then fails with VM_FAULT_OOM");
module_param_cb(refused, &rg_refused_ops, NULL, 0444);
MODULE_PARM_DESC(refused, "The faults' allocations that failed");

static vm_fault_t rg_fault(struct vm_fault *vmf)
{
	unsigned int n = atomic_xchg(&fault_oom, 0);
	struct page *p;

	if (!n)
		return vmf_insert_pfn(vmf->vma, vmf->address,
				      page_to_pfn(rg_zero));
	p = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN,
			get_order((size_t)n << PAGE_SHIFT));
	if (p)
		__free_pages(p, get_order((size_t)n << PAGE_SHIFT));
	else
		atomic_inc(&refused);
	return VM_FAULT_OOM;
}

static const struct vm_operations_struct rg_vm_ops = {
	.fault = rg_fault,
};

static int rg_mmap(struct file *file, struct vm_area_struct *vma)
{
	/*
	 * A page of ours, never copied on write: shared (VM_SHARED is
	 * dropped for a read-only file) and read-only.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE) || (vma->vm_flags & VM_WRITE))
		return -EINVAL;
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_ops = &rg_vm_ops;
	return 0;
}

static const struct file_operations rg_fops = {
	.owner	= THIS_MODULE,
	.mmap	= rg_mmap,
};

static struct miscdevice rg_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rg_kmem_alloc",
	.fops	= &rg_fops,
	.mode	= 0444,
};

static int __init rg_kmem_alloc_init(void)
{
	int ret;

	rg_zero = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!rg_zero)
		return -ENOMEM;
	ret = misc_register(&rg_dev);
	if (ret)
		__free_page(rg_zero);
	return ret;
}

static void __exit rg_kmem_alloc_exit(void)
{
	misc_deregister(&rg_dev);
	__free_page(rg_zero);
	rg_free_all();
}

module_init(rg_kmem_alloc_init);
module_exit(rg_kmem_alloc_exit);
MODULE_DESCRIPTION("Resource Groups: accounted allocations for the kmem tests");
MODULE_LICENSE("GPL");

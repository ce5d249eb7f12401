// SPDX-License-Identifier: GPL-2.0
/*
 * kmem: what module/Kbuild builds as rg_kmem.ko for a kernel without the
 * kernel-memory hooks (CONFIG_RES_GROUPS_KMEM: hooks patch 0005, with
 * memcg's kernel-memory accounting), in place of the controller (kmem.c),
 * so that every kernel gets the same modules (see cpu_absent.c). Loading
 * it fails with ENODEV, and says why; the tag res_groups_kmem=absent
 * (modinfo) tells it from the controller without loading it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/res_groups_version.h>
#include <linux/printk.h>

static int __init km_absent_init(void)
{
	pr_info("no kmem controller: the kernel has no CONFIG_RES_GROUPS_KMEM\n");
	return -ENODEV;
}

module_init(km_absent_init);
MODULE_INFO(res_groups_kmem, "absent");
MODULE_DESCRIPTION("Resource Groups: no kmem controller (no kernel-memory hooks in this kernel)");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

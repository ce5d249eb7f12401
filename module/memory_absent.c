// SPDX-License-Identifier: GPL-2.0
/*
 * memory: what module/Kbuild builds as rg_memory.ko for a kernel without
 * hooks patch 0007 (CONFIG_RES_GROUPS_CGROUPS: a task's memory cgroup
 * chosen by the module; needs memory cgroups), in place of the memory
 * controller (memory.c), so that every kernel gets the same modules (see
 * cpu_absent.c). Loading it fails with ENODEV, and says why; the tag
 * res_groups_cgroups=absent (modinfo) tells it from the controller
 * without loading it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/res_groups_version.h>
#include <linux/printk.h>

static int __init rm_absent_init(void)
{
	pr_info("no memory controller: the kernel has no CONFIG_RES_GROUPS_CGROUPS\n");
	return -ENODEV;
}

module_init(rm_absent_init);
MODULE_INFO(res_groups_cgroups, "absent");
MODULE_DESCRIPTION("Resource Groups: no memory controller (no memory-cgroup hooks in this kernel)");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

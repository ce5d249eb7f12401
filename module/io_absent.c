// SPDX-License-Identifier: GPL-2.0
/*
 * io: what module/Kbuild builds as rg_io.ko for a kernel without
 * hooks patch 0007 (CONFIG_RES_GROUPS_CGROUPS: a task's io cgroup
 * chosen by the module; needs memory cgroups) or without block cgroups
 * (CONFIG_BLK_CGROUP), in place of the io controller (io.c), so that
 * every kernel gets the same modules (see cpu_absent.c). Loading it
 * fails with ENODEV, and says why; the tag res_groups_cgroups=absent
 * (modinfo) tells it from the controller without loading it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/res_groups_version.h>
#include <linux/printk.h>

static int __init rio_absent_init(void)
{
	pr_info("no io controller: the kernel has no CONFIG_RES_GROUPS_CGROUPS or no CONFIG_BLK_CGROUP\n");
	return -ENODEV;
}

module_init(rio_absent_init);
MODULE_INFO(res_groups_cgroups, "absent");
MODULE_DESCRIPTION("Resource Groups: no io controller (no io-cgroup hooks in this kernel)");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

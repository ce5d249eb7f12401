// SPDX-License-Identifier: GPL-2.0
/*
 * cpu: what module/Kbuild builds as rg_cpu.ko for a kernel without the CFS
 * task groups of the hooks (CONFIG_RES_GROUPS_SCHED: hooks patches 0003
 * and 0004; not with RT_GROUP_SCHED or UCLAMP_TASK_GROUP), in place of the
 * CPU controller (cpu.c). The modules are then the same three for every
 * kernel, so that a package lists them once (DKMS removes what its
 * dkms.conf lists, whatever headers are left). Loading it fails with
 * ENODEV, and says why; the tag res_groups_sched=absent (modinfo) tells
 * it from the controller without loading it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/res_groups_version.h>
#include <linux/printk.h>

static int __init rc_absent_init(void)
{
	pr_info("no CPU controller: the kernel has no CONFIG_RES_GROUPS_SCHED\n");
	return -ENODEV;
}

module_init(rc_absent_init);
MODULE_INFO(res_groups_sched, "absent");
MODULE_DESCRIPTION("Resource Groups: no CPU controller (no task-group hooks in this kernel)");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

// SPDX-License-Identifier: GPL-2.0
/*
 * Resource Groups: module load and unload.
 *
 * Load: rg_fork_sem, the hooks (new forks join by themselves), then every
 * existing task into the root, then the configfs tree. Unload in reverse
 * (rg_fork_sem last, once no hook can run); configfs holds a module
 * reference per group, so by then only the root is left, and controllers
 * depend on this module, so none is registered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/res_groups_version.h>

#include "rg.h"

static int __init rg_init(void)
{
	int ret;

	rg_group_init_root();
	ret = rg_shadow_init();
	if (ret)
		return ret;
	ret = rg_tasks_init();
	if (ret)
		goto out_shadow;
	ret = res_group_hooks_register(&rg_hooks);
	if (ret)
		goto out_sem;
	rg_tasks_attach_all();
	ret = rgcs_init();
	if (!ret)
		return 0;
	rg_tasks_detach_all();
	res_group_hooks_unregister(&rg_hooks);
out_sem:
	rg_tasks_exit();
out_shadow:
	rg_shadow_exit();
	return ret;
}

static void __exit rg_exit(void)
{
	rgcs_exit();
	rg_tasks_detach_all();
	res_group_hooks_unregister(&rg_hooks);
	rg_tasks_exit();
	rg_shadow_exit();
}

module_init(rg_init);
module_exit(rg_exit);
MODULE_DESCRIPTION("Resource Groups: task groups with resource shares");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

// SPDX-License-Identifier: GPL-2.0
/*
 * Resource Groups: module load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rg.h"

static const struct res_group_hooks rg_hooks = {
	.proc_show	= rg_proc_show,
};

static int __init rg_init(void)
{
	int ret;

	ret = res_group_hooks_register(&rg_hooks);
	if (ret)
		return ret;
	ret = rgcs_init();
	if (ret)
		res_group_hooks_unregister(&rg_hooks);
	return ret;
}

static void __exit rg_exit(void)
{
	rgcs_exit();
	res_group_hooks_unregister(&rg_hooks);
}

module_init(rg_init);
module_exit(rg_exit);
MODULE_DESCRIPTION("Resource Groups: task groups with resource shares");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: tries to become the hooks user (so a test can see a
 * second user refused with -EBUSY), and can WARN on load (so a test can see
 * the splat detector fail the run).
 */
#include <linux/module.h>
#include <linux/res_group_hooks.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "WARN once when loaded (tests the splat detector)");

static const struct res_group_hooks rg_hooks_test_hooks = {};

static int __init rg_hooks_test_init(void)
{
	WARN(warn, "rg_hooks_test: splat requested by warn=1\n");
	return res_group_hooks_register(&rg_hooks_test_hooks);
}

static void __exit rg_hooks_test_exit(void)
{
	res_group_hooks_unregister(&rg_hooks_test_hooks);
}

module_init(rg_hooks_test_init);
module_exit(rg_hooks_test_exit);
MODULE_DESCRIPTION("Resource Groups: hooks registration test module");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: a configfs subsystem, rg_show_page, whose attributes
 * tell whether configfs gives show() a whole page where a page is 64 KiB:
 *   offset  shown with sysfs_emit(), as many in-tree show() functions are:
 *           "<offset in its page> <PAGE_SIZE>", or nothing (and a WARN)
 *           if the buffer does not start a page;
 *   size    the size of the buffer's allocation (ksize(); 0 if vmalloc'ed).
 * name=NAME gives the subsystem another name: with a name configfs
 * already has at its root (res_groups), the load fails with EEXIST, the
 * one check of a name that finds a directory among configfs's entries
 * (test_groups: a group's own name is found by the dcache first).
 *
 * Locking: none; nothing here changes after load.
 */
#include <linux/configfs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

static char *name = "rg_show_page";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "the subsystem's name (default rg_show_page)");

static ssize_t rg_show_page_offset_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%lu %lu\n", offset_in_page(page), PAGE_SIZE);
}

/* Written with a small bound: it must work in a buffer of any size. */
static ssize_t rg_show_page_size_show(struct config_item *item, char *page)
{
	return scnprintf(page, 32, "%zu\n",
			 is_vmalloc_addr(page) ? 0 : ksize(page));
}

CONFIGFS_ATTR_RO(rg_show_page_, offset);
CONFIGFS_ATTR_RO(rg_show_page_, size);

static struct configfs_attribute *rg_show_page_attrs[] = {
	&rg_show_page_attr_offset,
	&rg_show_page_attr_size,
	NULL,
};

static const struct config_item_type rg_show_page_type = {
	.ct_attrs	= rg_show_page_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem rg_show_page_subsys = {
	.su_group = {
		.cg_item = {
			.ci_type	= &rg_show_page_type,
		},
	},
};

static int __init rg_show_page_init(void)
{
	struct config_item *item = &rg_show_page_subsys.su_group.cg_item;

	if (strscpy(item->ci_namebuf, name, sizeof(item->ci_namebuf)) <= 0)
		return -EINVAL;
	config_group_init(&rg_show_page_subsys.su_group);
	mutex_init(&rg_show_page_subsys.su_mutex);
	return configfs_register_subsystem(&rg_show_page_subsys);
}

static void __exit rg_show_page_exit(void)
{
	configfs_unregister_subsystem(&rg_show_page_subsys);
}

module_init(rg_show_page_init);
module_exit(rg_show_page_exit);
MODULE_DESCRIPTION("Resource Groups: does configfs give show() a whole page?");
MODULE_LICENSE("GPL");

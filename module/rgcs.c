// SPDX-License-Identifier: GPL-2.0
/*
 * RGCS: the configfs interface, /sys/kernel/config/res_groups.
 */
#include <linux/configfs.h>
#include <linux/module.h>

#include "rg.h"

static const struct config_item_type rgcs_root_type = {
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem rgcs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "res_groups",
			.ci_type	= &rgcs_root_type,
		},
	},
};

int rgcs_init(void)
{
	config_group_init(&rgcs_subsys.su_group);
	mutex_init(&rgcs_subsys.su_mutex);
	return configfs_register_subsystem(&rgcs_subsys);
}

void rgcs_exit(void)
{
	configfs_unregister_subsystem(&rgcs_subsys);
}

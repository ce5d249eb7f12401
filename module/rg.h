/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the files of res_groups.ko.
 */
#ifndef _RES_GROUPS_RG_H
#define _RES_GROUPS_RG_H

#include <linux/res_group_hooks.h>

int rgcs_init(void);
void rgcs_exit(void);

int rg_proc_show(struct seq_file *m, struct pid_namespace *ns,
		 struct pid *pid, struct task_struct *tsk);

#endif /* _RES_GROUPS_RG_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/res_group: the path of the task's group.
 */
#include <linux/seq_file.h>

#include "rg.h"

int rg_proc_show(struct seq_file *m, struct pid_namespace *ns,
		 struct pid *pid, struct task_struct *tsk)
{
	seq_puts(m, "/\n");
	return 0;
}

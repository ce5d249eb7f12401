// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/res_group and /proc/<pid>/task/<tid>/res_group: the path of
 * the task's group from the root ("/", "/a/b").
 *
 * Locking: RCU only. Groups are freed after a grace period, and a group's
 * ancestors outlive it.
 */
#include <linux/rcupdate.h>
#include <linux/seq_file.h>

#include "rg.h"

int rg_proc_show(struct seq_file *m, struct pid_namespace *ns,
		 struct pid *pid, struct task_struct *tsk)
{
	struct res_group *path[RES_GROUP_MAX_DEPTH + 1];
	struct res_group *grp;
	int n = 0;

	rcu_read_lock();
	/* A task in no group (exiting at load) is in the root. */
	for (grp = rcu_dereference(tsk->res_group); grp && grp->parent;
	     grp = grp->parent)
		path[n++] = grp;
	if (!n)
		seq_putc(m, '/');
	while (n--)
		seq_printf(m, "/%s", path[n]->name);
	rcu_read_unlock();
	seq_putc(m, '\n');
	return 0;
}

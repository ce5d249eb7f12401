// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a group's members file: the pids of the tasks that were in the
 * group at one moment, taken a batch at a time.
 *
 * A read begins (the moment it lists) under the group's lock and walks
 * the task list from its tail towards its head, RG_WALK_BATCH tasks per
 * hold of the lock, so that forks, exits and moves of the group's tasks
 * never wait for more than one batch. Tasks join at the tail, behind the
 * walk: those that join during the read are never visited. Those that
 * leave during it, before the walk reached them, were in the group at
 * the moment the read lists, so the leaving path notes them
 * (rg_members_note(), called by tasks.c under the group's lock, and only
 * while a read is under way); it also moves the walk's cursor off a task
 * that leaves. Joins are noted too: a task that joined during the read
 * and left again was not in the group at its moment. After the walk, with
 * no lock held, the visited pids and the noted ones that left first are
 * merged, sorted, into the text.
 *
 * The notes go into the read's own buffer. If more tasks join and leave
 * during a read than the buffer has room for (half a pid's room per task
 * of the group), the read takes the list in one pass under the lock
 * instead, as a walk with no notes.
 *
 * Locking: one read of a group at a time (res_group.walk_mutex, so that
 * the leaving path looks at one walk at most), taken before the group's
 * lock; res_group.walk and the walk's cursor and notes change only under
 * the group's lock.
 */
#include <linux/bsearch.h>
#include <linux/kernel.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sort.h>

#include "rg.h"

/* Tasks visited per hold of the group's lock. */
#define RG_WALK_BATCH	64

/* The most characters of one line: a pid, then '\n'. */
#define RG_PID_CHARS	8

/*
 * Room per task of the group: its line, its pid number, and half a note
 * (a note is a u64: the pid, the note's index and whether it left).
 */
#define RG_SLOT_BYTES	(RG_PID_CHARS + sizeof(pid_t) + sizeof(u64) / 2)

/**
 * struct rg_walk - a read of members under way
 * @next: the next task to visit, towards the list's head; the head when
 *	the walk is done
 * @ns: the reader's pid namespace
 * @notes: joins and leaves during the walk, in order
 * @nr_notes: entries of @notes used
 * @max_notes: entries @notes has room for
 * @overflow: a join or leave found @notes full
 */
struct rg_walk {
	struct list_head *next;
	struct pid_namespace *ns;
	u64 *notes;
	unsigned int nr_notes;
	unsigned int max_notes;
	bool overflow;
};

/*
 * @tsk joins or leaves @grp, whose members a read is walking. Called
 * under @grp->lock, before a leaving task is unlinked.
 */
void rg_members_note(struct res_group *grp, struct task_struct *tsk,
		     bool leave)
{
	struct rg_walk *w = grp->walk;
	pid_t nr;

	lockdep_assert_held(&grp->lock);
	if (leave && w->next == &tsk->res_group_node)
		w->next = tsk->res_group_node.prev;
	nr = task_pid_nr_ns(tsk, w->ns);
	if (nr <= 0)
		return;
	if (w->nr_notes == w->max_notes) {
		w->overflow = true;
		return;
	}
	w->notes[w->nr_notes] = (u64)nr << 32 | w->nr_notes << 1 | leave;
	w->nr_notes++;
}

static int rg_cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int rg_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

/*
 * Visit up to a batch of tasks, copying their pid numbers to @nr from
 * index @n. Caller holds @grp->lock. Returns the new count.
 */
static unsigned int rg_walk_batch(struct res_group *grp, struct rg_walk *w,
				  pid_t *nr, unsigned int n, unsigned int cap)
{
	struct task_struct *t;
	int k;
	pid_t v;

	for (k = 0; k < RG_WALK_BATCH && w->next != &grp->tasks; k++) {
		t = list_entry(w->next, struct task_struct, res_group_node);
		w->next = w->next->prev;
		v = task_pid_nr_ns(t, w->ns);
		/* (the walk visits at most the tasks of its moment: never) */
		if (v > 0 && !WARN_ON_ONCE(n == cap))
			nr[n++] = v;
	}
	return n;
}

/*
 * The notes of tasks that left first (and were not visited: they left
 * before the walk reached them), as sorted pids at the start of @notes.
 * Returns how many. @nr: the visited pids, sorted.
 */
static unsigned int rg_walk_left(u64 *notes, unsigned int nr_notes,
				 const pid_t *nr, unsigned int n)
{
	pid_t *left = (pid_t *)notes, v, prev = 0;
	unsigned int i, m = 0;
	bool leave;

	sort(notes, nr_notes, sizeof(*notes), rg_cmp_u64, NULL);
	for (i = 0; i < nr_notes; i++) {
		v = notes[i] >> 32;
		leave = notes[i] & 1;
		if (v == prev)
			continue;	/* not its first note */
		prev = v;
		/* (@left[m] is no later in the buffer than @notes[i]) */
		if (leave && !bsearch(&v, nr, n, sizeof(*nr), rg_cmp_pid))
			left[m++] = v;
	}
	return m;
}

/* Print the sorted, disjoint @a and @b into @buf, one pid a line. */
static size_t rg_walk_print(char *buf, const pid_t *a, unsigned int na,
			    const pid_t *b, unsigned int nb)
{
	unsigned int i = 0, j = 0;
	size_t len = 0;
	pid_t v, last = 0;

	while (i < na || j < nb) {
		if (j == nb || (i < na && a[i] < b[j]))
			v = a[i++];
		else
			v = b[j++];
		/* (a pid twice: an exec swapped a thread's and its leader's) */
		if (v == last)
			continue;
		last = v;
		len += scnprintf(buf + len, RG_PID_CHARS + 1, "%d\n", v);
		if (!((i + j) % 256))
			cond_resched();
	}
	return len;
}

/**
 * rg_members_read - the members file's text
 * @grp: the group
 * @buf: where to put it, and the room to work in
 * @size: bytes at @buf
 *
 * The pids of the tasks in @grp at one moment, as seen in the reader's
 * pid namespace, sorted, one a line. If @buf cannot hold the group at
 * RG_SLOT_BYTES a task, returns more than @size without looking at the
 * list, and configfs asks again with a larger buffer.
 *
 * Return: the length of the text, or -EINTR (a fatal signal while waiting
 * for another read of the group).
 */
ssize_t rg_members_read(struct res_group *grp, char *buf, size_t size)
{
	struct rg_walk w = { .ns = task_active_pid_ns(current) };
	unsigned int cap, n = 0, m, nr_tasks;
	struct task_struct *t;
	size_t off;
	pid_t *nr, v;

	/* 7 digits at most */
	BUILD_BUG_ON(PID_MAX_LIMIT > 9999999);
	/* The text, then @cap pid numbers, then the notes, aligned. */
	cap = size / RG_SLOT_BYTES;
	nr = (pid_t *)(buf + cap * RG_PID_CHARS);
	off = ALIGN(cap * (RG_PID_CHARS + sizeof(pid_t)), sizeof(u64));
	w.notes = (u64 *)(buf + off);
	w.max_notes = off < size ? (size - off) / sizeof(u64) : 0;

	if (mutex_lock_killable(&grp->walk_mutex))
		return -EINTR;
	spin_lock(&grp->lock);
	nr_tasks = grp->nr_tasks;
	if (nr_tasks > cap)
		goto grow;
	w.next = grp->tasks.prev;
	grp->walk = &w;
	for (;;) {
		n = rg_walk_batch(grp, &w, nr, n, cap);
		if (w.next == &grp->tasks || w.overflow)
			break;
		spin_unlock(&grp->lock);
		cond_resched();
		spin_lock(&grp->lock);
	}
	grp->walk = NULL;
	if (w.overflow) {
		/* Too many joins and leaves: the list at this moment. */
		nr_tasks = grp->nr_tasks;
		if (nr_tasks > cap)
			goto grow;
		n = 0;
		w.nr_notes = 0;
		list_for_each_entry(t, &grp->tasks, res_group_node) {
			v = task_pid_nr_ns(t, w.ns);
			if (v > 0)
				nr[n++] = v;
		}
	}
	spin_unlock(&grp->lock);
	mutex_unlock(&grp->walk_mutex);

	sort(nr, n, sizeof(*nr), rg_cmp_pid, NULL);
	m = rg_walk_left(w.notes, w.nr_notes, nr, n);
	/* (each is a task of the moment, not visited: never) */
	if (WARN_ON_ONCE(n + m > cap))
		m = cap - n;
	return rg_walk_print(buf, nr, n, (pid_t *)w.notes, m);

grow:
	spin_unlock(&grp->lock);
	mutex_unlock(&grp->walk_mutex);
	/* (room for a few more: they may join before the next try) */
	return ((size_t)nr_tasks + 64) * RG_SLOT_BYTES + sizeof(u64);
}

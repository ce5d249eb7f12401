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
 * no lock held, the text lists the visited pids in the order their tasks
 * joined, then the noted ones that left first and were not visited.
 *
 * The notes go into the read's own buffer: room for RG_WALK_MAX_NOTES,
 * or half a note per task the buffer has room for if that is less. If
 * more tasks join and leave during a read, the read asks for a buffer
 * with room for more notes and begins again (configfs calls it again),
 * until it has room for RG_WALK_MAX_NOTES.
 *
 * A thread that execs while other threads of its process live takes its
 * leader's pid and gives the leader its own (de_thread()), without telling
 * us: no walk can say which pid such a task had at its moment.
 *
 * So a read that meets such an exec (a task it visits, or one that joins
 * or leaves, is of a process in one), or more joins and leaves than
 * RG_WALK_MAX_NOTES, falls back to a walk that keeps no notes and lists
 * no moment (rg_walk_refs()): it begins again at the list's tail, and
 * takes a reference to each task it visits, a batch per hold of the
 * lock as before; once it is done, with no lock held, it lists each
 * visited task's pid at that time, leaving out those reaped since. Each
 * task that is in the group for the whole read is visited once: those
 * that join go behind the walk, and the cursor moves off those that
 * leave. Tasks that join or leave during the read may be listed or not.
 * If an exec swapped two visited tasks' pids between their lookups (the
 * walk notes any exec it meets, and of any task that leaves while it
 * lasts), the same pid may come out twice: then the list is sorted and
 * each pid kept once. So an exec loop or fork churn, which any user can
 * run in the root, costs each fork and exit at most one batch of each
 * read under way, never a pass over the group.
 *
 * A join or leave of a group's task costs a list_empty() while no read
 * walks the group, and a pid lookup and a note per walk while some do.
 *
 * Several reads of a group may walk it at once, each noted by every join
 * and leave (as cgroup's task iterators are, css_task_iter): a reader
 * that is killed ends its walk at the next batch.
 *
 * A controller's res_group_retell_tasks() walks the list the same way,
 * as a walk with no notes: only its cursor moves off a task that leaves.
 *
 * Locking: a walk's place in the group's list of walks (res_group.walks),
 * its cursor and its notes change only under the group's lock.
 */
#include <linux/bsearch.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sort.h>

#include "rg.h"

/* Tasks visited per hold of the group's lock. */
#define RG_WALK_BATCH	64

/* The most notes of one read (sorting them never yields the CPU). */
#define RG_WALK_MAX_NOTES	4096

/* The most characters of one line: a pid, then '\n'. */
#define RG_PID_CHARS	8

/*
 * Room per task of the group: its line, its pid number, and half a note
 * (a note is a u64: the pid, the note's index and whether it left).
 */
#define RG_SLOT_BYTES	(RG_PID_CHARS + sizeof(pid_t) + sizeof(u64) / 2)

/**
 * struct rg_walk - a read of members under way
 * @node: entry in the group's @walks
 * @next: the next task to visit, towards the list's head; the head when
 *	the walk is done
 * @ns: the reader's pid namespace
 * @notes: joins and leaves during the walk, in order
 * @nr_notes: entries of @notes used
 * @max_notes: entries @notes has room for
 * @overflow: a join or leave found @notes full, or the walk met an exec;
 *	set from the start for a walk that keeps no notes
 * @exec: the walk met a task of a process in an exec that may swap pids
 */
struct rg_walk {
	struct list_head node;
	struct list_head *next;
	struct pid_namespace *ns;
	u64 *notes;
	unsigned int nr_notes;
	unsigned int max_notes;
	bool overflow;
	bool exec;
};

/*
 * Is @tsk's process in an exec that may swap pids (see the top of this
 * file)? Read after @tsk's pid: de_thread() sets group_exec_task before
 * it swaps, and clears it only after it released the old leader, which
 * waits for our lock if the leader is in our group. (A task's
 * signal_struct lasts as long as the task: put_signal_struct().)
 */
static bool rg_walk_exec(struct task_struct *tsk)
{
	smp_rmb();	/* the pid read before, as the swap's writes after */
	return !!READ_ONCE(tsk->signal->group_exec_task);
}

/*
 * @tsk joins or leaves @grp, whose members one or more reads are walking.
 * Called under @grp->lock, before a leaving task is unlinked.
 */
void rg_members_note(struct res_group *grp, struct task_struct *tsk,
		     bool leave)
{
	struct rg_walk *w;
	pid_t nr;

	lockdep_assert_held(&grp->lock);
	list_for_each_entry(w, &grp->walks, node) {
		if (leave && w->next == &tsk->res_group_node)
			w->next = tsk->res_group_node.prev;
		if (w->overflow) {
			/* A walk without notes: only an exec is noted (reads). */
			if (w->ns && !w->exec && rg_walk_exec(tsk))
				w->exec = true;
			continue;
		}
		nr = task_pid_nr_ns(tsk, w->ns);
		if (nr <= 0)
			continue;
		if (rg_walk_exec(tsk)) {
			w->overflow = true;
			w->exec = true;
			continue;
		}
		if (w->nr_notes == w->max_notes) {
			w->overflow = true;
			continue;
		}
		w->notes[w->nr_notes] = (u64)nr << 32 | w->nr_notes << 1 | leave;
		w->nr_notes++;
	}
}

/* Compare pids, a pid and its negation (marked) alike. */
static int rg_cmp_pid(const void *a, const void *b)
{
	pid_t x = abs(*(const pid_t *)a), y = abs(*(const pid_t *)b);

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
	unsigned int k;
	pid_t v;

	for (k = 0; k < RG_WALK_BATCH && w->next != &grp->tasks; k++) {
		t = list_entry(w->next, struct task_struct, res_group_node);
		v = task_pid_nr_ns(t, w->ns);
		if (unlikely(rg_walk_exec(t))) {
			w->overflow = true;
			w->exec = true;
			break;
		}
		w->next = w->next->prev;
		/* (the walk visits at most the tasks of its moment: never) */
		if (v > 0 && !WARN_ON_ONCE(n == cap))
			nr[n++] = v;
	}
	return n;
}

/*
 * The tasks that left before the walk reached them: the pids whose first
 * note is a leave and that the walk did not visit (@nr, @n), put at the
 * start of @notes. Returns how many.
 */
static unsigned int rg_walk_left(u64 *notes, unsigned int nr_notes,
				 const pid_t *nr, unsigned int n)
{
	pid_t *left = (pid_t *)notes, *p, v, prev = 0;
	unsigned int i, m = 0, k = 0;

	sort(notes, nr_notes, sizeof(*notes), rg_cmp_u64, NULL);
	for (i = 0; i < nr_notes; i++) {
		v = notes[i] >> 32;
		if (v == prev)
			continue;	/* not its first note */
		prev = v;
		/* (@left[m] is no later in the buffer than @notes[i]) */
		if (notes[i] & 1)
			left[m++] = v;
	}
	if (!m)
		return 0;
	/* @left is sorted: mark those the walk visited, then drop them. */
	for (i = 0; i < n; i++) {
		p = bsearch(&nr[i], left, m, sizeof(*left), rg_cmp_pid);
		if (p && *p > 0)
			*p = -*p;
		if (!(i % 256))
			cond_resched();
	}
	for (i = 0; i < m; i++)
		if (left[i] > 0)
			left[k++] = left[i];
	return k;
}

/*
 * The text: @nr's @n pids from the last (the walk's last visit: the
 * task that joined first), then @left's @m; 0 and below left out.
 */
static size_t rg_walk_print(char *buf, const pid_t *nr, unsigned int n,
			    const pid_t *left, unsigned int m)
{
	unsigned int i;
	size_t len = 0;
	pid_t v;

	for (i = 0; i < n + m; i++) {
		v = i < n ? nr[n - 1 - i] : left[i - n];
		if (v > 0)
			len += scnprintf(buf + len, RG_PID_CHARS + 1, "%d\n", v);
		if (!(i % 256))
			cond_resched();
	}
	return len;
}

/* What configfs is to give a read of @tasks tasks (and a few more). */
static size_t rg_walk_room(size_t tasks)
{
	/* (room for a few more: they may join before the next try) */
	return (tasks + 64) * RG_SLOT_BYTES + sizeof(u64);
}

/*
 * Keep each pid of @nr once, in print order (from the last): the others
 * become 0. @s has room for @n pids.
 */
static void rg_walk_dedupe(pid_t *nr, pid_t *s, unsigned int n)
{
	unsigned int i;
	pid_t *p;

	memcpy(s, nr, n * sizeof(*s));
	sort(s, n, sizeof(*s), rg_cmp_pid, NULL);
	for (i = n; i-- > 0;) {
		if (nr[i] <= 0)
			continue;
		p = bsearch(&nr[i], s, n, sizeof(*s), rg_cmp_pid);
		if (WARN_ON_ONCE(!p))
			continue;
		while (p > s && abs(p[-1]) == nr[i])
			p--;
		if (*p < 0)
			nr[i] = 0;	/* listed already */
		else
			*p = -*p;
		if (!(i % 256))
			cond_resched();
	}
}

/*
 * The fallback (see the top of this file): called with @grp->lock held
 * and @w, a read's walk, on @grp's walks with @w->overflow set. Takes
 * @w off the list and drops the lock. @buf as rg_members_read() lays it
 * out for @cap tasks: the text, then @cap task pointers (the room of the
 * pid numbers and the notes), which become @cap pid numbers, then @cap
 * more for rg_walk_dedupe().
 */
static ssize_t rg_walk_refs(struct res_group *grp, struct rg_walk *w,
			    char *buf, unsigned int cap)
	__releases(&grp->lock)
{
	struct task_struct **tv, *t;
	unsigned int n = 0, i, k, nr_tasks;
	bool exec = w->exec;
	ssize_t ret = 0;
	pid_t *nr;

	BUILD_BUG_ON(RG_PID_CHARS + sizeof(t) > RG_SLOT_BYTES ||
		     RG_PID_CHARS + 2 * sizeof(pid_t) > RG_SLOT_BYTES);
	tv = (struct task_struct **)(buf + cap * RG_PID_CHARS);
	nr = (pid_t *)tv;
	nr_tasks = grp->nr_tasks;
	if (nr_tasks > cap) {
		list_del(&w->node);
		spin_unlock(&grp->lock);
		return rg_walk_room(nr_tasks);
	}
	w->next = grp->tasks.prev;
	for (;;) {
		for (k = 0; k < RG_WALK_BATCH && w->next != &grp->tasks; k++) {
			t = list_entry(w->next, struct task_struct,
				       res_group_node);
			w->next = w->next->prev;
			/* (it visits at most the tasks of its start: never) */
			if (!WARN_ON_ONCE(n == cap)) {
				get_task_struct(t);
				tv[n++] = t;
			}
		}
		if (w->next == &grp->tasks)
			break;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		spin_unlock(&grp->lock);
		cond_resched();
		spin_lock(&grp->lock);
	}
	spin_unlock(&grp->lock);
	/*
	 * Each task's pid now, in place: nr[i] lies in tv[i / 2], read
	 * already (tv[0] just before). Still on the walks: a task that
	 * leaves meanwhile, in an exec, is noted (@w->exec).
	 */
	for (i = 0; i < n; i++) {
		t = tv[i];
		nr[i] = ret ? 0 : task_pid_nr_ns(t, w->ns);
		exec |= rg_walk_exec(t);
		put_task_struct(t);
		if (!(i % 256))
			cond_resched();
	}
	spin_lock(&grp->lock);
	list_del(&w->node);
	exec |= w->exec;
	spin_unlock(&grp->lock);
	if (ret)
		return ret;
	/*
	 * Always: an exec may also go unseen (a leader moved out before
	 * its thread's exec, and released from another group), and then
	 * two tasks show one pid. @exec only says one was seen.
	 */
	rg_walk_dedupe(nr, nr + cap, n);
	return rg_walk_print(buf, nr, n, NULL, 0);
}

/**
 * rg_members_read - the members file's text
 * @grp: the group
 * @buf: where to put it, and the room to work in
 * @size: bytes at @buf
 *
 * The pids of the tasks in @grp at one moment, as seen in the reader's
 * pid namespace, one a line. If @buf cannot hold the group at
 * RG_SLOT_BYTES a task, returns more than @size without looking at the
 * list, and configfs asks again with a larger buffer.
 *
 * Return: the length of the text, or -EINTR (the reader was killed).
 */
ssize_t rg_members_read(struct res_group *grp, char *buf, size_t size)
{
	struct rg_walk w = { .ns = task_active_pid_ns(current) };
	unsigned int cap, n = 0, m, nr_tasks;
	size_t off;
	pid_t *nr;

	/* 7 digits at most */
	BUILD_BUG_ON(PID_MAX_LIMIT > 9999999);
	/* The text, then @cap pid numbers, then the notes, aligned. */
	cap = size / RG_SLOT_BYTES;
	nr = (pid_t *)(buf + cap * RG_PID_CHARS);
	off = ALIGN(cap * (RG_PID_CHARS + sizeof(pid_t)), sizeof(u64));
	w.notes = (u64 *)(buf + off);
	w.max_notes = off < size ? (size - off) / sizeof(u64) : 0;
	w.max_notes = min(w.max_notes, RG_WALK_MAX_NOTES);

	spin_lock(&grp->lock);
	nr_tasks = grp->nr_tasks;
	if (nr_tasks > cap)
		goto grow;
	w.next = grp->tasks.prev;
	list_add(&w.node, &grp->walks);
	while (!w.overflow) {
		n = rg_walk_batch(grp, &w, nr, n, cap);
		if (w.next == &grp->tasks || w.overflow)
			break;
		if (fatal_signal_pending(current)) {
			list_del(&w.node);
			spin_unlock(&grp->lock);
			return -EINTR;
		}
		spin_unlock(&grp->lock);
		cond_resched();
		spin_lock(&grp->lock);
	}
	if (w.overflow) {
		/* Too many joins and leaves: more room, and again. */
		if (!w.exec && w.max_notes < RG_WALK_MAX_NOTES) {
			list_del(&w.node);
			spin_unlock(&grp->lock);
			return rg_walk_room((size_t)cap + 4 * w.max_notes + 64);
		}
		return rg_walk_refs(grp, &w, buf, cap);
	}
	list_del(&w.node);
	spin_unlock(&grp->lock);

	m = rg_walk_left(w.notes, w.nr_notes, nr, n);
	/*
	 * Each is a task of the moment, not visited, so the text fits,
	 * unless an exec swapped the pids of a thread in the group and of
	 * its leader elsewhere (the thread may then be listed under both):
	 * then ask again with room for them.
	 */
	if (n + m > cap)
		return rg_walk_room((size_t)n + m);
	return rg_walk_print(buf, nr, n, (pid_t *)w.notes, m);

grow:
	spin_unlock(&grp->lock);
	return rg_walk_room(nr_tasks);
}

/*
 * A walk that only keeps its cursor: rg_members_note() skips its notes
 * (overflow), so it needs no buffer nor namespace.
 */
void res_group_retell_tasks(struct res_controller *ctl,
			    struct res_shares *shares)
{
	struct res_group *grp = shares->group;
	struct rg_walk w = { .overflow = true };
	struct task_struct *t;
	int k;

	lockdep_assert_held(&rg_mutex);
	if (!grp || ctl->id < 0 || ctl->id >= RES_GROUP_MAX_CONTROLLERS ||
	    !ctl->move_task)
		return;
	spin_lock(&grp->lock);
	/* Registering or unregistering: the tasks are not (or no more) told. */
	if (grp->eff[ctl->id] != shares ||
	    WARN_ON_ONCE(grp->shares[ctl->id] != shares)) {
		spin_unlock(&grp->lock);
		return;
	}
	w.next = grp->tasks.prev;
	list_add(&w.node, &grp->walks);
	for (;;) {
		for (k = 0; k < RG_WALK_BATCH && w.next != &grp->tasks; k++) {
			t = list_entry(w.next, struct task_struct, res_group_node);
			w.next = w.next->prev;
			ctl->move_task(t, shares, shares, RES_GROUP_RETELL);
		}
		if (w.next == &grp->tasks)
			break;
		spin_unlock(&grp->lock);
		cond_resched();
		spin_lock(&grp->lock);
	}
	list_del(&w.node);
	spin_unlock(&grp->lock);
}
EXPORT_SYMBOL_GPL(res_group_retell_tasks);

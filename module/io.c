// SPDX-License-Identifier: GPL-2.0
/*
 * io: block I/O per resource group, ceilings and guarantees per device
 * (docs/res_groups.rst, "The io controller").
 *
 * Not an I/O scheduler: a thin layer over the kernel's block cgroups, on
 * the shadows of <linux/res_group_shadow.h> as memory.c. Each task of a
 * non-root group points at its group's shadow io css (hooks patch 0007),
 * which blkcg_css() then takes for its bios instead of the task's own io
 * cgroup; writeback goes by the memcg (memory.c's shadow, whose io css is
 * the same shadow's). blk-throttle, BFQ and iocost do the work; the
 * shares only set the shadow's knobs, from abs(root) per device = the
 * `devices` parameter:
 * - io.max, one line per listed device: each given key at abs_max, if
 *   the group has a max_shares (at least 2: blk-throttle's least); else
 *   "max", the parent's shadow bounds it;
 * - io.weight and io.bfq.weight ("default W", the same W for every
 *   device: iocost's or BFQ's, whichever the device uses): among the
 *   children of a group, a guaranteed child's W is in proportion to its
 *   min_shares, and the children without one share the group's unused
 *   part equally (as cpu.c's). The unit is one such part = 100 (the
 *   files' default, so that a new unguaranteed group needs no write)
 *   unless a guarantee's W would pass 1000 (BFQ's most): then the
 *   largest part is 1000. A group fully promised leaves W 1 to the
 *   unguaranteed (blk-cgroup is work-conserving: they get what the
 *   others leave).
 * Stats are the shadow's io.stat (hierarchical), less a baseline per
 * device taken at the last reset. The root group's tasks are left to
 * their io cgroups (precedence); its stats are shadow_root's: all groups'.
 *
 * Locking: rio_mutex protects our tree (parent, children, sibling), the
 * copies of the shares, the device list and everything derived from them;
 * it is taken in the callbacks that may sleep (under the framework's
 * mutex) and by parameter writes and reads (under the module's
 * param_lock). As in memory.c, a parameter write only queues the shadows'
 * new values and never waits for the shadows' worker (which writes
 * cgroup files through kernfs while the writer holds a sysfs file and
 * param_lock); all our knobs are RES_SHADOW_OPTIONAL: a failed write
 * (io.bfq.weight without BFQ, a device gone) is logged, never a shares
 * write's errno. A parameter write checks its devices (blkdev_get_by_dev(),
 * a read-only open for a moment: see rio_check()) before it takes
 * rio_mutex. io.max lines are queued only when changed (rio_derive()),
 * or all again on a `devices` write. move_task() runs under the framework's
 * spinlocks and only publishes a pointer to a css that lives as long as
 * the group's shares.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/kdev_t.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/res_group.h>
#include <linux/res_group_css.h>
#include <linux/res_group_shadow.h>
#include <linux/res_groups_version.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

/* At most this many devices in `devices`. */
#define RIO_MAX_DEVS	16
/* The keys of io.max, in its order; and those of io.stat we show. */
#define RIO_KEYS	4
/* A weight's unit and bounds (BFQ's: 1..1000, default 100). */
#define RIO_WEIGHT_ONE	100ULL
#define RIO_WEIGHT_MAX	1000ULL
/*
 * io.stat's size we read first, and the most: a line per device the
 * shadow ever used, read again into a buffer twice as large while cut.
 */
#define RIO_STAT_SIZE	4096
#define RIO_STAT_MAX	SZ_1M

static const char * const rio_keys[RIO_KEYS] = {
	"rbps", "wbps", "riops", "wiops"
};

static const char * const rio_stat_keys[RIO_KEYS] = {
	"rbytes", "wbytes", "rios", "wios"
};

/**
 * struct rio_dev - one device of `devices`
 * @dev: the whole disk
 * @cap: its capacity per key of rio_keys, 0 if not given
 */
struct rio_dev {
	dev_t dev;
	u64 cap[RIO_KEYS];
};

/**
 * struct rio_base - the counts of a device at a group's last reset
 * @dev: the device (0: the slot is free)
 * @n: per key of rio_stat_keys
 */
struct rio_base {
	dev_t dev;
	u64 n[RIO_KEYS];
};

/**
 * struct rio_line - an io.max line as queued
 * @dev: its device (0: none)
 * @v: per key of rio_keys, the value; U64_MAX: "max"
 */
struct rio_line {
	dev_t dev;
	u64 v[RIO_KEYS];
};

/**
 * struct rio_group - io state of one group (all under rio_mutex)
 * @shares: the framework's part
 * @parent: the parent group's state, NULL at the root
 * @children: child groups' states
 * @sibling: entry in the parent's @children
 * @min: min_shares as last told
 * @max: max_shares as last told
 * @divisor: child_shares_divisor as last told
 * @abs: abs_max per device of rio_devs and key (0: no bound)
 * @weight: the weight last queued (a new shadow's: 100)
 * @sent: per slot of rio_devs, the io.max line last queued (dev 0: none)
 * @base: the counts at the last reset
 */
struct rio_group {
	struct res_shares shares;
	struct rio_group *parent;
	struct list_head children;
	struct list_head sibling;
	int min;
	int max;
	int divisor;
	u64 abs[RIO_MAX_DEVS][RIO_KEYS];
	unsigned int weight;
	struct rio_line sent[RIO_MAX_DEVS];
	struct rio_base base[RIO_MAX_DEVS];
};

static DEFINE_MUTEX(rio_mutex);
static struct rio_group *rio_root;		/* rio_mutex */
static struct rio_dev rio_devs[RIO_MAX_DEVS];	/* rio_mutex */
static int rio_ndevs;				/* rio_mutex */
static bool rio_leaving;			/* rio_mutex */

static struct rio_group *to_rio(struct res_shares *s)
{
	return container_of(s, struct rio_group, shares);
}

/* Queue @l as @g's io.max line for its device. */
static void rio_queue(struct rio_group *g, const struct rio_line *l)
{
	char line[160];
	int k, n;

	n = scnprintf(line, sizeof(line), "%u:%u", MAJOR(l->dev),
		      MINOR(l->dev));
	for (k = 0; k < RIO_KEYS; k++) {
		if (l->v[k] != U64_MAX)
			n += scnprintf(line + n, sizeof(line) - n, " %s=%llu",
				       rio_keys[k], l->v[k]);
		else
			n += scnprintf(line + n, sizeof(line) - n, " %s=max",
				       rio_keys[k]);
	}
	res_shadow_write_str(&g->shares, "io.max", line,
			     RES_SHADOW_KEYED | RES_SHADOW_OPTIONAL);
}

static bool rio_all_max(const struct rio_line *l)
{
	int k;

	for (k = 0; k < RIO_KEYS; k++)
		if (l->v[k] != U64_MAX)
			return false;
	return true;
}

/*
 * Work out the ceilings of @g and its subtree from @g's parent's and
 * queue the io.max lines that changed since last queued: "max" for the
 * devices no longer listed, every listed device's if @all (a `devices`
 * write: a device made again under the same number has lost its line).
 * Only changed lines, because each write of a line starts blk-throttle's
 * slice again: a group rewritten often would pass its ceiling.
 */
static void rio_derive(struct rio_group *g, bool all)
{
	struct rio_line sent[RIO_MAX_DEVS] = {}, *old;
	struct rio_group *p = g->parent, *c;
	bool own = p && g->max >= 0 && p->divisor > 0;
	int i, j, k;

	for (i = 0; i < rio_ndevs; i++) {
		for (k = 0; k < RIO_KEYS; k++) {
			u64 v = p ? p->abs[i][k] : rio_devs[i].cap[k];

			if (own && v)
				v = max_t(u64, 2, mul_u64_u32_div(v, g->max,
								  p->divisor));
			g->abs[i][k] = v;
		}
	}
	if (p && !rio_leaving) {
		for (i = 0; i < rio_ndevs; i++) {
			sent[i].dev = rio_devs[i].dev;
			for (k = 0; k < RIO_KEYS; k++)
				sent[i].v[k] = own && rio_devs[i].cap[k] ?
					       g->abs[i][k] : U64_MAX;
		}
		/* Devices that left the list: "max" if they had a bound. */
		for (j = 0; j < RIO_MAX_DEVS; j++) {
			old = &g->sent[j];
			if (!old->dev)
				continue;
			for (i = 0; i < rio_ndevs; i++)
				if (rio_devs[i].dev == old->dev)
					break;
			if (i < rio_ndevs)
				continue;
			if (!rio_all_max(old)) {
				for (k = 0; k < RIO_KEYS; k++)
					old->v[k] = U64_MAX;
				rio_queue(g, old);
			}
		}
		for (i = 0; i < rio_ndevs; i++) {
			for (j = 0; j < RIO_MAX_DEVS; j++)
				if (g->sent[j].dev == sent[i].dev)
					break;
			old = j < RIO_MAX_DEVS ? &g->sent[j] : NULL;
			/* A new shadow's lines are all "max". */
			if (all || (old ? memcmp(old->v, sent[i].v,
						 sizeof(old->v)) :
					  !rio_all_max(&sent[i])))
				rio_queue(g, &sent[i]);
		}
		memcpy(g->sent, sent, sizeof(sent));
	}
	list_for_each_entry(c, &g->children, sibling)
		rio_derive(c, all);
}

static unsigned int rio_clamp(u64 w)
{
	return clamp_t(u64, w, 1, RIO_WEIGHT_MAX);
}

/*
 * Weigh the children of @p (see the top of the file) and queue the
 * weights that changed, or every child's if @all.
 */
static void rio_weigh(struct rio_group *p, bool all)
{
	u64 k = 0, unused = p->divisor, maxp = 0, part, num, den;
	struct rio_group *c;
	unsigned int w;
	char val[32];

	list_for_each_entry(c, &p->children, sibling) {
		if (c->min < 0)
			k++;
		else
			unused -= min_t(u64, unused, c->min);
	}
	/* A part, times k: a guaranteed child's min x k, a free one's unused. */
	list_for_each_entry(c, &p->children, sibling)
		if (c->min >= 0)
			maxp = max_t(u64, maxp, (u64)c->min * max_t(u64, k, 1));
	if (k && unused) {
		maxp = max(maxp, unused);
		/* One free part is 100, unless a guarantee passes 1000. */
		if (maxp * RIO_WEIGHT_ONE <= unused * RIO_WEIGHT_MAX) {
			num = RIO_WEIGHT_ONE;
			den = unused;
		} else {
			num = RIO_WEIGHT_MAX;
			den = maxp;
		}
	} else {
		num = RIO_WEIGHT_MAX;
		den = maxp;
	}
	list_for_each_entry(c, &p->children, sibling) {
		if (c->min < 0)
			part = unused;
		else
			part = (u64)c->min * max_t(u64, k, 1);
		w = den ? rio_clamp(div64_u64(part * num + den / 2, den)) :
			  RIO_WEIGHT_ONE;
		if ((w == c->weight && !all) || rio_leaving)
			continue;
		c->weight = w;
		snprintf(val, sizeof(val), "default %u", w);
		res_shadow_write_str(&c->shares, "io.weight", val,
				     RES_SHADOW_OPTIONAL);
		res_shadow_write_str(&c->shares, "io.bfq.weight", val,
				     RES_SHADOW_OPTIONAL);
	}
}

/* @str as a decimal number up to @max into @v: 0 or -EINVAL (no sign). */
static int rio_num(const char *str, u64 max, u64 *v)
{
	if (!str || !isdigit(*str) || kstrtou64(str, 10, v) || *v > max)
		return -EINVAL;
	return 0;
}

/*
 * Queue every weight of @g's subtree again: after a `devices` write (BFQ
 * may have been loaded since; the shadow service writes a plain file
 * again only if its value changed or its last write failed, as
 * io.bfq.weight's before BFQ was there).
 */
static void rio_weigh_all(struct rio_group *g)
{
	struct rio_group *c;

	rio_weigh(g, true);
	list_for_each_entry(c, &g->children, sibling)
		rio_weigh_all(c);
}

/*
 * The `devices` parameter: "MAJ:MIN KEY=N ...;..." into @devs; the number
 * of devices, or -EINVAL (syntax, a number out of range, a key unknown or
 * given twice, a device given twice, a zero), -E2BIG (more than
 * RIO_MAX_DEVS). Numbers are kstrto*()'s: no sign, no space, no wrap.
 */
static int rio_parse(char *s, struct rio_dev *devs)
{
	char *entry, *tok;
	int n = 0, i, k;

	s = strim(s);
	if (!*s)
		return 0;
	while ((entry = strsep(&s, ";"))) {
		u64 maj, min;
		char *num;
		dev_t dev;

		entry = strim(entry);
		/* "MAJ:MIN", up to the first space. */
		num = strsep(&entry, " \t\n");
		if (!strchr(num, ':'))
			return -EINVAL;
		if (rio_num(strsep(&num, ":"), UINT_MAX, &maj) ||
		    rio_num(num, UINT_MAX, &min))
			return -EINVAL;
		dev = MKDEV(maj, min);
		if (MAJOR(dev) != maj || MINOR(dev) != min || !dev)
			return -EINVAL;
		if (n == RIO_MAX_DEVS)
			return -E2BIG;
		memset(&devs[n], 0, sizeof(devs[n]));
		devs[n].dev = dev;
		for (i = 0; i < n; i++)
			if (devs[i].dev == devs[n].dev)
				return -EINVAL;
		while ((tok = strsep(&entry, " \t\n"))) {
			char *val = tok;

			if (!*tok)
				continue;
			strsep(&val, "=");
			for (k = 0; k < RIO_KEYS; k++)
				if (!strcmp(tok, rio_keys[k]))
					break;
			/* io.max's riops and wiops are unsigned int. */
			if (k == RIO_KEYS || devs[n].cap[k] ||
			    rio_num(val, k >= 2 ? UINT_MAX : U64_MAX,
				    &devs[n].cap[k]) ||
			    !devs[n].cap[k])
				return -EINVAL;
		}
		n++;
	}
	return n;
}

/*
 * Each of @devs is a whole disk that exists: 0, -ENODEV (a partition, or
 * absent: blkdev_get_by_dev()'s -ENXIO), or blkdev_get_by_dev()'s errno as
 * it comes (-ENOMEDIUM: a drive without its medium; -EPERM: the writer's
 * device cgroup denies reading it; ...). The check opens each device read-only
 * for a moment, with that open's side effects (a removable drive's
 * medium checked, a partition scan pending done, the driver's open()).
 * An existence check without an open needs an export in the hooks patch.
 */
static int rio_check(const struct rio_dev *devs, int n)
{
	struct block_device *bdev;
	bool part;
	int i;

	for (i = 0; i < n; i++) {
		bdev = blkdev_get_by_dev(devs[i].dev, FMODE_READ, NULL);
		if (IS_ERR(bdev))
			return PTR_ERR(bdev) == -ENXIO ? -ENODEV : PTR_ERR(bdev);
		part = bdev_is_partition(bdev);
		blkdev_put(bdev, FMODE_READ);
		if (part)
			return -ENODEV;
	}
	return 0;
}

static int rio_devices_set(const char *val, const struct kernel_param *kp)
{
	struct rio_dev *devs;
	char *s;
	int n;

	devs = kcalloc(RIO_MAX_DEVS, sizeof(*devs), GFP_KERNEL);
	s = kstrdup(val, GFP_KERNEL);
	n = devs && s ? rio_parse(s, devs) : -ENOMEM;
	if (n > 0)
		n = rio_check(devs, n) ?: n;
	if (n >= 0) {
		mutex_lock(&rio_mutex);
		memcpy(rio_devs, devs, sizeof(rio_devs));
		rio_ndevs = n;
		if (rio_root) {
			rio_derive(rio_root, true);
			rio_weigh_all(rio_root);
		}
		mutex_unlock(&rio_mutex);
	}
	kfree(s);
	kfree(devs);
	return n < 0 ? n : 0;
}

static int rio_devices_get(char *buf, const struct kernel_param *kp)
{
	int i, k, n = 0;

	mutex_lock(&rio_mutex);
	for (i = 0; i < rio_ndevs; i++) {
		n += scnprintf(buf + n, PAGE_SIZE - n, "%s%u:%u", i ? ";" : "",
			       MAJOR(rio_devs[i].dev), MINOR(rio_devs[i].dev));
		for (k = 0; k < RIO_KEYS; k++)
			if (rio_devs[i].cap[k])
				n += scnprintf(buf + n, PAGE_SIZE - n,
					       " %s=%llu", rio_keys[k],
					       rio_devs[i].cap[k]);
	}
	mutex_unlock(&rio_mutex);
	return n + scnprintf(buf + n, PAGE_SIZE - n, "\n");
}

static const struct kernel_param_ops rio_devices_ops = {
	.set = rio_devices_set,
	.get = rio_devices_get,
};

module_param_cb(devices, &rio_devices_ops, NULL, 0644);
MODULE_PARM_DESC(devices,
		 "Each device's capacity: \"MAJ:MIN rbps=N wbps=N riops=N wiops=N;...\" (any of the keys; whole disks)");

static struct res_shares *rio_alloc_shares(struct res_controller *ctl,
					   struct res_shares *parent)
{
	struct rio_group *g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);

	if (!g)
		return NULL;
	INIT_LIST_HEAD(&g->children);
	/* The defaults the framework is about to set; a new shadow's W. */
	g->min = RES_SHARES_DONT_CARE;
	g->max = RES_SHARES_DONT_CARE;
	g->divisor = RES_SHARES_DEFAULT_DIVISOR;
	g->weight = RIO_WEIGHT_ONE;
	mutex_lock(&rio_mutex);
	if (parent) {
		g->parent = to_rio(parent);
		list_add_tail(&g->sibling, &g->parent->children);
		memcpy(g->abs, g->parent->abs, sizeof(g->abs));
		rio_weigh(g->parent, false);
	} else {
		rio_root = g;
		rio_derive(g, false);
	}
	mutex_unlock(&rio_mutex);
	return &g->shares;
}

/* No task points at @s's shadow any more, nor at its children's. */
static void rio_free_shares(struct res_shares *s)
{
	struct rio_group *g = to_rio(s);

	mutex_lock(&rio_mutex);
	if (g->parent) {
		list_del(&g->sibling);
		rio_weigh(g->parent, false);
	} else {
		rio_root = NULL;
	}
	mutex_unlock(&rio_mutex);
	kfree(g);
}

/* A write changed @s: its ceilings and its subtree's, the weights. */
static void rio_shares_changed(struct res_shares *s)
{
	struct rio_group *g = to_rio(s);

	mutex_lock(&rio_mutex);
	g->min = s->min_shares;
	g->max = s->max_shares;
	g->divisor = s->child_shares_divisor;
	rio_derive(g, false);
	if (g->parent)
		rio_weigh(g->parent, false);
	rio_weigh(g, false);
	mutex_unlock(&rio_mutex);
}

/* In @stat (io.stat), @key's value on @dev's line; 0 if none. */
static u64 rio_stat_val(const char *stat, dev_t dev, const char *key)
{
	char head[24], want[16];
	const char *line, *end, *p;
	size_t klen;
	u64 v = 0;

	snprintf(head, sizeof(head), "%u:%u ", MAJOR(dev), MINOR(dev));
	klen = snprintf(want, sizeof(want), "%s=", key);
	for (line = stat; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (strncmp(line, head, strlen(head)))
			continue;
		for (p = line; p && p < end; p = strchr(p + 1, ' ')) {
			p = skip_spaces(p);
			if (!strncmp(p, want, klen)) {
				if (sscanf(p + klen, "%llu", &v) != 1)
					v = 0;
				return v;
			}
		}
		return 0;
	}
	return 0;
}

/*
 * @s's io.stat into a new buffer (kvfree() it); an empty one if none.
 * Whole, up to RIO_STAT_MAX (1 MiB: over 7000 devices' lines).
 */
static char *rio_stat(struct res_shares *s)
{
	size_t size = RIO_STAT_SIZE;
	ssize_t n;
	char *buf;

	for (;;) {
		buf = kvmalloc(size, GFP_KERNEL);
		if (!buf)
			return NULL;
		n = res_shadow_read(s, "io.stat", buf, size);
		if (n < 0)
			*buf = '\0';
		if (n < (ssize_t)size - 1 || size >= RIO_STAT_MAX)
			return buf;
		kvfree(buf);
		size *= 2;
	}
}

static struct rio_base *rio_base_of(struct rio_group *g, dev_t dev)
{
	int i;

	for (i = 0; i < RIO_MAX_DEVS; i++)
		if (g->base[i].dev == dev)
			return &g->base[i];
	return NULL;
}

static void rio_show_stats(struct res_shares *s, struct seq_buf *sb)
{
	struct rio_group *g = to_rio(s);
	char *stat = rio_stat(s);
	struct rio_base *b;
	u64 n[RIO_KEYS];
	int i, k;

	if (!stat)
		return;
	mutex_lock(&rio_mutex);
	for (i = 0; i < rio_ndevs; i++) {
		dev_t dev = rio_devs[i].dev;

		b = rio_base_of(g, dev);
		for (k = 0; k < RIO_KEYS; k++) {
			n[k] = rio_stat_val(stat, dev, rio_stat_keys[k]);
			/* (a shadow made again counts from 0 again) */
			if (b && n[k] >= b->n[k])
				n[k] -= b->n[k];
		}
		seq_buf_printf(sb,
			       "res=io,dev=%u:%u,rbytes=%llu,wbytes=%llu,rios=%llu,wios=%llu,rbps_max=%llu,wbps_max=%llu,riops_max=%llu,wiops_max=%llu,weight=%u\n",
			       MAJOR(dev), MINOR(dev), n[0], n[1], n[2], n[3],
			       g->abs[i][0], g->abs[i][1], g->abs[i][2],
			       g->abs[i][3], g->parent ? g->weight : 0);
	}
	mutex_unlock(&rio_mutex);
	kvfree(stat);
}

static int rio_reset_stats(struct res_shares *s, const char *args)
{
	struct rio_group *g = to_rio(s);
	char *stat;
	int i, k;

	if (*args)
		return -EINVAL;
	stat = rio_stat(s);
	if (!stat)
		return -ENOMEM;
	mutex_lock(&rio_mutex);
	memset(g->base, 0, sizeof(g->base));
	for (i = 0; i < rio_ndevs; i++) {
		g->base[i].dev = rio_devs[i].dev;
		for (k = 0; k < RIO_KEYS; k++)
			g->base[i].n[k] = rio_stat_val(stat, rio_devs[i].dev,
						       rio_stat_keys[k]);
	}
	mutex_unlock(&rio_mutex);
	kvfree(stat);
	return 0;
}

/*
 * A task of a non-root group issues its bios as the group's shadow; the
 * root's and kernel threads are left to their io cgroups.
 */
static void rio_move_task(struct task_struct *tsk, struct res_shares *from,
			  struct res_shares *to, enum res_group_event event)
{
	res_shadow_place_task(tsk, to, RES_GROUP_CSS_IO);
}

static struct res_controller io_ctl = {
	.name		= "io",
	.depth		= RES_GROUP_MAX_DEPTH,
	.owner		= THIS_MODULE,
	/* Section "Precedence" of the docs: resource groups win. */
	.precedes_cgroup = true,
	.alloc_shares	= rio_alloc_shares,
	.free_shares	= rio_free_shares,
	.shares_changed	= rio_shares_changed,
	.show_stats	= rio_show_stats,
	.reset_stats	= rio_reset_stats,
	.move_task	= rio_move_task,
};

static int __init io_init(void)
{
	int ret;

	ret = res_shadow_enable(RES_GROUP_CSS_IO);
	if (ret) {
		pr_err("no shadow cgroups (is cgroup2's io controller there?): %d\n",
		       ret);
		return ret;
	}
	res_group_css_enable();
	ret = res_controller_register(&io_ctl);
	if (ret)
		res_shadow_disable(RES_GROUP_CSS_IO);
	return ret;
}

static void __exit io_exit(void)
{
	/*
	 * Ceilings lifted first, so that no bio waits in blk-throttle for a
	 * removed shadow's ceiling (queued before the shadows' removal,
	 * which waits for the queue); then the shadows' io files go back to
	 * their defaults, or away.
	 */
	mutex_lock(&rio_mutex);
	rio_ndevs = 0;
	if (rio_root)
		rio_derive(rio_root, false);
	rio_leaving = true;
	mutex_unlock(&rio_mutex);
	res_controller_unregister(&io_ctl);
	res_shadow_disable(RES_GROUP_CSS_IO);
}

module_init(io_init);
module_exit(io_exit);
MODULE_DESCRIPTION("Resource Groups: the io controller");
MODULE_LICENSE("GPL");
MODULE_VERSION(RES_GROUPS_VERSION);

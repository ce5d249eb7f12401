// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: tries to become the hooks user (so a test can see a
 * second user refused with -EBUSY), and on request plants one fault of
 * each kind the guest runner must catch (so the harness's self-tests can
 * see each detection path fail the run):
 *   warn=1     a WARN
 *   oob=1      an out-of-bounds read of a kmalloc'ed object (KASAN)
 *   leak=1     objects allocated and forgotten (kmemleak)
 *   lockdep=1  two mutexes taken in both orders (circular dependency)
 *   lockdep=2  a lock with a non-static key, which lockdep reports with
 *              no WARNING and then turns itself off (debug_locks = 0)
 *   ubsan=1    a shift past the width of its type (UBSAN; no taint)
 *   race=1     two threads increment one plain counter for 2 s (KCSAN)
 *
 * Locking: the two mutexes exist only to be taken in both orders, once,
 * from the module's init; nothing else takes them. The racy counter is
 * deliberately unlocked.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/res_group_hooks.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "WARN once when loaded (tests the splat detector)");

static bool oob;
module_param(oob, bool, 0444);
MODULE_PARM_DESC(oob, "read past a kmalloc'ed object when loaded (KASAN)");

static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "leak an object when loaded (kmemleak)");

static bool ubsan;
module_param(ubsan, bool, 0444);
MODULE_PARM_DESC(ubsan, "shift past the width of a type when loaded (UBSAN)");

static bool race;
module_param(race, bool, 0444);
MODULE_PARM_DESC(race, "two threads race on a plain counter for 2 s when loaded (KCSAN)");

static int lockdep;
module_param(lockdep, int, 0444);
MODULE_PARM_DESC(lockdep,
		 "1: take two mutexes in both orders; 2: use a lock with a non-static key");

static const struct res_group_hooks rg_hooks_test_hooks = {};

/* Where the planted faults' results go, so none is optimised away. */
static unsigned long rg_hooks_test_sink;

static DEFINE_MUTEX(rg_hooks_test_a);
static DEFINE_MUTEX(rg_hooks_test_b);

static void rg_hooks_test_oob(void)
{
	/* The length comes from a variable: no compile-time bound check. */
	size_t len = 24 + (rg_hooks_test_sink & 1);
	u8 *p = kmalloc(len, GFP_KERNEL);

	if (!p)
		return;
	rg_hooks_test_sink += READ_ONCE(p[len]);
	kfree(p);
}

static void rg_hooks_test_leak(void)
{
	void *p;
	int i;

	/*
	 * Only the addresses' low bits survive: nothing refers to them. The
	 * last one may linger in a stale stack (kmemleak scans the stacks
	 * kept for reuse), the earlier ones cannot: they are reported.
	 */
	for (i = 0; i < 8; i++) {
		p = kmalloc(128, GFP_KERNEL);
		rg_hooks_test_sink += (unsigned long)p & 1;
	}
}

/* Read at run time: the compiler cannot see the shift is too far. */
static unsigned int rg_hooks_test_shift_by = BITS_PER_LONG + 1;

static void rg_hooks_test_shift(void)
{
	rg_hooks_test_sink += 1UL << READ_ONCE(rg_hooks_test_shift_by);
}

static int rg_hooks_test_racer(void *unused)
{
	while (!kthread_should_stop()) {
		rg_hooks_test_sink++;	/* the planted data race */
		cond_resched();
	}
	return 0;
}

/*
 * Both threads run until stopped, so neither returns into freed text.
 * Without both, there is no race to see: fail the load instead.
 */
static int rg_hooks_test_race(void)
{
	struct task_struct *t[2];

	t[0] = kthread_run(rg_hooks_test_racer, NULL, "rg_race/0");
	if (IS_ERR(t[0]))
		return PTR_ERR(t[0]);
	t[1] = kthread_run(rg_hooks_test_racer, NULL, "rg_race/1");
	if (!IS_ERR(t[1])) {
		msleep(2000);
		kthread_stop(t[1]);
	}
	kthread_stop(t[0]);
	return PTR_ERR_OR_ZERO(t[1]);
}

static void rg_hooks_test_inversion(void)
{
	mutex_lock(&rg_hooks_test_a);
	mutex_lock(&rg_hooks_test_b);
	mutex_unlock(&rg_hooks_test_b);
	mutex_unlock(&rg_hooks_test_a);

	mutex_lock(&rg_hooks_test_b);
	mutex_lock(&rg_hooks_test_a);
	mutex_unlock(&rg_hooks_test_a);
	mutex_unlock(&rg_hooks_test_b);
}

static void rg_hooks_test_nonstatic_key(void)
{
	struct lockdep_map *map = kzalloc(sizeof(*map), GFP_KERNEL);

	if (!map)
		return;
	/* Never initialised: its key is NULL and its address is not static. */
	lock_map_acquire(map);
	lock_map_release(map);
	kfree(map);
}

static int __init rg_hooks_test_init(void)
{
	/*
	 * Lockdep before KASAN: a KASAN report turns lockdep off (the kernel
	 * is tainted as unreliable for it), and its report would never come.
	 */
	WARN(warn, "rg_hooks_test: splat requested by warn=1\n");
	if (lockdep == 1)
		rg_hooks_test_inversion();
	else if (lockdep == 2)
		rg_hooks_test_nonstatic_key();
	if (leak)
		rg_hooks_test_leak();
	if (ubsan)
		rg_hooks_test_shift();
	if (oob)
		rg_hooks_test_oob();
	if (race) {
		int ret = rg_hooks_test_race();

		if (ret)
			return ret;
	}
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

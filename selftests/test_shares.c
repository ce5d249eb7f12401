// SPDX-License-Identifier: GPL-2.0
/*
 * The shares file (docs/res_groups.rst, "Shares", "shares"): format, every rejection rule through
 * the file, with the state read back unchanged after each error.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define SNAP 4096

/* Every shares file of the tree: root, a, a/x, b. */
static void snapshot(char *buf)
{
	static const char * const groups[] = { "", "a", "a/x", "b" };

	rg_snapshot(groups, ARRAY_SIZE(groups), "shares", buf, SNAP);
}

FIXTURE(shares) {
	char before[SNAP], after[SNAP];
};

FIXTURE_SETUP(shares)
{
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/x"));
	ASSERT_EQ(0, rg_mkdir("b"));
}

FIXTURE_TEARDOWN(shares)
{
	rg_remove_all_groups();
	rg_unload_all();
}

/* A write that must fail with err and leave every shares file as it was. */
#define EXPECT_REJECTED(group, str, err) do {				\
	const char *s_ = (str);						\
	snapshot(self->before);						\
	EXPECT_EQ(-(err), rg_set(group, "shares", s_)) TH_LOG("%s", s_); \
	snapshot(self->after);						\
	EXPECT_STREQ(self->before, self->after) TH_LOG("%s", s_);	\
} while (0)

#define MIN(g)	rg_get(g, "shares", "test", "min_shares")
#define MAX(g)	rg_get(g, "shares", "test", "max_shares")
#define DIV(g)	rg_get(g, "shares", "test", "child_shares_divisor")

TEST_F(shares, new_group_reads_defaults)
{
	char buf[256], p[256];

	ASSERT_LT(0, rg_read(rg_path(p, sizeof(p), "a", "shares"), buf,
			     sizeof(buf)));
	EXPECT_STREQ("res=test,min_shares=-3,max_shares=-3,child_shares_divisor=100\n",
		     buf);
}

TEST_F(shares, write_sets_only_the_fields_given)
{
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,min_shares=30\n"));
	EXPECT_EQ(30, MIN("a"));
	EXPECT_EQ(-3, MAX("a"));
	EXPECT_EQ(100, DIV("a"));
	ASSERT_EQ(0, rg_set("a", "shares", "max_shares=40,res=test"));
	EXPECT_EQ(30, MIN("a"));
	EXPECT_EQ(40, MAX("a"));
}

TEST_F(shares, minus_one_keeps_the_value)
{
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,min_shares=30,max_shares=50"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,min_shares=-1,max_shares=60"));
	EXPECT_EQ(30, MIN("a"));
	EXPECT_EQ(60, MAX("a"));
}

TEST_F(shares, child_total_divisor_is_an_alias)
{
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,child_total_divisor=1000"));
	EXPECT_EQ(1000, DIV("a"));
}

TEST_F(shares, sum_of_children_min_capped_by_parent_divisor)
{
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,min_shares=60"));
	EXPECT_REJECTED("b", "res=test,min_shares=41", EINVAL);
	ASSERT_EQ(0, rg_set("b", "shares", "res=test,min_shares=40"));
	EXPECT_EQ(40, MIN("b"));
}

TEST_F(shares, min_freed_by_a_sibling_can_be_taken)
{
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,min_shares=60"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,min_shares=-3"));
	ASSERT_EQ(0, rg_set("b", "shares", "res=test,min_shares=100"));
}

TEST_F(shares, max_above_parent_divisor_rejected)
{
	EXPECT_REJECTED("a", "res=test,max_shares=101", EINVAL);
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,child_shares_divisor=10"));
	EXPECT_REJECTED("a/x", "res=test,max_shares=11", EINVAL);
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=test,max_shares=10"));
}

TEST_F(shares, symbolic_values_users_may_not_write_rejected)
{
	EXPECT_REJECTED("a", "res=test,min_shares=-2", EINVAL);
	EXPECT_REJECTED("a", "res=test,max_shares=-2", EINVAL);
	EXPECT_REJECTED("a", "res=test,min_shares=-4", EINVAL);
	EXPECT_REJECTED("a", "res=test,max_shares=-100", EINVAL);
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,min_shares=-3,max_shares=-3"));
}

TEST_F(shares, divisor_below_one_rejected)
{
	EXPECT_REJECTED("a", "res=test,child_shares_divisor=0", EINVAL);
	EXPECT_REJECTED("a", "res=test,child_shares_divisor=-3", EINVAL);
	EXPECT_REJECTED("", "res=test,child_shares_divisor=0", EINVAL);
}

/*
 * Every value a user can write as a divisor that is below 1 (including
 * the symbolic -2 and -3, and INT_MIN) is refused, on the root, a parent
 * with children and a leaf; -1 keeps the value. Before the fix -2 was
 * taken as "unsupported" and stored.
 */
TEST_F(shares, divisor_special_values_rejected_everywhere)
{
	static const char * const groups[] = { "", "a", "a/x" };
	static const char * const vals[] = {
		"-2", "-3", "-4", "0", "-2147483648", "2147483648",
	};
	char w[128];
	size_t g, v;

	ASSERT_EQ(0, rg_set("a/x", "shares", "res=test,min_shares=10"));
	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		for (v = 0; v < ARRAY_SIZE(vals); v++) {
			snprintf(w, sizeof(w),
				 "res=test,child_shares_divisor=%s", vals[v]);
			EXPECT_REJECTED(groups[g], w, EINVAL);
		}
		EXPECT_EQ(0, rg_set(groups[g], "shares",
				    "res=test,child_shares_divisor=-1"));
		EXPECT_EQ(100, DIV(groups[g]));
	}
	/* A child's valid write still works afterwards. */
	EXPECT_EQ(0, rg_set("a/x", "shares", "res=test,min_shares=90"));
}

TEST_F(shares, divisor_below_childrens_min_rejected)
{
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=test,min_shares=60"));
	EXPECT_REJECTED("a", "res=test,child_shares_divisor=59", EINVAL);
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,child_shares_divisor=60"));
	/* Nothing is left unpromised: a sibling gets no min. */
	ASSERT_EQ(0, rg_mkdir("a/y"));
	EXPECT_EQ(-EINVAL, rg_set("a/y", "shares", "res=test,min_shares=1"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,child_shares_divisor=61"));
	EXPECT_EQ(0, rg_set("a/y", "shares", "res=test,min_shares=1"));
}

TEST_F(shares, divisor_below_childrens_max_rejected)
{
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=test,max_shares=80"));
	EXPECT_REJECTED("a", "res=test,child_shares_divisor=79", EINVAL);
	ASSERT_EQ(0, rg_set("a/x", "shares", "res=test,max_shares=-3"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,child_shares_divisor=79"));
}

TEST_F(shares, min_above_max_rejected)
{
	EXPECT_REJECTED("a", "res=test,min_shares=20,max_shares=10", EINVAL);
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,max_shares=10"));
	EXPECT_REJECTED("a", "res=test,min_shares=11", EINVAL);
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,min_shares=10"));
}

TEST_F(shares, malformed_writes_rejected)
{
	static const char * const bad[] = {
		" ", "\n", "res=test", "min_shares=10", "res=nope,min_shares=1",
		"res=test,res=test,min_shares=1", "res=test,bogus=1",
		"res=test,min_shares=", "res=test,min_shares=abc",
		"res=test,min_shares=10x", "res=test,min_shares=0x10",
		"res=test,min_shares=2147483648", "res=test,min_shares=1,",
		"res=test,,min_shares=1", "res=test,min_shares=1,min_shares=2",
		"res=test,min_shares=1\n\n", "res=test min_shares=1",
		"res=test,min_shares= 1", "res=test;min_shares=1",
		"res=test,min_shares=99999999999999999999",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* "res=test" alone is a valid no-op, not an error. */
		if (!strcmp(bad[i], "res=test")) {
			EXPECT_EQ(0, rg_set("a", "shares", bad[i]));
			continue;
		}
		EXPECT_REJECTED("a", bad[i], EINVAL);
	}
}

TEST_F(shares, rmdir_returns_min_to_parent)
{
	ASSERT_EQ(0, rg_set("b", "shares", "res=test,min_shares=70"));
	EXPECT_EQ(-EINVAL, rg_set("a", "shares", "res=test,min_shares=31"));
	ASSERT_EQ(0, rg_rmdir("b"));
	EXPECT_EQ(0, rg_set("a", "shares", "res=test,min_shares=100"));
}

TEST_F(shares, controller_told_of_accepted_writes_only)
{
	long before = rg_get("a", "stats", "test", "changed");

	ASSERT_LE(0, before);
	EXPECT_EQ(-EINVAL, rg_set("a", "shares", "res=test,min_shares=200"));
	EXPECT_EQ(before, rg_get("a", "stats", "test", "changed"));
	ASSERT_EQ(0, rg_set("a", "shares", "res=test,min_shares=20,max_shares=30"));
	EXPECT_EQ(before + 1, rg_get("a", "stats", "test", "changed"));
	EXPECT_EQ(20, rg_get("a", "stats", "test", "min"));
	EXPECT_EQ(30, rg_get("a", "stats", "test", "max"));
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only KUnit suite for the harness's own self-test: it passes, but
 * built as rg_kunit_planted_fail.ko (RG_PLANT_FAIL) one case and one
 * parameter of another fail. The runner must count both and fail the run.
 * Not a module parameter: a module's suites run before its parameters
 * are parsed.
 */
#include <kunit/test.h>
#include <linux/module.h>

#ifndef RG_PLANT_FAIL
#define RG_PLANT_FAIL 0
#define RG_PLANT_NAME "rg_kunit_planted"
#endif

static const bool fail = RG_PLANT_FAIL;

static void rg_planted_plain(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, fail);
}

static const int rg_planted_values[] = { 1, 2, 3 };

static void rg_planted_desc(const int *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "value-%d", *v);
}

KUNIT_ARRAY_PARAM(rg_planted, rg_planted_values, rg_planted_desc);

static void rg_planted_param(struct kunit *test)
{
	const int *v = test->param_value;

	KUNIT_EXPECT_TRUE(test, !fail || *v != 2);
}

static struct kunit_case rg_planted_cases[] = {
	KUNIT_CASE(rg_planted_plain),
	KUNIT_CASE_PARAM(rg_planted_param, rg_planted_gen_params),
	{}
};

static struct kunit_suite rg_planted_suite = {
	.name = RG_PLANT_NAME,
	.test_cases = rg_planted_cases,
};

kunit_test_suite(rg_planted_suite);

MODULE_DESCRIPTION("Resource Groups: a KUnit suite that fails on request");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading res_groups.ko: configfs, /proc and the hooks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

#define RG_KO "module/res_groups.ko"
#define HOOKS_TEST_KO "selftests/modules/rg_hooks_test.ko"

FIXTURE(module) {
	char buf[256];
};

FIXTURE_SETUP(module)
{
	rg_unload_all();
}

FIXTURE_TEARDOWN(module)
{
	rg_unload_all();
}

TEST_F(module, configfs_dir_appears_and_disappears)
{
	ASSERT_FALSE(rg_exists(RG_ROOT));
	ASSERT_EQ(0, rg_insmod(RG_KO, NULL));
	ASSERT_TRUE(rg_exists(RG_ROOT));
	ASSERT_EQ(0, rg_rmmod("res_groups"));
	ASSERT_FALSE(rg_exists(RG_ROOT));
}

TEST_F(module, proc_res_group_is_root_while_loaded_empty_after)
{
	char path[64];

	ASSERT_EQ(0, rg_read("/proc/self/res_group", self->buf, sizeof(self->buf)));
	ASSERT_EQ(0, rg_insmod(RG_KO, NULL));
	ASSERT_EQ(2, rg_read("/proc/self/res_group", self->buf, sizeof(self->buf)));
	ASSERT_STREQ("/\n", self->buf);
	snprintf(path, sizeof(path), "/proc/self/task/%d/res_group", gettid());
	ASSERT_EQ(2, rg_read(path, self->buf, sizeof(self->buf)));
	ASSERT_STREQ("/\n", self->buf);
	ASSERT_EQ(0, rg_rmmod("res_groups"));
	ASSERT_EQ(0, rg_read("/proc/self/res_group", self->buf, sizeof(self->buf)));
	ASSERT_EQ(0, rg_read(path, self->buf, sizeof(self->buf)));
}

TEST_F(module, second_hooks_user_gets_ebusy)
{
	ASSERT_EQ(0, rg_insmod(RG_KO, NULL));
	ASSERT_EQ(-EBUSY, rg_insmod(HOOKS_TEST_KO, NULL));
	ASSERT_FALSE(rg_module_loaded("rg_hooks_test"));
	ASSERT_EQ(0, rg_rmmod("res_groups"));
	/* Once the hooks are free, another user may take them. */
	ASSERT_EQ(0, rg_insmod(HOOKS_TEST_KO, NULL));
	ASSERT_EQ(-EBUSY, rg_insmod(RG_KO, NULL));
	ASSERT_FALSE(rg_exists(RG_ROOT));
	ASSERT_EQ(0, rg_rmmod("rg_hooks_test"));
}

TEST_F(module, fork_and_exit_work_across_load_and_unload)
{
	pid_t loopers[2];
	int i;

	for (i = 0; i < 2; i++) {
		loopers[i] = rg_fork_loop_start(NULL);
		ASSERT_LT(0, loopers[i]);
	}
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, rg_insmod(RG_KO, NULL));
		usleep(20000);
		ASSERT_EQ(0, rg_rmmod("res_groups"));
		usleep(20000);
	}
	/* Still running, i.e. no fork failed and no child went astray. */
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, rg_fork_loop_stop(loopers[i]));
}

TEST_HARNESS_MAIN

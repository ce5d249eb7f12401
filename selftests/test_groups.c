// SPDX-License-Identifier: GPL-2.0
/*
 * The group tree (docs/res_groups.rst: depth, tasks, configfs): depth
 * limit, names, rmdir, /proc paths.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

FIXTURE(groups) {
	char buf[4096];
};

FIXTURE_SETUP(groups)
{
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
}

FIXTURE_TEARDOWN(groups)
{
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
}

TEST_F(groups, depth_five_allowed_six_emlink)
{
	ASSERT_EQ(0, rg_mkdir("1"));
	ASSERT_EQ(0, rg_mkdir("1/2"));
	ASSERT_EQ(0, rg_mkdir("1/2/3"));
	ASSERT_EQ(0, rg_mkdir("1/2/3/4"));
	ASSERT_EQ(0, rg_mkdir("1/2/3/4/5"));
	EXPECT_EQ(-EMLINK, rg_mkdir("1/2/3/4/5/6"));
	EXPECT_FALSE(rg_exists(RG_ROOT "/1/2/3/4/5/6"));
	/* The depth-5 group works like any other. */
	EXPECT_TRUE(rg_exists(RG_ROOT "/1/2/3/4/5/members"));
}

TEST_F(groups, names_with_control_characters_einval)
{
	EXPECT_EQ(-EINVAL, rg_mkdir("tab\there"));
	EXPECT_EQ(-EINVAL, rg_mkdir("new\nline"));
	EXPECT_EQ(-EINVAL, rg_mkdir("del\x7f"));
	EXPECT_FALSE(rg_exists(RG_ROOT "/tab\there"));
	EXPECT_EQ(0, rg_mkdir("spaces and-punct.ok"));
}

/*
 * Names are bytes: UTF-8 is not refused for bytes 0x80-0x9f, which are
 * no control characters there (the euro sign is e2 82 ac; "Ä" c3 84).
 */
TEST_F(groups, utf8_names_are_accepted)
{
	EXPECT_EQ(0, rg_mkdir("\xe2\x82\xac"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/\xe2\x82\xac/members"));
	EXPECT_EQ(0, rg_mkdir("\xc3\x84rger"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/\xc3\x84rger/members"));
}

TEST_F(groups, every_group_has_three_files)
{
	ASSERT_EQ(0, rg_mkdir("a"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a/shares"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a/stats"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a/members"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/shares"));
}

TEST_F(groups, group_with_children_cannot_be_removed)
{
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/b"));
	EXPECT_EQ(-ENOTEMPTY, rg_rmdir("a"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a/b"));
	EXPECT_EQ(0, rg_rmdir("a/b"));
	EXPECT_EQ(0, rg_rmdir("a"));
}

TEST_F(groups, rmdir_moves_tasks_to_parent)
{
	pid_t pid = rg_sleeper();

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/b"));
	ASSERT_EQ(0, rg_move("a/b", pid));
	ASSERT_EQ(1, rg_is_member("a/b", pid));
	ASSERT_EQ(0, rg_rmdir("a/b"));
	EXPECT_EQ(1, rg_is_member("a", pid));
	ASSERT_EQ(0, rg_rmdir("a"));
	EXPECT_EQ(1, rg_is_member("", pid));
	rg_kill(pid);
}

static void *read_own_path(void *buf)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/task/%d/res_group", gettid());
	rg_read(p, buf, 256);
	return NULL;
}

TEST_F(groups, proc_shows_path_from_root)
{
	char tbuf[256];
	pthread_t t;

	ASSERT_EQ(2, rg_read("/proc/self/res_group", self->buf, sizeof(self->buf)));
	EXPECT_STREQ("/\n", self->buf);
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/b c"));
	ASSERT_EQ(0, rg_move("a/b c", getpid()));
	rg_read("/proc/self/res_group", self->buf, sizeof(self->buf));
	EXPECT_STREQ("/a/b c\n", self->buf);
	/* A new thread joins its leader's group; its own file says so. */
	ASSERT_EQ(0, pthread_create(&t, NULL, read_own_path, tbuf));
	pthread_join(t, NULL);
	EXPECT_STREQ("/a/b c\n", tbuf);
	ASSERT_EQ(0, rg_move("", getpid()));
	rg_read("/proc/self/res_group", self->buf, sizeof(self->buf));
	EXPECT_STREQ("/\n", self->buf);
}

TEST_F(groups, proc_of_kernel_thread_is_root)
{
	ASSERT_EQ(2, rg_read("/proc/2/res_group", self->buf, sizeof(self->buf)));
	EXPECT_STREQ("/\n", self->buf);
}

TEST_HARNESS_MAIN

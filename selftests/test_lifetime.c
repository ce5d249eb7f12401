// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetimes: files held open across rmdir and rmmod, modules pinned while
 * they are in use, a controller unloaded under a fork storm. KASAN and
 * kmemleak in the debug guest catch what the asserts cannot see.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "rg_util.h"

FIXTURE(life) {
	int unused;
};

FIXTURE_SETUP(life)
{
	rg_remove_all_groups();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("module/numtasks.ko", NULL));
	ASSERT_EQ(0, rg_mkdir("a"));
}

FIXTURE_TEARDOWN(life)
{
	rg_move("", getpid());
	rg_remove_all_groups();
	rg_unload_all();
}

static int open_file(const char *group, const char *file, int flags)
{
	char p[256];

	return open(rg_path(p, sizeof(p), group, file), flags | O_CLOEXEC);
}

TEST_F(life, files_open_across_rmdir_fail_cleanly)
{
	static const char * const files[] = { "shares", "stats", "members" };
	int fd[3], i;
	char buf[64];

	ASSERT_EQ(0, rg_move("a", getpid()));
	for (i = 0; i < 3; i++) {
		fd[i] = open_file("a", files[i], O_RDWR);
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, rg_rmdir("a"));
	EXPECT_TRUE(rg_is_member("", getpid()));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(-1, read(fd[i], buf, sizeof(buf)));
		EXPECT_EQ(ENOENT, errno) TH_LOG("read %s", files[i]);
		EXPECT_EQ(-1, write(fd[i], "res=numtasks\n", 13));
		EXPECT_EQ(ENOENT, errno) TH_LOG("write %s", files[i]);
		close(fd[i]);
	}
	/* A new group of the same name starts afresh. */
	ASSERT_EQ(0, rg_mkdir("a"));
	EXPECT_EQ(0, rg_get("a", "stats", "numtasks", "held"));
}

TEST_F(life, file_read_before_rmdir_then_read_again)
{
	char buf[4096];
	int fd = open_file("a", "stats", O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, buf, 16));
	ASSERT_EQ(0, rg_rmdir("a"));
	/* The rest of what was read before the rmdir, then the end. */
	EXPECT_LT(0, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	close(fd);
}

TEST_F(life, rmmod_refused_while_a_group_exists)
{
	/* A controller may go any time; the framework not under a group. */
	ASSERT_EQ(0, rg_rmmod("numtasks"));
	EXPECT_EQ(-EWOULDBLOCK, rg_rmmod("res_groups"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a"));
	ASSERT_EQ(0, rg_rmdir("a"));
	EXPECT_EQ(0, rg_rmmod("res_groups"));
}

TEST_F(life, rmmod_refused_while_a_file_is_open)
{
	int fd;

	ASSERT_EQ(0, rg_rmdir("a"));
	ASSERT_EQ(0, rg_rmmod("numtasks"));
	fd = open_file("", "members", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EWOULDBLOCK, rg_rmmod("res_groups"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/members"));
	close(fd);
	EXPECT_EQ(0, rg_rmmod("res_groups"));
}

TEST_F(life, controller_unloaded_while_its_stats_file_is_open)
{
	char buf[4096];
	int fd = open_file("a", "stats", O_RDONLY);
	ssize_t n;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rg_rmmod("numtasks"));
	/* Read after the unload: the controller's line is gone with it. */
	n = read(fd, buf, sizeof(buf) - 1);
	ASSERT_LE(0, n);
	buf[n] = '\0';
	EXPECT_EQ(NULL, strstr(buf, "numtasks")) TH_LOG("%s", buf);
	close(fd);
	EXPECT_EQ(LONG_MIN, rg_get("a", "stats", "numtasks", "held"));
}

TEST_F(life, proc_file_open_across_rmmod_reads_empty)
{
	char buf[64];
	int fd;

	ASSERT_EQ(0, rg_move("a", getpid()));
	fd = open("/proc/self/res_group", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rg_move("", getpid()));
	ASSERT_EQ(0, rg_rmdir("a"));
	ASSERT_EQ(0, rg_rmmod("numtasks"));
	ASSERT_EQ(0, rg_rmmod("res_groups"));
	/* Empty: end of file at once, not an error. */
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	close(fd);
}

TEST_HARNESS_MAIN

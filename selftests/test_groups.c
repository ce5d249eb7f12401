// SPDX-License-Identifier: GPL-2.0
/*
 * The group tree (docs/res_groups.rst: depth, tasks, configfs): depth
 * limit, names, rmdir, /proc paths, max_descendants and max_depth.
 *
 * Tiers: names_are_found_among_many_siblings makes 1,000 siblings in the
 * full tier, 100 in the quick one (RG_TIER=quick).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

TEST_F(groups, every_group_has_five_files)
{
	ASSERT_EQ(0, rg_mkdir("a"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a/shares"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a/stats"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a/members"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a/max_descendants"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/a/max_depth"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/shares"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/max_descendants"));
	EXPECT_TRUE(rg_exists(RG_ROOT "/max_depth"));
}

#define SHOW_PAGE "selftests/modules/rg_show_page.ko"

/* The files of every group (docs: "The configfs interface"). */
static const char * const group_files[] = {
	"shares", "stats", "members", "max_descendants", "max_depth",
};

/*
 * 0 if directory @path lists the group files and the groups "0" to
 * "@n - 1", each once, and nothing else; else -1.
 */
static int each_listed_once(const char *path, int n)
{
	int seen_files[ARRAY_SIZE(group_files)] = { 0 }, ret = 0;
	unsigned char *seen = calloc(n, 1);
	DIR *d = opendir(path);
	struct dirent *e;
	size_t f;
	char *end;
	long v;

	if (!d || !seen) {
		free(seen);
		if (d)
			closedir(d);
		return -1;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (f = 0; f < ARRAY_SIZE(group_files); f++)
			if (!strcmp(e->d_name, group_files[f]))
				break;
		if (f < ARRAY_SIZE(group_files)) {
			ret |= seen_files[f]++ ? -1 : 0;
			continue;
		}
		v = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || v < 0 || v >= n || seen[v]++)
			ret = -1;
	}
	closedir(d);
	for (f = 0; f < ARRAY_SIZE(group_files); f++)
		ret |= seen_files[f] == 1 ? 0 : -1;
	for (v = 0; v < n; v++)
		ret |= seen[v] == 1 ? 0 : -1;
	free(seen);
	return ret;
}

/*
 * The entries of directory @path named @name (NULL: but "." and ".."),
 * or -1.
 */
static int count_named(const char *path, const char *name)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += name ? !strcmp(e->d_name, name) :
			    strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int count_entries(const char *path)
{
	return count_named(path, NULL);
}

/*
 * Names among many siblings (configfs finds a name among a directory's
 * children by an index, hooks 0006): under p, n groups made in an order
 * that is not their names' order (i x 7919 mod n, 7919 a prime), so
 * that "1", "10" and "100" come apart. Every name is then taken
 * (EEXIST, nothing made: the dcache holds every group's directory, so
 * this checks that nothing else was made), an attribute's name too (the
 * index's lookup of an attribute), and no other name; every group's
 * group_files and p's own are found (the same); a removed group's name is free
 * again (the index's check that a name is free) and the others stay
 * taken; readdir lists each entry once.
 */
TEST_F(groups, names_are_found_among_many_siblings)
{
	const int n = rg_scaled(1000, 100);
	char name[64], path[128];
	size_t f;
	int i;

	ASSERT_EQ(0, rg_mkdir("p"));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p/%d", (int)(i * 7919L % n));
		ASSERT_EQ(0, rg_mkdir(name)) TH_LOG("%s", name);
	}
	ASSERT_EQ(0, each_listed_once(RG_ROOT "/p", n));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p/%d", i);
		EXPECT_EQ(-EEXIST, rg_mkdir(name)) TH_LOG("%s", name);
		snprintf(path, sizeof(path), RG_ROOT "/p/%d/%s", i,
			 group_files[i % ARRAY_SIZE(group_files)]);
		EXPECT_TRUE(rg_exists(path)) TH_LOG("%s", path);
	}
	for (f = 0; f < ARRAY_SIZE(group_files); f++) {
		snprintf(name, sizeof(name), "p/%s", group_files[f]);
		EXPECT_EQ(-EEXIST, rg_mkdir(name)) TH_LOG("%s", name);
		snprintf(path, sizeof(path), RG_ROOT "/p/%s", group_files[f]);
		EXPECT_TRUE(rg_exists(path)) TH_LOG("%s", path);
		snprintf(path, sizeof(path), RG_ROOT "/p/%d/%s", n, group_files[f]);
		EXPECT_FALSE(rg_exists(path)) TH_LOG("%s", path);
	}
	snprintf(path, sizeof(path), RG_ROOT "/p/%d", n);
	EXPECT_FALSE(rg_exists(path));
	EXPECT_FALSE(rg_exists(RG_ROOT "/p/share"));
	EXPECT_FALSE(rg_exists(RG_ROOT "/p/sharesx"));
	/* Nothing was made by the refused ones. */
	EXPECT_EQ(0, each_listed_once(RG_ROOT "/p", n));

	/* Every other one removed: its name free, the others' taken. */
	for (i = 0; i < n; i += 2) {
		snprintf(name, sizeof(name), "p/%d", i);
		ASSERT_EQ(0, rg_rmdir(name)) TH_LOG("%s", name);
	}
	EXPECT_EQ(n / 2 + 5, count_entries(RG_ROOT "/p"));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p/%d", i);
		EXPECT_EQ(i % 2 ? -EEXIST : 0, rg_mkdir(name)) TH_LOG("%s", name);
	}
	EXPECT_EQ(0, each_listed_once(RG_ROOT "/p", n));
}

/*
 * The one check of a name that finds a directory among configfs's
 * entries by the index (hooks 0006), since the dcache answers for a
 * group's: configfs refuses a second subsystem of a name it has, here
 * rg_show_page.ko named res_groups (EEXIST, nothing changed); named anew
 * it loads.
 */
TEST_F(groups, configfs_refuses_a_second_subsystem_of_a_name)
{
	ASSERT_EQ(0, rg_mkdir("a"));
	EXPECT_EQ(-EEXIST, rg_insmod(SHOW_PAGE, "name=res_groups"));
	EXPECT_FALSE(rg_module_loaded("rg_show_page"));
	EXPECT_EQ(5, count_entries(RG_ROOT "/a"));
	EXPECT_EQ(1, count_named("/sys/kernel/config", "res_groups"));
	ASSERT_EQ(0, rg_insmod(SHOW_PAGE, "name=rg_name_check"));
	EXPECT_TRUE(rg_exists("/sys/kernel/config/rg_name_check/offset"));
	EXPECT_EQ(0, rg_rmmod("rg_show_page"));
	EXPECT_FALSE(rg_exists("/sys/kernel/config/rg_name_check"));
}

/* Both caps of the root and of a, in one string. */
static void caps_state(char *buf, size_t size)
{
	static const char * const groups[] = { "", "a" };
	size_t len;

	rg_snapshot(groups, ARRAY_SIZE(groups), "max_descendants", buf, size);
	len = strlen(buf);
	rg_snapshot(groups, ARRAY_SIZE(groups), "max_depth", buf + len,
		    size - len);
}

/* The cap file of group now reads want. */
#define EXPECT_CAP(group, file, want) do {				\
	char _p[256], _b[64];						\
	rg_path(_p, sizeof(_p), group, file);				\
	EXPECT_LT(0, rg_read(_p, _b, sizeof(_b)));			\
	EXPECT_STREQ(want, _b) TH_LOG("%s", _p);			\
} while (0)

/*
 * Every kind of value, to both caps of the root and of a group: "max" or
 * 0..INT_MAX (INT_MAX reads back as "max", as in cgroup v2), one trailing
 * newline; anything else EINVAL with both caps of both groups unchanged.
 */
TEST_F(groups, cap_values)
{
	static const struct { const char *in, *out; } good[] = {
		{ "0", "0\n" }, { "1", "1\n" }, { "1\n", "1\n" },
		{ "1000000", "1000000\n" }, { "2147483646", "2147483646\n" },
		{ "2147483647", "max\n" }, { "+5", "5\n" }, { "007", "7\n" },
		{ "max", "max\n" }, { "max\n", "max\n" }, { "3\n", "3\n" },
	};
	static const char * const bad[] = {
		"\n", " ", "\t", " 1", "1 ", "1\n\n", "\n1", "-1", "-0",
		"-2147483648", "2147483648", "4294967295", "4294967296",
		"99999999999999999999", "0x10", "010x", "1a", "abc", "1,2",
		"max ", " max", "MAX", "Max", "maxx", "ma", "max\n\n", "inf",
		"1.5", "1e3",
	};
	static const char * const files[] = { "max_descendants", "max_depth" };
	static const char * const groups[] = { "", "a" };
	char before[1024], after[1024], p[256], big[5000];
	size_t g, f, i;

	ASSERT_EQ(0, rg_mkdir("a"));
	for (g = 0; g < ARRAY_SIZE(groups); g++)
		for (f = 0; f < ARRAY_SIZE(files); f++)
			EXPECT_CAP(groups[g], files[f], "max\n");
	for (g = 0; g < ARRAY_SIZE(groups); g++)
		for (f = 0; f < ARRAY_SIZE(files); f++) {
			rg_path(p, sizeof(p), groups[g], files[f]);
			for (i = 0; i < ARRAY_SIZE(good); i++) {
				EXPECT_EQ(0, rg_write(p, good[i].in))
					TH_LOG("%s <- '%s'", p, good[i].in);
				EXPECT_CAP(groups[g], files[f], good[i].out);
			}
			/* Now 3 (the last good value): bad input keeps it. */
			caps_state(before, sizeof(before));
			EXPECT_NE(NULL, strstr(before, "3\n"));
			for (i = 0; i < ARRAY_SIZE(bad); i++) {
				EXPECT_EQ(-EINVAL, rg_write(p, bad[i]))
					TH_LOG("%s <- '%s'", p, bad[i]);
				caps_state(after, sizeof(after));
				EXPECT_STREQ(before, after)
					TH_LOG("%s <- '%s'", p, bad[i]);
			}
			/*
			 * An embedded NUL, nothing; zeros (a valid 0, whatever the
			 * length) more than a page long, and a page less one
			 * byte: all configfs passes on of a longer write.
			 */
			EXPECT_EQ(-EINVAL, rg_write_buf(p, "1\0", 2));
			/* An empty write: configfs refuses it itself. */
			EXPECT_EQ(-EFAULT, rg_write(p, ""));
			memset(big, '0', sizeof(big));
			EXPECT_EQ(-EINVAL, rg_write_buf(p, big, sizeof(big)));
			EXPECT_EQ(-EINVAL, rg_write_buf(p, big, 4095));
			caps_state(after, sizeof(after));
			EXPECT_STREQ(before, after);
		}
}

/* The group exists. */
static int there(const char *group)
{
	char p[256];

	return rg_exists(rg_path(p, sizeof(p), group, NULL));
}

/*
 * max_descendants counts every group below, at any depth, and holds for
 * the whole subtree: a cap on the parent and on the grandparent. A
 * refused mkdir creates nothing and counts nothing: after an rmdir just
 * one more group fits.
 */
TEST_F(groups, max_descendants_eagain)
{
	static const char * const watched[] = { "g", "g/p" };
	char before[4096], after[4096];

	ASSERT_EQ(0, rg_mkdir("g"));
	ASSERT_EQ(0, rg_mkdir("g/p"));
	ASSERT_EQ(0, rg_set("g", "max_descendants", "3"));
	EXPECT_EQ(0, rg_mkdir("g/p/a"));
	EXPECT_EQ(0, rg_mkdir("g/p/b"));
	before[0] = '\0';
	ASSERT_EQ(0, rg_snapshot_all(watched, 2, before, sizeof(before)));
	/* Grandparent's cap: in g/p, in g/p/a; parent's: in g. */
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/p/c"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/p/a/x"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/q"));
	EXPECT_FALSE(there("g/p/c"));
	EXPECT_FALSE(there("g/p/a/x"));
	EXPECT_FALSE(there("g/q"));
	after[0] = '\0';
	ASSERT_EQ(0, rg_snapshot_all(watched, 2, after, sizeof(after)));
	EXPECT_STREQ(before, after);
	/* Freed by an rmdir: one fits again, and only one. */
	ASSERT_EQ(0, rg_rmdir("g/p/b"));
	EXPECT_EQ(0, rg_mkdir("g/p/a/x"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/p/c"));

	/* The parent's own cap, 0 and 1; a sibling is not held by it. */
	ASSERT_EQ(0, rg_set("g", "max_descendants", "max"));
	ASSERT_EQ(0, rg_set("g/p/a", "max_descendants", "0"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/p/a/y"));
	EXPECT_EQ(0, rg_set("g/p", "max_descendants", "3"));
	EXPECT_EQ(0, rg_mkdir("g/p/c"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/p/d"));
	EXPECT_EQ(0, rg_mkdir("g/q"));
	ASSERT_EQ(0, rg_set("g/q", "max_descendants", "1"));
	EXPECT_EQ(0, rg_mkdir("g/q/1"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/q/2"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/q/1/2"));
	EXPECT_EQ(0, rg_set("g/q", "max_descendants", "max"));
	EXPECT_EQ(0, rg_mkdir("g/q/1/2"));

	/* The root's: every group counts (g and its 7: 8, then h). */
	ASSERT_EQ(0, rg_set("", "max_descendants", "9"));
	EXPECT_EQ(0, rg_mkdir("h"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("i"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/q/3"));
	EXPECT_FALSE(there("i"));
	ASSERT_EQ(0, rg_set("", "max_descendants", "max"));
	EXPECT_EQ(0, rg_mkdir("i"));
}

/*
 * max_depth: how deep below the group a new one may be (1: children). A
 * cap on the parent and on the grandparent, and the root's.
 */
TEST_F(groups, max_depth_eagain)
{
	ASSERT_EQ(0, rg_mkdir("g"));
	ASSERT_EQ(0, rg_set("g", "max_depth", "2"));
	EXPECT_EQ(0, rg_mkdir("g/a"));
	EXPECT_EQ(0, rg_mkdir("g/a/b"));
	/* Level 3 below g, whose cap is on the grandparent's parent. */
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/a/b/c"));
	EXPECT_FALSE(there("g/a/b/c"));
	/* The parent's cap: 0, no child; a sibling is not held by it. */
	ASSERT_EQ(0, rg_set("g/a", "max_depth", "0"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/a/d"));
	EXPECT_FALSE(there("g/a/d"));
	EXPECT_EQ(0, rg_mkdir("g/e"));
	/* The grandparent's, 1: g/f's children only. */
	ASSERT_EQ(0, rg_set("g", "max_depth", "max"));
	EXPECT_EQ(0, rg_mkdir("g/f"));
	EXPECT_EQ(0, rg_mkdir("g/f/1"));
	ASSERT_EQ(0, rg_set("g/f", "max_depth", "1"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/f/1/2"));
	EXPECT_EQ(0, rg_mkdir("g/f/3"));
	EXPECT_EQ(0, rg_mkdir("g/e/1"));
	EXPECT_EQ(0, rg_mkdir("g/e/1/2"));
	/* The root's, 2: no group at depth 3 anywhere. */
	ASSERT_EQ(0, rg_set("", "max_depth", "2"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/e/1/3"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("g/e/4"));
	EXPECT_FALSE(there("g/e/4"));
	EXPECT_EQ(0, rg_mkdir("g/h"));
	EXPECT_EQ(0, rg_mkdir("x"));
	ASSERT_EQ(0, rg_set("", "max_depth", "0"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("y"));
	EXPECT_FALSE(there("y"));
	ASSERT_EQ(0, rg_set("", "max_depth", "max"));
	EXPECT_EQ(0, rg_mkdir("g/e/1/3"));
}

/*
 * A cap lowered below what exists is taken (as in cgroup v2): the groups
 * stay, only new ones are refused until enough are gone.
 */
TEST_F(groups, caps_lowered_below_what_exists)
{
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/x"));
	ASSERT_EQ(0, rg_mkdir("a/y"));
	ASSERT_EQ(0, rg_mkdir("a/x/z"));
	EXPECT_EQ(0, rg_set("a", "max_descendants", "1"));
	EXPECT_CAP("a", "max_descendants", "1\n");
	EXPECT_EQ(0, rg_set("a", "max_depth", "1"));
	EXPECT_CAP("a", "max_depth", "1\n");
	EXPECT_TRUE(there("a/x/z"));
	EXPECT_TRUE(there("a/y"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("a/w"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("a/x/v"));
	EXPECT_EQ(0, rg_rmdir("a/y"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("a/w"));
	EXPECT_EQ(0, rg_rmdir("a/x/z"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("a/w"));	/* a/x: 1, not below 1 */
	EXPECT_EQ(0, rg_rmdir("a/x"));
	EXPECT_EQ(0, rg_mkdir("a/w"));
	EXPECT_EQ(-EAGAIN, rg_mkdir("a/w/v"));	/* max_depth 1 */
	EXPECT_FALSE(there("a/w/v"));
}

/* Depth 5 is the limit whatever the caps: EMLINK comes first. */
TEST_F(groups, emlink_before_eagain)
{
	ASSERT_EQ(0, rg_mkdir("1"));
	ASSERT_EQ(0, rg_mkdir("1/2"));
	ASSERT_EQ(0, rg_mkdir("1/2/3"));
	ASSERT_EQ(0, rg_mkdir("1/2/3/4"));
	ASSERT_EQ(0, rg_mkdir("1/2/3/4/5"));
	ASSERT_EQ(0, rg_set("1/2/3/4/5", "max_depth", "0"));
	ASSERT_EQ(0, rg_set("1/2/3/4/5", "max_descendants", "0"));
	EXPECT_EQ(-EMLINK, rg_mkdir("1/2/3/4/5/6"));
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

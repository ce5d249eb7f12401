// SPDX-License-Identifier: GPL-2.0
/*
 * The malformed-input corpus: bad writes to shares, stats, members and
 * numtasks' total_numtasks, each with its exact errno, and the whole state
 * read back unchanged after each one.
 *
 * "The whole state" is every shares, stats, members, max_descendants and
 * max_depth file of the groups a, a/b and b, the root's shares, and the
 * numtasks parameters. The root's members and stats are left out: kernel
 * threads come and go there.
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

#define PARAMS "/sys/module/rg_numtasks/parameters/"
#define STATE 16384
#define LONG 5000

struct bad {
	const char *data;
	size_t len;
	int err;
};

/* A literal, embedded NULs included, and the errno it must fail with. */
#define BAD(s, e)	{ s, sizeof(s) - 1, e }

FIXTURE(corpus) {
	pid_t sleeper[2];
	pid_t zombie;
	pid_t reaped;
	char before[STATE], after[STATE];
};

static void state(char *buf)
{
	static const char * const groups[] = { "a", "a/b", "b" };
	static const char * const params[] = {
		"total_numtasks", "forkrate", "forkrate_interval",
	};
	size_t i, len;

	rg_snapshot((const char * const []){ "" }, 1, "shares", buf, STATE);
	rg_snapshot_all(groups, ARRAY_SIZE(groups), buf, STATE);
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		char p[128];

		len = strlen(buf);
		snprintf(p, sizeof(p), PARAMS "%s", params[i]);
		rg_read(p, buf + len, STATE - len);
	}
}

FIXTURE_SETUP(corpus)
{
	pid_t pid;

	/* Also what an earlier failed setup left behind. */
	rg_remove_all_groups();
	rg_unload_all();
	ASSERT_EQ(0, rg_insmod("module/res_groups.ko", NULL));
	ASSERT_EQ(0, rg_insmod("module/rg_numtasks.ko", NULL));
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl.ko", NULL));
	ASSERT_EQ(0, rg_insmod("selftests/modules/rg_test_ctl2.ko",
			       "name=noreset no_reset=1"));
	ASSERT_EQ(0, rg_mkdir("a"));
	ASSERT_EQ(0, rg_mkdir("a/b"));
	ASSERT_EQ(0, rg_mkdir("b"));
	ASSERT_EQ(0, rg_set("a", "shares",
			    "res=numtasks,min_shares=10,max_shares=50"));
	ASSERT_EQ(0, rg_set("a/b", "shares", "res=numtasks,max_shares=0"));
	ASSERT_EQ(0, rg_set("a/b", "shares", "res=test,min_shares=20"));
	ASSERT_EQ(0, rg_set("b", "shares", "res=test,min_shares=30"));
	self->sleeper[0] = rg_sleeper();
	self->sleeper[1] = rg_sleeper();
	ASSERT_EQ(0, rg_move("a", self->sleeper[0]));
	ASSERT_EQ(0, rg_move("b", self->sleeper[1]));
	/* Counters a wrongful reset would change: maxheld 1, failcnt 1. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (rg_move("a/b", getpid()))
			_exit(1);
		_exit(fork() < 0 && errno == EAGAIN ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_EQ(1, rg_get("a/b", "stats", "numtasks", "failcnt"));
	self->zombie = fork();
	ASSERT_LE(0, self->zombie);
	if (self->zombie == 0)
		_exit(0);
	self->reaped = fork();
	ASSERT_LE(0, self->reaped);
	if (self->reaped == 0)
		_exit(0);
	ASSERT_EQ(self->reaped, waitpid(self->reaped, NULL, 0));
	/* The zombie is one once it can be waited for. */
	ASSERT_EQ(0, waitid(P_PID, self->zombie, &(siginfo_t){},
			    WEXITED | WNOWAIT));
}

FIXTURE_TEARDOWN(corpus)
{
	rg_kill(self->sleeper[0]);
	rg_kill(self->sleeper[1]);
	waitpid(self->zombie, NULL, 0);
	rg_remove_all_groups();
	rg_unload_all();
}

/*
 * Write each bad input to path: it must fail with its errno, and the
 * whole state must read back as before. The number that failed as they
 * should. (The state read after a write is the next one's "before":
 * nothing runs between them, and a read of the state costs ~40 ms in
 * the debug guest.)
 */
static int try_all(struct __test_metadata *_metadata, char *before,
		   char *after, const char *path, const struct bad *bad,
		   size_t n)
{
	size_t i;
	int ok = 0, ret;
	char *t;

	state(before);
	for (i = 0; i < n; i++) {
		ret = rg_write_buf(path, bad[i].data, bad[i].len);
		state(after);
		EXPECT_EQ(-bad[i].err, ret)
			TH_LOG("%s: write %zu of %zu bytes '%.60s'", path, i,
			       bad[i].len, bad[i].data);
		EXPECT_STREQ(before, after)
			TH_LOG("%s: write %zu changed the state", path, i);
		ok += ret == -bad[i].err && !strcmp(before, after);
		/* What was read after this write is before the next one. */
		t = before;
		before = after;
		after = t;
	}
	return ok;
}

/* A buffer of LONG bytes: head, then fill, then tail. */
static char *long_input(const char *head, char fill, const char *tail)
{
	char *s = malloc(LONG + 1);

	if (!s)
		return NULL;
	memset(s, fill, LONG);
	memcpy(s, head, strlen(head));
	memcpy(s + LONG - strlen(tail), tail, strlen(tail));
	s[LONG] = '\0';
	return s;
}

TEST_F_TIMEOUT(corpus, shares_bad_writes_fail_with_exact_errno_and_change_nothing, 180)
{
	static const struct bad bad[] = {
		/* configfs itself refuses an empty write. */
		BAD("", EFAULT),
		BAD("\n", EINVAL), BAD(" ", EINVAL), BAD("\t\n", EINVAL),
		BAD(",", EINVAL), BAD("=", EINVAL), BAD("res", EINVAL),
		/* res missing, repeated, unknown, misspelt */
		BAD("min_shares=10", EINVAL),
		BAD("max_shares=10\n", EINVAL),
		BAD("res=numtasks,res=numtasks,min_shares=1", EINVAL),
		BAD("res=numtasks,res=test,min_shares=1", EINVAL),
		BAD("res=nope,min_shares=1", EINVAL),
		BAD("res=,min_shares=1", EINVAL),
		BAD("res=NUMTASKS,min_shares=1", EINVAL),
		BAD("RES=numtasks,min_shares=1", EINVAL),
		BAD("res = numtasks,min_shares=1", EINVAL),
		BAD("res=numtasks ,min_shares=1", EINVAL),
		BAD(" res=numtasks,min_shares=1", EINVAL),
		BAD("res:numtasks,min_shares=1", EINVAL),
		/* keys: unknown, empty, valueless, repeated (alias too) */
		BAD("res=numtasks,bogus=1", EINVAL),
		BAD("res=numtasks,=5", EINVAL),
		BAD("res=numtasks,min_shares", EINVAL),
		BAD("res=numtasks,min_shares=", EINVAL),
		BAD("res=numtasks,MIN_SHARES=1", EINVAL),
		BAD("res=numtasks,min_shares=1,min_shares=2", EINVAL),
		BAD("res=numtasks,child_total_divisor=50,child_shares_divisor=50",
		    EINVAL),
		/* separators */
		BAD("res=numtasks,min_shares=1,", EINVAL),
		BAD("res=numtasks,,min_shares=1", EINVAL),
		BAD(",res=numtasks,min_shares=1", EINVAL),
		BAD("res=numtasks min_shares=1", EINVAL),
		BAD("res=numtasks;min_shares=1", EINVAL),
		BAD("res=numtasks,min_shares==1", EINVAL),
		/* not a decimal int */
		BAD("res=numtasks,min_shares=abc", EINVAL),
		BAD("res=numtasks,min_shares=10x", EINVAL),
		BAD("res=numtasks,min_shares=0x10", EINVAL),
		BAD("res=numtasks,min_shares=0X10", EINVAL),
		BAD("res=numtasks,min_shares=0o10", EINVAL),
		BAD("res=numtasks,min_shares=0b1", EINVAL),
		BAD("res=numtasks,min_shares=1.5", EINVAL),
		BAD("res=numtasks,min_shares=1e3", EINVAL),
		BAD("res=numtasks,min_shares= 1", EINVAL),
		BAD("res=numtasks,min_shares=1 ", EINVAL),
		BAD("res=numtasks,min_shares=1\t", EINVAL),
		BAD("res=numtasks,min_shares=--1", EINVAL),
		BAD("res=numtasks,min_shares=+-1", EINVAL),
		BAD("res=numtasks,min_shares=-", EINVAL),
		BAD("res=numtasks,min_shares=+", EINVAL),
		/* out of int range */
		BAD("res=numtasks,min_shares=2147483648", EINVAL),
		BAD("res=numtasks,min_shares=-2147483649", EINVAL),
		BAD("res=numtasks,min_shares=99999999999999999999", EINVAL),
		BAD("res=numtasks,max_shares=18446744073709551616", EINVAL),
		/* newlines, NULs, bytes that are not UTF-8 */
		BAD("res=numtasks,min_shares=1\n\n", EINVAL),
		BAD("res=numtasks,min_shares=1\r\n", EINVAL),
		BAD("res=numtasks,min_shares=1\0junk", EINVAL),
		BAD("res=numtasks\0,min_shares=1", EINVAL),
		BAD("res=numtasks,min_shares=1\0", EINVAL),
		BAD("res=numtasks,min_shares=\xff\xfe", EINVAL),
		BAD("res=num\xc3\xa9tasks,min_shares=1", EINVAL),
		BAD("res=numtasks,min_shares=\xc3\x31", EINVAL),
		/* well-formed, but against the validation rules */
		BAD("res=numtasks,max_shares=-2", EINVAL),
		BAD("res=numtasks,max_shares=-4", EINVAL),
		BAD("res=numtasks,min_shares=-2147483648", EINVAL),
		BAD("res=numtasks,child_shares_divisor=0", EINVAL),
		BAD("res=test,child_shares_divisor=19", EINVAL),
		BAD("res=numtasks,min_shares=60", EINVAL),
		BAD("res=numtasks,max_shares=101", EINVAL),
		BAD("res=numtasks,min_shares=60,max_shares=50", EINVAL),
	};
	char p[256], *lng[3];
	struct bad more[3];
	size_t i;
	int ok;

	rg_path(p, sizeof(p), "a", "shares");
	ok = try_all(_metadata, self->before, self->after, p, bad, ARRAY_SIZE(bad));
	/* Longer than a page: never cut to a prefix that would parse. */
	lng[0] = long_input("res=numtasks,min_shares=1", ' ', "");
	lng[1] = long_input("res=numtasks,min_shares=", '1', "");
	lng[2] = long_input("res=numtasks,max_shares=40,min_shares=1", '0',
			    ",junk");
	for (i = 0; i < ARRAY_SIZE(more); i++) {
		ASSERT_NE(NULL, lng[i]);
		more[i] = (struct bad){ lng[i], LONG, EINVAL };
	}
	/* Exactly a page less one byte: all configfs would pass on. */
	more[1].len = 4095;
	ok += try_all(_metadata, self->before, self->after, p, more, ARRAY_SIZE(more));
	/* The root's shares and a child of a group: same rules. */
	rg_path(p, sizeof(p), "", "shares");
	ok += try_all(_metadata, self->before, self->after, p, bad + 1, 10);
	rg_path(p, sizeof(p), "a/b", "shares");
	ok += try_all(_metadata, self->before, self->after, p, bad + 1, 10);
	for (i = 0; i < ARRAY_SIZE(more); i++)
		free(lng[i]);
	TH_LOG("%d bad writes to shares refused", ok);
}

TEST_F_TIMEOUT(corpus, stats_bad_writes_fail_with_exact_errno_and_reset_nothing, 180)
{
	static const struct bad bad[] = {
		BAD("", EFAULT),
		BAD("\n", EINVAL), BAD(" ", EINVAL), BAD("res", EINVAL),
		BAD("res=", EINVAL), BAD("res=\n", EINVAL),
		BAD("numtasks", EINVAL), BAD("res:numtasks", EINVAL),
		BAD("RES=numtasks", EINVAL), BAD("res=NUMTASKS", EINVAL),
		BAD(" res=numtasks", EINVAL), BAD("res=numtasks ", EINVAL),
		BAD("res=nope", EINVAL), BAD("res=numtasks2", EINVAL),
		BAD("res=numtask", EINVAL),
		/* numtasks and test take no arguments */
		BAD("res=numtasks,now", EINVAL), BAD("res=numtasks,", EINVAL),
		BAD("res=numtasks,held=0", EINVAL), BAD("res=test,x", EINVAL),
		/* a controller without reset */
		BAD("res=noreset", EINVAL), BAD("res=noreset\n", EINVAL),
		BAD("res=numtasks\n\n", EINVAL), BAD("res=numtasks\r", EINVAL),
		BAD("res=numtasks\0", EINVAL), BAD("res=numtasks\0junk", EINVAL),
		BAD("res=\xff\xfe", EINVAL), BAD("res=numtasks;", EINVAL),
	};
	char p[256], *lng = long_input("res=numtasks", ' ', "");
	struct bad more = { lng, LONG, EINVAL };
	int ok;

	ASSERT_NE(NULL, lng);
	rg_path(p, sizeof(p), "a/b", "stats");
	ok = try_all(_metadata, self->before, self->after, p, bad, ARRAY_SIZE(bad));
	ok += try_all(_metadata, self->before, self->after, p, &more, 1);
	free(lng);
	TH_LOG("%d bad writes to stats refused", ok);
}

/* The pid of a kernel thread other than kthreadd (PF_KTHREAD, ppid 2). */
static pid_t kworker_pid(void)
{
	char buf[512];
	const char *s;
	pid_t pid;

	for (pid = 3; pid < 1000; pid++) {
		s = rg_proc_stat(pid, buf, sizeof(buf));
		if (s && atoi(s + 2) == 2)	/* the state, then the ppid */
			return pid;
	}
	return -1;
}

TEST_F_TIMEOUT(corpus, members_bad_writes_fail_with_exact_errno_and_move_nothing, 180)
{
	static const struct bad bad[] = {
		BAD("", EFAULT),
		BAD("\n", EINVAL), BAD(" ", EINVAL), BAD("\t", EINVAL),
		BAD("\n\t", EINVAL), BAD("abc", EINVAL), BAD("0", EINVAL),
		BAD("-0", EINVAL), BAD("-1", EINVAL), BAD("+-5", EINVAL),
		BAD("--5", EINVAL), BAD("-", EINVAL), BAD("+", EINVAL),
		BAD("0x10", EINVAL), BAD("0o10", EINVAL), BAD("12x", EINVAL),
		BAD("1 2", EINVAL), BAD("1,2", EINVAL), BAD("1\n2", EINVAL),
		BAD("1.0", EINVAL), BAD("1e3", EINVAL),
		BAD("2147483648", EINVAL), BAD("-2147483648", EINVAL),
		BAD("99999999999999999999", EINVAL),
		BAD("1\0", EINVAL), BAD("\xff", EINVAL), BAD("\xc2\xb9", EINVAL),
		/* kthreadd */
		BAD("2", EINVAL),
		/* pids no task has: above PID_MAX_LIMIT, and an unused one */
		BAD("4194305", ESRCH), BAD("4194000", ESRCH),
	};
	char p[256], pids[5][32], *lng;
	struct bad more[5];
	pid_t kw = kworker_pid();
	int ok;

	ASSERT_LT(0, kw);
	snprintf(pids[0], sizeof(pids[0]), "%d", self->zombie);
	snprintf(pids[1], sizeof(pids[1]), "%d\n", self->reaped);
	snprintf(pids[2], sizeof(pids[2]), "%d", kw);
	snprintf(pids[3], sizeof(pids[3]), "%d\njunk", self->sleeper[1]);
	snprintf(pids[4], sizeof(pids[4]), "%d%c1", self->sleeper[1], '\0');
	more[0] = (struct bad){ pids[0], strlen(pids[0]), ESRCH };
	more[1] = (struct bad){ pids[1], strlen(pids[1]), ESRCH };
	more[2] = (struct bad){ pids[2], strlen(pids[2]), EINVAL };
	more[3] = (struct bad){ pids[3], strlen(pids[3]), EINVAL };
	more[4] = (struct bad){ pids[4], strlen(pids[4]) + 2, EINVAL };

	rg_path(p, sizeof(p), "a/b", "members");
	ok = try_all(_metadata, self->before, self->after, p, bad, ARRAY_SIZE(bad));
	ok += try_all(_metadata, self->before, self->after, p, more, ARRAY_SIZE(more));
	/* Whitespace is fine around a pid, but not a page of it. */
	snprintf(pids[0], sizeof(pids[0]), "%d\n", self->sleeper[1]);
	lng = long_input("", ' ', pids[0]);
	ASSERT_NE(NULL, lng);
	more[0] = (struct bad){ lng, LONG, EINVAL };
	ok += try_all(_metadata, self->before, self->after, p, more, 1);
	free(lng);
	TH_LOG("%d bad writes to members refused", ok);
}

TEST_F_TIMEOUT(corpus, total_numtasks_bad_writes_fail_with_exact_errno, 180)
{
	static const struct bad bad[] = {
		BAD("\n", EINVAL), BAD(" ", EINVAL), BAD("abc", EINVAL),
		BAD("0", EINVAL), BAD("-1", EINVAL), BAD("-2147483648", EINVAL),
		/* below the tasks counted now */
		BAD("1", EINVAL), BAD("2\n", EINVAL),
		BAD("0x100000", EINVAL), BAD("1e6", EINVAL), BAD("1.5", EINVAL),
		BAD("2147483648", EINVAL), BAD("99999999999999999999", EINVAL),
		BAD(" 1000", EINVAL), BAD("1000 ", EINVAL),
		BAD("1000\n\n", EINVAL), BAD("1000x", EINVAL),
		BAD("+-1000", EINVAL), BAD("\xff", EINVAL),
	};
	int ok;

	ok = try_all(_metadata, self->before, self->after, PARAMS "total_numtasks", bad,
		     ARRAY_SIZE(bad));
	TH_LOG("%d bad writes to total_numtasks refused", ok);
}

TEST_HARNESS_MAIN

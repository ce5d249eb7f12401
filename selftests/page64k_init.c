// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the 64K-page guest (qemu/check-64k): configfs and Resource
 * Groups where a page is 64 KiB. Prints one "ok N name" or "not ok N
 * name: why" line per check and "page64k: N passed, N failed", then
 * powers the guest off. Static, with no library beyond libc: the guest
 * has nothing else.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CFG "/sys/kernel/config"
#define RG CFG "/res_groups"
#define NOPEN 32	/* buffers alive at once: see show_gets_a_whole_page() */

static int passed, failed;

static void result(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("ok %d %s\n", passed + failed + 1, name);
		passed++;
		return;
	}
	printf("not ok %d %s: ", passed + failed + 1, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failed++;
}

static int insmod_with(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int insmod(const char *path)
{
	return insmod_with(path, "");
}

/* Read all of @path into @buf; the length or -errno. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, len = 0;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0)
		return -errno;
	buf[len] = '\0';
	return len;
}

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/*
 * sysfs_emit() shows nothing unless its buffer starts a page. configfs
 * allocates a file's buffer at its first read and frees it at close, so
 * all NOPEN files are read before any is closed: NOPEN buffers alive at
 * once, of which at most one per 64 KiB could start a page by chance if
 * they were 4 KiB. Each must be a whole page, also by its size.
 */
static void show_gets_a_whole_page(void)
{
	const char *name = "configfs_show_is_given_a_whole_64k_page";
	int fd[NOPEN], sfd, i, bad = 0;
	unsigned long off, size;
	char buf[64] = "";
	ssize_t n;

	if (insmod("/rg_show_page.ko")) {
		result(0, name, "insmod rg_show_page.ko: %s", strerror(errno));
		return;
	}
	for (i = 0; i < NOPEN; i++)
		fd[i] = open(CFG "/rg_show_page/offset", O_RDONLY);
	for (i = 0; i < NOPEN; i++) {
		n = fd[i] < 0 ? -1 : read(fd[i], buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		if (n <= 0 || sscanf(buf, "%lu %lu", &off, &size) != 2 ||
		    off || size != 65536) {
			if (!bad++)
				printf("# offset, read %d: %zd bytes: '%s'\n", i, n, buf);
		}
	}
	/* One more buffer while the others are alive: its allocation. */
	sfd = open(CFG "/rg_show_page/size", O_RDONLY);
	n = sfd < 0 ? -1 : read(sfd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (n <= 0 || strtoul(buf, NULL, 10) < 65536) {
		printf("# size: %zd bytes: '%s'\n", n, buf);
		bad++;
	}
	if (sfd >= 0)
		close(sfd);
	for (i = 0; i < NOPEN; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	result(!bad, name, "%d of %d reads were not of a whole 64K page",
	       bad, NOPEN + 1);
}

/* Our own files, with 64K pages: a group, its shares, members, stats. */
static void res_groups_work(void)
{
	const char *name = "res_groups_and_numtasks_work_with_64k_pages";
	char buf[4096] = "", me[32];
	int ret;

	ret = insmod("/res_groups.ko") ?: insmod("/rg_numtasks.ko");
	if (ret) {
		result(0, name, "insmod: %s", strerror(-ret));
		return;
	}
	snprintf(me, sizeof(me), "%d\n", getpid());
	ret = mkdir(RG "/a", 0755) ? -errno : 0;
	ret = ret ?: put(RG "/a/shares", "res=numtasks,max_shares=50");
	ret = ret ?: put(RG "/a/members", me);
	if (ret) {
		result(0, name, "mkdir, shares or move: %s", strerror(-ret));
		return;
	}
	if (slurp(RG "/a/members", buf, sizeof(buf)) < 0 || strcmp(buf, me)) {
		result(0, name, "a/members: '%s', not '%s'", buf, me);
		return;
	}
	if (slurp(RG "/a/shares", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, "res=numtasks,min_shares=-3,max_shares=50,")) {
		result(0, name, "a/shares: '%s'", buf);
		return;
	}
	if (slurp(RG "/a/stats", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, "res=numtasks,held=1,")) {
		result(0, name, "a/stats: '%s'", buf);
		return;
	}
	result(1, name, "");
}

/*
 * This kernel has no task-group hooks (no CFS bandwidth): module/Kbuild
 * built rg_cpu.ko as the stand-in, which refuses to load, with ENODEV.
 */
static void cpu_stand_in(void)
{
	int ret = insmod("/rg_cpu.ko");

	result(ret == -ENODEV, "cpu_ko_without_task_group_hooks_refuses_to_load",
	       "insmod rg_cpu.ko: %s", ret ? strerror(-ret) : "loaded");
}

/* The "held=" of kmem's stats line of group a; -1 if unreadable. */
static long kmem_held(void)
{
	char buf[4096] = "", *p;

	if (slurp(RG "/a/stats", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "res=kmem,held=");
	return p ? atol(p + 14) : -1;
}

/*
 * rg_kmem.ko (this kernel has memory cgroups and hooks patch 0005) counts
 * in bytes whatever the page size: a child in group a writes into an
 * empty pipe, which charges one 64K page. This task (init) goes back to
 * the root group first, which is never charged, and reads the stats; the
 * child waits on a futex in a shared page between steps, allocating
 * nothing.
 */
static void kmem_work(void)
{
	const char *name = "kmem_charges_a_pipe_page_of_64k_exactly";
	char buf[4096] = "", me[32];
	static char page[65536];
	int *step;
	long h0, h1;
	int ret, p[2], i;
	pid_t pid;

	snprintf(me, sizeof(me), "%d\n", getpid());
	ret = put(RG "/members", me);
	ret = ret ?: insmod_with("/rg_kmem.ko", "total_kmem=1073741824");
	ret = ret ?: put(RG "/shares", "res=kmem,child_shares_divisor=1024");
	ret = ret ?: put(RG "/a/shares", "res=kmem,max_shares=10");
	if (ret) {
		result(0, name, "insmod rg_kmem.ko, shares or move: %s",
		       strerror(-ret));
		return;
	}
	if (slurp(RG "/a/stats", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, ",barrier=9437184,limit=10485760,")) {
		result(0, name, "a/stats: '%s'", buf);
		return;
	}
	step = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (step == MAP_FAILED || pipe(p)) {
		result(0, name, "mmap or pipe: %s", strerror(errno));
		return;
	}
	memset(page, 'k', sizeof(page));
	pid = fork();
	if (pid == 0) {
		snprintf(me, sizeof(me), "%d\n", getpid());
		if (put(RG "/a/members", me))
			_exit(1);
		__atomic_store_n(step, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(step, __ATOMIC_ACQUIRE) != 2)
			syscall(SYS_futex, step, FUTEX_WAIT, 1, NULL, NULL, 0);
		if (write(p[1], page, sizeof(page)) != sizeof(page))
			_exit(2);
		__atomic_store_n(step, 3, __ATOMIC_RELEASE);
		for (;;)
			pause();
	}
	for (i = 0; i < 10000 && __atomic_load_n(step, __ATOMIC_ACQUIRE) != 1; i++)
		usleep(1000);
	h0 = kmem_held();
	__atomic_store_n(step, 2, __ATOMIC_RELEASE);
	syscall(SYS_futex, step, FUTEX_WAKE, 1, NULL, NULL, 0);
	for (i = 0; i < 10000 && __atomic_load_n(step, __ATOMIC_ACQUIRE) != 3; i++)
		usleep(1000);
	h1 = kmem_held();
	ret = __atomic_load_n(step, __ATOMIC_ACQUIRE);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	result(ret == 3 && h0 >= 0 && h0 % 65536 == 0 && h1 - h0 == 65536,
	       name, "child at step %d; held %ld, then %ld", ret, h0, h1);
}

/* Taint W (a WARN), D (an oops) or B (a bad page); O is our modules. */
static void no_warning(void)
{
	char buf[32] = "";
	long t;

	if (slurp("/proc/sys/kernel/tainted", buf, sizeof(buf)) <= 0) {
		result(0, "kernel_not_tainted_by_a_splat", "cannot read it");
		return;
	}
	t = atol(buf);
	result(!(t & (1 << 9 | 1 << 7 | 1 << 5)), "kernel_not_tainted_by_a_splat",
	       "tainted=%ld", t);
}

int main(void)
{
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("configfs", CFG, "configfs", 0, NULL);
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("# page size %ld\n", sysconf(_SC_PAGESIZE));
	result(sysconf(_SC_PAGESIZE) == 65536, "the_guest_has_64k_pages", "%ld",
	       sysconf(_SC_PAGESIZE));
	show_gets_a_whole_page();
	res_groups_work();
	cpu_stand_in();
	kmem_work();
	no_warning();
	printf("page64k: %d passed, %d failed\n", passed, failed);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rg_run_one [--tee FILE] SECONDS NAME COMMAND [ARGS...]: the selftest
 * runner's way to run one test file. It runs COMMAND as its child and
 * returns:
 *   124        COMMAND was still running after SECONDS (killed);
 *   128 + sig  COMMAND was killed by a signal;
 *   otherwise  COMMAND's exit status.
 * Whatever COMMAND leaves behind dies with it: this process is a child
 * subreaper (PR_SET_CHILD_SUBREAPER), so every descendant whose parent
 * exits becomes its child, whatever process group or session it put
 * itself in (the kselftest harness runs each test in a process group of
 * its own, out of reach of timeout(1) and of pgrep -g). Once COMMAND has
 * ended, or at the timeout, every remaining descendant is sent SIGKILL
 * and reaped, and a line "# NAME left N processes behind: killed" says
 * how many there were.
 *
 * At the timeout COMMAND gets SIGTERM, then after 10 s SIGKILL with the
 * rest (as timeout -k 10 did); one that is still not dead 60 s later
 * (stuck in the kernel) is left, and 124 returned.
 *
 * --tee FILE: COMMAND's output (both streams, and this program's own
 * lines) goes to FILE, which is copied to standard output as it grows
 * (every 20 ms, and whole at the end): the runner reads its results from
 * the file, and no process that COMMAND left behind can hold a pipe open.
 * (It was tail -f: one more process per file, ~0.2 s in the debug guest,
 * and up to 0.2 s more until it saw the end.)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The children killed so far, each counted once. */
static pid_t *killed;
static int nr_killed, max_killed;

static void count_killed(pid_t pid)
{
	int i;

	for (i = 0; i < nr_killed; i++)
		if (killed[i] == pid)
			return;
	if (nr_killed == max_killed) {
		pid_t *k = realloc(killed, (max_killed * 2 + 64) * sizeof(*k));

		if (!k)
			return;
		killed = k;
		max_killed = max_killed * 2 + 64;
	}
	killed[nr_killed++] = pid;
}

/*
 * Whether the zombie @pid is a whole process gone: not a thread-group
 * leader whose main thread exited while its other threads run on (it
 * shows as a zombie, but cannot be reaped until they end; a SIGKILL to it
 * reaches them).
 */
static int all_gone(const char *pid)
{
	char path[300];
	struct dirent *d;
	int n = 0;
	DIR *task;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	task = opendir(path);
	if (!task)
		return 1;
	while ((d = readdir(task)))
		if (d->d_name[0] != '.')
			n++;
	closedir(task);
	return n <= 1;
}

/*
 * SIGKILL every child of ours (the only descendants left: see above);
 * how many there were.
 */
static int kill_children(void)
{
	pid_t self = getpid();
	struct dirent *d;
	int n = 0;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc)
		return 0;
	while ((d = readdir(proc))) {
		char path[300], buf[512], *p;
		FILE *f;
		int ppid;
		pid_t pid;
		char state;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		/* The command name may hold anything: parse after its ')'. */
		p = p ? strrchr(buf, ')') : NULL;
		if (!p || sscanf(p, ") %c %d", &state, &ppid) != 2 || ppid != self)
			continue;
		/* A zombie has already exited: it is reaped, not killed. */
		if (state == 'Z' && all_gone(d->d_name))
			continue;
		pid = atoi(d->d_name);
		if (!kill(pid, SIGKILL)) {
			count_killed(pid);
			n++;
		}
	}
	closedir(proc);
	return n;
}

/*
 * --tee: what the file gained, from @from to our output *@to, at most
 * @max bytes a call (0: all of it, waiting at most 2 s at a time for the
 * output to take more). The output is non-blocking (see main()): a test
 * that writes faster than the output drains, or an output that takes
 * nothing (a reader that stopped reading), leaves the rest for the next
 * call and the deadline is kept. A short or interrupted write goes on
 * where it stopped: no line is lost. An output that fails for good
 * (EPIPE: SIGPIPE is ignored), or takes nothing for 2 s at the end, ends
 * the copying (*@to = -1), never the supervision.
 */
static char pend[65536];
static size_t pend_len, pend_off;

static void copy_out(int from, int *to, size_t max)
{
	struct pollfd pfd = { .events = POLLOUT };
	size_t done = 0;
	ssize_t n, w;

	if (from < 0 || *to < 0)
		return;
	pfd.fd = *to;
	for (;;) {
		if (pend_off == pend_len) {
			if (max && done >= max)
				return;
			n = read(from, pend, sizeof(pend));
			if (n <= 0)
				return;
			pend_len = n;
			pend_off = 0;
			done += n;
		}
		w = write(*to, pend + pend_off, pend_len - pend_off);
		if (w > 0) {
			pend_off += w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			if (max)
				return;
			if (poll(&pfd, 1, 2000) > 0)
				continue;
		}
		*to = -1;
		return;
	}
}

/* --tee's file (read side) and our output; -1: none. */
static int tee_r = -1, out = 1;

/* @status, once the rest of --tee's file is out. */
static int finish(int status)
{
	copy_out(tee_r, &out, 0);
	return status;
}

/*
 * Our output for --tee: standard output itself if it is a regular file
 * (its offset is shared with the runner's own lines); else (a terminal,
 * a pipe) a descriptor of its own, non-blocking, so that the runner's
 * stays blocking.
 */
static int tee_output(void)
{
	struct stat st;
	int fd;

	if (fstat(1, &st))
		return -1;
	if (S_ISREG(st.st_mode))
		return fcntl(1, F_DUPFD_CLOEXEC, 3);
	fd = open("/proc/self/fd/1",
		  O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return fd >= 0 ? fd : fcntl(1, F_DUPFD_CLOEXEC, 3);
}

int main(int argc, char **argv)
{
	int status = 0, wstatus = 0, ws, timed_out = 0, exited = 0;
	double deadline, kill_at = 0;
	pid_t child, pid;

	if (argc > 2 && !strcmp(argv[1], "--tee")) {
		int w = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);

		tee_r = open(argv[2], O_RDONLY | O_CLOEXEC);
		out = tee_output();
		if (w < 0 || tee_r < 0 || out < 0 || dup2(w, 1) < 0 ||
		    dup2(w, 2) < 0) {
			perror("rg_run_one: --tee");
			return 2;
		}
		close(w);
		/* A reader of our output that went away ends the copy only. */
		signal(SIGPIPE, SIG_IGN);
		argc -= 2;
		argv += 2;
	}
	if (argc < 4 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: rg_run_one [--tee FILE] SECONDS NAME COMMAND [ARGS...]\n");
		return finish(2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		perror("rg_run_one: PR_SET_CHILD_SUBREAPER");
		return finish(2);
	}
	deadline = now() + atoi(argv[1]);
	child = fork();
	if (child < 0) {
		perror("rg_run_one: fork");
		return finish(2);
	}
	if (!child) {
		signal(SIGPIPE, SIG_DFL);
		execv(argv[3], argv + 3);
		perror("rg_run_one: exec");
		_exit(127);
	}

	/*
	 * Wait for COMMAND, polling so that the deadline is kept, and reap
	 * orphans as they come (they would be zombies meanwhile): one
	 * waitpid(-1) for both, so that COMMAND's status is never reaped
	 * and lost by the orphans' wait. COMMAND is signalled only while it
	 * is unreaped (its pid cannot have been reused).
	 */
	while (!exited) {
		while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
			if (pid == child) {
				wstatus = ws;
				exited = 1;
			}
		}
		if (exited)
			break;
		if (pid < 0 && errno != EINTR) {
			perror("rg_run_one: waitpid");
			return finish(2);
		}
		if (!timed_out && now() >= deadline) {
			timed_out = 1;
			kill(child, SIGTERM);
			kill_at = now() + 10;
		} else if (timed_out && now() >= kill_at) {
			kill(child, SIGKILL);
			if (now() >= kill_at + 60) {
				/*
				 * Unkillable (D state): say so, leave it,
				 * but not what it started.
				 */
				printf("# %s: still not dead 60 s after SIGKILL\n", argv[2]);
				kill_children();
				return finish(124);
			}
		}
		copy_out(tee_r, &out, 65536);
		usleep(20000);
	}
	if (timed_out)
		status = 124;
	else if (WIFSIGNALED(wstatus))
		status = 128 + WTERMSIG(wstatus);
	else
		status = WEXITSTATUS(wstatus);

	/* Everything COMMAND left behind: killed, reaped, counted. */
	deadline = now() + 60;
	for (;;) {
		kill_children();
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			break;
		if (now() > deadline) {
			printf("# %s: descendants still not reaped after 60 s\n", argv[2]);
			status = status ? status : 1;
			break;
		}
		usleep(20000);
	}
	if (nr_killed)
		printf("# %s left %d processes behind: killed\n", argv[2], nr_killed);
	return finish(status);
}

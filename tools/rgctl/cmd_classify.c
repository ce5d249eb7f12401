// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl classify RULES: moves processes into groups by rules, as they
 * fork, exec or change uid/gid, from the kernel's process-events
 * connector (netlink, CONFIG_PROC_EVENTS). Rules, one a line, first
 * match wins ('#' comments):
 *
 *	user:NAME|UID      -> GROUP
 *	group:NAME|GID     -> GROUP
 *	exe:PATTERN        -> GROUP
 *	command:PATTERN    -> GROUP
 *
 * The trust model (docs, "Rules file"): user matches the real or the
 * effective uid, group any of the process's gids (real, effective, saved,
 * file system, supplementary), which an unprivileged process cannot shed
 * (setgroups() needs CAP_SETGID; an unprivileged user namespace denies it).
 * exe matches the executable's resolved path (/proc/PID/exe), and only if
 * the file at that path in the classifier's own mount namespace is that
 * executable (same device and inode): a copy elsewhere or a bind mount in
 * the user's own mount namespace does not match. command matches what the
 * process chooses itself (comm, argv[0]): a convenience, never a bound.
 * A process in a group that no rule names was placed there on purpose
 * (rgctl move or exec, a members write) and is left there.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "rgctl.h"

enum { R_USER, R_GROUP, R_EXE, R_COMMAND };

struct rule {
	int kind;
	unsigned int id;	/* uid or gid */
	char *pattern;		/* command */
	char group[4096];
	int line;
};

static struct rule *rules;
static int nrules, verbose;
static sigset_t waitmask;	/* SIGINT, SIGTERM come only in ppoll() */

static int rule_error(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rule_error(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s:%d: ", prog, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/*
 * Names are looked up in /etc/passwd and /etc/group themselves (rgctl is
 * linked statically, without NSS); a number is taken as the id.
 */
static int lookup_id(int is_group, const char *name, unsigned int *id)
{
	FILE *f = fopen(is_group ? "/etc/group" : "/etc/passwd", "re");
	int found = 0;

	if (!f)
		return -1;
	while (!found) {
		if (is_group) {
			struct group *gr = fgetgrent(f);

			if (!gr)
				break;
			found = !strcmp(gr->gr_name, name);
			*id = gr->gr_gid;
		} else {
			struct passwd *pw = fgetpwent(f);

			if (!pw)
				break;
			found = !strcmp(pw->pw_name, name);
			*id = pw->pw_uid;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

static int parse_id(const char *s, unsigned int *id)
{
	int v;

	if (parse_int(s, &v) || v < 0)
		return -1;
	*id = v;
	return 0;
}

static int parse_rule(const char *file, int lineno, char *s)
{
	char *match, *arrow, *target, *extra, *val, *save = NULL;
	struct rule r = { .line = lineno };

	match = strtok_r(s, " \t", &save);
	if (!match)
		return 0;
	arrow = strtok_r(NULL, " \t", &save);
	target = arrow && strcmp(arrow, "->") ? arrow :
		 strtok_r(NULL, " \t", &save);
	extra = strtok_r(NULL, " \t", &save);
	if (!target || extra)
		return rule_error(file, lineno,
				  "expected KIND:VALUE -> GROUP: %s",
				  strerror(EINVAL));
	val = strchr(match, ':');
	if (!val || !val[1])
		return rule_error(file, lineno, "'%s': expected user:, group: or command: and a value: %s",
				  match, strerror(EINVAL));
	*val++ = '\0';
	if (!strcmp(match, "user")) {
		r.kind = R_USER;
		if (lookup_id(0, val, &r.id) && parse_id(val, &r.id))
			return rule_error(file, lineno, "unknown user '%s': %s",
					  val, strerror(EINVAL));
	} else if (!strcmp(match, "group")) {
		r.kind = R_GROUP;
		if (lookup_id(1, val, &r.id) && parse_id(val, &r.id))
			return rule_error(file, lineno, "unknown group '%s': %s",
					  val, strerror(EINVAL));
	} else if (!strcmp(match, "exe")) {
		if (val[0] != '/')
			return rule_error(file, lineno,
					  "exe:%s: expected an absolute path: %s",
					  val, strerror(EINVAL));
		r.kind = R_EXE;
		r.pattern = xstrdup(val);
	} else if (!strcmp(match, "command")) {
		r.kind = R_COMMAND;
		r.pattern = xstrdup(val);
	} else {
		return rule_error(file, lineno,
				  "'%s': unknown kind (user, group, exe, command): %s",
				  match, strerror(EINVAL));
	}
	if (group_norm(target, r.group, sizeof(r.group))) {
		free(r.pattern);
		return rule_error(file, lineno, "group '%s': %s", target,
				  strerror(errno));
	}
	if (group_depth(r.group) > RG_MAX_DEPTH) {
		free(r.pattern);
		return rule_error(file, lineno, "group %s: %s", r.group,
				  strerror(EMLINK));
	}
	rules = xrealloc(rules, (nrules + 1) * sizeof(*rules));
	rules[nrules++] = r;
	return 0;
}

static int load_rules(const char *file)
{
	char *buf, *line, *next;
	int lineno = 0, errs = 0;

	buf = read_file(file, NULL);
	if (!buf) {
		err_msg("%s: %s", file, strerror(errno));
		return -1;
	}
	for (line = buf; line; line = next) {
		char *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		errs += parse_rule(file, lineno, line);
	}
	free(buf);
	return errs ? -1 : 0;
}

/* What the rules look at. */
struct proc_info {
	unsigned int uid[2];	/* real, effective */
	unsigned int *gids;	/* real, effective, saved, fs, supplementary */
	int ngids;
	dev_t exe_dev;		/* of the executable, by /proc/PID/exe */
	ino_t exe_ino;
	char comm[64];
	char exe[4096];
	char argv0[4096];
};

/*
 * The gids of /proc/PID/status's "Gid:" (four) and "Groups:" lines, into
 * pi->gids (allocated; freed by put_info()).
 */
static int parse_gids(const char *status, struct proc_info *pi)
{
	const char *g = strstr(status, "\nGid:");
	const char *sup = strstr(status, "\nGroups:");
	const char *eol;
	unsigned int v[4];
	char *end;

	if (!g || sscanf(g, "\nGid: %u %u %u %u", &v[0], &v[1], &v[2],
			 &v[3]) != 4)
		return -1;
	pi->gids = xrealloc(NULL, sizeof(v));
	memcpy(pi->gids, v, sizeof(v));
	pi->ngids = 4;
	if (!sup)
		return 0;
	eol = strchr(sup + 1, '\n');
	for (g = sup + 8; ; g = end) {
		unsigned long gid = strtoul(g, &end, 10);

		if (end == g || (eol && end > eol))
			break;
		pi->gids = xrealloc(pi->gids,
				    (pi->ngids + 1) * sizeof(*pi->gids));
		pi->gids[pi->ngids++] = gid;
	}
	return 0;
}

static void put_info(struct proc_info *pi)
{
	free(pi->gids);
	pi->gids = NULL;
}

static int get_info(pid_t pid, struct proc_info *pi)
{
	char path[64], *buf, *p;
	unsigned long flags = 0;
	struct stat st;
	ssize_t n;
	int i;

	memset(pi, 0, sizeof(*pi));
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	buf = read_file(path, NULL);
	if (!buf)
		return -1;
	/* Field 9, after "pid (comm) state ppid pgrp session tty tpgid". */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	if (p)
		flags = strtoul(p + 1, NULL, 10);
	free(buf);
	if (!p || (flags & 0x00200000))	/* PF_KTHREAD */
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	buf = read_file(path, NULL);
	if (!buf)
		return -1;
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p, "\nUid: %u %u", &pi->uid[0], &pi->uid[1]) != 2 ||
	    parse_gids(buf, pi)) {
		free(buf);
		put_info(pi);
		return -1;
	}
	free(buf);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	buf = read_file(path, NULL);
	if (!buf) {
		put_info(pi);
		return -1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(pi->comm, sizeof(pi->comm), "%s", buf);
	free(buf);
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, pi->exe, sizeof(pi->exe) - 1);
	pi->exe[n > 0 ? n : 0] = '\0';
	if (!stat(path, &st)) {
		pi->exe_dev = st.st_dev;
		pi->exe_ino = st.st_ino;
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	buf = read_file(path, NULL);
	if (buf) {
		snprintf(pi->argv0, sizeof(pi->argv0), "%s", buf);
		free(buf);
	}
	return 0;
}

static const char *base(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

static int match_command(const char *pat, const struct proc_info *pi)
{
	if (strchr(pat, '/'))
		return (pi->exe[0] && !fnmatch(pat, pi->exe, 0)) ||
		       (pi->argv0[0] && !fnmatch(pat, pi->argv0, 0));
	return !fnmatch(pat, pi->comm, 0) ||
	       (pi->exe[0] && !fnmatch(pat, base(pi->exe), 0)) ||
	       (pi->argv0[0] && !fnmatch(pat, base(pi->argv0), 0));
}

/*
 * The executable's resolved path matches, and the file at that path here
 * is the executable itself: /proc/PID/exe shows the path in the process's
 * own mount namespace, where a bind mount may put any file at any path.
 */
static int match_exe(const char *pat, const struct proc_info *pi)
{
	struct stat st;

	return pi->exe[0] && !fnmatch(pat, pi->exe, FNM_PATHNAME) &&
	       !stat(pi->exe, &st) && st.st_dev == pi->exe_dev &&
	       st.st_ino == pi->exe_ino;
}

static int has_gid(const struct proc_info *pi, unsigned int gid)
{
	int i;

	for (i = 0; i < pi->ngids; i++)
		if (pi->gids[i] == gid)
			return 1;
	return 0;
}

static const struct rule *first_match(const struct proc_info *pi)
{
	int i;

	for (i = 0; i < nrules; i++) {
		const struct rule *r = &rules[i];

		if ((r->kind == R_USER &&
		     (r->id == pi->uid[0] || r->id == pi->uid[1])) ||
		    (r->kind == R_GROUP && has_gid(pi, r->id)) ||
		    (r->kind == R_EXE && match_exe(r->pattern, pi)) ||
		    (r->kind == R_COMMAND && match_command(r->pattern, pi)))
			return r;
	}
	return NULL;
}

/*
 * Whether the classifier may move a process out of group g: the root
 * group, or a group a rule names. Any other group was chosen for it on
 * purpose (rgctl move or exec, a members write), and it stays.
 */
static int managed(const char *g)
{
	int i;

	if (!strcmp(g, "/"))
		return 1;
	for (i = 0; i < nrules; i++)
		if (!strcmp(rules[i].group, g))
			return 1;
	return 0;
}

/*
 * The processes this daemon moved, from where and when, until they
 * exit: a child forked before its parent was moved (by the FORK event's
 * time, CLOCK_MONOTONIC as ours) starts in the parent's old group, and
 * follows the parent if no rule matches it; one forked later and found
 * there was put there on purpose. A hash by pid; a collision forgets the
 * older entry.
 */
#define NMOVED 1024

static struct moved {
	pid_t pid;
	const char *to;		/* a rule's group */
	char *from;
	unsigned long long at;	/* ns, CLOCK_MONOTONIC, before the move */
} moved[NMOVED];

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct moved *moved_slot(pid_t pid)
{
	return &moved[(unsigned int)pid % NMOVED];
}

static void moved_forget(pid_t pid)
{
	struct moved *m = moved_slot(pid);

	if (m->pid != pid)
		return;
	free(m->from);
	m->from = NULL;
	m->pid = 0;
}

static void moved_note(pid_t pid, const char *from, const char *to,
		       unsigned long long at)
{
	struct moved *m = moved_slot(pid);

	free(m->from);
	m->pid = pid;
	m->from = xstrdup(from);
	m->to = to;
	m->at = at;
}

static void move_to(pid_t pid, const struct proc_info *pi, const char *cur,
		    const char *to, int line, const char *why)
{
	unsigned long long at = now_ns();

	if (move_process(to, pid, 1)) {
		if (errno == ESRCH)
			return;	/* exited meanwhile */
		err_msg("classify: pid %d (%s) to %s (rule on line %d): %s",
			pid, pi->comm, to, line, strerror(errno));
		return;
	}
	moved_note(pid, cur, to, at);
	if (verbose)
		fprintf(stderr, "%s: classify: %s: pid %d (%s) -> %s (line %d)\n",
			prog, why, pid, pi->comm, to, line);
}

/*
 * Applies the rules to process pid. A new process (parent > 0, forked at
 * @forked, CLOCK_MONOTONIC ns) that no rule matches, forked before this
 * daemon moved its parent and still in the group the parent was moved
 * from, follows the parent.
 */
static void classify(pid_t pid, pid_t parent, unsigned long long forked,
		     const char *why)
{
	char cur[4096], pcur[4096];
	const struct moved *m;
	struct proc_info pi;
	const struct rule *r;

	if (pid <= 0 || get_info(pid, &pi))
		return;		/* gone, or a kernel thread */
	r = first_match(&pi);
	if (r) {
		if (!task_group(pid, pid, cur, sizeof(cur)) &&
		    strcmp(cur, r->group)) {
			if (managed(cur))
				move_to(pid, &pi, cur, r->group, r->line, why);
			else if (verbose)
				fprintf(stderr, "%s: classify: %s: pid %d (%s) kept in %s, where it was placed (line %d names %s)\n",
					prog, why, pid, pi.comm, cur, r->line,
					r->group);
		}
		goto out;
	}
	m = moved_slot(parent);
	if (parent <= 0 || m->pid != parent || forked >= m->at ||
	    task_group(pid, pid, cur, sizeof(cur)) || strcmp(cur, m->from) ||
	    task_group(parent, parent, pcur, sizeof(pcur)) ||
	    strcmp(pcur, m->to))
		goto out;
	for (r = rules; r < rules + nrules && r->group != m->to; r++)
		;
	move_to(pid, &pi, cur, m->to, r < rules + nrules ? r->line : 0,
		"fork, as its parent");
out:
	put_info(&pi);
}

static void scan(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	pid_t pid;

	if (!d) {
		err_msg("/proc: %s", strerror(errno));
		return;
	}
	while (!stop_pending() && (de = readdir(d)))
		if (!parse_pid(de->d_name, &pid))
			classify(pid, 0, 0, "scan");
	closedir(d);
}

static int nl_listen(int fd, enum proc_cn_mcast_op op)
{
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) msg;

	memset(&msg, 0, sizeof(msg));
	msg.nl.nlmsg_len = sizeof(msg);
	msg.nl.nlmsg_type = NLMSG_DONE;
	msg.nl.nlmsg_pid = getpid();
	msg.cn.id.idx = CN_IDX_PROC;
	msg.cn.id.val = CN_VAL_PROC;
	msg.cn.len = sizeof(msg.op);
	msg.op = op;
	return send(fd, &msg, sizeof(msg), 0) == sizeof(msg) ? 0 : -1;
}

static void handle(const struct proc_event *ev)
{
	switch (ev->what) {
	case PROC_EVENT_FORK:
		/* A new thread joins its leader's group by itself. */
		if (ev->event_data.fork.child_pid ==
		    ev->event_data.fork.child_tgid)
			classify(ev->event_data.fork.child_tgid,
				 ev->event_data.fork.parent_tgid,
				 ev->timestamp_ns, "fork");
		break;
	case PROC_EVENT_EXEC:
		classify(ev->event_data.exec.process_tgid, 0, 0, "exec");
		break;
	case PROC_EVENT_UID:
		classify(ev->event_data.id.process_tgid, 0, 0, "uid");
		break;
	case PROC_EVENT_GID:
		classify(ev->event_data.id.process_tgid, 0, 0, "gid");
		break;
	case PROC_EVENT_EXIT:
		if (ev->event_data.exit.process_pid ==
		    ev->event_data.exit.process_tgid)
			moved_forget(ev->event_data.exit.process_tgid);
		break;
	default:
		break;
	}
}

static int event_loop(int fd)
{
	char buf[16384] __attribute__((aligned(8)));

	while (!stop_sig) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *nh;
		ssize_t n;

		if (ppoll(&pfd, 1, NULL, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			err_msg("classify: poll: %s", strerror(errno));
			return -1;
		}
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ENOBUFS) {
				err_msg("classify: events lost (%s); scanning /proc",
					strerror(errno));
				scan();
				continue;
			}
			err_msg("classify: netlink: %s", strerror(errno));
			return -1;
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			struct cn_msg *cn;

			if (nh->nlmsg_type == NLMSG_NOOP)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR ||
			    nh->nlmsg_type == NLMSG_OVERRUN)
				break;
			cn = NLMSG_DATA(nh);
			if (cn->id.idx != CN_IDX_PROC ||
			    cn->id.val != CN_VAL_PROC ||
			    cn->len < sizeof(struct proc_event))
				continue;
			handle((struct proc_event *)cn->data);
		}
	}
	return 0;
}

int cmd_classify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "scan", no_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int opt, do_scan = 0, fd, rcvbuf = 4 << 20, ret, i;
	socklen_t len = sizeof(rcvbuf);

	while ((opt = getopt_long(argc, argv, "+sv", longopts, NULL)) != -1) {
		if (opt == 's')
			do_scan = 1;
		else if (opt == 'v')
			verbose = 1;
		else
			return usage_error("usage: rgctl classify [--scan] [-v] RULES");
	}
	if (argc - optind != 1)
		return usage_error("usage: rgctl classify [--scan] [-v] RULES");
	if (load_rules(argv[optind]))
		return EXIT_ERR;
	if (!group_exists("/")) {
		err_msg("%s: %s (is res_groups.ko loaded?)", rg_root,
			strerror(ENOENT));
		return EXIT_ERR;
	}
	for (i = 0; i < nrules; i++)
		if (!group_exists(rules[i].group))
			err_msg("%s:%d: group %s: %s (rule kept: it applies once the group exists)",
				argv[optind], rules[i].line, rules[i].group,
				strerror(ENOENT));
	stop_catch(&waitmask);
	signal(SIGPIPE, SIG_IGN);

	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0) {
		err_msg("classify: netlink socket: %s", strerror(errno));
		return EXIT_ERR;
	}
	/*
	 * A large buffer: events come in bursts (a fork bomb, a make -j).
	 * SO_RCVBUFFORCE passes net.core.rmem_max (CAP_NET_ADMIN, needed
	 * anyway); SO_RCVBUF is capped by it.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		err_msg("classify: socket buffer of %d bytes: %s", rcvbuf,
			strerror(errno));
	if (verbose && !getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len))
		fprintf(stderr, "%s: classify: socket buffer %d bytes\n",
			prog, rcvbuf);
	sa.nl_groups = CN_IDX_PROC;
	sa.nl_pid = getpid();
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    nl_listen(fd, PROC_CN_MCAST_LISTEN)) {
		err_msg("classify: process events connector: %s (CONFIG_PROC_EVENTS, CAP_NET_ADMIN?)",
			strerror(errno));
		close(fd);
		return EXIT_ERR;
	}
	/* Listening first, then the scan: nothing started meanwhile is missed. */
	if (do_scan)
		scan();
	if (verbose)
		fprintf(stderr, "%s: classify: listening (%d rules)\n", prog,
			nrules);
	ret = event_loop(fd);
	nl_listen(fd, PROC_CN_MCAST_IGNORE);
	close(fd);
	if (verbose)
		fprintf(stderr, "%s: classify: stopped (%s)\n", prog,
			stop_sig ? strsignal(stop_sig) : "error");
	for (i = 0; i < nrules; i++)
		free(rules[i].pattern);
	free(rules);
	for (i = 0; i < NMOVED; i++)
		free(moved[i].from);
	return ret ? EXIT_ERR : EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl: the configfs tree. Groups are named by their path from the root,
 * normalised to "/" or "/a/b" (the form /proc/PID/res_group shows).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rgctl.h"

const char *const field_names[F_NR] = {
	"min_shares", "max_shares", "child_shares_divisor",
};

const char *const cap_names[C_NR] = { "max_descendants", "max_depth" };

/* A name configfs and the module accept: no control chars, not . or .. */
int group_name_ok(const char *name)
{
	const unsigned char *p;

	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	if (strlen(name) > 255)
		return 0;
	for (p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '/')
			return 0;
	return 1;
}

/*
 * "a//b/", "/a/b", "a/b" -> "/a/b"; "", "/" -> "/". -1 (errno EINVAL)
 * for a bad component, ENAMETOOLONG if it does not fit.
 */
int group_norm(const char *in, char *out, size_t len)
{
	size_t o = 0;
	char comp[256];

	if (len < 2) {
		errno = ENAMETOOLONG;
		return -1;
	}
	while (*in) {
		size_t n;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		n = strcspn(in, "/");
		if (n >= sizeof(comp)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, in, n);
		comp[n] = '\0';
		if (!group_name_ok(comp)) {
			errno = EINVAL;
			return -1;
		}
		if (o + n + 2 > len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		out[o++] = '/';
		memcpy(out + o, comp, n);
		o += n;
		in += n;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

int group_depth(const char *g)
{
	int d = 0;

	for (; *g; g++)
		if (*g == '/' && g[1])
			d++;
	return d;
}

void group_dir(const char *g, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", rg_root, strcmp(g, "/") ? g : "");
}

void group_file(const char *g, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s/%s", rg_root, strcmp(g, "/") ? g : "", file);
}

int group_exists(const char *g)
{
	char path[4096];
	struct stat st;

	group_file(g, "shares", path, sizeof(path));
	return !stat(path, &st);
}

/* The whole file, NUL-terminated; NULL and errno on failure. */
char *read_file(const char *path, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

/* One write(2) of the whole string, as the interface expects. */
int write_file(const char *path, const char *data)
{
	size_t len = strlen(data);
	ssize_t n;
	int fd, e;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		n = write(fd, data, len);
	while (n < 0 && errno == EINTR);
	e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The child groups of g, sorted; their count, or -1 and errno. */
int list_children(const char *g, char ***names)
{
	char path[4096];
	struct dirent *de;
	char **v = NULL;
	int n = 0;
	DIR *d;

	group_dir(g, path, sizeof(path));
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		if (de->d_type != DT_DIR) {
			struct stat st;

			if (de->d_type != DT_UNKNOWN ||
			    fstatat(dirfd(d), de->d_name, &st, 0) ||
			    !S_ISDIR(st.st_mode))
				continue;
		}
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_names);
	*names = v;
	return n;
}

void free_names(char **names, int n)
{
	while (n-- > 0)
		free(names[n]);
	free(names);
}

static int walk(const char *g, int depth, int recursive,
		int (*fn)(const char *g, int depth, void *arg), void *arg)
{
	char **kids, child[4096];
	int n, i, ret;

	ret = fn(g, depth, arg);
	if (ret || !recursive)
		return ret;
	n = list_children(g, &kids);
	if (n < 0)
		return errno == ENOENT ? 0 : -1;	/* removed meanwhile */
	for (i = 0; i < n && !ret; i++) {
		snprintf(child, sizeof(child), "%s/%s",
			 strcmp(g, "/") ? g : "", kids[i]);
		ret = walk(child, depth + 1, recursive, fn, arg);
	}
	free_names(kids, n);
	return ret;
}

/* Calls fn for g and (recursive) its descendants, parents first. */
int walk_tree(const char *g, int recursive,
	      int (*fn)(const char *g, int depth, void *arg), void *arg)
{
	return walk(g, group_depth(g), recursive, fn, arg);
}

/* g's shares file parsed; 0, or -1 and errno. */
int read_shares(const char *g, struct rg_group_shares *gs)
{
	char path[4096], *buf, *line, *save = NULL;

	group_file(g, "shares", path, sizeof(path));
	buf = read_file(path, NULL);
	if (!buf)
		return -1;
	gs->n = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct rg_shares *s = &gs->s[gs->n];
		char *kv, *save2 = NULL;
		int f;

		if (gs->n == RG_MAX_CTLS)
			break;
		memset(s, 0, sizeof(*s));
		for (f = 0; f < F_NR; f++)
			s->val[f] = RG_UNSUPPORTED;
		for (kv = strtok_r(line, ",", &save2); kv;
		     kv = strtok_r(NULL, ",", &save2)) {
			char *eq = strchr(kv, '=');

			if (!eq)
				continue;
			*eq++ = '\0';
			if (!strcmp(kv, "res")) {
				snprintf(s->res, sizeof(s->res), "%s", eq);
				continue;
			}
			for (f = 0; f < F_NR; f++)
				if (!strcmp(kv, field_names[f]))
					parse_int(eq, &s->val[f]);
		}
		if (s->res[0])
			gs->n++;
	}
	free(buf);
	return 0;
}

const struct rg_shares *find_shares(const struct rg_group_shares *gs,
				    const char *res)
{
	int i;

	for (i = 0; i < gs->n; i++)
		if (!strcmp(gs->s[i].res, res))
			return &gs->s[i];
	return NULL;
}

/* One write of the fields in have[]; 0, or -1 and errno. */
int write_shares(const char *g, const char *res, const int *have,
		 const int *val)
{
	char path[4096], buf[256];
	size_t o;
	int f;

	o = snprintf(buf, sizeof(buf), "res=%s", res);
	for (f = 0; f < F_NR; f++)
		if (have[f])
			o += snprintf(buf + o, sizeof(buf) - o, ",%s=%d",
				      field_names[f], val[f]);
	group_file(g, "shares", path, sizeof(path));
	return write_file(path, buf);
}

/* Tasks listed in g's members file, or -1. */
int count_members(const char *g)
{
	char path[4096], *buf, *p;
	int n = 0;

	group_file(g, "members", path, sizeof(path));
	buf = read_file(path, NULL);
	if (!buf)
		return -1;
	for (p = buf; *p; p++)
		if (*p == '\n')
			n++;
	free(buf);
	return n;
}

int read_caps(const char *g, int *caps)
{
	char path[4096], *buf, *nl;
	int c, bad;

	for (c = 0; c < C_NR; c++) {
		group_file(g, cap_names[c], path, sizeof(path));
		buf = read_file(path, NULL);
		if (!buf)
			return -1;
		nl = strchr(buf, '\n');
		if (nl)
			*nl = '\0';
		bad = parse_cap(buf, &caps[c]);
		free(buf);
		if (bad) {
			errno = EINVAL;
			return -1;
		}
	}
	return 0;
}

int write_cap(const char *g, int cap, int val)
{
	char path[4096], v[32];

	group_file(g, cap_names[cap], path, sizeof(path));
	format_cap(val, v, sizeof(v));
	return write_file(path, v);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl: config file parsing. A line is
 *
 *	GROUP [max_descendants=N] [max_depth=N] [RES:KEY=VALUE[,KEY=VALUE]...]...
 *
 * (the caps in any place after GROUP; N is "max" or 0..2147483647).
 * '#' starts a comment; blank lines are ignored. GROUP is a path from the
 * root ("/" is the root). A backslash makes the next character part of
 * the field, so a group name may hold '#', a space or a backslash ("\#",
 * "\ ", "\\"); dump writes names that way.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static int line_error(const struct cfg *cfg, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int line_error(const struct cfg *cfg, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: %s:%d: ", prog, cfg->file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static char *read_input(const char *file)
{
	size_t len = 0, cap = 4096, n;
	FILE *f = strcmp(file, "-") ? fopen(file, "re") : stdin;
	char *buf;

	if (!f)
		return NULL;
	buf = xmalloc(cap);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	if (ferror(f)) {
		int e = errno;

		free(buf);
		if (f != stdin)
			fclose(f);
		errno = e ? e : EIO;
		return NULL;
	}
	if (f != stdin)
		fclose(f);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	return buf;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int cfg_field(const char **p, char *out, size_t len)
{
	const char *s = *p;
	size_t o = 0;

	while (s && is_blank(*s))
		s++;
	if (!s || !*s || *s == '#') {
		*p = NULL;
		return 0;
	}
	while (*s && *s != '#' && !is_blank(*s)) {
		if (*s == '\\' && !*++s) {
			errno = EINVAL;
			return -1;
		}
		if (o + 1 >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		out[o++] = *s++;
	}
	out[o] = '\0';
	*p = s;
	return 1;
}

void cfg_put_escaped(const char *s, FILE *f)
{
	for (; *s; s++) {
		if (*s == '#' || *s == '\\' || is_blank(*s))
			putc('\\', f);
		putc(*s, f);
	}
}

/*
 * tok, a field without ':' in it, as a cap "NAME=N" of cl; 0 or an error
 * count (printed).
 */
static int parse_cap_field(const struct cfg *cfg, int lineno,
			   struct cfg_line *cl, char *tok)
{
	char *eq = strchr(tok, '=');
	int c;

	if (eq)
		*eq++ = '\0';
	for (c = 0; c < C_NR; c++)
		if (eq && !strcmp(tok, cap_names[c]))
			break;
	if (c == C_NR)
		return line_error(cfg, lineno,
				  "group %s: '%s%s%s': expected RES:KEY=VALUE, max_descendants=N or max_depth=N: %s",
				  cl->group, tok, eq ? "=" : "", eq ? eq : "",
				  strerror(EINVAL));
	if (cl->have_cap[c])
		return line_error(cfg, lineno, "group %s: %s given twice: %s",
				  cl->group, tok, strerror(EINVAL));
	if (parse_cap(eq, &cl->cap[c]))
		return line_error(cfg, lineno,
				  "group %s: %s=%s: not max or an int from 0 to %d: %s",
				  cl->group, tok, eq, RG_CAP_MAX,
				  strerror(EINVAL));
	cl->have_cap[c] = 1;
	return 0;
}

/* The next field into tok; 1, 0 at the end, or -1 after an error message. */
static int next_field(const struct cfg *cfg, int lineno, const char **p,
		      char *tok, size_t len)
{
	int r = cfg_field(p, tok, len);

	if (r < 0)
		line_error(cfg, lineno, "%s", errno == EINVAL ?
			   "a backslash at the end of the line: Invalid argument" :
			   strerror(errno));
	return r;
}

static int parse_line(struct cfg *cfg, int lineno, const char *s)
{
	struct cfg_line *cl;
	char g[4096], why[256], tok[4096];
	int i, r, errs = 0;

	r = next_field(cfg, lineno, &s, tok, sizeof(tok));
	if (r <= 0)
		return -r;
	if (group_norm(tok, g, sizeof(g)))
		return line_error(cfg, lineno, "group '%s': %s", tok,
				  strerror(errno));
	if (group_depth(g) > RG_MAX_DEPTH)
		return line_error(cfg, lineno, "group %s: %s (depth %d, at most %d)",
				  g, strerror(EMLINK), group_depth(g),
				  RG_MAX_DEPTH);
	for (i = 0; i < cfg->n; i++)
		if (!strcmp(cfg->lines[i].group, g))
			return line_error(cfg, lineno,
					  "group %s: listed again (first on line %d): %s",
					  g, cfg->lines[i].line, strerror(EINVAL));
	cfg->lines = xrealloc(cfg->lines, (cfg->n + 1) * sizeof(*cfg->lines));
	cl = &cfg->lines[cfg->n++];
	memset(cl, 0, sizeof(*cl));
	cl->group = xstrdup(g);
	cl->line = lineno;
	while ((r = next_field(cfg, lineno, &s, tok, sizeof(tok)))) {
		struct rg_req *req = &cl->req[cl->nreq];

		if (r < 0)
			return errs + 1;

		if (!strchr(tok, ':')) {
			errs += parse_cap_field(cfg, lineno, cl, tok);
			continue;
		}
		if (parse_req(tok, req, why, sizeof(why))) {
			errs += line_error(cfg, lineno, "group %s: '%s': %s: %s",
					   g, tok, why, strerror(EINVAL));
			continue;
		}
		if (!controller_known(req->res)) {
			errs += line_error(cfg, lineno,
					   "group %s: controller '%s': %s (not registered)",
					   g, req->res, strerror(EINVAL));
			continue;
		}
		for (i = 0; i < cl->nreq; i++)
			if (!strcmp(cl->req[i].res, req->res))
				break;
		if (i < cl->nreq) {
			errs += line_error(cfg, lineno,
					   "group %s: controller '%s' given twice: %s",
					   g, req->res, strerror(EINVAL));
			continue;
		}
		if (cl->nreq == RG_MAX_CTLS) {
			errs += line_error(cfg, lineno, "group %s: too many controllers",
					   g);
			continue;
		}
		cl->nreq++;
	}
	return errs;
}

int cfg_parse(const char *file, struct cfg *cfg)
{
	char *buf, *line, *next;
	int lineno = 0, errs = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->file = file;
	buf = read_input(file);
	if (!buf) {
		err_msg("%s: %s", file, strerror(errno));
		return 1;
	}
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		errs += parse_line(cfg, lineno, line);
	}
	free(buf);
	return errs;
}

void cfg_free(struct cfg *cfg)
{
	int i;

	for (i = 0; i < cfg->n; i++)
		free(cfg->lines[i].group);
	free(cfg->lines);
	cfg->lines = NULL;
	cfg->n = 0;
}

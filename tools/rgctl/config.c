// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl: config file parsing. A line is
 *
 *	GROUP [RES:KEY=VALUE[,KEY=VALUE]...]...
 *
 * '#' starts a comment; blank lines are ignored. GROUP is a path from the
 * root ("/" is the root).
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

static int parse_line(struct cfg *cfg, int lineno, char *s)
{
	struct cfg_line *cl;
	char g[4096], why[256], *tok, *save = NULL;
	int i, errs = 0;

	tok = strtok_r(s, " \t\r\v\f", &save);
	if (!tok)
		return 0;
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
	while ((tok = strtok_r(NULL, " \t\r\v\f", &save))) {
		struct rg_req *req = &cl->req[cl->nreq];

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
		char *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
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

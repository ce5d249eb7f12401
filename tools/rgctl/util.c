// SPDX-License-Identifier: GPL-2.0
/* rgctl: messages, allocation and number parsing. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rgctl.h"

const char *prog = "rgctl";
const char *rg_root = "/sys/kernel/config/res_groups";

/* "rgctl: " and the message on standard error, after standard output. */
static void vmsg(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'rgctl --help'.\n");
	return EXIT_USAGE;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		err_msg("%s", strerror(ENOMEM));
		exit(EXIT_ERR);
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		err_msg("%s", strerror(ENOMEM));
		exit(EXIT_ERR);
	}
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

/* A decimal int, optional '-', nothing else. 0 or -1. */
int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

int parse_pid(const char *s, pid_t *out)
{
	int v;

	if (*s == '-' || parse_int(s, &v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* rgctl: the config file of dump and apply (docs/res_groups.rst, "rgctl"). */
#ifndef RGCTL_CONFIG_H
#define RGCTL_CONFIG_H

#include "rgctl.h"

/* One group line of a config file. */
struct cfg_line {
	char *group;		/* normalised */
	int line;
	int nreq;
	struct rg_req req[RG_MAX_CTLS];
	int have_cap[C_NR];	/* max_descendants=, max_depth= given */
	int cap[C_NR];
};

struct cfg {
	const char *file;
	int n;
	struct cfg_line *lines;
};

/*
 * Parses the file (syntax, names, depth, controllers registered now).
 * Prints every error as FILE:LINE: ... and returns their number.
 */
int cfg_parse(const char *file, struct cfg *cfg);

/*
 * The next field of a line at *p, unescaped ("\\c" is c), into out: 1
 * (*p moves past it), 0 at the end of the line or at an unescaped '#'
 * (*p is NULL then), -1 with errno EINVAL (a backslash ends the line)
 * or ENAMETOOLONG.
 */
int cfg_field(const char **p, char *out, size_t len);
/* s with '#', blanks and backslashes escaped, as cfg_field reads it. */
void cfg_put_escaped(const char *s, FILE *f);
void cfg_free(struct cfg *cfg);

#endif

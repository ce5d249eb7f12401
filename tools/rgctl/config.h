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
void cfg_free(struct cfg *cfg);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl: shares requests, RES:KEY=VALUE[,KEY=VALUE]... as on the command
 * line and in config files. KEY is min_shares (min), max_shares (max) or
 * child_shares_divisor (divisor, child_total_divisor); VALUE a decimal
 * int >= 0 or dont_care (-3).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rgctl.h"

static const struct {
	const char *name;
	int field;
} keys[] = {
	{ "min_shares", F_MIN }, { "min", F_MIN },
	{ "max_shares", F_MAX }, { "max", F_MAX },
	{ "child_shares_divisor", F_DIV }, { "divisor", F_DIV },
	{ "child_total_divisor", F_DIV },
};

static int parse_value(const char *s, int *v)
{
	if (!strcasecmp(s, "dont_care")) {
		*v = RG_DONT_CARE;
		return 0;
	}
	if (parse_int(s, v))
		return -1;
	return *v >= 0 || *v == RG_DONT_CARE ? 0 : -1;
}

/*
 * Parses spec into req. On a syntax error returns -1 with the reason in
 * why. Does not check that the controller exists.
 */
int parse_req(const char *spec, struct rg_req *req, char *why, size_t len)
{
	const char *colon = strchr(spec, ':');
	char *copy, *kv, *save = NULL;
	size_t n;
	int ret = 0;

	memset(req, 0, sizeof(*req));
	if (!colon || colon == spec) {
		snprintf(why, len, "expected RES:KEY=VALUE[,KEY=VALUE]...");
		return -1;
	}
	n = colon - spec;
	if (n >= sizeof(req->res) || memchr(spec, '=', n) ||
	    memchr(spec, ',', n)) {
		snprintf(why, len, "bad controller name");
		return -1;
	}
	memcpy(req->res, spec, n);
	req->res[n] = '\0';
	if (!colon[1]) {
		snprintf(why, len, "no KEY=VALUE after '%s:'", req->res);
		return -1;
	}
	copy = xstrdup(colon + 1);
	if (copy[strlen(copy) - 1] == ',') {
		snprintf(why, len, "empty KEY=VALUE");
		ret = -1;
		goto out;
	}
	for (kv = strtok_r(copy, ",", &save); kv && !ret;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		size_t k;
		int v;

		if (!eq) {
			snprintf(why, len, "'%s': expected KEY=VALUE", kv);
			ret = -1;
			break;
		}
		*eq++ = '\0';
		for (k = 0; k < ARRAY_SIZE(keys); k++)
			if (!strcmp(kv, keys[k].name))
				break;
		if (k == ARRAY_SIZE(keys)) {
			snprintf(why, len,
				 "unknown key '%s' (min_shares, max_shares, child_shares_divisor)",
				 kv);
			ret = -1;
		} else if (req->have[keys[k].field]) {
			snprintf(why, len, "key '%s' given twice", kv);
			ret = -1;
		} else if (parse_value(eq, &v)) {
			snprintf(why, len,
				 "%s=%s: not an int >= 0 or dont_care", kv, eq);
			ret = -1;
		} else if (keys[k].field == F_DIV && v < 1) {
			snprintf(why, len, "%s=%s: a divisor is at least 1",
				 kv, eq);
			ret = -1;
		} else {
			req->have[keys[k].field] = 1;
			req->val[keys[k].field] = v;
		}
	}
	if (!ret && req->have[F_MIN] && req->have[F_MAX] &&
	    req->val[F_MIN] >= 0 && req->val[F_MAX] >= 0 &&
	    req->val[F_MIN] > req->val[F_MAX]) {
		snprintf(why, len, "min_shares %d above max_shares %d",
			 req->val[F_MIN], req->val[F_MAX]);
		ret = -1;
	}
out:
	free(copy);
	return ret;
}

void format_value(int v, char *buf, size_t len)
{
	if (v == RG_DONT_CARE)
		snprintf(buf, len, "dont_care");
	else if (v == RG_UNSUPPORTED)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", v);
}

int parse_cap(const char *s, int *v)
{
	if (!strcmp(s, "max")) {
		*v = RG_CAP_MAX;
		return 0;
	}
	if (*s < '0' || *s > '9' || parse_int(s, v))
		return -1;
	return 0;
}

void format_cap(int v, char *buf, size_t len)
{
	if (v == RG_CAP_MAX)
		snprintf(buf, len, "max");
	else
		snprintf(buf, len, "%d", v);
}

/* A controller registered now (it has shares in the root). */
int controller_known(const char *res)
{
	struct rg_group_shares gs;

	return !read_shares("/", &gs) && find_shares(&gs, res);
}

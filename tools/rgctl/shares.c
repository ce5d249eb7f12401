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

static int pos(int v)
{
	return v > 0 ? v : 0;
}

/*
 * What @g's children promise and ask of @res: the sum of their min_shares
 * (DONT_CARE as 0), skipping the child named @skip, and the largest of
 * their max_shares (0 if none).
 */
static void children_of(const char *g, const char *res, const char *skip,
			long *sum, int *maxmax)
{
	struct rg_group_shares gs;
	const struct rg_shares *s;
	char **names, path[4096];
	int i, n;

	*sum = 0;
	*maxmax = 0;
	n = list_children(g, &names);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		if (skip && !strcmp(names[i], skip))
			continue;
		snprintf(path, sizeof(path), "%s/%s", strcmp(g, "/") ? g : "",
			 names[i]);
		if (read_shares(path, &gs))
			continue;
		s = find_shares(&gs, res);
		if (!s)
			continue;
		*sum += pos(s->val[F_MIN]);
		if (s->val[F_MAX] > *maxmax)
			*maxmax = s->val[F_MAX];
	}
	free_names(names, n);
}

/*
 * Why a write of @req to group @g (normalized: "/" or "/a/b") was
 * refused with EINVAL: the rule of docs/res_groups.rst, "Validating a
 * write", that it breaks, with the numbers read now. Fills @why, or
 * leaves it empty when no rule explains it (the tree changed since).
 */
void explain_refusal(const char *g, const struct rg_req *req, char *why,
		     size_t len)
{
	struct rg_group_shares gs, pgs;
	const struct rg_shares *cur, *par = NULL;
	char parent[4096];
	const char *name = strrchr(g, '/') + 1;
	int f, fv[F_NR], maxmax, dummy;
	long sum, usage;

	*why = '\0';
	if (read_shares(g, &gs))
		return;
	cur = find_shares(&gs, req->res);
	if (!cur)
		return;
	for (f = 0; f < F_NR; f++)
		fv[f] = req->have[f] && cur->val[f] != RG_UNSUPPORTED ?
			req->val[f] : cur->val[f];
	if (strcmp(g, "/")) {
		snprintf(parent, sizeof(parent), "%.*s", (int)(name - 1 - g), g);
		if (!parent[0])
			strcpy(parent, "/");
		if (!read_shares(parent, &pgs))
			par = find_shares(&pgs, req->res);
	}
	if (par && fv[F_MIN] >= 0 && par->val[F_DIV] > 0) {
		children_of(parent, req->res, name, &sum, &dummy);
		if (fv[F_MIN] > par->val[F_DIV]) {
			snprintf(why, len,
				 "min_shares %d above the parent's child_shares_divisor %d",
				 fv[F_MIN], par->val[F_DIV]);
			return;
		}
		if (sum + fv[F_MIN] > par->val[F_DIV]) {
			snprintf(why, len,
				 "the guarantees of the parent's children would add up to %ld of its child_shares_divisor %d (min_shares %d here, %ld elsewhere)",
				 sum + fv[F_MIN], par->val[F_DIV], fv[F_MIN],
				 sum);
			return;
		}
	}
	if (par && fv[F_MAX] >= 0 && fv[F_MAX] > par->val[F_DIV]) {
		snprintf(why, len,
			 "max_shares %d above the parent's child_shares_divisor %d",
			 fv[F_MAX], par->val[F_DIV]);
		return;
	}
	for (f = F_MIN; f <= F_MAX; f++)
		if (fv[f] < 0 && fv[f] != RG_DONT_CARE &&
		    cur->val[f] != RG_UNSUPPORTED) {
			snprintf(why, len, "%s %d is neither dont_care nor >= 0",
				 field_names[f], fv[f]);
			return;
		}
	children_of(g, req->res, NULL, &usage, &maxmax);
	if (fv[F_DIV] < 1) {
		snprintf(why, len, "child_shares_divisor %d below 1", fv[F_DIV]);
		return;
	}
	if (fv[F_DIV] < usage) {
		snprintf(why, len,
			 "child_shares_divisor %d below %ld, what the children's min_shares add up to",
			 fv[F_DIV], usage);
		return;
	}
	if (fv[F_DIV] < maxmax) {
		snprintf(why, len,
			 "child_shares_divisor %d below a child's max_shares %d",
			 fv[F_DIV], maxmax);
		return;
	}
	if (fv[F_MIN] >= 0 && fv[F_MAX] >= 0 && fv[F_MIN] > fv[F_MAX])
		snprintf(why, len, "min_shares %d above max_shares %d",
			 fv[F_MIN], fv[F_MAX]);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl stats: one table per controller, one row per group (per group and
 * device for io), a column per key of the controller's stats lines
 * (res=NAME,KEY=VALUE,...), so a new controller needs nothing here. With
 * -w the tables are redrawn every SECONDS and counters show their change
 * since the last draw.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rgctl.h"
#include "table.h"

#define MAX_KEYS (TABLE_MAX_COLS - 2)

struct stat_row {
	char *group;
	char res[32];
	int n;
	char *key[MAX_KEYS];
	char *val[MAX_KEYS];
};

struct sample {
	int n;
	struct stat_row *rows;
};

static const char *base_group;

static void sample_free(struct sample *s)
{
	int i, k;

	for (i = 0; i < s->n; i++) {
		free(s->rows[i].group);
		for (k = 0; k < s->rows[i].n; k++) {
			free(s->rows[i].key[k]);
			free(s->rows[i].val[k]);
		}
	}
	free(s->rows);
	s->rows = NULL;
	s->n = 0;
}

static int collect(const char *g, int depth, void *arg)
{
	struct sample *s = arg;
	char path[4096], *buf, *line, *save = NULL;

	group_file(g, "stats", path, sizeof(path));
	buf = read_file(path, NULL);
	if (!buf) {
		if (errno == ENOENT && strcmp(g, base_group))
			return 0;	/* removed meanwhile */
		err_msg("group %s: stats: %s", g, strerror(errno));
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct stat_row *r;
		char *kv, *save2 = NULL;

		if (strncmp(line, "res=", 4))
			continue;
		s->rows = xrealloc(s->rows, (s->n + 1) * sizeof(*s->rows));
		r = &s->rows[s->n++];
		memset(r, 0, sizeof(*r));
		r->group = xstrdup(g);
		for (kv = strtok_r(line, ",", &save2); kv;
		     kv = strtok_r(NULL, ",", &save2)) {
			char *eq = strchr(kv, '=');

			if (!eq)
				continue;
			*eq++ = '\0';
			if (!strcmp(kv, "res")) {
				snprintf(r->res, sizeof(r->res), "%s", eq);
			} else if (r->n < MAX_KEYS) {
				r->key[r->n] = xstrdup(kv);
				r->val[r->n++] = xstrdup(eq);
			}
		}
	}
	free(buf);
	return 0;
}

/*
 * Counters (shown with their change): keys ending in "cnt", "_count",
 * "_usec", "bytes" or "ios", or starting with "nr_" (numtasks' failcnt,
 * cpu's usage_usec, nr_periods, io's rbytes, wios...). Everything else is
 * a level (held, limit, ...).
 */
static int is_counter(const char *key)
{
	size_t n = strlen(key);

	return (n >= 3 && !strcmp(key + n - 3, "cnt")) ||
	       (n >= 6 && !strcmp(key + n - 6, "_count")) ||
	       (n >= 5 && !strcmp(key + n - 5, "_usec")) ||
	       (n >= 5 && !strcmp(key + n - 5, "bytes")) ||
	       (n >= 3 && !strcmp(key + n - 3, "ios")) ||
	       !strncmp(key, "nr_", 3);
}

/*
 * A row's device, for a controller with a line per device (io's
 * dev=MAJ:MIN), else "": rows of a group and controller differ by it.
 */
static const char *row_dev(const struct stat_row *r)
{
	int k;

	for (k = 0; k < r->n; k++)
		if (!strcmp(r->key[k], "dev"))
			return r->val[k];
	return "";
}

static const char *prev_value(const struct sample *prev,
			      const struct stat_row *row, const char *key)
{
	int i, k;

	for (i = 0; prev && i < prev->n; i++) {
		const struct stat_row *r = &prev->rows[i];

		if (strcmp(r->group, row->group) || strcmp(r->res, row->res) ||
		    strcmp(row_dev(r), row_dev(row)))
			continue;
		for (k = 0; k < r->n; k++)
			if (!strcmp(r->key[k], key))
				return r->val[k];
	}
	return NULL;
}

static int key_col(char **cols, int *ncols, const char *key)
{
	int c;

	for (c = 0; c < *ncols; c++)
		if (!strcmp(cols[c], key))
			return c;
	if (*ncols == MAX_KEYS)
		return -1;
	cols[*ncols] = (char *)key;
	return (*ncols)++;
}

/* One table per controller, in the order the controllers first show. */
static void draw(const struct sample *s, const struct sample *prev)
{
	const char *done[64];
	int ndone = 0, i, j, k, d;

	for (i = 0; i < s->n; i++) {
		const char *res = s->rows[i].res;
		char *cols[MAX_KEYS];
		struct table t;
		int ncols = 0, r;

		for (d = 0; d < ndone; d++)
			if (!strcmp(done[d], res))
				break;
		if (d < ndone || ndone == 64)
			continue;
		done[ndone++] = res;
		for (j = i; j < s->n; j++)
			if (!strcmp(s->rows[j].res, res))
				for (k = 0; k < s->rows[j].n; k++)
					key_col(cols, &ncols, s->rows[j].key[k]);
		table_init(&t, ncols + 2);
		t.left[0] = 1;
		t.left[1] = 1;
		r = table_row(&t);
		table_set(&t, r, 0, "GROUP");
		table_set(&t, r, 1, "RES");
		for (k = 0; k < ncols; k++)
			table_set(&t, r, k + 2, "%s", cols[k]);
		for (j = i; j < s->n; j++) {
			const struct stat_row *row = &s->rows[j];

			if (strcmp(row->res, res))
				continue;
			r = table_row(&t);
			table_set(&t, r, 0, "%s", row->group);
			table_set(&t, r, 1, "%s", res);
			for (k = 0; k < row->n; k++) {
				int c = key_col(cols, &ncols, row->key[k]);
				const char *old = prev_value(prev, row,
							     row->key[k]);
				long long delta;

				if (c < 0)
					continue;
				delta = old ? strtoll(row->val[k], NULL, 10) -
					      strtoll(old, NULL, 10) : 0;
				if (old && is_counter(row->key[k]) && delta)
					table_set(&t, r, c + 2, "%s (%+lld)",
						  row->val[k], delta);
				else
					table_set(&t, r, c + 2, "%s",
						  row->val[k]);
			}
		}
		if (ndone > 1)
			putchar('\n');
		table_print(&t, stdout);
		table_free(&t);
	}
}

int cmd_stats(int argc, char **argv)
{
	struct sample cur = { 0 }, prev = { 0 };
	double interval = 0;
	int opt, tty = isatty(STDOUT_FILENO), ret = EXIT_OK, first = 1;
	sigset_t waitmask;
	char g[4096], *end;

	while ((opt = getopt(argc, argv, "+w:")) != -1) {
		if (opt != 'w')
			return usage_error("usage: rgctl stats [-w SECONDS] [GROUP]");
		interval = strtod(optarg, &end);
		if (*end || !(interval > 0) || interval > 86400)
			return usage_error("-w '%s': not a number of seconds",
					   optarg);
	}
	if (argc - optind > 1)
		return usage_error("usage: rgctl stats [-w SECONDS] [GROUP]");
	if (group_norm(optind < argc ? argv[optind] : "/", g, sizeof(g))) {
		err_msg("group '%s': %s", argv[optind], strerror(errno));
		return EXIT_ERR;
	}
	if (!group_exists(g)) {
		err_msg("group %s: %s", g, strerror(ENOENT));
		return EXIT_ERR;
	}
	base_group = g;
	stop_catch(&waitmask);
	while (!stop_sig) {
		if (walk_tree(g, 1, collect, &cur)) {
			ret = EXIT_ERR;
			break;
		}
		if (interval > 0) {
			time_t now = time(NULL);
			char ts[32];

			strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&now));
			if (tty)
				fputs("\033[H\033[2J", stdout);
			else if (!first)
				putchar('\n');
			printf("rgctl stats %s, every %gs, %s%s\n\n", g,
			       interval, ts,
			       first ? "" : " (counters: change since the last draw)");
		}
		draw(&cur, first ? NULL : &prev);
		fflush(stdout);
		sample_free(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
		first = 0;
		if (interval <= 0)
			break;
		stop_sleep(interval, &waitmask);
	}
	sample_free(&prev);
	sample_free(&cur);
	return ret;
}

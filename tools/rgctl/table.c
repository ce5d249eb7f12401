// SPDX-License-Identifier: GPL-2.0
/* rgctl: aligned text tables. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rgctl.h"
#include "table.h"

void table_init(struct table *t, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols < TABLE_MAX_COLS ? ncols : TABLE_MAX_COLS;
}

int table_row(struct table *t)
{
	t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
	t->rows[t->nrows] = calloc(t->ncols, sizeof(char *));
	if (!t->rows[t->nrows])
		t->rows[t->nrows] = xmalloc(1);	/* exits */
	return t->nrows++;
}

void table_set(struct table *t, int row, int col, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (col < 0 || col >= t->ncols)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(t->rows[row][col]);
	t->rows[row][col] = xstrdup(buf);
}

void table_print(const struct table *t, FILE *f)
{
	int width[TABLE_MAX_COLS] = { 0 };
	int r, c, last;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++)
			if (t->rows[r][c] &&
			    (int)strlen(t->rows[r][c]) > width[c])
				width[c] = strlen(t->rows[r][c]);
	for (r = 0; r < t->nrows; r++) {
		for (last = t->ncols - 1; last > 0 && !t->rows[r][last]; last--)
			;
		for (c = 0; c <= last; c++) {
			const char *s = t->rows[r][c] ? t->rows[r][c] : "";

			if (c)
				fputs("  ", f);
			if (t->left[c])
				fprintf(f, "%-*s", c == last ? 0 : width[c], s);
			else
				fprintf(f, "%*s", width[c], s);
		}
		fputc('\n', f);
	}
}

void table_free(struct table *t)
{
	int r, c;

	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++)
			free(t->rows[r][c]);
		free(t->rows[r]);
	}
	free(t->rows);
	t->rows = NULL;
	t->nrows = 0;
}

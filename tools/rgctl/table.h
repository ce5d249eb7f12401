/* SPDX-License-Identifier: GPL-2.0 */
/* rgctl: aligned text tables (ls, stats). */
#ifndef RGCTL_TABLE_H
#define RGCTL_TABLE_H

#include <stdio.h>

#define TABLE_MAX_COLS 32

struct table {
	int ncols;
	int nrows;
	int left[TABLE_MAX_COLS];	/* left-aligned column */
	char ***rows;			/* rows[r][c], NULL: empty */
};

void table_init(struct table *t, int ncols);
/* Starts a row; cells are set with table_set(). */
int table_row(struct table *t);
void table_set(struct table *t, int row, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif

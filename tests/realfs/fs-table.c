/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Prints the library's table of filesystems (src/fs_facts.c) as the rows
 * of libfallocate(7)'s table (tbl, fields separated by ';'), for
 * tests/realfs/fs-table.sh, which checks that the page says what the code does. */
#include <stdio.h>

#include "fs_facts.h"

/* One letter a fact, in the order of enum lfa_fs_fact. */
static const char letters[LFA_FS_FACT_COUNT] = {
	'P', 'S', 'N', 'H', 'L', 'F', 'Z', 'C', 'A', 'D', 'Q', 'W', 'M', 'B',
};

int main(void)
{
	struct lfa_fs_row row;
	size_t i;
	int bit, any;

	for (i = 0; lfa_fs_table_row(i, &row) == 0; i++) {
		if (row.type)
			printf("%s;%#x;%s;", row.name, row.type, row.server ? row.server : "\\-");
		else
			printf("%s;\\-;\\-;", row.name);
		any = 0;
		for (bit = 0; bit < LFA_FS_FACT_COUNT; bit++)
			if (row.facts & (1u << bit)) {
				printf("%s%c", any ? " " : "", letters[bit]);
				any = 1;
			}
		printf("%s\n", any ? "" : "\\-");
	}
	return 0;
}

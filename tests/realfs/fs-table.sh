#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# libfallocate(7)'s table of filesystems is the library's own (issue 39):
# the rows between its "fs-table" markers are what tests/realfs/fs-table prints
# of src/fs_facts.c, row for row.
. "${top_srcdir:-.}/tests/lib/lib.sh"
prog=$top_builddir/tests/realfs/fs-table
[ -x "$prog" ] || fail "no $prog"
page=$top_srcdir/man/libfallocate.7
"$prog" > "$scratch/code" || fail "$prog failed"
sed -n '/^\.\\" fs-table begin$/,/^\.\\" fs-table end$/p' "$page" |
	sed '1d;$d' | sed -n '/^_$/,$p' | sed '1d' | grep -v '^\.TE$' > "$scratch/page"
[ -s "$scratch/page" ] || fail "no fs-table block in $page"
diff -u "$scratch/page" "$scratch/code" > "$scratch/diff" ||
	fail "libfallocate(7)'s table differs from src/fs_facts.c (- page, + code):
$(cat "$scratch/diff")"
echo "PASS: libfallocate(7)'s $(wc -l < "$scratch/code") rows are src/fs_facts.c's"

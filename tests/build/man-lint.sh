#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Every manual page is free of warnings from mandoc -Tlint and groff -ww, and
# every function the library exports has a page (or a link to one).
. "${top_srcdir:-.}/tests/lib/lib.sh"
need_cmd mandoc
n=0
for page in "$top_srcdir"/man/*.[1-9]*; do
	mandoc -Tlint "$page" > "$scratch/lint" 2>&1 || true
	[ ! -s "$scratch/lint" ] || fail "mandoc -Tlint $(basename "$page"):
$(cat "$scratch/lint")"
	if command -v groff > /dev/null 2>&1; then
		groff -ww -z -man "$page" > "$scratch/lint" 2>&1 || true
		[ ! -s "$scratch/lint" ] || fail "groff -ww $(basename "$page"):
$(cat "$scratch/lint")"
	fi
	n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "only $n pages found under $top_srcdir/man"
command -v groff > /dev/null 2>&1 || note "groff is not installed: only mandoc checked"

# The exported functions, from the header, each named in a page's NAME line.
for fn in posix_fallocate posix_fallocate64 fallocate fallocate64 \
	$(sed -n 's/^[a-z].*[ *]\(lfa_[a-z_]*\)(.*/\1/p' "$top_srcdir/include/libfallocate.h"); do
	grep -A2 '^\.SH NAME' "$top_srcdir"/man/*.3lfa | grep -Eq "(^|[ ,-])$fn(,| \\\\-|\$)" ||
		fail "$fn has no manual page"
done
echo "PASS: $n pages lint-free, every function documented"

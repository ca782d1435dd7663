#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# libfallocate.h compiles warning-free on its own, before and after
# <fcntl.h>, with and without _GNU_SOURCE and _FILE_OFFSET_BITS=64, as C89,
# C99, C11 and C++; and its names mean the mainline modes.
. "${top_srcdir:-.}/tests/lib/lib.sh"
: "${CC:=cc}"
inc=$top_srcdir/include
n=0

try() { # try COMPILER FLAGS... -- SOURCE-TEXT
	compiler=$1; shift
	flags=""
	while [ "$1" != -- ]; do flags="$flags $1"; shift; done
	shift
	printf '%s\n' "$1" > "$scratch/t.$ext"
	# shellcheck disable=SC2086
	$compiler $flags -Wall -Wextra -Werror -pedantic -I"$inc" -c "$scratch/t.$ext" \
		-o "$scratch/t.o" 2> "$scratch/err" || fail "$compiler$flags: $(cat "$scratch/err")
$1"
	n=$((n + 1))
}

alone='#include <libfallocate.h>
int mode_allocate = FA_ALLOCATE, mode_deallocate = FA_DEALLOCATE;'
before='#include <libfallocate.h>
#include <fcntl.h>
int f(int fd) { return posix_fallocate(fd, 0, 1) + fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1); }'
# The lfa_ API, initializers and all, in the language's oldest dialect.
api='#include <libfallocate.h>
static int cb(uint64_t done, uint64_t total, void *user) { (void)user; return done > total; }
int g(int fd, struct lfa_report *rep) {
	struct lfa_options opt = LFA_OPTIONS_INIT;
	struct lfa_report r = LFA_REPORT_INIT;
	int err;
	opt.emulation = LFA_EMULATION_ALWAYS;
	opt.progress = cb;
	err = lfa_allocate(fd, 0, (int64_t)1 << 40, &opt, &r);
	*rep = r;
	return err + (int)*lfa_strpath(r.path) + (int)*lfa_strholes(r.holes) +
		(int)*lfa_strreason(r.reason) + (int)*lfa_version() + LFA_API_VERSION;
}'
after='#include <fcntl.h>
#include <libfallocate.h>
int f(int fd) { return posix_fallocate(fd, 0, 1) + fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, 1); }'

ext=c
for std in c89 c99 c11; do
	for defs in "" "-D_GNU_SOURCE" "-D_FILE_OFFSET_BITS=64" "-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64"; do
		try "$CC" -std=$std $defs -- "$alone"
		try "$CC" -std=$std $defs -- "$api"
		case $defs in *_GNU_SOURCE*)
			try "$CC" -std=$std $defs -- "$before"
			try "$CC" -std=$std $defs -- "$after" ;;
		esac
	done
done
ext=cc
: "${CXX:=c++}"
if command -v "${CXX%% *}" >/dev/null 2>&1 && echo 'int x;' | $CXX -x c++ -c -o /dev/null - 2>/dev/null; then
	for defs in "" "-D_FILE_OFFSET_BITS=64"; do
		try "$CXX" -std=c++11 $defs -- "$alone"
		try "$CXX" -std=c++98 $defs -- "$api"
		try "$CXX" -std=c++17 $defs -- "$before"
		try "$CXX" -std=c++17 $defs -- "$after"
	done
else
	note "no C++ compiler: C++ cases not run"
fi

# The API's layout does not depend on _FILE_OFFSET_BITS: the same program
# built both ways must see the same sizes and offsets.
layout='#include <stdio.h>
#include <stddef.h>
#include <libfallocate.h>
int main(void) {
	printf("%u %u %u %u\n", (unsigned)sizeof(struct lfa_options),
	       (unsigned)sizeof(struct lfa_report), (unsigned)offsetof(struct lfa_options, progress),
	       (unsigned)offsetof(struct lfa_report, syscalls));
	return 0;
}'
printf '%s\n' "$layout" > "$scratch/layout.c"
for defs in "" "-D_FILE_OFFSET_BITS=64"; do
	# shellcheck disable=SC2086
	$CC $defs -I"$inc" "$scratch/layout.c" -o "$scratch/layout" || fail "layout program"
	"$scratch/layout" >> "$scratch/layouts"
	n=$((n + 1))
done
[ "$(sort -u "$scratch/layouts" | wc -l)" = 1 ] ||
	fail "lfa_ structures differ with _FILE_OFFSET_BITS=64: $(cat "$scratch/layouts")"

# The seed's names mean what they said, in mainline values (where the
# compiler sees Linux's headers: a musl toolchain may not).
ext=c
echo '#include <linux/falloc.h>' | $CC -E -x c - > /dev/null 2>&1 ||
	{ echo "PASS: $n compilations (no <linux/falloc.h> for $CC: mainline values not compared)"; exit 0; }
try "$CC" -std=c11 -D_GNU_SOURCE -- '#include <linux/falloc.h>
#include <libfallocate.h>
_Static_assert(FA_ALLOCATE == 0, "allocate is mode 0");
_Static_assert(FA_DEALLOCATE == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE), "punch");
_Static_assert(FALLOC_FL_KEEP_SIZE == 1 && FALLOC_FL_ZERO_RANGE == 0x10, "mainline values");'
echo "PASS: $n compilations"

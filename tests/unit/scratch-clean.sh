#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check leaves nothing under $TMPDIR, as a build chroot expects
# (dh_auto_test, rpmbuild's %check): each C unit test, run in an empty
# TMPDIR, leaves it empty when its tests pass and when they crash (a file
# size limit kills them with SIGXFSZ part way); a shell test that fails
# leaves nothing either.
. "${top_srcdir:-.}/tests/lib/lib.sh"
tmp=$scratch/tmp
mkdir "$tmp" || exit 99

empty() { # WHAT: TMPDIR is empty after it
	left=$(cd "$tmp" && ls -A)
	[ -z "$left" ] || fail "$1 left in \$TMPDIR: $left"
	note "$1: nothing left"
}

ran=0
for t in check_errors check_errors_lfs check_emulate check_emulate_lfs check_api check_api_lfs; do
	prog=$top_builddir/tests/unit/$t
	[ -x "$prog" ] || continue
	TMPDIR=$tmp "$prog" > "$scratch/out" 2>&1 || { cat "$scratch/out"; fail "$t failed"; }
	empty "$t"
	# Failing, and killed part way: the main process still removes it all.
	rc=0
	(ulimit -f 16 && TMPDIR=$tmp CK_DEFAULT_TIMEOUT=20 exec "$prog") > "$scratch/out" 2>&1 || rc=$?
	empty "$t with a 8 KiB file size limit (exit $rc)"
	ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || note "no unit tests built (no Check): the shell part only"

# A shell test that fails (its wrapper is missing) removes its scratch too.
rc=0
TMPDIR=$tmp FALLOCATE_PRELOAD=$tmp/no-such-wrapper \
	sh "$top_srcdir/tests/programs/preload-wrapper.sh" > "$scratch/out" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$scratch/out"; fail "preload-wrapper.sh without a wrapper: exit $rc, wanted 1"; }
empty "a failing shell test"
echo PASS

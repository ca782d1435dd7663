#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make window [T=SECONDS]: tests/calls/window on the filesystems where glibc
# emulates too (an ext3 loop image and a ramfs, as root), and on $TMPDIR
# (libfallocate only there: the kernel allocates for glibc).  Not part of
# make check: it measures, it does not judge.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"

WINDOW=$top_builddir/tests/calls/window
t=${WINDOW_SECONDS:-3}
[ -n "$t" ] || t=3
[ -x "$WINDOW" ] || fail "$WINDOW is not built (make check or make window)"

"$WINDOW" -t "$t" "$scratch" || fail "window failed on ${TMPDIR:-/tmp}"
need_root
mount_fs ext3 ext3 64M
"$WINDOW" -t "$t" "$MNT" || fail "window failed on ext3"
mount_fs ramfs ramfs 0
"$WINDOW" -t "$t" "$MNT" || fail "window failed on ramfs"

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Another writer's appends survive calls that grow the file (issue 18):
# tests/calls/append-race appends 1,000,000 64-byte records through its own
# O_APPEND descriptor while posix_fallocate(fd, 0, size + 100) runs in a
# loop, then checks every byte of every record.  On $TMPDIR with the
# emulation forced (anyone), then on an ext3 loop image and a ramfs, where
# the kernel answers EOPNOTSUPP and the emulation runs (root); on ramfs
# also posix_fallocate(fd, size, 100), which reads nothing back and so
# races the appender a hundred times as often.  Zeros written at a size
# read before an append damaged 17 to 878 records on ext3 and 79 to 83 on
# ramfs (size, 100) before the engine appended them (RWF_APPEND).
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
RACE=$top_builddir/tests/calls/append-race
[ -x "$RACE" ] || fail "$RACE is not built"
records=${APPEND_RACE_RECORDS:-1000000}
# The window README's Known limits give: without pwritev2's RWF_APPEND the
# zeros are written where aimed, and an append racing that lands under them.
under_qemu_user && skip "qemu-user refuses pwritev2's RWF_APPEND: growth writes where aimed (README, Known limits)"

LIBFALLOCATE_EMULATION=always "$RACE" "$scratch" "$records" ||
	fail "records damaged on ${TMPDIR:-/tmp} (emulation forced)"
need_root
mount_fs ext3 ext3 256M
"$RACE" "$MNT" "$records" || fail "records damaged on ext3"
mount_fs ramfs ramfs 0
"$RACE" "$MNT" "$records" || fail "records damaged on ramfs"
"$RACE" "$MNT" "$records" tail || fail "records damaged on ramfs (size, 100)"

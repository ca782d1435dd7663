#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# posix_fallocate while another thread cuts the file to nothing again and
# again (issue 25: a log rotator's copytruncate in a loop), on ext3 and
# ramfs, where the library emulates: every call answers 0, as the kernel's
# and glibc's do, never EAGAIN, and nothing lands past the range.  Root:
# it mounts.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
need_root
COPYTRUNCATE=$top_builddir/tests/calls/copytruncate

for type in ext3 ramfs; do
	mount_fs "$type" "$type" 64M
	for period in 2000 10000 30000; do
		out=$("$COPYTRUNCATE" "$MNT/log" 10 "$period" 16777216) ||
			fail "$type, a cut every $period us: $out"
		note "$type: $(echo "$out" | tail -n 1)"
	done
done
echo PASS

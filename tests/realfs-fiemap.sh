#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Holes of an old file found with FIEMAP on the job's own descriptor, on
# loop images of the filesystems whose FIEMAP is believed: data written and
# not yet synced (a delayed allocation, no block on disk) inside the range
# is never taken for a hole, the caller's offset stays, and a watcher sees
# only IN_MODIFY (no reopen).  ext3 always; xfs and btrfs where mkfs and
# the driver are.  Root only: it mounts.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/realfs-lib.sh"
need_root

check_holes() { # check_holes NAME
	"$REALFS_CHECK" holes "$MNT" > "$scratch/out" 2>&1 ||
		fail "$1: $(grep -E '^(FAIL|# )' "$scratch/out" | head -5)"
	grep "^# holes" "$scratch/out" | sed "s|^# holes [^:]*:|# $1:|"
}

mount_fs ext3 ext3 64M
check_holes ext3
mount_fs ext4 ext4 64M
check_holes ext4
for type in xfs btrfs; do
	if command -v "mkfs.$type" > /dev/null 2>&1 &&
		{ grep -qw "$type" /proc/filesystems || modprobe "$type"; } 2> /dev/null; then
		mount_fs "$type" "$type" 320M
		check_holes "$type"
	else
		note "$type: no mkfs.$type or no driver: not checked"
	fi
done
echo PASS

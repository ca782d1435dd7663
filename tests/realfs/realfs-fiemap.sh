#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Holes of an old file filled on loop images: data written and not yet
# synced (a delayed allocation, no block on disk) inside the range is never
# taken for a hole, the caller's offset stays, and a watcher sees only
# IN_MODIFY (no reopen) where FIEMAP is believed (ext3, ext4, btrfs; on xfs
# the engine reads back and the watcher's check is skipped).  On
# xfs and btrfs, a reflinked copy's unsynced data beside a copied-on-write
# block is kept (xfs's FIEMAP does not list it), and so is the shared block
# beside it (on Linux 6.1, xfs's SEEK_DATA skipped it, and it was zeroed:
# tests/vm).  Root only: it mounts.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
need_root

check_holes() { # check_holes NAME
	"$REALFS_CHECK" holes "$MNT" > "$scratch/out" 2>&1 ||
		fail "$1: $(grep -E '^(FAIL|# )' "$scratch/out" | head -5)"
	grep "^# holes" "$scratch/out" | sed "s|^# holes [^:]*:|# $1:|"
}

# A reflinked copy whose shared block at 0 is overwritten (on xfs this
# gives the copy-on-write fork a preallocation around it), then data
# written, not synced, into the hole at 16 KiB: on xfs that data is in the
# copy-on-write fork only, where FIEMAP does not look.  The emulation over
# the whole file keeps it.
check_reflink() { # check_reflink NAME
	src=$MNT/reflink-src dst=$MNT/reflink
	truncate -s 1M "$src" || exit 99
	head -c 4096 /dev/zero | tr '\0' A > "$scratch/a"
	head -c 4096 /dev/zero | tr '\0' B > "$scratch/b"
	dd if="$scratch/a" of="$src" bs=4096 seek=0 conv=notrunc,fsync 2> /dev/null || exit 99
	dd if="$scratch/a" of="$src" bs=4096 seek=16 conv=notrunc,fsync 2> /dev/null || exit 99
	if ! cp --reflink=always "$src" "$dst" 2> /dev/null; then
		note "$1: no reflink: not checked"
		rm -f "$src" "$dst"
		return
	fi
	sync "$dst"
	dd if="$scratch/b" of="$dst" bs=4096 seek=0 conv=notrunc 2> /dev/null || exit 99
	dd if="$scratch/b" of="$dst" bs=4096 seek=4 conv=notrunc 2> /dev/null || exit 99
	LIBFALLOCATE_EMULATION=always "$LFA_CALL" -o rdwr "$dst" posix_fallocate:0:0:1048576 \
		> "$scratch/call" 2>&1 || fail "$1 reflink: $(cat "$scratch/call")"
	dd if="$dst" bs=4096 skip=4 count=1 2> /dev/null | cmp -s - "$scratch/b" ||
		fail "$1 reflink: data not synced in the copy-on-write fork was zeroed"
	dd if="$dst" bs=4096 skip=16 count=1 2> /dev/null | cmp -s - "$scratch/a" ||
		fail "$1 reflink: the shared block changed"
	note "$1: reflinked copy: unsynced data beside a copied-on-write block kept"
	rm -f "$src" "$dst"
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
		check_reflink "$type"
	else
		note "$type: no mkfs.$type or no driver: not checked"
	fi
done
echo PASS

# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Sourced by the real-filesystem tests after lib.sh: filesystems mounted in
# fresh temporary directories, unmounted and detached at exit even on failure.
need_root() {
	[ "$(id -u)" = 0 ] || skip "not root: cannot mount loop images or ramfs"
}

# Never under $scratch: lib.sh removes it at exit, and must not reach into a
# mount that failed to go away.
mounts_dir=""
mounted=""
loops=""
unmount_all() {
	for m in $mounted; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "# cannot unmount $m"
	done
	for l in $loops; do
		losetup -d "$l" 2>/dev/null
	done
	mounted="" loops=""
	if [ -n "$mounts_dir" ]; then
		# Only empty mount points and images are left; rm -r stays on this
		# filesystem in case an unmount failed.
		rm -rf --one-file-system "$mounts_dir"
	fi
}
on_exit unmount_all

# mount_fs NAME TYPE SIZE [MKFS_OPTION...]: mounts a fresh TYPE (ext2, ext3,
# ext4, xfs (300M at least), btrfs (256M at least) on a loop image; ramfs; tmpfs of SIZE) and sets MNT to its directory.
mount_fs() {
	name=$1 type=$2 size=$3
	shift 3
	[ -n "$mounts_dir" ] || mounts_dir=$(mktemp -d "${TMPDIR:-/tmp}/lfa-mnt.XXXXXX") || exit 99
	MNT=$mounts_dir/$name
	mkdir "$MNT" || exit 99
	case $type in
	ramfs)
		mount -t ramfs -o mode=0700 lfa-ramfs "$MNT" || fail "cannot mount ramfs"
		;;
	tmpfs)
		mount -t tmpfs -o "size=$size,mode=0700" lfa-tmpfs "$MNT" || fail "cannot mount tmpfs"
		;;
	ext*|xfs|btrfs)
		need_cmd "mkfs.$type"
		need_cmd losetup
		truncate -s "$size" "$mounts_dir/$name.img" || exit 99
		case $type in xfs|btrfs) force=-f ;; *) force=-F ;; esac
		"mkfs.$type" -q $force "$@" "$mounts_dir/$name.img" > /dev/null || fail "mkfs.$type failed"
		loop=$(losetup -f --show "$mounts_dir/$name.img") || skip "no loop device"
		loops="$loops $loop"
		mount -t "$type" "$loop" "$MNT" || skip "cannot mount $type (no driver?)"
		;;
	*)
		fail "mount_fs: unknown type $type"
		;;
	esac
	mounted="$MNT $mounted"
}
trap 'exit 99' HUP INT TERM # the EXIT trap then unmounts

REALFS_CHECK=$top_builddir/tests/realfs/realfs-check
# shellcheck disable=SC2034 # for the tests that source this
REALFS_CHECK_PUBLIC=$top_builddir/tests/realfs/realfs-check-public
# shellcheck disable=SC2034
FUZZ=$top_builddir/tests/calls/fuzz
# configure builds these only where the compiler sees Linux's headers (a
# musl toolchain may not: see README's musl section).
[ -x "$REALFS_CHECK" ] || skip "tests/realfs/realfs-check is not built: this compiler lacks Linux's headers"

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The emulation at the edges real filesystems have, through the public
# posix_fallocate: the maximum file size of ext3 with 1 KiB blocks (EFBIG
# before any write), append-only files (extended by appending; a hole inside
# is EPERM), and copy-on-write btrfs (the debug line says zeros reserve no
# space; LIBFALLOCATE_COPY_ON_WRITE=refuse gives the kernel's answer).
# Root only: it mounts loop images.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
need_root

expect() { # expect WANT FILE CALL...: lfa-call's answer for the one call
	want=$1; shift
	out=$("$LFA_CALL_LFS" "$@" 2>&1)
	echo "$out" | grep -q -- "-> $want\$" || fail "lfa-call $*: wanted $want: $out"
}

# ext3 with 1 KiB blocks: the block-mapped maximum is about 16 GiB, far below
# the ext4 driver's s_maxbytes, so the kernel's EOPNOTSUPP proves nothing.
mount_fs ext3-1k ext3 64M -b 1024
f=$MNT/max
printf 'old' > "$f"
for emulation in auto always; do
	export LIBFALLOCATE_EMULATION=$emulation
	expect EFBIG "$f" posix_fallocate:0:0:18253611008
	expect EFBIG "$f" posix_fallocate:0:17179869184:1073741824
	[ "$(file_size "$f")" = 3 ] || fail "ext3 1k: size changed past the maximum: $(file_size "$f")"
	[ "$(cat "$f")" = old ] || fail "ext3 1k: the old bytes changed"
done
# The same where the library can open no descriptor of its own (issue 18):
# the caller's lease, no descriptor left, no /proc.
for how in lease nofile noproc; do
	for emulation in auto always; do
		export LIBFALLOCATE_EMULATION=$emulation
		case $how in
		noproc)
			need_cmd unshare
			out=$(unshare -m sh -c 'mount -t tmpfs none /proc && exec "$@"' sh \
				"$LFA_CALL_LFS" "$f" posix_fallocate:0:17179869184:1073741824 2>&1)
			echo "$out" | grep -q -- "-> EFBIG\$" ||
				fail "ext3 1k without /proc ($emulation): wanted EFBIG: $out" ;;
		*)
			expect EFBIG -o rdwr,$how "$f" posix_fallocate:0:17179869184:1073741824
			expect EFBIG -o wronly,$how "$f" posix_fallocate:0:17179869184:1073741824 ;;
		esac
		[ "$(file_size "$f")" = 3 ] || fail "ext3 1k, $how: size changed past the maximum: $(file_size "$f")"
		[ "$(cat "$f")" = old ] || fail "ext3 1k, $how: the old bytes changed"
	done
done
unset LIBFALLOCATE_EMULATION
expect ok "$f" posix_fallocate:0:0:65536
note "ext3 1 KiB blocks: EFBIG past the maximum, nothing written, with or without a reopen"

# Append-only: only appends change it, which is how it grows.
mount_fs ext3 ext3 64M
need_cmd chattr
f=$MNT/append-only
printf 'log line\n' > "$f"
chattr +a "$f" || skip "chattr +a failed"
expect ok -o wronly,append "$f" posix_fallocate:0:0:1048576
[ "$(file_size "$f")" = 1048576 ] || { chattr -a "$f"; fail "append-only: size $(file_size "$f")"; }
[ "$(head -c 9 "$f")" = "log line" ] || { chattr -a "$f"; fail "append-only: old bytes changed"; }
chattr -a "$f"
g=$MNT/append-only-sparse
printf 'head' > "$g"
truncate -s 65536 "$g"
printf 'tail' >> "$g"
chattr +a "$g"
expect EPERM -o wronly,append "$g" posix_fallocate:0:0:131072
size=$(file_size "$g")
chattr -a "$g"
[ "$size" = 65540 ] || fail "append-only with a hole: size $size, was 65540"
note "append-only: extended by appending; a hole inside is EPERM, nothing written"

# Copy-on-write: btrfs has fallocate, so the emulation is forced.
if command -v mkfs.btrfs >/dev/null 2>&1 &&
	{ grep -qw btrfs /proc/filesystems || modprobe btrfs; } 2>/dev/null; then
	mounts_dir=${mounts_dir:?}
	truncate -s 256M "$mounts_dir/btrfs.img"
	if mkfs.btrfs -q -f "$mounts_dir/btrfs.img" > /dev/null 2>&1 &&
		loop=$(losetup -f --show "$mounts_dir/btrfs.img"); then
		loops="$loops $loop"
		mkdir "$mounts_dir/btrfs"
		mount -t btrfs "$loop" "$mounts_dir/btrfs" || fail "cannot mount btrfs"
		mounted="$mounts_dir/btrfs $mounted"
		f=$mounts_dir/btrfs/cow
		LIBFALLOCATE_EMULATION=always LIBFALLOCATE_DEBUG=1 "$LFA_CALL_LFS" "$f" \
			posix_fallocate:0:0:1048576 > "$scratch/cow" 2>&1 || fail "btrfs: $(cat "$scratch/cow")"
		grep -q "copy-on-write: zeros reserve no space" "$scratch/cow" ||
			fail "btrfs: the debug line does not say copy-on-write: $(cat "$scratch/cow")"
		rm -f "$f"
		LIBFALLOCATE_EMULATION=always LIBFALLOCATE_COPY_ON_WRITE=refuse \
			"$LFA_CALL_LFS" "$f" posix_fallocate:0:0:1048576 > "$scratch/cow" 2>&1
		grep -q -- "-> EOPNOTSUPP\$" "$scratch/cow" || fail "btrfs refuse: $(cat "$scratch/cow")"
		[ "$(file_size "$f")" = 0 ] || fail "btrfs refuse: size $(file_size "$f")"
		note "btrfs: copy-on-write noted; refused on request"
	else
		note "btrfs: cannot make or attach an image: not checked"
	fi
else
	note "btrfs: no mkfs.btrfs or no driver: not checked"
fi
echo PASS

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# qemu-img create -o preallocation=falloc, unmodified, on sshfs.  qemu-img
# opens the image O_RDWR, so glibc's emulation works there, at a cost:
# one write of one byte per 4 KiB block, each a round trip to the SFTP
# server (2048 for 8 MiB).  Under the wrapper the image is allocated in a
# handful of large writes.  Write syscalls are counted (strace), never
# timed.  Both images are checked on the server's side: size, and zeros.
. "${top_srcdir:-.}/tests/shared/sshfs-lib.sh"
need_preloadable qemu-img
need_cmd strace
mount_sshfs
enter_sshfs

len=$((8 * MiB))
img=$dir/create.raw
count_writes qemu-img create -f raw -o preallocation=falloc "$img" $len ||
	fail "strace qemu-img failed"
glibc_writes=$writes
[ "$(file_size "$remote_dir/create.raw")" = $len ] || fail "sshfs: glibc's image has the wrong size"
[ "$glibc_writes" -ge $((len / 4096)) ] || fail "glibc made only $glibc_writes writes: is this sshfs?"
rm -f "$img"
count_writes "$FALLOCATE_PRELOAD" qemu-img create -f raw -o preallocation=falloc "$img" $len ||
	fail "strace fallocate-preload qemu-img failed"
note "write syscalls of qemu-img create, 8 MiB on sshfs: glibc $glibc_writes, libfallocate $writes"
[ "$writes" -le 32 ] || fail "libfallocate made $writes writes for 8 MiB"
rm -f "$img"
with qemu-img create -f raw -o preallocation=falloc "$img" $len
expect_rc 0 "qemu-img create on sshfs under fallocate-preload"
expect_emulated "qemu-img create"
[ "$(file_size "$remote_dir/create.raw")" = $len ] || fail "sshfs: the image has the wrong size"
check_zeros "$remote_dir/create.raw" 0
[ "$(stat -c %b "$remote_dir/create.raw")" -ge $((len / 512)) ] ||
	fail "sshfs: the image is not allocated on the server"
qemu-img info "$img" | grep -q '^virtual size: 8 MiB' || fail "qemu-img info: $(qemu-img info "$img")"
note "sshfs: qemu-img create preallocation=falloc: without: ok, $glibc_writes writes; with: ok, $writes writes"
echo PASS

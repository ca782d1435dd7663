#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# qemu-img, unmodified, with preallocation=falloc (posix_fallocate):
# - `create -f raw -o preallocation=falloc`: under ENOSYS glibc gives up and
#   qemu-img fails; on ext3 glibc's emulation works (O_RDWR) with one write
#   per 4 KiB block.
# - `resize --preallocation=falloc` of a raw image opened with
#   cache.direct=on (O_DIRECT): on ext3 glibc's one-byte writes fail with
#   EINVAL and qemu-img fails.
# Under fallocate-preload both succeed; the image's data is kept.
. "${top_srcdir:-.}/tests/programs/preload-lib.sh"
need_preloadable qemu-img
pick_envs

len=$((8 * MiB))
for env in $envs; do
	enter_env "$env"
	img=$dir/create.raw
	without qemu-img create -f raw -o preallocation=falloc "$img" $len
	case $env in
	enosys)
		expect_fail_rc "qemu-img create"
		expect_out 'Could not preallocate new data: Function not implemented' "glibc's ENOSYS" ;;
	ext3)
		expect_rc 0 "qemu-img create with glibc's emulation"
		check_allocated "$img" $len
		if command -v strace >/dev/null 2>&1; then
			rm -f "$img"
			count_writes qemu-img create -f raw -o preallocation=falloc "$img" $len ||
				fail "strace qemu-img failed"
			glibc_writes=$writes
			rm -f "$img"
			count_writes "$FALLOCATE_PRELOAD" qemu-img create -f raw \
				-o preallocation=falloc "$img" $len || fail "strace fallocate-preload qemu-img failed"
			note "write syscalls of qemu-img create, 8 MiB on ext3: glibc $glibc_writes, libfallocate $writes"
			[ "$glibc_writes" -ge $((len / 4096)) ] || fail "glibc made only $glibc_writes writes"
			[ "$writes" -le 32 ] || fail "libfallocate made $writes writes for 8 MiB"
		fi ;;
	esac
	rm -f "$img"
	with qemu-img create -f raw -o preallocation=falloc "$img" $len
	expect_rc 0 "qemu-img create under fallocate-preload"
	expect_emulated "qemu-img create"
	check_allocated "$img" $len

	# resize through an O_DIRECT descriptor, where the filesystem has it.
	if ! dd if=/dev/zero of="$dir/direct-probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
		note "$env: no O_DIRECT here: resize with cache.direct=on not tried"
		continue
	fi
	printf 'qemu-img test data' > "$dir/head"
	cp "$dir/head" "$dir/resize.raw"
	truncate -s $MiB "$dir/resize.raw"
	opts="driver=file,filename=$dir/resize.raw,cache.direct=on"
	without qemu-img resize --preallocation=falloc --image-opts "$opts" $len
	expect_fail_rc "qemu-img resize on O_DIRECT"
	case $env in
	ext3) expect_out 'Could not preallocate new data: Invalid argument' "glibc's EINVAL on O_DIRECT" ;;
	enosys) expect_out 'Could not preallocate new data: Function not implemented' "glibc's ENOSYS" ;;
	esac
	[ "$(file_size "$dir/resize.raw")" = $MiB ] || fail "$env: the failed resize changed the size"
	with qemu-img resize --preallocation=falloc --image-opts "$opts" $len
	expect_rc 0 "qemu-img resize on O_DIRECT under fallocate-preload"
	expect_emulated "qemu-img resize"
	check_allocated "$dir/resize.raw" $len $MiB
	cmp -s -n 18 "$dir/head" "$dir/resize.raw" || fail "$env: the image's data changed"
	note "$env: qemu-img create and resize (O_DIRECT) with preallocation=falloc: ok"
done
echo PASS

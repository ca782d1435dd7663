#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate-preload --seccomp keeps the rules of the caller's ABI (issue
# 23): a static i386 program built without _FILE_OFFSET_BITS=64 (its
# descriptors lack O_LARGEFILE, so its own writes stop at 2 GiB) asks
# fallocate(fd, 0, 2 GiB - 4096, 8192) on ext3 and ramfs, where the
# supervisor emulates.  The answer is the kernel's on ext4 (0) with the
# range allocated, or EFBIG with nothing written, never a part written
# before EFBIG.  Needs a kernel that runs i386 programs: qemu-i386 cannot
# stand in (its system calls reach the filter as x86_64 ones, on
# descriptors it opened with O_LARGEFILE).
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/seccomp/seccomp-lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "not an x86_64 machine"
${CC:-cc} -m32 -static -O2 -pthread -U_FILE_OFFSET_BITS -o "$bin/i386" "$top_srcdir/tests/seccomp/seccomp-target.c" \
	2>"$scratch/cc.err" || skip "cannot link static i386 programs (gcc-multilib, libc6-dev-i386): $(head -2 "$scratch/cc.err")"
run "$bin/i386" holes "$scratch/probe" 1
case $rc:$out in
0:) ;;
*"Exec format error"*|126:*) skip "this kernel runs no i386 programs ($out)" ;;
*) fail "the i386 program: exit $rc: $out" ;;
esac

mount_fs ext3 ext3 64M
ext3=$MNT
mount_fs ramfs ramfs 0
ramfs=$MNT
mount_fs ext4 ext4 64M
ext4=$MNT
OFF=$((2147483648 - 4096))
LEN=8192

for fs in "$ext4" "$ext3" "$ramfs"; do
	f=$fs/i386
	run "$w" --seccomp --debug "$bin/i386" at "$f" $OFF $LEN
	size=$(file_size "$f")
	# Where qemu-i386 is registered with binfmt_misc (.ci/i386.sh), it
	# runs the program, and the calls reach the filter as its own.
	case $out in
	*"fallocate-preload: seccomp: pid "*" (i386) fallocate("*) ;;
	*"fallocate-preload: seccomp: pid "*" (x86_64) fallocate("*)
		skip "i386 programs run under qemu-i386 here (binfmt_misc): their calls reach the filter as x86_64 ones" ;;
	*) fail "${fs##*/}: the supervisor saw no i386 call: $out" ;;
	esac
	# The program's last line: the supervisor's --debug line, written
	# after its answer, may come before or after it.
	out=$(printf '%s\n' "$out" | grep -v '^fallocate-preload: seccomp: ' | tail -1)
	case $rc:$out in
	"0:fallocate: 0")
		[ "$size" = $((OFF + LEN)) ] || fail "${fs##*/}: 0, but size $size"
		dd if="$f" bs=4096 skip=$((OFF / 4096)) count=2 2>/dev/null | cmp -s -n $LEN - /dev/zero ||
			fail "${fs##*/}: the range is not zeros"
		;;
	"1:fallocate: File too large")
		[ "$size" = 0 ] || fail "${fs##*/}: EFBIG after writing: size $size"
		;;
	*) fail "${fs##*/}: exit $rc: $out (size $size)" ;;
	esac
	note "i386 without _FILE_OFFSET_BITS, fallocate(fd, 0, 2 GiB - 4096, 8192) on ${fs##*/} under --seccomp: $out, size $size"
	rm -f "$f"
done
echo PASS

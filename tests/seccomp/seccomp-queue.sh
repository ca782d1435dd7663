#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate-preload --seccomp makes no call wait for another's (issue 31):
# 40 calls held in the supervisor's workers by a frozen ext3 (their
# emulation, or the kernel's fallocate before it, blocks until the thaw),
# and two more that come while every worker there was is busy: 4 KiB on
# ext4 (the kernel's own fallocate) and on an unfrozen ext3 (emulated).
# Both must be answered before the thaw, and every held call be in the
# kernel at once.  The order is read from the kernel, never from a clock
# (see queue in tests/seccomp/seccomp-target.c): with a queue behind busy workers
# the test fails when every call has been received, without waiting.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/seccomp/seccomp-lib.sh"
need_cmd fsfreeze

mount_fs frozen ext3 64M
frozen=$MNT
# Thawed first at exit, whatever happened: a frozen filesystem cannot be
# unmounted, and the supervisor's workers sleep until the thaw.
on_exit "fsfreeze -u '$frozen' 2>/dev/null"
mount_fs ext3 ext3 16M
ext3=$MNT
mount_fs ext4 ext4 16M
ext4=$MNT
N=40

run "$w" --seccomp "$bin/glibc-static" queue "$frozen" $N 1048576 "$ext4/short" "$ext3/short"
case $rc in
0) ;;
77) skip "$(printf '%s\n' "$out" | sed -n 's/^skip: //p')" ;;
*) fail "exit $rc: $out" ;;
esac
[ "$(file_size "$ext4/short")" = 4096 ] || fail "ext4: size $(file_size "$ext4/short")"
[ "$(file_size "$ext3/short")" = 4096 ] || fail "ext3: size $(file_size "$ext3/short")"
printf '%s\n' "$out" | sed 's/^/# /'
echo PASS

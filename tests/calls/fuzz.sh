#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Differential fuzzer (tests/calls/fuzz.c): the emulation against the kernel's
# fallocate, operation by operation.  make check runs a fixed set of seeds:
# on $TMPDIR with the emulation forced (anyone), and as root with the native
# file on a tmpfs and the emulated one on an ext3 loop image and a ramfs,
# where posix_fallocate falls back for real, and both on an xfs image
# (seeds 101 and 401, when mkfs.xfs is there).  `make fuzz N=OPS SEED=FIRST`
# runs N operations per seed: 10 seeds on $TMPDIR, 5 on ext3, 5 on ramfs.
# Every run has the second writer (fuzz -c): during each posix_fallocate it
# writes records outside the range and past the end of file, and not one of
# its bytes may be lost; its timing varies, so a divergence is replayed from
# the ops file printed, not from the seed.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"

ops=${FUZZ_OPS:-300}
seed=${FUZZ_SEED:-1}
[ -n "${FUZZ_LONG:-}" ] && seeds=10 || seeds=6

fuzz() { # fuzz WHAT SEEDS FIRST_SEED NATIVE_DIR EMUL_DIR
	what=$1 k=$2 s=$3; shift 3
	(cd "$scratch" && "$FUZZ" -c -n "$ops" -k "$k" -s "$s" "$@") > "$scratch/out" 2>&1; rc=$?
	sed "s|^|[$what] |" "$scratch/out"
	[ $rc = 77 ] && return 0
	if [ $rc != 0 ] && [ -n "${xfs_loop:-}" ] && xfs_shut_down_since "$xfs_before"; then
		# No write of a program may do that: the kernel's own check of
		# its transaction accounting failed (seen once on Linux 6.18 under
		# load, at xfs_trans_mod_sb; not reproduced in the runs after).
		note "$what: the kernel shut this xfs down (dmesg: $(xfs_shutdowns | tail -1)): a kernel failure, not a divergence; this seed is not counted"
		xfs_dead=yes
		return 0
	fi
	[ $rc = 0 ] || fail "$what: divergence (the operations are above)"
	grep -q '^# second writer.*lost outside the allocated ranges: 0 bytes' "$scratch/out" ||
		fail "$what: no report of the second writer, or bytes lost"
}

# XFS's forced shutdowns of our loop device, as the kernel logged them.
xfs_shutdowns() { dmesg 2> /dev/null | grep "XFS (${xfs_loop#/dev/}).*Shutting down filesystem"; }
xfs_shut_down_since() { [ "$(xfs_shutdowns | wc -l)" -gt "$1" ]; }

mkdir "$scratch/n" "$scratch/e" || exit 99
fuzz "${TMPDIR:-/tmp}, forced" $seeds "$seed" "$scratch/n" "$scratch/e"
if [ "$(id -u)" = 0 ]; then
	mount_fs native tmpfs 64M
	native=$MNT
	mount_fs ext3 ext3 64M
	fuzz "tmpfs vs ext3" $((seeds - seeds / 2)) $((seed + 1000)) "$native" "$MNT"
	mount_fs ramfs ramfs 0
	fuzz "tmpfs vs ramfs" $((seeds / 2)) $((seed + 2000)) "$native" "$MNT"
	# xfs leaves unwritten extents in the emulated file itself, which
	# SEEK_HOLE calls holes: the allocation check must not (seeds 101, 401).
	if command -v mkfs.xfs > /dev/null 2>&1 &&
	   { grep -qw xfs /proc/filesystems || modprobe xfs 2> /dev/null; }; then
		mount_fs xfs xfs 300M
		mkdir "$MNT/n" "$MNT/e" || exit 99
		xfs_loop=$loop
		xfs_before=$(xfs_shutdowns | wc -l)
		fuzz "xfs, forced" 1 101 "$MNT/n" "$MNT/e"
		[ -n "${xfs_dead:-}" ] || fuzz "xfs, forced" 1 401 "$MNT/n" "$MNT/e"
	else
		note "no mkfs.xfs or no xfs in this kernel: no xfs image"
	fi
else
	note "not root: no ext3 image or ramfs"
fi
echo PASS

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate() answers as the kernel (issue 25), also where it emulates
# mode 0 (LIBFALLOCATE_EMULATE_FALLOCATE=1, the default of fallocate-preload):
#  - where nothing can be emulated (a pidfd, a block device), the kernel's
#    own errno, not ENODEV; posix_fallocate keeps glibc's ENODEV;
#  - under a seccomp filter saying ENOSYS, a mode the library cannot do
#    (PUNCH_HOLE | KEEP_SIZE) gets EOPNOTSUPP once mode 0 works, as from a
#    filesystem without that mode; without the emulation, ENOSYS as before.
. "${top_srcdir:-.}/tests/lib/lib.sh"
LFA_CALL=$top_builddir/tests/lib/lfa-call

answer() { # answer FILE CALL [ENV...]: the error name lfa-call printed
	file=$1 call=$2; shift 2
	out=$(env "$@" "$LFA_CALL" -o rdwr "$file" "$call" 2>&1)
	case $out in
	*"-> "*) echo "$out" | sed -n 's/.*-> \([A-Za-z0-9]*\).*/\1/p' | head -n 1 ;;
	*) fail "lfa-call $file $call: $out" ;;
	esac
}

# same_as_kernel FILE: fallocate() emulating mode 0 answers what the thin
# wrapper (the kernel) answers, with the syscall asked and with it skipped.
same_as_kernel() {
	file=$1
	kernel=$(answer "$file" fallocate:0:0:4096)
	note "$file: the kernel says $kernel"
	[ "$kernel" != ok ] || return 0
	for policy in auto always; do
		got=$(answer "$file" fallocate:0:0:4096 LIBFALLOCATE_EMULATE_FALLOCATE=1 \
			LIBFALLOCATE_EMULATION=$policy)
		[ "$got" = "$kernel" ] ||
			fail "$file: fallocate() emulating ($policy) says $got, the kernel $kernel"
	done
	got=$(answer "$file" posix_fallocate:0:0:4096)
	[ "$got" = ENODEV ] || fail "$file: posix_fallocate says $got, glibc ENODEV"
}

if "$LFA_CALL" @pidfd fallocate:0:0:1 > "$scratch/pidfd" 2>&1 || grep -q -- '->' "$scratch/pidfd"; then
	same_as_kernel @pidfd
else
	note "no pidfd here: $(cat "$scratch/pidfd")"
fi

# ENOSYS: the library makes fallocate exist for mode 0, so other modes get
# EOPNOTSUPP; without LIBFALLOCATE_EMULATE_FALLOCATE nothing changes.
if [ -x "$WITH_ERRNO" ] && "$WITH_ERRNO" ENOSYS true 2>/dev/null; then
	f=$scratch/punch
	got=$(answer "$f" fallocate:0:0:65536 LIBFALLOCATE_EMULATE_FALLOCATE=1 "$WITH_ERRNO" ENOSYS)
	[ "$got" = ok ] || fail "mode 0 under ENOSYS, emulated: $got"
	got=$(answer "$f" fallocate:3:0:4096 LIBFALLOCATE_EMULATE_FALLOCATE=1 "$WITH_ERRNO" ENOSYS)
	[ "$got" = EOPNOTSUPP ] || fail "PUNCH_HOLE|KEEP_SIZE under ENOSYS after mode 0: $got"
	got=$(answer "$f" fallocate:3:0:4096 "$WITH_ERRNO" ENOSYS)
	[ "$got" = ENOSYS ] || fail "PUNCH_HOLE|KEEP_SIZE under ENOSYS, no emulation: $got"
	# A file no mode can reach keeps the kernel's order: ENODEV for a
	# character device, under the filter too.
	got=$(answer /dev/null fallocate:0:0:4096 LIBFALLOCATE_EMULATE_FALLOCATE=1 "$WITH_ERRNO" ENOSYS)
	[ "$got" = ENODEV ] || fail "/dev/null under ENOSYS, emulated: $got"
else
	note "no seccomp filter here: the ENOSYS half is not run"
fi

# A loop device (root): blkdev_fallocate's EOPNOTSUPP for mode 0.
if [ "$(id -u)" = 0 ] && command -v losetup > /dev/null; then
	truncate -s 1M "$scratch/backing" || fail "truncate"
	loop=$(losetup -f --show "$scratch/backing" 2>/dev/null) || skip "no loop device"
	on_exit "losetup -d $loop"
	same_as_kernel "$loop"
else
	note "not root: the block device half is not run"
fi
echo PASS

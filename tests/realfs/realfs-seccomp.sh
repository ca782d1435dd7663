#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The emulation on the machine's own filesystem ($TMPDIR), root or not: the
# checker's matrix and RLIMIT_FSIZE cases through the shared library's
# posix_fallocate while a seccomp filter makes the syscall fail with ENOSYS
# (old kernel, sandbox) and EOPNOTSUPP (filesystem without fallocate), and
# with the emulation forced through lfa_allocate(), also as on kernels
# before 6.9 (pwritev2 refuses RWF_NOAPPEND: O_APPEND takes a reopened
# descriptor).
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
need_seccomp

run() { # run WHAT COMMAND...: shows the result lines, fails on failure
	what=$1; shift
	"$@" > "$scratch/out" 2>&1; rc=$?
	grep -E '^(FAIL|# )' "$scratch/out" | grep -v '^# efbig/.*inside-size' | awk '!seen[$0]++' |
		sed "s|^|[$what] |"
	[ $rc = 0 ] || fail "$what: $(grep -c '^FAIL' "$scratch/out") failures"
}

dir=$scratch/fs
mkdir "$dir" || exit 99
note "$dir is on $(findmnt -n -o FSTYPE -T "$dir" 2>/dev/null || stat -f -c %T "$dir"); the kernel's fallocate says $("$REALFS_CHECK" native "$dir")"
for e in ENOSYS EOPNOTSUPP; do
	got=$("$WITH_ERRNO" $e "$REALFS_CHECK" native "$dir")
	[ "$got" = $e ] || fail "under the filter the kernel's fallocate says $got, not $e"
	run "public, $e" "$WITH_ERRNO" $e "$REALFS_CHECK_PUBLIC" matrix "$dir"
	run "public, $e" "$WITH_ERRNO" $e "$REALFS_CHECK_PUBLIC" efbig "$dir"
done
run "forced" "$REALFS_CHECK" matrix "$dir"
run "forced, pwritev2 refused" "$REALFS_CHECK" -k matrix "$dir"
run "forced, pwritev2 refused" "$REALFS_CHECK" -k efbig "$dir"
echo PASS

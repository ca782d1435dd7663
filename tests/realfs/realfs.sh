#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The emulation on real filesystems that lack fallocate (issue 3): ext2 and
# ext3 loop images (real SEEK_HOLE) and a ramfs (SEEK_HOLE finds only end of
# file), each through the emulation forced and through the public
# posix_fallocate of the shared library (its real fallback), and on ext3 as
# on kernels before 6.9 (pwritev2 refuses RWF_NOAPPEND); ENOSPC part way on
# small filesystems; RLIMIT_FSIZE.  Root only: it mounts.  The same checks
# on the machine's own filesystem under seccomp are in realfs-seccomp.sh.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
need_root

run() { # run WHAT COMMAND...: shows the result lines, fails on failure
	what=$1; shift
	"$@" > "$scratch/out" 2>&1; rc=$?
	grep -E '^(FAIL|SKIP|# )' "$scratch/out" | grep -v '^# efbig/.*inside-size' | awk '!seen[$0]++' | sed "s|^|[$what] |"
	# -k needs a seccomp filter, which qemu-user (CI's i386 without an
	# i386 kernel) cannot install: that part alone is skipped.
	[ $rc = 77 ] && case " $* " in *" -k "*) return ;; esac
	[ $rc = 0 ] || fail "$what: $(grep -c '^FAIL' "$scratch/out") failures"
}

for type in ext2 ext3 ramfs; do
	mount_fs "$type" "$type" 64M
	native=$("$REALFS_CHECK" native "$MNT") || fail "$type: native probe failed"
	[ "$native" = EOPNOTSUPP ] || fail "$type: the kernel's fallocate says '$native', not EOPNOTSUPP"
	note "$type: the kernel's fallocate says $native"
	run "$type forced" "$REALFS_CHECK" matrix "$MNT"
	run "$type public" "$REALFS_CHECK_PUBLIC" matrix "$MNT"
	[ $type = ext3 ] && run "$type public, pwritev2 refused" "$REALFS_CHECK_PUBLIC" -k matrix "$MNT"
	run "$type forced" "$REALFS_CHECK" efbig "$MNT"
	run "$type public" "$REALFS_CHECK_PUBLIC" efbig "$MNT"
	# Our posix_fallocate, not glibc's: the debug line says why it emulated.
	LIBFALLOCATE_DEBUG=1 "$LFA_CALL" -o wronly,append "$MNT/debug" posix_fallocate:0:0:65536 \
		> "$scratch/debug" 2>&1 || fail "$type: lfa-call: $(cat "$scratch/debug")"
	grep -q "emulated (kernel said Operation not supported" \
		"$scratch/debug" || fail "$type: no emulation line: $(cat "$scratch/debug")"
done

# ENOSPC part way: ext3 (the fallback), ext4 and tmpfs (the kernel's answer
# to compare with, the emulation forced).
mount_fs small-ext3 ext3 12M
run "small ext3 public" "$REALFS_CHECK_PUBLIC" enospc "$MNT"
run "small ext3 forced" "$REALFS_CHECK" enospc "$MNT"
run "small ext3 forced, pwritev2 refused" "$REALFS_CHECK" -k enospc "$MNT"
mount_fs small-ext4 ext4 16M
run "small ext4 forced" "$REALFS_CHECK" enospc "$MNT"
mount_fs small-tmpfs tmpfs 12M
run "small tmpfs forced" "$REALFS_CHECK" enospc "$MNT"
echo PASS

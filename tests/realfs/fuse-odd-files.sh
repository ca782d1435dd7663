#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Odd files on a FUSE server (issue 18), tests/realfs/fuse-oddfs.c, built here
# with libfuse3: a file whose reads end before its size (8192, content five
# bytes) and one whose every write answers EINTR.  The kernel answers
# EOPNOTSUPP (no fallocate there) and posix_fallocate emulates: it must
# end, with EINVAL and EINTR, writing nothing more (the engine of 7843f84
# alternated pread and fstat for ever on the first, and retried the second
# about 20,000 times a second).  Needs root (or fusermount3), /dev/fuse and
# libfuse3's headers (libfuse3-dev).
. "${top_srcdir:-.}/tests/lib/lib.sh"
need_cmd pkg-config
pkg-config --exists fuse3 || skip "libfuse3's headers are not installed (libfuse3-dev)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ "$(id -u)" = 0 ] || need_cmd fusermount3
server=$scratch/fuse-oddfs
# The server is a process of its own: where $CC builds for another ABI
# (gcc -m32, without an i386 libfuse3), the machine's own compiler serves.
build_server() {
	# shellcheck disable=SC2046
	$1 -D_FILE_OFFSET_BITS=64 -o "$server" "$top_srcdir/tests/realfs/fuse-oddfs.c" \
		$(pkg-config --cflags --libs fuse3) 2> "$server.err"
}
build_server "${CC:-cc}" || { [ "${CC:-cc}" != cc ] && build_server cc; } ||
	fail "cannot build tests/realfs/fuse-oddfs.c: $(head -3 "$server.err")"

mnt=$scratch/mnt log=$scratch/log
mkdir "$mnt"
: > "$log"
"$server" "$mnt" "$log" || skip "cannot mount a FUSE filesystem here"
on_exit "fusermount3 -u '$mnt' 2>/dev/null || umount '$mnt' 2>/dev/null || umount -l '$mnt'"
[ "$(cat "$mnt/short")" = hello ] || fail "the FUSE server does not answer"

call() { # call FILE LEN: the result of posix_fallocate(fd, 0, LEN), bounded in time
	out=$(timeout 60 "$LFA_CALL" "$mnt/$1" "posix_fallocate:0:0:$2" 2>&1)
	[ $? = 124 ] && fail "$1: posix_fallocate did not return in 60 s"
	echo "$out" | sed -n 's/^posix_fallocate .*-> //p'
}

r=$(call short 16384)
[ "$r" = EINVAL ] || fail "reads ending before the size: $r, wanted EINVAL"
! grep -q '^write short' "$log" || fail "written into the short file: $(grep short "$log")"
note "reads ending before the size: EINVAL, nothing written"

r=$(call eintr 4096)
[ "$r" = EINTR ] || fail "writes answering EINTR: $r, wanted EINTR"
n=$(grep -c '^write eintr' "$log")
[ "$n" -le 10 ] || fail "$n writes tried"
note "writes answering EINTR: EINTR after $n writes"

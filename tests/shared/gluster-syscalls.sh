#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# shellcheck disable=SC2154 # top_builddir, and what the sourced helpers set
# Growing a new file on GlusterFS costs what dd's writes cost (issue 31):
# posix_fallocate of a new 64 MiB file on a replica-2 volume of ext3 bricks
# (tests/shared/gluster-lib.sh, where the emulation runs) must make 16 writes on
# the file (one per 4 MiB) and one fadvise64, at the end of the call.  The
# zeros go through a descriptor opened with O_APPEND (tests/shared/two-clients.sh
# checks that no other client's record is lost); no page needs dropping
# after each append, since the read-back, the one place the engine reads
# the file, drops the pages it reads first (src/emul_holes.c, read_back);
# the call's pages are dropped once, at its end, for the caller's own
# reads (src/emul_write.c, emul_drop_appended).  Counted
# with strace, never timed.  Root only; everything is undone at exit.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/shared/gluster-lib.sh"
[ "$(id -u)" = 0 ] || skip "not root: cannot mount GlusterFS or run its daemons"
need_cmd strace
strace -o /dev/null true 2> /dev/null || skip "strace cannot trace here (ptrace refused)"
under_qemu_user && skip "strace sees qemu's syscalls"

MiB=1048576
size=$((64 * MiB))

# Mounts never under $scratch (removed at exit, after the hooks).
work=$(mktemp -d "${TMPDIR:-/tmp}/lfa-gs.XXXXXX") || exit 99
on_exit 'rm -rf --one-file-system "$work"'
trap 'exit 99' HUP INT TERM # the EXIT trap then undoes everything

gluster_start "$work/gluster" on_exit 256M 1
case $? in
0) ;;
1) skip "GlusterFS: $why" ;;
*) fail "GlusterFS: $why" ;;
esac
mnt=${gluster_clients# }
file=$mnt/new
note "GlusterFS volume $gluster_volume on $gluster_host, mounted at $mnt"

strace -f -qq -y -e trace=write,pwrite64,writev,pwritev,pwritev2,fadvise64,fadvise64_64 \
	-o "$scratch/trace" "$LFA_CALL" "$file" "posix_fallocate:0:0:$size" > "$scratch/call" 2>&1 ||
	fail "lfa-call failed: $(cat "$scratch/call")"
grep -q '^posix_fallocate .*-> ok$' "$scratch/call" || fail "lfa-call: $(cat "$scratch/call")"
[ "$(file_size "$file")" = "$size" ] || fail "size $(file_size "$file"), wanted $size"

# strace -y names each descriptor's file: the writes on ours, through
# whichever descriptor (the caller's, or the library's O_APPEND one).
writes=$(grep -E "^[0-9]+ +(write|pwrite64|writev|pwritev|pwritev2)\(" "$scratch/trace" |
	grep -cF "<$file>,")
fadvises=$(grep -cE "^[0-9]+ +fadvise64(_64)?\(" "$scratch/trace")
note "new 64 MiB file: $writes writes on it, $fadvises fadvise64 calls"
[ "$fadvises" = 1 ] || {
	grep -E "fadvise64" "$scratch/trace" | head -n 3
	fail "$fadvises fadvise64 calls, wanted 1 (a page drop after each append, or none at the end?)"
}
[ "$writes" = 16 ] || fail "$writes writes on the file, wanted 16 (one per 4 MiB)"
echo "PASS"

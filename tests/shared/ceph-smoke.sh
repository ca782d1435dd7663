#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# shellcheck disable=SC2154 # top_builddir, and what the sourced helpers set
# ceph-fuse's answers to fallocate, measured (issue 38): a throwaway Ceph
# (tests/shared/ceph-lib.sh: one mon, one memstore OSD, one MDS, no mgr) and two
# ceph-fuse clients.  A file written through one is read through the
# other (asserted); then, each reported as it happened (exit status and
# message, st_size, st_blocks, the RADOS objects of the file's inode in
# the data pool), not asserted:
#  a. fallocate -l 64M (util-linux: fallocate(2) mode 0 through FUSE);
#  b. python3's os.posix_fallocate of 64 MiB (glibc);
#  c. fallocate --punch-hole of a written 8 MiB file (its data read back
#     as zeros through the other client is asserted where the call
#     succeeded);
#  d. the modes: -n (KEEP_SIZE), -p (PUNCH_HOLE|KEEP_SIZE), -z
#     (ZERO_RANGE), -c (COLLAPSE_RANGE), -i (INSERT_RANGE);
#  e. dd if=/dev/zero bs=4M count=16 conv=fsync: its time, and the
#     objects then.
# Also the time to the first mount and the daemons' resident memory.
# Root only; skipped where the Ceph packages or /dev/fuse are missing;
# everything (mounts, daemons, data) undone at exit, on failure too, and
# checked to be gone after the normal end.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/shared/ceph-lib.sh"
[ "$(id -u)" = 0 ] || skip "not root: cannot mount ceph-fuse or run Ceph's daemons"
need_cmd fallocate
need_cmd python3
need_cmd dd

ceph_start "$scratch/ceph"
m1=$scratch/ceph/mnt/c1 m2=$scratch/ceph/mnt/c2
t=$(date +%s.%N)
ceph_mount "$m1"
note "first mount: $(ceph_since "$t") s for ceph-fuse, $(ceph_since "$ceph_t0") s from the start of ceph_start"
ceph_mount "$m2"

# One client writes, the other reads.
printf 'written through client 1\n' > "$m1/hello" || fail "cannot write through $m1"
got=$(cat "$m2/hello") || fail "cannot read $m2/hello"
[ "$got" = "written through client 1" ] || fail "client 2 read '$got'"
note "written through $m1, read the same through $m2"

# FILE: st_size, st_blocks and the objects of its inode, after an fsync.
show() {
	sync "$1" 2> /dev/null || :
	_n=$(ceph_object_count "$1")
	echo "size=$(stat -c %s "$1") blocks=$(stat -c %b "$1") ino=$(printf %x "$(stat -c %i "$1")") objects=$_n"
}
# LABEL COMMAND...: its exit status and message, one line.
call() {
	_label=$1
	shift
	_rc=0
	_err=$("$@" 2>&1) || _rc=$?
	echo "$_label: exit $_rc${_err:+ ($(echo "$_err" | tr '\n' ' '))}"
}

note "a. $(call "fallocate -l 64M" fallocate -l 64M "$m1/a"); $(show "$m1/a")"
note "   seen by client 2: size=$(stat -c %s "$m2/a") blocks=$(stat -c %b "$m2/a")"

note "b. $(call "python3 os.posix_fallocate(fd, 0, 64 MiB)" python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
os.posix_fallocate(fd, 0, 64 << 20)
' "$m1/b"); $(show "$m1/b")"

dd if=/dev/urandom of="$m1/c" bs=1M count=8 conv=fsync status=none || fail "cannot write $m1/c"
note "c. written 8 MiB: $(show "$m1/c")"
r=$(call "fallocate --punch-hole -o 0 -l 8M" fallocate --punch-hole -o 0 -l 8M "$m1/c")
note "   $r; $(show "$m1/c")"
case $r in
*"exit 0") note "   its objects: $(ceph_objects "$m1/c" | while read -r o; do ceph_rados stat "$o" 2>&1 | sed "s|^.*/||"; done | tr '\n' ' ')"
	cmp -s -n 8388608 "$m2/c" /dev/zero || fail "after the punch, client 2 does not read zeros in $m2/c"
	note "   client 2 reads 8 MiB of zeros" ;;
esac

dd if=/dev/urandom of="$m1/d" bs=1M count=4 conv=fsync status=none || fail "cannot write $m1/d"
note "d. on a written 4 MiB file: $(show "$m1/d")"
note "   $(call "fallocate -n -o 4M -l 4M (KEEP_SIZE)" fallocate -n -o 4M -l 4M "$m1/d"); $(show "$m1/d")"
note "   $(call "fallocate -p -o 1M -l 1M (PUNCH_HOLE|KEEP_SIZE)" fallocate -p -o 1M -l 1M "$m1/d"); $(show "$m1/d")"
note "   $(call "fallocate -z -o 0 -l 1M (ZERO_RANGE)" fallocate -z -o 0 -l 1M "$m1/d"); $(show "$m1/d")"
note "   $(call "fallocate -c -o 0 -l 1M (COLLAPSE_RANGE)" fallocate -c -o 0 -l 1M "$m1/d")"
note "   $(call "fallocate -i -o 0 -l 1M (INSERT_RANGE)" fallocate -i -o 0 -l 1M "$m1/d")"
note "   $(call "fallocate -l 8M (mode 0, past the end)" fallocate -l 8M "$m1/d"); $(show "$m1/d")"

t=$(date +%s.%N)
dd if=/dev/zero of="$m1/e" bs=4M count=16 conv=fsync status=none || fail "dd to $m1/e failed"
note "e. dd bs=4M count=16 conv=fsync: $(ceph_since "$t") s; $(show "$m1/e")"
note "   its objects: $(ceph_objects "$m1/e" | tr '\n' ' ')"

note "resident memory (KiB): $(ceph_rss)"
pids=$ceph_pids
for e in $ceph_clients; do pids="$pids ${e##*:}"; done
rm -f "$m1/a" "$m1/b" "$m1/c" "$m1/d" "$m1/e" "$m1/hello"
ceph_stop
for p in $pids; do
	! ceph_alive "$p" || fail "PID $p ($(cat "/proc/$p/comm" 2> /dev/null)) still runs after ceph_stop"
done
! grep -q " $scratch/" /proc/mounts || fail "still mounted after ceph_stop: $(grep " $scratch/" /proc/mounts)"
note "stopped: no daemon, no mount left"

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A large emulation leaves at most a window of its zeros in the page cache,
# and never drops the caller's own cached data inside the range.  256 MiB by
# emulation on a disk filesystem: ext4 (or another with writeback) in
# $TMPDIR with LIBFALLOCATE_EMULATION=always, else an ext3 loop image
# (root).  The file's resident pages are counted with mincore() on a
# mapping of it, so other jobs on the machine cannot move the figures.
# LIBFALLOCATE_CACHE=keep leaves them all.  Never timed.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
need_cmd python3

MiB=1048576
# resident FILE [OFFSET LEN]: the file's pages in the page cache, in KiB.
RESIDENT_PY='
import ctypes, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
off = int(sys.argv[2]) if len(sys.argv) > 2 else 0
length = int(sys.argv[3]) if len(sys.argv) > 3 else size - off
page = mmap.PAGESIZE
start = off - off % page
n = (off + length - start + page - 1) // page
addr = libc.mmap(None, n * page, mmap.PROT_READ, mmap.MAP_SHARED, fd, start)
if addr in (None, ctypes.c_void_p(-1).value):
    sys.exit("mmap: " + os.strerror(ctypes.get_errno()))
vec = ctypes.create_string_buffer(n)
if libc.mincore(addr, n * page, vec) != 0:
    sys.exit("mincore: " + os.strerror(ctypes.get_errno()))
print(sum(b & 1 for b in vec.raw) * page // 1024)
libc.munmap(addr, n * page)
'
resident() { python3 -c "$RESIDENT_PY" "$@" || fail "cannot count resident pages"; }

# The bound holds where the front can wait for the disk: with cachestat
# (Linux 6.5, syscall 451 on every ABI), which qemu-user does not know.
# Elsewhere it holds only while the disk keeps up (libfallocate(7)), so the
# counts are noted, and the content and the caller's pages still checked.
front_waits() {
	python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY)
sys.exit(libc.syscall(451, fd, (ctypes.c_uint64 * 2)(), (ctypes.c_uint64 * 5)(), 0) != 0)
' "$1"
}
bounded() { # bounded KIB WHAT: the window's bound, where it holds
	if [ "$waits" = yes ]; then
		[ "$1" -le $((64 * 1024)) ] || fail "$2 left $1 KiB of its 256 MiB in the page cache (wanted at most 64 MiB)"
	else
		note "$2 left $1 KiB in the page cache (not bounded: $why)"
	fi
}

# A filesystem where the window runs: the scratch directory's, else ext3.
dir=$scratch/disk
mkdir "$dir" || exit 99
case $(stat -f -c %T "$dir") in
ext2/ext3|xfs|btrfs|f2fs) where="$(findmnt -n -o FSTYPE -T "$dir" 2>/dev/null || stat -f -c %T "$dir") in ${TMPDIR:-/tmp}" ;;
*)
	[ "$(id -u)" = 0 ] || skip "${TMPDIR:-/tmp} is $(stat -f -c %T "$dir"), not a disk filesystem, and not root for a loop image"
	mount_fs ext3 ext3 320M -b 4096
	dir=$MNT where="ext3 loop image"
	;;
esac
[ "$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')" -gt $((300 * 1024)) ] ||
	skip "less than 300 MiB free in $dir"
note "on $where"
waits=yes why=
if under_qemu_user; then
	waits=no why="qemu-user knows no cachestat and refuses RWF_DONTCACHE"
elif ! front_waits "$dir"; then
	waits=no why="this kernel answers no cachestat"
fi

f=$dir/f
# The caller's data inside the range: 2 MiB at 64 MiB, and a few bytes
# sharing a page with zeros the call writes, all in the page cache.
make_file() {
	rm -f "$f"
	python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
os.pwrite(fd, b"D" * (2 << 20), 64 << 20)
os.pwrite(fd, b"tail", (192 << 20) + 100)
os.fsync(fd)
' "$f" || fail "cannot write the caller's data"
	cat "$f" > /dev/null
	[ "$(resident "$f" $((64 * MiB)) $((2 * MiB)))" = 2048 ] ||
		skip "the caller's data is not in the page cache to begin with"
}
check_data() {
	python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
assert os.fstat(fd).st_size == 256 << 20, "size %d" % os.fstat(fd).st_size
assert os.pread(fd, 2 << 20, 64 << 20) == b"D" * (2 << 20), "data at 64 MiB changed"
assert os.pread(fd, 4, (192 << 20) + 100) == b"tail", "data at 192 MiB changed"
for off in (0, 32 << 20, 66 << 20, 128 << 20, (192 << 20) + 4096, 255 << 20):
    assert os.pread(fd, 1 << 20, off) == bytes(1 << 20), "not zeros at %d" % off
' "$f" || fail "$1: the file's content is wrong"
}
call() { # call LIBFALLOCATE_CACHE-VALUE
	env LIBFALLOCATE_EMULATION=always LIBFALLOCATE_CACHE="$1" \
		"$LFA_CALL" "$f" "posix_fallocate:0:0:$((256 * MiB))" > "$scratch/out" 2>&1 ||
		fail "posix_fallocate failed: $(cat "$scratch/out")"
}

make_file
call drop
check_data "drop"
total=$(resident "$f")
mine=$(resident "$f" $((64 * MiB)) $((2 * MiB)))
note "LIBFALLOCATE_CACHE=drop (the default): $total KiB of 262144 in the page cache, the caller's 2048 KiB: $mine KiB resident"
bounded "$total" "the call"
[ "$mine" = 2048 ] || fail "the caller's cached data was dropped: $mine of 2048 KiB still resident"
[ "$(resident "$f" $((192 * MiB)) 4096)" = 4 ] ||
	fail "the page shared by the caller's data and the call's zeros was dropped"

make_file
call keep
check_data "keep"
total=$(resident "$f")
note "LIBFALLOCATE_CACHE=keep: $total KiB in the page cache"
[ "$total" -ge $((200 * 1024)) ] || fail "LIBFALLOCATE_CACHE=keep left only $total KiB cached"

# The default, with the setting absent.
make_file
env -u LIBFALLOCATE_CACHE LIBFALLOCATE_EMULATION=always \
	"$LFA_CALL" "$f" "posix_fallocate:0:0:$((256 * MiB))" > "$scratch/out" 2>&1 ||
	fail "posix_fallocate failed: $(cat "$scratch/out")"
total=$(resident "$f")
bounded "$total" "by default the call"
# Another value: one complaint, and the default.
make_file
env LIBFALLOCATE_EMULATION=always LIBFALLOCATE_CACHE=bogus \
	"$LFA_CALL" "$f" "posix_fallocate:0:0:$((256 * MiB))" > "$scratch/out" 2>&1 ||
	fail "posix_fallocate failed: $(cat "$scratch/out")"
grep -q "ignoring LIBFALLOCATE_CACHE=bogus (expected keep or drop)" "$scratch/out" ||
	fail "no complaint about LIBFALLOCATE_CACHE=bogus: $(cat "$scratch/out")"
total=$(resident "$f")
bounded "$total" "with LIBFALLOCATE_CACHE=bogus the call"
rm -f "$f"

# Where the window does not run, not one call more: below its size, under
# O_DSYNC and O_DIRECT, with LIBFALLOCATE_CACHE=keep, and on tmpfs (whose
# page cache is the data).  Counted with strace, when it can trace.
if command -v strace > /dev/null 2>&1 && strace -o /dev/null true 2> /dev/null; then
	hints() { # hints FILE FLAGS LEN [CACHE]: sets N, the hint syscalls of one call
		rm -f "$1"
		env LIBFALLOCATE_EMULATION=always LIBFALLOCATE_CACHE="${4:-drop}" \
			strace -f -qq -e trace=sync_file_range,fadvise64 -o "$scratch/trace" \
			"$LFA_CALL" -o "$2" "$1" "posix_fallocate:0:0:$3" > "$scratch/out" 2>&1 ||
			fail "posix_fallocate ($2, $3) failed: $(cat "$scratch/out")"
		N=$(grep -c -E '(sync_file_range|fadvise64)\(' "$scratch/trace")
		rm -f "$1"
	}
	hints "$f" trunc $((32 * MiB))
	[ "$N" -gt 0 ] || fail "no sync_file_range or fadvise64 seen for 32 MiB: is strace tracing?"
	note "32 MiB: $N hint syscalls"
	hints "$f" trunc $((16 * MiB - 4096))
	[ "$N" = 0 ] || fail "$N hint syscalls below the window (16 MiB)"
	hints "$f" dsync $((32 * MiB))
	[ "$N" = 0 ] || fail "$N hint syscalls under O_DSYNC"
	hints "$f" direct $((32 * MiB))
	[ "$N" = 0 ] || fail "$N hint syscalls under O_DIRECT"
	hints "$f" trunc $((32 * MiB)) keep
	[ "$N" = 0 ] || fail "$N hint syscalls with LIBFALLOCATE_CACHE=keep"
	if [ "$(stat -f -c %T /dev/shm 2> /dev/null)" = tmpfs ] && shm=$(mktemp -d /dev/shm/lfa-cache.XXXXXX); then
		on_exit "rm -rf '$shm'"
		hints "$shm/f" trunc $((32 * MiB))
		[ "$N" = 0 ] || fail "$N hint syscalls on tmpfs"
	fi
else
	note "strace cannot trace here: the cases without the window are not counted"
fi
echo PASS

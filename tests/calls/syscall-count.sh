#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Under O_DSYNC every write is a sync, so the number of writes is the cost:
# 8 MiB must take about one write per 4 MiB (glibc's emulation takes one
# per 4 KiB block).  Counted with strace, never timed.  Also prints, without
# asserting them, glibc's counts and both for a new 1 GiB file.
# On $TMPDIR with a seccomp filter answering EOPNOTSUPP (anyone), and on a
# real ext3 loop image, where the kernel answers EOPNOTSUPP itself (root).
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
need_cmd strace
strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
need_seccomp
need_cmd python3

MiB=1048576
# Sets N to the writes on the file's descriptor by lfa-call (our
# posix_fallocate), as strace saw them.
ours_writes() { # ours_writes FILE OPEN_FLAGS LEN [WRAPPER...]
	file=$1 flags=$2 len=$3; shift 3
	rm -f "$file"
	strace -f -qq -e trace=write,pwrite64,writev,pwritev,pwritev2 -o "$scratch/trace" \
		"$@" "$LFA_CALL" -o "$flags" "$file" "posix_fallocate:0:0:$len" > "$scratch/call" 2>&1 ||
		fail "lfa-call failed: $(cat "$scratch/call")"
	fd=$(sed -n 's/^posix_fallocate fd=\([0-9]*\) .*-> ok$/\1/p' "$scratch/call")
	[ -n "$fd" ] || fail "lfa-call: $(cat "$scratch/call")"
	[ "$(file_size "$file")" = "$len" ] || fail "size $(file_size "$file"), wanted $len"
	N=$(grep -Ec "^[0-9]+ +(write|pwrite64|writev|pwritev|pwritev2)\($fd," "$scratch/trace")
	rm -f "$file"
}

# Write syscalls glibc's own emulation makes inside os.posix_fallocate, from
# /proc/self/io (syscw): ptrace would stop 262,144 times for 1 GiB.
GLIBC_PY='
import os, sys
def syscw():
    with open("/proc/self/io") as f:
        return int([l for l in f if l.startswith("syscw")][0].split()[1])
flags = os.O_RDWR | os.O_CREAT | (os.O_DSYNC if sys.argv[2] == "dsync" else 0)
fd = os.open(sys.argv[1], flags, 0o600)
before = syscw()
try:
    os.posix_fallocate(fd, 0, int(sys.argv[3]))
    r = "ok"
except OSError as e:
    r = os.strerror(e.errno)
print(syscw() - before, r)
'
glibc_writes() { # glibc_writes FILE dsync|rdwr LEN [WRAPPER...]
	file=$1 flags=$2 len=$3; shift 3
	rm -f "$file"
	[ -r /proc/self/io ] || { echo "unknown (no /proc/self/io)"; return; }
	"$@" python3 -c "$GLIBC_PY" "$file" "$flags" "$len" 2>&1
	rm -f "$file"
}

measure() { # measure WHERE DIR yes|no [WRAPPER...]: yes also counts glibc's
	where=$1 d=$2 glibc=$3; shift 3
	ours_writes "$d/dsync" dsync $((8 * MiB)) "$@"
	g="not measured here (thousands of synchronous writes take seconds)"
	[ "$glibc" = no ] || g=$(glibc_writes "$d/dsync" dsync $((8 * MiB)) "$@")
	note "$where: 8 MiB, O_DSYNC: libfallocate $N writes; glibc $g"
	[ "$N" -le 3 ] || fail "$where: $N writes for 8 MiB under O_DSYNC (wanted at most 3)"
}

# Syscalls of one call that grows a file by 4 KiB at its end (a log or a
# download preallocating as it goes), from its fallocate to the next call's,
# as strace saw them in one Python loop: ours (LD_PRELOAD) may make no more
# than glibc's own emulation.
GROW_PY='
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
for i in range(4):
    os.posix_fallocate(fd, i * 4096, 4096)
os.close(fd)
'
per_call() { # per_call FILE PRELOAD TRACE [WRAPPER...]: syscalls of the third call
	file=$1 preload=$2 trace=$3; shift 3
	LD_PRELOAD=$preload strace -f -qq -o "$trace" "$@" python3 -c "$GROW_PY" "$file" \
		> "$scratch/grow.out" 2>&1 || fail "growing $file: $(cat "$scratch/grow.out")"
	rm -f "$file"
	awk '/ fallocate\(/ { n++ } n == 3 && !/ fallocate\(/ { c++ } END { print c + 1 }' "$trace"
}
# The mount's filesystem is remembered where statx names mounts by a unique
# id (Linux 6.8); before, each call asks fstatfs: one more than glibc's.
extra=0
case $(uname -r) in
[0-5].*|6.[0-7].*|6.[0-7]-*) extra=1 ;;
esac
grows() { # grows WHERE DIR [WRAPPER...]
	where=$1 d=$2; shift 2
	ours=$(per_call "$d/grow" "$LFA_LIBRARY" "$scratch/grow.ours" "$@")
	theirs=$(per_call "$d/grow" "" "$scratch/grow.glibc" "$@")
	note "$where: a 4 KiB step at the end of file: libfallocate $ours syscalls, glibc $theirs" \
		"$([ $extra = 0 ] || echo "(Linux $(uname -r): one more allowed, no unique mount id)")"
	[ "$ours" -le $((theirs + extra)) ] || fail "$where: $ours syscalls for a 4 KiB step, glibc $theirs;" \
		"ours: $(awk '/ fallocate\(/ { n++ } n == 3' "$scratch/grow.ours" | cut -c1-100)"
}

dir=$scratch/count
mkdir "$dir" || exit 99
case $(stat -f -c %T "$dir") in
ext2/ext3|xfs|btrfs) grows "${TMPDIR:-/tmp} (seccomp EOPNOTSUPP)" "$dir" "$WITH_ERRNO" EOPNOTSUPP ;;
*) note "${TMPDIR:-/tmp} is $(stat -f -c %T "$dir"): the 4 KiB step is counted on ext3 only (root)" ;;
esac
measure "${TMPDIR:-/tmp} ($(findmnt -n -o FSTYPE -T "$dir" 2>/dev/null || stat -f -c %T "$dir"), seccomp EOPNOTSUPP)" \
	"$dir" "$([ "$(id -u)" = 0 ] && echo no || echo yes)" "$WITH_ERRNO" EOPNOTSUPP
ours_writes "$dir/big" trunc $((1024 * MiB)) "$WITH_ERRNO" EOPNOTSUPP
note "${TMPDIR:-/tmp}: new 1 GiB: libfallocate $N writes; glibc $(glibc_writes "$dir/big" rdwr $((1024 * MiB)) "$WITH_ERRNO" EOPNOTSUPP)"
[ "$N" -le 260 ] || fail "$N writes for a new 1 GiB (wanted about 256)"

if [ "$(id -u)" = 0 ]; then
	mount_fs ext3 ext3 64M -b 4096
	[ "$("$REALFS_CHECK" native "$MNT")" = EOPNOTSUPP ] || fail "ext3 can fallocate?"
	measure "ext3 loop image, 4 KiB blocks (the kernel says EOPNOTSUPP)" "$MNT" yes
	grows "ext3 loop image" "$MNT"
else
	note "not root: no ext3 loop image"
fi
echo PASS

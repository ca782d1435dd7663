#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A 4 GiB emulation inside a memory cgroup limited to 256 MiB completes, and
# the cgroup's peak usage stays well below the limit: the page cache the
# call fills is charged to its cgroup, and without the window it would fill
# the limit.  The times of the call and of dd writing as many zeros in the
# same cgroup are printed, never asserted.  Root; the cgroup v1 memory
# controller or cgroup v2 with memory.peak; 4.5 GiB free on the disk.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
[ "$(id -u)" = 0 ] || skip "not root: cannot make a memory cgroup"
# Without cachestat the front cannot wait for the disk, and without
# RWF_DONTCACHE nothing drops the pages as written (README, Known limits).
under_qemu_user && skip "qemu-user knows no cachestat and refuses RWF_DONTCACHE: the window cannot bound the cache"

MiB=1048576
limit=$((256 * MiB))
size=$((4096 * MiB))

name=lfa-test-cache-$$
if [ -e /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
	cg=/sys/fs/cgroup/memory/$name limit_file=memory.limit_in_bytes peak_file=memory.max_usage_in_bytes
else
	v2=
	for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		grep -qw memory "$d/cgroup.controllers" 2> /dev/null && { v2=$d; break; }
	done
	[ -n "$v2" ] || skip "no memory cgroup controller (v1 or v2) mounted"
	cg=$v2/$name limit_file=memory.max peak_file=memory.peak
	# The controller must be enabled for the parent's children.
	grep -qw memory "$v2/cgroup.subtree_control" 2> /dev/null ||
		skip "cgroup v2 memory controller not enabled in $v2"
fi
mkdir "$cg" || skip "cannot make a memory cgroup in $(dirname "$cg")"
on_exit "rmdir '$cg' 2> /dev/null || { sleep 1; rmdir '$cg'; }"
[ -e "$cg/$peak_file" ] || skip "no $peak_file in $cg"
echo "$limit" > "$cg/$limit_file" || fail "cannot set $limit_file"

# A disk filesystem with room: the scratch directory's, else an ext3 image.
dir=$scratch/disk
mkdir "$dir" || exit 99
case $(stat -f -c %T "$dir") in
ext2/ext3|xfs|btrfs|f2fs) where="$(findmnt -n -o FSTYPE -T "$dir" 2>/dev/null || stat -f -c %T "$dir") in ${TMPDIR:-/tmp}" ;;
*)
	[ "$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')" -gt $((4608 * 1024)) ] ||
		skip "less than 4.5 GiB free for the loop image in ${TMPDIR:-/tmp}"
	mount_fs ext3 ext3 4400M -b 4096
	dir=$MNT where="ext3 loop image"
	;;
esac
[ "$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')" -gt $((4608 * 1024)) ] ||
	skip "less than 4.5 GiB free in $dir"
f=$dir/f
on_exit "rm -f '$f'"

# in_cgroup CMD...: runs CMD in the cgroup; prints the seconds it took.
in_cgroup() {
	t0=$(date +%s.%N)
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' in-cgroup "$cg" "$@" \
		> "$scratch/out" 2>&1 || fail "$* failed in the cgroup: $(cat "$scratch/out")"
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }'
}
reset_peak() {
	rm -f "$f"
	sync
	[ "$peak_file" = memory.max_usage_in_bytes ] && { echo 0 > "$cg/$peak_file" || exit 99; }
	[ "$peak_file" = memory.peak ] && echo reset > "$cg/$peak_file" 2> /dev/null
	:
}

reset_peak
t=$(in_cgroup env LIBFALLOCATE_EMULATION=always "$LFA_CALL_LFS" "$f" "posix_fallocate:0:0:$size")
[ "$(file_size "$f")" = "$size" ] || fail "size $(file_size "$f"), wanted $size"
ts=$(in_cgroup sync "$f")
peak=$(cat "$cg/$peak_file")
note "on $where, 4 GiB in a 256 MiB cgroup: libfallocate $t s (+ $ts s to sync), peak usage $((peak / MiB)) MiB"
ours_peak=$peak

reset_peak
t=$(in_cgroup dd if=/dev/zero of="$f" bs=1M count=4096 status=none)
ts=$(in_cgroup sync "$f")
note "dd bs=1M in the same cgroup: $t s (+ $ts s to sync), peak usage $(($(cat "$cg/$peak_file") / MiB)) MiB"
rm -f "$f"

[ "$ours_peak" -le $((limit / 2)) ] ||
	fail "the cgroup's peak usage was $((ours_peak / MiB)) MiB of its 256 MiB limit (wanted at most half)"
echo PASS

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Inside the VM (tests/vm/vm.sh, make check-vm-power; issue 30), in the
# build tree: power loss during the emulation.
#
#   guest-power.sh POINTS [BREAK]
#
# For ext3 and ext2: a data device filled with a stale pattern
# (LFA-STALE-BYTES), under dm-log-writes (its log on a second loop
# device); mkfs -E nodiscard, four files of known content (data and
# holes), synced; then, each followed by sync and a mark, the library's
# emulation (LIBFALLOCATE_EMULATION=always, tests/lib/lfa-call) of a growth
# and of a hole fill (through O_DSYNC, so that its writes reach the disk
# inside the call), then glibc's (python3's os.posix_fallocate: neither
# filesystem has fallocate, so glibc emulates), a mark as each call
# returns and another after its sync.  The log is then replayed
# (tests/vm/replay-log) onto a fresh copy of the pattern, to POINTS flush,
# FUA or mark entries spread over each phase, any entry inside a call
# ("all": every flush, FUA and mark entry, and 32 inside each call), and at
# each point: the journal replayed (ext3) or e2fsck -fy (ext2), then
# e2fsck -fn must find nothing, the filesystem mounted read-only, and in
# every file each old byte must be intact and each byte past the old
# content zero: a byte of the pattern there is stale disk content exposed.
# Exit 1 if a point fails for the library's files (glibc's are reported
# beside them, not failed on), 77 without dmsetup or dm-log-writes.
# BREAK "stale" writes a block of the pattern into the library's grown
# file (before its sync), to show the check fails.
set -u
points=${1:-4}
break_mode=${2:-}
build=$(pwd)
replay=$build/tests/vm/replay-log
lfacall=$build/tests/lib/lfa-call
echo "# guest kernel: $(uname -r), $(nproc) CPUs; points per phase: $points${break_mode:+; BREAK=$break_mode}"
if ! [ -x "$replay" ] || ! [ -x "$lfacall" ]; then
	echo "guest-power.sh: build first (make check TESTS=)" >&2
	exit 1
fi
command -v dmsetup > /dev/null 2>&1 || { echo "SKIP: no dmsetup (package dmsetup)"; exit 77; }
for m in loop dm-mod ext4; do
	modprobe "$m" || { echo "guest-power.sh: modprobe $m failed" >&2; exit 1; }
done
modprobe dm-log-writes || { echo "SKIP: no dm-log-writes module in $(uname -r)"; exit 77; }

w=/power
mkdir -p $w && mount -t tmpfs -o mode=755 power $w || exit 1
mkdir $w/mnt $w/old
MiB=1048576
devsize=$((32 * MiB))
# Files: a growth from 192 KiB (64 KiB data, 64 KiB hole, 64 KiB data) to
# 5 MiB (two of the library's 4 MiB pieces); a hole fill of a 5 MiB file
# with three 64 KiB islands of data (at 0, 4 MiB and its end).
final=$((5 * MiB))
yes LFA-STALE-BYTES | head -c $devsize > $w/pattern.img
yes 'old file data, never stale: 0123456789' | head -c $((64 * 1024)) > $w/island

make_files() { # DIR
	for impl in lib glibc; do
		cat $w/island > "$1/$impl-grow"
		dd if=$w/island of="$1/$impl-grow" bs=64k seek=2 conv=notrunc 2> /dev/null
		truncate -s $final "$1/$impl-hole"
		for at in 0 64 79; do
			dd if=$w/island of="$1/$impl-hole" bs=64k seek=$at conv=notrunc 2> /dev/null
		done
	done
}
make_files $w/old

run_ops() { # FS: the logged run
	cp $w/pattern.img $w/data.img
	rm -f $w/log.img
	truncate -s $((512 * MiB)) $w/log.img
	data=$(losetup -f --show $w/data.img) && log=$(losetup -f --show $w/log.img) || return 1
	# No udev in the guest: dmsetup makes the node itself.
	dmsetup create --noudevsync lfa-power --table "0 $((devsize / 512)) log-writes $data $log" || return 1
	dmsetup mknodes lfa-power
	dev=/dev/mapper/lfa-power
	mkfs."$1" -q -F -b 4096 -E nodiscard $dev || return 1
	dmsetup message lfa-power 0 mark mkfs
	mount -t "$1" $dev $w/mnt || return 1
	make_files $w/mnt
	sync
	dmsetup message lfa-power 0 mark start
	for impl in lib glibc; do
		for op in grow hole; do
			f=$w/mnt/$impl-$op
			# The hole fill through O_DSYNC: its writes reach the
			# disk inside the call, each with its flush.
			flags=rdwr pyflags=os.O_RDWR
			[ $op = hole ] && flags=rdwr,dsync pyflags="os.O_RDWR | os.O_DSYNC"
			if [ $impl = lib ]; then
				LIBFALLOCATE_EMULATION=always "$lfacall" -o $flags "$f" "posix_fallocate:0:0:$final" > /dev/null ||
					echo "# $1: the library's $op failed"
			else
				/usr/bin/python3 -c "import os, sys
fd = os.open(sys.argv[1], $pyflags)
os.posix_fallocate(fd, 0, int(sys.argv[2]))" "$f" $final || echo "# $1: glibc's $op failed"
			fi
			if [ "$break_mode" = stale ] && [ $impl-$op = lib-grow ]; then
				dd if=$w/pattern.img of="$f" bs=4k count=1 seek=256 conv=notrunc 2> /dev/null
			fi
			dmsetup message lfa-power 0 mark "$impl-$op-return"
			sync
			dmsetup message lfa-power 0 mark "$impl-$op"
		done
	done
	umount $w/mnt
	dmsetup remove --noudevsync lfa-power
	losetup -d "$data" "$log"
	rm -f $w/data.img
}

# check_file FS FILE: 0 when every old byte is intact and the rest zeros.
check_file() {
	f=$w/mnt/$2 old=$w/old/$2
	[ -f "$f" ] || { why="$2 missing"; return 1; }
	size=$(stat -c %s "$f") oldsize=$(stat -c %s "$old")
	[ "$size" -ge "$oldsize" ] || { why="$2 shorter ($size) than its old content"; return 1; }
	cp "$old" $w/expect
	truncate -s "$size" $w/expect
	cmp -s $w/expect "$f" && return 0
	diff=$(cmp -l $w/expect "$f" | wc -l)
	stale=$(grep -a -o LFA-STALE-BYTES "$f" | wc -l)
	why="$2: $diff bytes differ, $stale copies of the stale pattern"
	return 1
}

# Counters by name: get NAME (0 when unset), bump NAME.
get() { eval "echo \"\${$1:-0}\""; }
bump() { eval "$1=\$((\$(get $1) + 1))"; }
for fs in ext3 ext2; do
	t0=$(date +%s)
	run_ops $fs || { echo "guest-power.sh: $fs: the logged run failed" >&2; exit 1; }
	"$replay" $w/log.img list > $w/entries || exit 1
	n=$(wc -l < $w/entries)
	t1=$(date +%s)
	# Candidate points after the start mark: flush, FUA and mark entries,
	# each in the phase it ends in (the phase named by the next mark).
	# A phase that ends at an "-return" mark is a call (its writes reach
	# the disk there only through O_DSYNC): every entry of it is a
	# point, a crash part-way through the call.
	awk -v want="$points" 'BEGIN { n = 0; a = 0 }
		$2 ~ /M/ && $5 == "start" { on = 1; print $1, "start"; next }
		!on { next }
		$2 ~ /[FUM]/ { c[n] = $1; n++ }
		{ all[a] = $1; a++ }
		$2 ~ /M/ {
			inside = $5 ~ /-return$/
			if (inside) { n = a; for (j = 0; j < a; j++) c[j] = all[j] }
			k = (want == "all" || n <= want) ? n : want
			if (want == "all" && inside && k > 32) k = 32
			for (j = 0; j < k; j++) {
				idx = (k == n) ? j : (k == 1) ? n - 1 : int(j * (n - 1) / (k - 1) + 0.5)
				if (!(idx in done)) print c[idx], $5
				done[idx] = 1
			}
			n = 0; a = 0; delete c; delete all; delete done
		}' $w/entries > $w/points
	cand=$(awk '$2 ~ /M/ && $5 == "start" { on = 1; next } !on { next }
		{ all++ } $2 ~ /[FUM]/ { fum++ }
		$2 ~ /M/ { if ($5 ~ /-return$/) n += all; else n += fum; all = 0; fum = 0 }
		END { print n + 0 }' $w/entries)
	cp $w/pattern.img $w/replay.img
	prev=0
	echo "# $fs: $n log entries, $(wc -l < $w/points) of $cand points (flush, FUA and mark entries; inside a call, every entry); the logged run: $((t1 - t0)) s"
	while read -r i phase; do
		"$replay" $w/log.img apply $w/replay.img $prev $((i + 1)) || exit 1
		prev=$((i + 1))
		cp $w/replay.img $w/check.img
		fsck_note=
		if [ $fs = ext3 ]; then
			e2fsck -E journal_only -y $w/check.img > $w/fsck.log 2>&1
			r=$?
			[ $r -le 1 ] || fsck_note="journal replay: e2fsck $r"
		else
			e2fsck -fy $w/check.img > $w/fsck.log 2>&1
			r=$?
			[ $r = 0 ] || fsck_note="e2fsck -fy repaired ($r)"
			[ $r -le 1 ] || fsck_note="e2fsck -fy: $r"
		fi
		e2fsck -fn $w/check.img > $w/fsck.log 2>&1 || fsck_note="$fsck_note; e2fsck -fn: $? $(grep -v '^Pass\|^e2fsck\|^/' $w/fsck.log | head -n 3 | tr '\n' ' ')"
		line="$fs point $i ($phase)"
		if ! mount -t $fs -o ro,loop $w/check.img $w/mnt 2> $w/mount.log; then
			echo "FAIL: $line: mount: $(cat $w/mount.log)${fsck_note:+ [$fsck_note]}"
			bump fail_lib_$fs
			continue
		fi
		res=
		for impl in lib glibc; do
			bad=
			for op in grow hole; do
				check_file $fs $impl-$op || bad="$bad $why;"
			done
			bump pts_${impl}_$fs
			case $fsck_note in
			*"e2fsck -fn"*|*"journal replay"*) bad="$bad fsck:$fsck_note;" ;;
			esac
			if [ -n "$bad" ]; then
				bump fail_${impl}_$fs
				res="$res $impl:BAD($bad)"
			else
				res="$res $impl:ok"
			fi
		done
		umount $w/mnt
		echo "# $line:$res${fsck_note:+ [$fsck_note]}"
	done < $w/points
	rm -f $w/log.img $w/replay.img $w/check.img
	echo "# $fs: library: $(get pts_lib_$fs) points, $(get fail_lib_$fs) bad;" \
		"glibc: $(get pts_glibc_$fs) points, $(get fail_glibc_$fs) bad; $(($(date +%s) - t0)) s"
done
rc=0
for fs in ext3 ext2; do
	[ "$(get fail_lib_$fs)" = 0 ] || rc=1
done
umount $w
[ $rc = 0 ] && echo "guest-power.sh: PASS (the library's files intact at every point)" ||
	echo "guest-power.sh: FAIL (the library's files damaged or stale at some point)"
exit $rc

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make bench-seccomp (root): what fallocate-preload --seccomp costs per call.
# fallocate growing a file by 4 KiB a call, natively on ext4 and emulated
# on ext3: the kernel alone, the LD_PRELOAD path, and the notification
# round trip (a raw syscall, as static and Go programs make); and getpid
# and a 4 KiB pwrite with and without the filter.  The fallocate rows run
# on one thread, then on 8 threads at once (each its own file: the
# supervisor serves them in parallel, issue 23).  Rounds alternate the
# sides; each prints the minimum and the median of its calls and the calls
# per second of all threads, and the table shows the smallest minimum and
# the medians of the medians and of the rates.
# BENCH_SECCOMP_PREVIOUS="[NAME=]DIR ...": the build directories of other
# trees (an earlier release built in a `git worktree add`), whose
# --seccomp rows (wrapper, supervisor and library of that tree, this
# tree's timer) run in the same rounds, each right after this tree's same
# row: "ext4, --seccomp [NAME]" (NAME: DIR's short commit by default).
set -u
: "${top_builddir:=$(pwd)}" "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${LFA_LIBRARY:=$top_builddir/.libs/libfallocate.so.1}"
rounds=${BENCH_REPS:-5}
calls=${BENCH_CALLS:-2000}
cost=$top_builddir/bench/seccomp-cost
w=$top_builddir/tools/fallocate-preload
FALLOCATE_PRELOAD_LIBRARY=$LFA_LIBRARY
FALLOCATE_PRELOAD_SECCOMP_HELPER=$top_builddir/tools/fallocate-seccomp
export FALLOCATE_PRELOAD_LIBRARY FALLOCATE_PRELOAD_SECCOMP_HELPER
unset LIBFALLOCATE_EMULATION LIBFALLOCATE_DEBUG LD_PRELOAD
[ "$(id -u)" = 0 ] || { echo "make bench-seccomp: needs root (loop images)" >&2; exit 1; }
[ -x "$cost" ] && [ -x "$FALLOCATE_PRELOAD_SECCOMP_HELPER" ] ||
	{ echo "make bench-seccomp: $cost or the supervisor is not built" >&2; exit 1; }

dir=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/lfa-bench-seccomp.XXXXXX") || exit 1
loops=""
cleanup() {
	for m in "$dir/ext4" "$dir/ext3"; do mountpoint -q "$m" && umount "$m"; done
	for l in $loops; do losetup -d "$l"; done
	rm -rf --one-file-system "$dir"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
for fs in ext4 ext3; do
	truncate -s 1G "$dir/$fs.img" && mkfs."$fs" -q -F "$dir/$fs.img" && mkdir "$dir/$fs" &&
		l=$(losetup -f --show "$dir/$fs.img") && loops="$loops $l" &&
		mount "$l" "$dir/$fs" || exit 1
done

# name|wrapper options|mode|directory|threads|build directory (this tree's: empty)
ours="ext4, kernel alone|none|fallocate-raw|ext4|1
ext4, LD_PRELOAD|preload|fallocate|ext4|1
ext4, --seccomp|seccomp|fallocate-raw|ext4|1
ext3 emulated, LD_PRELOAD|preload|fallocate|ext3|1
ext3 emulated, --seccomp|seccomp|fallocate-raw|ext3|1
ext4, kernel alone, 8 thr|none|fallocate-raw|ext4|8
ext4, LD_PRELOAD, 8 thr|preload|fallocate|ext4|8
ext4, --seccomp, 8 thr|seccomp|fallocate-raw|ext4|8
ext3 emul., LD_PRELOAD, 8 thr|preload|fallocate|ext3|8
ext3 emul., --seccomp, 8 thr|seccomp|fallocate-raw|ext3|8
getpid, no filter|none|getpid|ext4|1
getpid, --seccomp|seccomp|getpid|ext4|1
pwrite 4 KiB, no filter|none|pwrite|ext4|1
pwrite 4 KiB, --seccomp|seccomp|pwrite|ext4|1"
configs=$(echo "$ours" | while IFS='|' read -r name how mode d t; do
	echo "$name|$how|$mode|$d|$t|"
	[ "$how:${mode%-raw}" = seccomp:fallocate ] || continue
	for p in ${BENCH_SECCOMP_PREVIOUS:-}; do
		pdir=${p#*=}
		case $p in
		*=*) pname=${p%%=*} ;;
		*) pname=$(git -C "$pdir" rev-parse --short HEAD 2>/dev/null || basename "$pdir") ;;
		esac
		echo "$name [$pname]|$how|$mode|$d|$t|$pdir"
	done
done)
for p in ${BENCH_SECCOMP_PREVIOUS:-}; do
	pdir=${p#*=}
	[ -x "$pdir/tools/fallocate-preload" ] && [ -x "$pdir/tools/fallocate-seccomp" ] &&
		[ -e "$pdir/.libs/libfallocate.so.1" ] ||
		{ echo "make bench-seccomp: $pdir is not a built tree (tools/fallocate-seccomp, .libs)" >&2; exit 1; }
done
res() { echo "$dir/$mode-$how-$d-$t-$(echo "$name" | cksum | cut -d' ' -f1).res"; }
echo "$configs" | while IFS='|' read -r name how mode d t pdir; do : > "$(res)"; done
load0=$(cut -d' ' -f1-3 /proc/loadavg)
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	echo "$configs" | while IFS='|' read -r name how mode d t pdir; do
		f=$dir/$d/file
		case $how:$pdir in
		none:*) "$cost" "$mode" "$f" "$calls" "$t" ;;
		preload:*) "$w" "$cost" "$mode" "$f" "$calls" "$t" ;;
		seccomp:) "$w" --seccomp "$cost" "$mode" "$f" "$calls" "$t" ;;
		seccomp:*) FALLOCATE_PRELOAD_LIBRARY=$pdir/.libs/libfallocate.so.1 \
			FALLOCATE_PRELOAD_SECCOMP_HELPER=$pdir/tools/fallocate-seccomp \
			"$pdir/tools/fallocate-preload" --seccomp "$cost" "$mode" "$f" "$calls" "$t" ;;
		esac >> "$(res)" || exit 1
		rm -f "$f"
	done || exit 1
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
w1=30
[ -z "${BENCH_SECCOMP_PREVIOUS:-}" ] || w1=42
printf "%-${w1}s %10s %10s %10s\n" "per call ($rounds rounds of $calls)" "min ns" "median ns" "calls/s"
echo "$configs" | while IFS='|' read -r name how mode d t pdir; do
	res=$(res)
	min=$(sort -n "$res" | head -1 | cut -d' ' -f1)
	med=$(cut -d' ' -f2 "$res" | median)
	case $mode in fallocate*) rate=$(cut -d' ' -f3 "$res" | median) ;; *) rate=- ;; esac
	printf "%-${w1}s %10s %10s %10s\n" "$name" "$min" "$med" "$rate"
done
echo "$(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d), load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"

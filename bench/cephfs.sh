#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# shellcheck disable=SC2154 # what the sourced helpers set
# make bench's scenario 13 (issue 38): a new file on CephFS through
# ceph-fuse, on a throwaway single-node Ceph (tests/shared/ceph-lib.sh: one mon,
# one memstore OSD, one MDS, no mgr, 127.0.0.1) started for the run and
# torn down at its end, on failure and on a signal too.  Run by
# bench/run.sh, which gives the CSV to append to; a skip (exit 77: not
# root, no Ceph, no /dev/fuse) prints "SKIP: reason".
#
# For each size in BENCH_CEPH_SIZES (default "64M 1G"), two lfa-bench runs
# in the one cluster, dd with bs=4M, plain, with conv=fsync (ours writes
# through to the OSDs, with O_DIRECT, and dd's plain writes wait in
# ceph-fuse's cache, up to its 100 MiB of dirty data) and with
# oflag=direct,append (dd-append: zeros appended as ours appends them on
# a shared filesystem, where another client's append must not be
# overwritten; each 128 KiB FUSE request of ceph-fuse's libfuse 2 then
# waits for the OSD):
#  - ceph-fuse: what users of ceph-fuse get.  Its 0 for mode 0 stores
#    nothing; the library emulates after it.  Ours and dd only: glibc
#    (and 0.2.0) take that 0 and write nothing, which is no time to put
#    beside a file written in full.  BENCH_CEPH_REPS rounds (default 5).
#  - ceph-fuse-forced: the fallocate syscall failing EOPNOTSUPP
#    (tests/lib/with-fallocate-errno: the kernel client's answer), where
#    glibc emulates too: ours, glibc, dd (and the previous release,
#    BENCH_CEPH_PREVIOUS) in the same rounds.  BENCH_CEPH_REPS rounds for
#    64 MiB, BENCH_CEPH_1G_REPS (default 1) for 1 GiB: glibc writes one
#    byte every 4 KiB, each a FUSE request, and takes minutes a round.
# The memstore OSD keeps the data in memory: CEPH_MEMSTORE_BYTES defaults
# to 8 GiB here (a removed file's objects are purged by the MDS in the
# background, and 1 GiB rounds follow one another faster: with 4 GiB,
# glibc's round found the OSD full), and each driver run starts with the
# data pool drained.
# Before tests/shared/ceph-lib.sh, whose default is 512 MiB.
: "${CEPH_MEMSTORE_BYTES:=8589934592}"
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/shared/ceph-lib.sh"
[ $# = 1 ] || { echo "usage: cephfs.sh CSV" >&2; exit 2; }
csv=$1
[ "$(id -u)" = 0 ] || skip "needs root (Ceph's daemons, ceph-fuse)"
bench=$top_builddir/bench/lfa-bench
forcer=$top_builddir/tests/lib/with-fallocate-errno
[ -x "$bench" ] || fail "$bench is not built"
sizes=${BENCH_CEPH_SIZES:-64M 1G}
reps=${BENCH_CEPH_REPS:-5}
reps_1g=${BENCH_CEPH_1G_REPS:-1}
verbose=""
[ "${BENCH_VERBOSE:-0}" = 1 ] && verbose=--verbose
previous=""
[ -n "${BENCH_CEPH_PREVIOUS:-}" ] && previous="--previous $BENCH_CEPH_PREVIOUS"
can_force=""
[ -x "$forcer" ] && "$forcer" EOPNOTSUPP true 2> /dev/null && can_force=yes

ceph_start "$scratch/ceph"
dir=$scratch/ceph/mnt/c1
ceph_mount "$dir"
note "Ceph $(ceph-fuse --version 2> /dev/null | awk '{ print $3 }'), memstore of" \
	"$((CEPH_MEMSTORE_BYTES >> 20)) MiB, one ceph-fuse client: up in $(ceph_since "$ceph_t0") s"

lfa_bench() { # ID FS-LABEL [forced] ARGS...: one driver run, its rows appended to the CSV
	b_id=$1 b_fs=$2
	shift 2
	b_wrap=""
	if [ "$1" = forced ]; then
		b_wrap="$forcer EOPNOTSUPP"
		shift
	fi
	ceph_drained 300 || note "the data pool still holds $(ceph_rados ls | wc -l) objects after 300 s"
	echo "[$(ceph_since "$ceph_t0") s] $b_id on $b_fs: ${b_wrap:+with-fallocate-errno EOPNOTSUPP }lfa-bench $*" >&2
	# shellcheck disable=SC2086 # the wrapper and the verbose flag: words or nothing
	$b_wrap "$bench" --lib "$LFA_LIBRARY" --id "$b_id" --dir "$dir" --fs "$b_fs" \
		--scenario new --dd --dd-fsync --dd-append --dd-bs 4M $verbose "$@" >> "$csv" ||
		fail "lfa-bench failed on ceph-fuse ($b_id, $b_fs)"
}

for size in $sizes; do
	r=$reps
	case $size in
	1G | 1024M) r=$reps_1g ;;
	esac
	lfa_bench "13-new-$size" ceph-fuse --size "$size" --only ours,dd,dd-fsync,dd-append --reps "$reps"
	if [ -n "$can_force" ]; then
		# shellcheck disable=SC2086 # --previous PATH, or nothing
		lfa_bench "13-new-$size" ceph-fuse-forced forced --size "$size" --reps "$r" $previous
	else
		note "no ceph-fuse-forced row: tests/lib/with-fallocate-errno cannot run here (no libseccomp?)"
	fi
done
note "ceph daemons' and client's memory (KiB): $(ceph_rss)"
note "scenario 13: $(ceph_since "$ceph_t0") s from the cluster's start"

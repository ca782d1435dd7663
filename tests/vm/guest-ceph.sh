#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# shellcheck disable=SC2154 # what the sourced helpers set
# Inside the VM (tests/vm/vm.sh), in the build tree: the kernel CephFS
# client (ceph.ko of Debian's 6.1, issue 38), which answers EOPNOTSUPP to
# every fallocate mode but PUNCH_HOLE|KEEP_SIZE (fs/ceph/file.c), so that
# every posix_fallocate there is an emulation.  The cluster is
# tests/shared/ceph-lib.sh's (one mon, one memstore OSD, one MDS, no mgr, auth
# none, 127.0.0.1), from the host's Ceph binaries seen over 9p; every
# kernel mount is a client of its own (noshare: no cache shared) and
# speaks msgr2 (ms_mode=crc: the mon binds msgr2 only).
#   guest-ceph.sh RECORDS RUNS
#  1. The mount is the table's kernel CephFS (f_type 0x00c36400); the
#     kernel's own fallocate says EOPNOTSUPP; the library's posix_fallocate
#     of 16 MiB on a new file leaves all 4 RADOS objects, read back as
#     zeros through the second client.
#  2. realfs-check's descriptor matrix (as tests/shared/cephfs.sh on ceph-fuse).
#  3. Two clients: client A (the second client: a kernel one, or ceph-fuse
#     where LFA_CEPH_SECOND=fuse) appends 64-byte records with O_APPEND,
#     client B (kernel) grows the file with posix_fallocate(fd, 0, size +
#     100), records read back through a fresh kernel client
#     (tests/calls/append-race), RUNS runs of RECORDS for each of: the library
#     (it emulates: the kernel says EOPNOTSUPP), the library under a
#     seccomp EOPNOTSUPP (the answer the kernel gives, made certain),
#     glibc's emulation (-g) and CephFS's own O_APPEND zeros (-z).
# Prints one line per run "row ceph-kernel WHO RECORDS LOST SPLIT calls=
# failed= einval= SECONDS" and a sum per WHO.  Exits 1 where a call of the
# library failed (EINVAL above all: not an answer fallocate gives here),
# where it wrote zeros it did not report, or where it lost more records in
# all than glibc's emulation, or, from 60,000 records, than CephFS's own
# appends (issue 30's rule, as tests/vm/guest-nfs.sh); 77 with the reason
# where ceph.ko, the Ceph packages or FUSE are missing.
set -u
records=${1:-1000} runs=${2:-1}
second=${LFA_CEPH_SECOND:-kernel}
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=$(cd "$here/../.." && pwd)
top_builddir=$(pwd)
. "$top_srcdir/tests/lib/lib.sh"
. "$top_srcdir/tests/shared/ceph-lib.sh"
[ "$(id -u)" = 0 ] || skip "not root"
RACE=$top_builddir/tests/calls/append-race
REALFS_CHECK_PUBLIC=$top_builddir/tests/realfs/realfs-check-public
for p in "$LFA_CALL" "$RACE" "$REALFS_CHECK_PUBLIC"; do
	[ -x "$p" ] || { echo "guest-ceph.sh: $p is not built" >&2; exit 99; }
done
note "guest kernel: $(uname -r), $(nproc) CPUs, $(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB"
modprobe ceph 2> "$scratch/modprobe.err" ||
	skip "no ceph.ko in $(uname -r)'s modules: $(cat "$scratch/modprobe.err")"
grep -qw ceph /proc/filesystems || skip "ceph.ko loaded, but no filesystem type ceph"
modprobe fuse 2> /dev/null || :
started=$(date +%s)
# The guest powers off after this script: no graceful end of the daemons
# (tests/shared/ceph-lib.sh: under TCG it can take minutes).
CEPH_STOP_KILL=1
ceph_start "$scratch/ceph"
port=$(sed -n 's/^mon_host = v2:127\.0\.0\.1:\([0-9]*\)$/\1/p' "$ceph_conf")
[ -n "$port" ] || fail "no mon port in $ceph_conf"

# Kernel clients.  mount -i: the options go to the kernel as they are
# (no mount.ceph looking for /etc/ceph and its keyrings: auth none);
# mount_timeout bounds the kernel's own wait for the mon and the MDS.
kmounts=""
kmount() { # DIR
	mkdir -p "$1" || fail "cannot make $1"
	timeout 120 mount -i -t ceph "127.0.0.1:$port:/" "$1" \
		-o name=admin,ms_mode=crc,noshare,mount_timeout=60 > "$scratch/mount.err" 2>&1 ||
		fail "mount -t ceph $1: $(cat "$scratch/mount.err"); $(dmesg | grep -E 'ceph|libceph' | tail -n 3 | tr '\n' ' ')"
	kmounts="$1 $kmounts"
}
# An umount waits for the client's dirty caps and its MDS session: 30 s,
# then forced (which aborts the session's requests), then lazily; a
# kernel that still holds it is powered off with the VM.
kumount() { # DIR
	grep -q " $1 ceph " /proc/mounts || return 0
	umount "$1" 2> /dev/null &
	_k=$!
	ceph_wait_gone "$_k" 300
	if ceph_alive "$_k"; then
		note "umount $1 waits for 30 s: forced"
		umount -f "$1" 2> /dev/null
	fi
	wait "$_k" 2> /dev/null
	grep -q " $1 ceph " /proc/mounts && umount -l "$1" 2> /dev/null
	_k_keep=""
	for _k_m in $kmounts; do
		[ "$_k_m" = "$1" ] || _k_keep="$_k_keep $_k_m"
	done
	kmounts=$_k_keep
	return 0
}
kstop() {
	for _k_m in $kmounts; do
		kumount "$_k_m"
	done
}
# Before ceph_stop (on_exit runs the hooks newest first): a kernel client
# whose cluster is gone waits for it.
on_exit kstop

mb=$scratch/ceph/mnt/b ma=$scratch/ceph/mnt/a
kmount "$mb"
if [ "$second" = fuse ]; then
	ceph_mount "$ma"
else
	kmount "$ma"
fi
note "cluster and two clients (kernel, $second) up in $(ceph_since "$ceph_t0") s"

# 1. the kernel client's row and answer, the library's emulation
[ "$(stat -f -c %t "$mb")" = c36400 ] || fail "the kernel mount's f_type is $(stat -f -c %t "$mb"), not 0xc36400"
if fallocate -l 1M "$mb/kernel" 2> "$scratch/out"; then
	note "the kernel's fallocate mode 0 answered 0 on $(uname -r) (expected EOPNOTSUPP)"
else
	grep -q 'not supported' "$scratch/out" || fail "the kernel's fallocate: $(cat "$scratch/out")"
fi
rm -f "$mb/kernel"
"$LFA_CALL" "$mb/library" "posix_fallocate:0:0:16777216" > "$scratch/out" 2>&1 ||
	fail "the library's posix_fallocate of 16 MiB: $(cat "$scratch/out")"
sync "$mb/library"
n=$(ceph_object_count "$mb/library")
[ "$n" = 4 ] || fail "the library's 16 MiB left $n RADOS objects, wanted 4"
[ "$(stat -c %s "$ma/library")" = 16777216 ] || fail "client A sees $(stat -c %s "$ma/library") bytes"
cmp -s -n 16777216 "$ma/library" /dev/zero || fail "client A does not read 16 MiB of zeros"
note "the kernel says EOPNOTSUPP; the library's 16 MiB: 4 of 4 objects, zeros through client A ($(tail -n 2 "$scratch/out" | head -n 1))"
rm -f "$mb/library"

# 2. the descriptor matrix
t=$(date +%s)
ceph_matrix "$mb/matrix" "the kernel CephFS client"
note "descriptor matrix: $(($(date +%s) - t)) s"

# 3. two clients
seccomp=""
[ -x "$WITH_ERRNO" ] && "$WITH_ERRNO" EOPNOTSUPP true 2> /dev/null && seccomp=yes
[ -n "$seccomp" ] || note "no seccomp row: tests/lib/with-fallocate-errno cannot run here"
rc=0
whos="ours glibc own"
[ -n "$seccomp" ] && whos="ours ours-seccomp glibc own"
# LFA_CEPH_ROWS: some of them only (the library's row is already an
# emulation under the kernel's EOPNOTSUPP: "ours glibc own" saves a
# quarter of a long run).
[ -n "${LFA_CEPH_ROWS:-}" ] && whos=$LFA_CEPH_ROWS
for need in glibc own; do
	case " $whos " in
	*" $need "*) ;;
	*) fail "LFA_CEPH_ROWS='$whos': the library is judged against the glibc and own rows, which it must name" ;;
	esac
done
for who in ours ours-seccomp glibc own; do
	eval "sum_$(echo "$who" | tr - _)=0"
done
fresh=$scratch/ceph/mnt/fresh
# Run by run, each row in turn: a run cut short (the VM's timeout) leaves
# every row with as many runs as the others, give or take one.
r=1
while [ $r -le "$runs" ]; do
	for who in $whos; do
		wrap="" opt=""
		case $who in
		ours) ;;
		ours-seccomp) wrap="$WITH_ERRNO EOPNOTSUPP" ;;
		glibc) opt=-g ;;
		own) opt=-z ;;
		*) fail "LFA_CEPH_ROWS: no row $who (ours, ours-seccomp, glibc, own)" ;;
		esac
		v=$(echo "$who" | tr - _)
		kmount "$fresh"
		mkdir -p "$mb/race"
		t0=$(date +%s)
		# shellcheck disable=SC2086 # the wrapper and the option, or nothing
		out=$($wrap "$RACE" $opt -a "$ma/race" -c "$fresh/race" "$mb/race" "$records" 2>&1)
		race_rc=$?
		kumount "$fresh"
		rm -rf "$mb/race"
		last=$(echo "$out" | tail -n 1)
		lost=$(echo "$last" | sed -n 's/.* records damaged: \([0-9]*\) lost, .*/\1/p')
		split=$(echo "$last" | sed -n 's/.* lost, \([0-9]*\) split by the filesystem$/\1/p')
		calls=$(echo "$last" | sed -n 's/.*, \([0-9]*\) calls of .*/\1/p')
		failed=$(echo "$last" | sed -n 's/.*(\([0-9]*\) failed).*/\1/p')
		einval=$(echo "$out" | grep -c 'Invalid argument')
		echo "row ceph-kernel $who $records ${lost:-?} ${split:-?} calls=${calls:-?} failed=${failed:-?} einval=$einval $(($(date +%s) - t0))s"
		if [ -z "$lost" ] || [ $race_rc -gt 1 ]; then
			echo "append-race exited with $race_rc:"
			echo "$out" | tail -n 5
			rc=1
			lost=0
		fi
		if [ "$einval" != 0 ]; then
			echo "FAIL: $who: EINVAL, not an answer of fallocate on the kernel client: $(echo "$out" | grep -m 1 'Invalid argument')"
			rc=1
		fi
		case $who in
		ours*)
			if [ "${failed:-1}" != 0 ]; then
				echo "FAIL: $who: calls of the library failed: $(echo "$out" | grep -m 3 'posix_fallocate:' | tr '\n' ' ')"
				rc=1
			fi
			if echo "$out" | grep -q "did not report"; then
				echo "FAIL: $who: $(echo "$out" | grep "did not report")"
				rc=1
			fi
			;;
		esac
		eval "sum_$v=\$((sum_$v + lost))"
	done
	r=$((r + 1))
done
# Against glibc always; against CephFS's own appends only on a sample
# that can tell (60,000 records: guest-nfs.sh's reason).
verdict=ok judged="glibc's emulation"
total=$((runs * records))
for v in ours ours_seccomp; do
	case " $whos " in
	*" $(echo "$v" | tr _ -) "*) ;;
	*) continue ;;
	esac
	eval "s=\$sum_$v"
	[ "$s" -le "$sum_glibc" ] || { verdict=FAIL; rc=1; }
	if [ $total -ge 60000 ]; then
		judged="glibc's emulation and CephFS's own appends"
		[ "$s" -le "$sum_own" ] || { verdict=FAIL; rc=1; }
	fi
done
[ $total -ge 60000 ] || judged="$judged (CephFS's own beside it: under 60,000 records a sample cannot tell)"
echo "sum ceph-kernel (second client: $second), $runs x $records records: lost ours $sum_ours$(case " $whos " in *" ours-seccomp "*) echo ", ours under seccomp EOPNOTSUPP $sum_ours_seccomp" ;; esac), glibc $sum_glibc, CephFS's own $sum_own: $verdict against $judged"
note "kernel CephFS rows: $(($(date +%s) - started)) s (the cluster's start $ceph_start_secs s)"
exit $rc

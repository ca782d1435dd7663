#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check-vm-ceph (root; issue 38): the kernel CephFS client of Debian
# 12's own kernel (6.1, ceph.ko), booted by tests/vm/vm.sh, against a
# throwaway cluster started inside the guest from the host's Ceph 16.2
# (tests/vm/guest-ceph.sh: the descriptor matrix and two clients, the
# library beside glibc's emulation and CephFS's own appends).  Skips,
# saying why, where qemu, the kernel package, ceph.ko or the Ceph packages
# cannot be had: exit 77 (make check-vm-ceph and lane.sh take it as a skip).
# LFA_CEPH_ARGS: guest-ceph.sh's arguments instead (RECORDS RUNS);
# LFA_CEPH_SECOND=fuse: the appending client is ceph-fuse, not a second
# kernel client.  LFA_CEPH_ROWS: the race's rows (default "ours
# ours-seccomp glibc own"; glibc and own must be among them).
set -u
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
rc=0
# The guest has the host's binaries: what is not here is not there.
for p in ceph-mon ceph-osd ceph-mds ceph-fuse ceph rados monmaptool; do
	command -v $p > /dev/null 2>&1 || {
		echo "check-vm-ceph: SKIP (no $p: packages ceph-mon, ceph-osd, ceph-mds, ceph-fuse, ceph-common)"
		exit 77
	}
done
# The mon, the memstore OSD (512 MiB of data in its memory) and the MDS
# take about 1.2 GiB in the guest.  About 8.5 minutes under TCG on 2
# cores: the cluster's start 2 (each ceph CLI call 10 to 17 s), the
# matrix 15 s, the four rows of 1,000 records 1 to 1.5 each (CephFS
# makes two clients' writes synchronous).
# shellcheck disable=SC2086 # the arguments, split
LFA_VM_TIMEOUT=${LFA_VM_TIMEOUT:-1500} sh "$here/vm.sh" -m 3072 "$here/guest-ceph.sh" \
	${LFA_CEPH_ARGS:-1000 1} || rc=$?
echo "# check-vm-ceph: $(($(date +%s) - start)) s"
case $rc in
0) echo "check-vm-ceph: PASS" ;;
77) echo "check-vm-ceph: SKIP (above: why)" ;;
*) echo "check-vm-ceph: FAIL (exit $rc)" ;;
esac
exit "$rc"

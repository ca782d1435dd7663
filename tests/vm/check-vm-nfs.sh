#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check-vm-nfs (root; issue 30): two NFS clients of the guest's own
# nfsd on ext3 (tests/vm/guest-nfs.sh) on Debian 12's own kernel (6.1),
# booted by tests/vm/vm.sh: NFSv3 and NFSv4.2, default mounts (3 runs of
# 20,000 records) and sync mounts (1 run of 1,000); the library beside
# glibc's emulation and NFS's own appends.  Fails where the library loses
# more records than either on a row.  Skips, saying why, where qemu, the
# kernel package or nfs-kernel-server cannot be had.
# LFA_NFS_ARGS: guest-nfs.sh's arguments instead (RECORDS RUNS SYNC_RECORDS
# SYNC_RUNS [VERSION...] [default] [sync]).
set -u
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
rc=0
for p in rpc.nfsd rpc.mountd exportfs rpcbind mount.nfs; do
	PATH=$PATH:/usr/sbin:/sbin command -v $p > /dev/null 2>&1 || {
		echo "check-vm-nfs: SKIP (no $p: packages nfs-kernel-server, rpcbind)"
		exit 0
	}
done
# shellcheck disable=SC2086 # the arguments, split
LFA_VM_TIMEOUT=${LFA_VM_TIMEOUT:-900} sh "$here/vm.sh" -m 1024 -d 1024 "$here/guest-nfs.sh" \
	${LFA_NFS_ARGS:-20000 3 1000 1} || rc=$?
echo "# check-vm-nfs: $(($(date +%s) - start)) s"
case $rc in
0) echo "check-vm-nfs: PASS" ;;
77) echo "check-vm-nfs: SKIP (above: why)"; rc=0 ;;
*) echo "check-vm-nfs: FAIL (exit $rc)" ;;
esac
exit "$rc"

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check-vm-shared (root; issue 30): NFS and SMB3 mounts of the guest's
# own servers on Debian 12's own kernel (6.1), booted by tests/vm/vm.sh:
# the descriptor matrix and the kernel's, the library's and glibc's answers,
# bytes checked on the server (tests/vm/guest-shared.sh).  Every row by
# default (make check-vm too); LFA_SHARED_ROWS names some.  Skips,
# saying why, where qemu, the kernel package, nfs-utils or samba is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
rc=0
for p in rpc.nfsd rpc.mountd exportfs rpcbind mount.nfs smbd smbpasswd mount.cifs; do
	PATH=$PATH:/usr/sbin:/sbin command -v $p > /dev/null 2>&1 || {
		echo "check-vm-shared: SKIP (no $p: packages nfs-kernel-server, rpcbind, samba, cifs-utils)"
		exit 0
	}
done
LFA_VM_TIMEOUT=${LFA_VM_TIMEOUT:-1200} sh "$here/vm.sh" -m 1536 -d 1024 "$here/guest-shared.sh" || rc=$?
echo "# check-vm-shared: $(($(date +%s) - start)) s"
case $rc in
0) echo "check-vm-shared: PASS" ;;
77) echo "check-vm-shared: SKIP (above: why)"; rc=0 ;;
*) echo "check-vm-shared: FAIL (exit $rc)" ;;
esac
exit "$rc"

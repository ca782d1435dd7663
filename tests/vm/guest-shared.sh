#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Inside the VM (tests/vm/vm.sh -d MIB), in the build tree: the library on
# NFS and SMB3 mounts of the guest's own servers (tests/vm/servers.sh),
# each exporting an ext3 filesystem (no fallocate: the library emulates)
# and an ext4 one, bytes checked on the server side (issue 30).
#   NFSv3 and NFSv4.2 of each; SMB 3.1.1 of each with a lease (the
#   default) and without (nolease,cache=none).
# Per mount: realfs-check's matrix of descriptor kinds (make check-fs's:
# O_RDWR, O_WRONLY, O_APPEND, O_DIRECT, O_DSYNC, growth, holes), the
# allocation read on the server's file and the library compared with the
# kernel's answer on a twin where the kernel has fallocate there; then the
# kernel's own answer (LIBFALLOCATE_EMULATION=never), the library's and
# glibc's for a 4 MiB growth and a hole fill (tests/vm/answers.py).
# LFA_SHARED_ROWS="nfs3-ext3 smb-lease-ext4 ...": those rows only.
# Exits 1 where a matrix kind fails or the library answers 0 and leaves a
# hole on the server; 77 where nfs-utils or samba is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/servers.sh"
say() { echo "# $*"; }
for p in rpc.nfsd rpc.mountd exportfs rpcbind mount.nfs smbd smbpasswd mount.cifs; do
	command -v $p > /dev/null 2>&1 ||
		{ echo "SKIP: no $p (packages nfs-kernel-server, rpcbind, samba, cifs-utils)"; exit 77; }
done
checker=tests/realfs/realfs-check-public
lib=$PWD/.libs/libfallocate.so
[ -x $checker ] && [ -e "$lib" ] || { echo "guest-shared.sh: the build tree is not built" >&2; exit 99; }
say "guest kernel: $(uname -r), $(nproc) CPUs"
for m in loop ext4 virtio_blk; do modprobe "$m" || say "modprobe $m failed"; done
started=$(date +%s)

# ext4 on the disk, ext3 on a loop image inside it.
[ -b /dev/vda ] || { echo "guest-shared.sh: no /dev/vda (vm.sh -d)" >&2; exit 99; }
mkdir -p /srv/ext4 /srv/ext3
mkfs.ext4 -q -F /dev/vda && mount -t ext4 /dev/vda /srv/ext4 &&
	truncate -s 400M /srv/ext4/ext3.img && mkfs.ext3 -q -F /srv/ext4/ext3.img &&
	mount -o loop -t ext3 /srv/ext4/ext3.img /srv/ext3 ||
	{ echo "guest-shared.sh: cannot make the filesystems" >&2; exit 99; }
mkdir -p /srv/ext4/share /srv/ext3/share && chmod 1777 /srv/ext4/share /srv/ext3/share
nfs_start ext3=/srv/ext3/share ext4=/srv/ext4/share || exit 99
smb_start ext3=/srv/ext3/share ext4=/srv/ext4/share || exit 99

rc=0
wanted() {
	case " ${LFA_SHARED_ROWS:-$1} " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}
# row NAME FSTYPE CHECKER_OPTS: the matrix and the answers on /mnt/row
row() {
	name=$1 fs=$2 opts=$3
	t0=$(date +%s)
	mkdir -p /mnt/row/m && rm -rf /srv/$fs/share/m && mkdir -p /srv/$fs/share/m ||
		{ echo "ROW $name FAIL cannot make its directory"; rc=1; return; }
	# shellcheck disable=SC2086 # options, split
	out=$($checker -p $opts -b /srv/$fs/share/m fs /mnt/row/m 2>&1)
	echo "$out" | grep '^# ' | sed "s|^|[$name] |"
	echo "$out" | grep '^KIND ' | sed "s|^KIND |[$name] |"
	echo "$out" | grep -q '^KIND ' || { echo "[$name] the checker said: $(echo "$out" | tail -n 2)"; rc=1; }
	echo "$out" | grep -q '^KIND [^ ]* FAIL' && rc=1
	for shape in growth holes; do
		k=$(LIBFALLOCATE_EMULATION=never LD_PRELOAD=$lib python3 "$here/answers.py" $shape /mnt/row/m /srv/$fs/share/m k $fs 2>&1)
		l=$(LD_PRELOAD=$lib python3 "$here/answers.py" $shape /mnt/row/m /srv/$fs/share/m l $fs 2>&1)
		g=$(python3 "$here/answers.py" $shape /mnt/row/m /srv/$fs/share/m g $fs 2>&1)
		echo "[$name] $shape: kernel $k; library $l; glibc $g"
		case $l in
		"rc=0 "*" holes=0 intact=yes") ;;
		"rc=0 "*) echo "[$name] FAIL: the library answered 0 and left the range unallocated or changed"; rc=1 ;;
		*" intact=yes")
			# an error, nothing lost: only where the kernel and glibc failed too
			case "$k$g" in *rc=0*) echo "[$name] FAIL: the library failed where the kernel or glibc did not"; rc=1 ;; esac ;;
		*) echo "[$name] FAIL: $l"; rc=1 ;;
		esac
	done
	rm -rf /srv/$fs/share/m
	say "$name: $(($(date +%s) - t0)) s"
}

for fs in ext3 ext4; do
	for v in 3 4.2; do
		wanted nfs$v-$fs || continue
		nfs_mount $v hard $fs /mnt/row || { echo "ROW nfs$v-$fs FAIL: cannot mount"; rc=1; continue; }
		[ $v = 3 ] || nfs_wait_grace /mnt/row
		row nfs$v-$fs $fs ""
		umount /mnt/row
	done
	for lease in lease nolease; do
		wanted smb-$lease-$fs || continue
		o=""
		[ $lease = nolease ] && o=",nolease,cache=none"
		smb_mount "$o" $fs /mnt/row || { echo "ROW smb-$lease-$fs FAIL: cannot mount"; rc=1; continue; }
		# SMB finds files by name (src/names_files.c): -N
		row smb-$lease-$fs $fs -N
		umount /mnt/row
	done
done
servers_stop
say "shared filesystems: $(($(date +%s) - started)) s"
exit $rc

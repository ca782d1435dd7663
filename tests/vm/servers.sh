# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Sourced inside the VM (tests/vm/vm.sh) by guest-nfs.sh and
# guest-shared.sh: the guest's own servers, on 127.0.0.1 only.
#
#   nfs_start NAME=DIR...   nfsd exporting each DIR as /export/NAME (v3)
#                           and /NAME (v4, under a tmpfs root with fsid=0:
#                           the overlay over 9p that is the guest's root
#                           cannot be exported); a grace period of 10 s
#   nfs_mount VERS OPTS NAME MOUNTPOINT
#   nfs_wait_grace DIR      v4: wait until an open on DIR passes the grace
#   smb_start NAME=DIR...   smbd sharing each DIR as //127.0.0.1/NAME, user
#                           root, password "lfa" (SMB2 and later)
#   smb_mount OPTS NAME MOUNTPOINT   SMB 3.1.1 (OPTS: extra mount options)
#   servers_stop
# Each returns non-zero, saying why on stderr, where it cannot.

nfs_start() {
	for m in sunrpc nfsd nfs nfsv3 nfsv4; do
		modprobe "$m" || echo "# modprobe $m failed"
	done
	mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /run/rpcbind /export
	mountpoint -q /export || mount -t tmpfs -o mode=755 nfsroot /export || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	echo 10 > /proc/fs/nfsd/nfsv4leasetime 2> /dev/null || echo "# no nfsv4leasetime"
	echo 10 > /proc/fs/nfsd/nfsv4gracetime 2> /dev/null || echo "# no nfsv4gracetime"
	echo "/export 127.0.0.1(rw,fsid=0,crossmnt,no_subtree_check,no_root_squash,insecure)" > /etc/exports
	fsid=1
	for e in "$@"; do
		mkdir -p "/export/${e%%=*}" && mount --bind "${e#*=}" "/export/${e%%=*}" || return 1
		echo "/export/${e%%=*} 127.0.0.1(rw,fsid=$fsid,no_subtree_check,no_root_squash,insecure)" >> /etc/exports
		fsid=$((fsid + 1))
	done
	: > /var/lib/nfs/etab
	rpcbind -w 2> /dev/null || rpcbind || { echo "servers.sh: rpcbind failed" >&2; return 1; }
	exportfs -ra || return 1
	rpc.mountd -H 127.0.0.1 2> /dev/null || rpc.mountd || return 1
	rpc.nfsd -H 127.0.0.1 4 || { echo "servers.sh: rpc.nfsd failed" >&2; return 1; }
	nfs_running=1
}

nfs_mount() {
	mkdir -p "$4"
	case $1 in
	3) mount -t nfs -o "vers=3,nolock,$2" "127.0.0.1:/export/$3" "$4" ;;
	*) mount -t nfs -o "vers=$1,$2" "127.0.0.1:/$3" "$4" ;;
	esac
}

nfs_wait_grace() {
	t=0
	until : > "$1/.grace" 2> /dev/null || [ $t -ge 60 ]; do sleep 1; t=$((t + 1)); done
	rm -f "$1/.grace"
}

smb_start() {
	# The SMB3 client signs and seals with these; modprobe cifs alone
	# leaves "Could not allocate shash TFM 'cmac(aes)'" on 6.1.
	for m in cifs cmac ccm gcm aes_generic aesni_intel sha256_generic sha512_generic hmac \
		md5 md4 ecb cbc ctr des_generic libdes nls_utf8; do
		modprobe "$m" 2> /dev/null || echo "# modprobe $m failed"
	done
	mkdir -p /var/lib/samba/private /run/samba /var/cache/samba /var/log/samba /tmp/lfa-smb
	{
		printf '[global]\n interfaces = lo\n bind interfaces only = yes\n smb ports = 445\n'
		printf ' disable netbios = yes\n server role = standalone server\n'
		printf ' passdb backend = tdbsam\n log file = /tmp/lfa-smb/log\n log level = 1\n'
		printf ' server min protocol = SMB2\n load printers = no\n'
		printf ' pid directory = /tmp/lfa-smb\n lock directory = /tmp/lfa-smb\n'
		printf ' state directory = /tmp/lfa-smb\n cache directory = /tmp/lfa-smb\n'
		for e in "$@"; do
			printf '[%s]\n path = %s\n read only = no\n force user = root\n' "${e%%=*}" "${e#*=}"
		done
	} > /tmp/lfa-smb/smb.conf
	printf 'lfa\nlfa\n' | smbpasswd -c /tmp/lfa-smb/smb.conf -s -a root > /dev/null ||
		{ echo "servers.sh: smbpasswd failed" >&2; return 1; }
	smbd -s /tmp/lfa-smb/smb.conf -D || { echo "servers.sh: smbd failed" >&2; return 1; }
	t=0
	until [ -s /tmp/lfa-smb/smbd.pid ] || [ $t -ge 20 ]; do sleep 1; t=$((t + 1)); done
	smb_running=1
}

smb_mount() {
	mkdir -p "$3"
	mount -t cifs "//127.0.0.1/$2" "$3" -o "username=root,password=lfa,vers=3.1.1$1"
}

servers_stop() {
	[ -n "${smb_running:-}" ] && kill "$(cat /tmp/lfa-smb/smbd.pid)" 2> /dev/null
	if [ -n "${nfs_running:-}" ]; then
		rpc.nfsd 0
		exportfs -ua
	fi
	smb_running="" nfs_running=""
}

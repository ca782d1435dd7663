#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Runs one script inside Debian 12's own kernel (linux-image-amd64, 6.1)
# under qemu-system-x86_64 (issue 30): the kernel package comes from
# Debian's archive (apt-get download, never another address), is unpacked
# and given a small initramfs of busybox-static and the modules that mount
# the host's root filesystem over 9p, read-only, under a tmpfs overlay: the
# guest sees every host package and the built tree at their own paths, and
# what it writes is gone at power-off.  No network device (-nic none): all
# a guest server says goes over its own 127.0.0.1.  The guest's kernel
# modules are the package's, bound over /lib/modules/VERSION.
#
#   vm.sh [-m MEMORY_MIB] [-c CPUS] [-d DISK_MIB] SCRIPT [ARG...]
#
# -d gives the guest an empty disk of that size, /dev/vda (virtio, sparse
# on the host, removed at exit), for filesystems of its own.
# Runs "sh SCRIPT ARG..." as root in the guest, in the current directory,
# with LFA_SHARED_ROWS, LFA_NFS_ROWS, LFA_CEPH_SECOND and LFA_CEPH_ROWS
# from our environment, its output on ours and its exit status as ours.  Exit 77 (and why)
# where the machine cannot: no qemu-system-x86_64, no busybox-static, no
# kernel package to be had.  LFA_VM_CACHE=DIR keeps the unpacked kernel and
# the initramfs there between runs (CI: one per job); without it they are
# made in a temporary directory and removed at exit.  LFA_VM_ACCEL=kvm
# where nested KVM works (tcg, the default: on this machine's kind a guest
# under KVM hung at boot, 6.1 under TCG boots in 5 s).  LFA_VM_TIMEOUT:
# seconds before the guest is stopped (600).
set -eu

memory=2048 cpus=2 disk=0
while [ $# -gt 0 ]; do
	case $1 in
	-m) memory=$2; shift 2 ;;
	-c) cpus=$2; shift 2 ;;
	-d) disk=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "vm.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: vm.sh [-m MIB] [-c CPUS] [-d MIB] SCRIPT [ARG...]" >&2; exit 2; }

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root: the 9p export of / needs root to read every file"
qemu=$(command -v qemu-system-x86_64) || skip "no qemu-system-x86_64 (package qemu-system-x86)"
[ -x /bin/busybox ] && /bin/busybox --list | grep -qx modprobe ||
	skip "no /bin/busybox with modprobe (package busybox-static)"
command -v depmod > /dev/null 2>&1 || skip "no depmod (package kmod)"

here=$(cd "$(dirname "$0")" && pwd)
script=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lfa-vm.XXXXXX")
trap 'rm -rf --one-file-system "$tmp"' EXIT
chmod 755 "$tmp"
cache=${LFA_VM_CACHE:-$tmp/cache}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# The kernel: the package linux-image-amd64 depends on, unpacked once.
# apt-get download writes into the current directory as user _apt where it
# can, and as root (with a warning) where _apt cannot enter.
kernel_ready() {
	[ -e "$cache/kernel/ready" ]
}
if ! kernel_ready; then
	rm -rf "$cache/kernel"
	mkdir -p "$cache/kernel/deb"
	pkg=$(apt-cache depends linux-image-amd64 2> /dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || skip "apt-cache knows no linux-image-amd64 (run apt-get update)"
	(cd "$cache/kernel/deb" && apt-get download -q "$pkg" > "$cache/kernel/apt.log" 2>&1) ||
		skip "apt-get download $pkg failed: $(tail -n 1 "$cache/kernel/apt.log")"
	dpkg-deb -x "$cache/kernel/deb/$pkg"_*.deb "$cache/kernel/root"
	rm -rf "$cache/kernel/deb"
	version=$(ls "$cache/kernel/root/lib/modules")
	depmod -b "$cache/kernel/root" "$version"
	echo "$version" > "$cache/kernel/ready"
fi
version=$(cat "$cache/kernel/ready")
modules=$cache/kernel/root/lib/modules/$version
vmlinuz=$cache/kernel/root/boot/vmlinuz-$version

# The initramfs: busybox, /init, and the modules that mount the host's
# root (virtio-pci, 9p, overlayfs) in an order that loads each after what
# it needs (modules.dep lists those last-loaded first).
# Made again when /init changed (cmp: -nt is not POSIX).
if [ ! -e "$cache/initrd.cpio.gz" ] || ! cmp -s "$here/init" "$cache/init"; then
	ird=$tmp/initrd
	mkdir -p "$ird/bin" "$ird/lib/modules"
	cp /bin/busybox "$ird/bin/busybox"
	cp "$here/init" "$ird/init"
	chmod 755 "$ird/init"
	: > "$ird/modules.order"
	for want in virtio_pci 9pnet_virtio 9p overlay; do
		line=$(grep -E "/$want\.ko(\.[a-z]+)?:" "$modules/modules.dep") ||
			{ echo "vm.sh: no module $want in $version" >&2; exit 1; }
		deps=${line#*:}
		for m in $(printf '%s\n' $deps | tac) "${line%%:*}"; do
			grep -qx "$m" "$ird/modules.order" && continue
			echo "$m" >> "$ird/modules.order"
			mkdir -p "$ird/lib/modules/$(dirname "$m")"
			cp "$modules/$m" "$ird/lib/modules/$m"
		done
	done
	(cd "$ird" && find . | /bin/busybox cpio -o -H newc 2> /dev/null | gzip -1) > "$cache/initrd.cpio.gz.new"
	mv "$cache/initrd.cpio.gz.new" "$cache/initrd.cpio.gz"
	cp "$here/init" "$cache/init"
	rm -rf "$ird"
fi

# The job: what the guest's /init runs, and where it leaves its status.
out=$tmp/out
mkdir "$out"
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
	printf 'cd %s || exit 99\n' "'$(pwd)'"
	# The guest's init starts the job with an empty environment: the
	# guest scripts' own settings go with it (single-line values).
	for v in LFA_SHARED_ROWS LFA_NFS_ROWS LFA_CEPH_SECOND LFA_CEPH_ROWS; do
		eval "[ -n \"\${$v+set}\" ]" || continue
		printf 'export %s=%s\n' "$v" "$(eval quote "\"\$$v\"")"
	done
	printf 'exec sh %s' "'$script'"
	for a in "$@"; do
		printf ' %s' "$(quote "$a")"
	done
	echo
} > "$out/job"
echo "$version" > "$out/version"
echo "$modules" > "$out/modules"

accel=${LFA_VM_ACCEL:-tcg}
cpu=max
drive=''
if [ "$disk" != 0 ]; then
	truncate -s "${disk}M" "$tmp/disk.img"
	drive="-drive file=$tmp/disk.img,format=raw,if=virtio,cache=unsafe"
fi
[ "$accel" = kvm ] && cpu=host

# The console is the guest's only output: its serial port on our stdout.
timeout -k 10 "${LFA_VM_TIMEOUT:-600}" "$qemu" -accel "$accel" -cpu "$cpu" -m "$memory" -smp "$cpus" \
	-nodefaults -no-reboot -display none -nic none \
	-serial stdio -monitor none $drive \
	-kernel "$vmlinuz" -initrd "$cache/initrd.cpio.gz" \
	-append "console=ttyS0 ${LFA_VM_KERNEL_ARGS-quiet loglevel=3} panic=-1 rdinit=/init" \
	-virtfs local,path=/,mount_tag=lfa-host,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$out",mount_tag=lfa-out,security_model=none < /dev/null
[ -s "$out/rc" ] || { echo "vm.sh: the guest left no exit status (it crashed or ran out of time)"; exit 1; }
exit "$(cat "$out/rc")"

# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Sourced by .ci/run: whether this kernel runs i386 programs, and where it
# does not, qemu-i386 registered with binfmt_misc for the run, so every i386
# test (the i386 tree's make check, the cross matrix's i386 row, the i386
# Debian build and the multiarch autopkgtest) runs as on a native machine.
# The registration is this run's alone (named lfa-i386) and removed at exit.
#
# LFA_I386_NATIVE=no makes the detection answer "no" on a kernel that runs
# i386 programs: binfmt_misc's handlers come before the kernel's own ELF
# loader, so the same registration then routes i386 programs through qemu.

i386_binfmt=/proc/sys/fs/binfmt_misc
i386_entry=lfa-i386
i386_qemu=/usr/bin/qemu-i386-static
i386_mounted_binfmt=no
i386_probe_dir=''

# A program that prints its uname machine: i686 under qemu-i386, x86_64
# for a 32-bit program on an x86_64 kernel.
i386_build_probe() {
	[ -n "$i386_probe_dir" ] && return 0
	i386_probe_dir=$(mktemp -d "${TMPDIR:-/tmp}/lfa-i386.XXXXXX")
	printf '%s\n' '#include <stdio.h>' '#include <sys/utsname.h>' \
		'int main(void) { struct utsname u; uname(&u); puts(u.machine); return 0; }' \
		> "$i386_probe_dir/probe.c"
	gcc -m32 -o "$i386_probe_dir/probe" "$i386_probe_dir/probe.c"
}

# Prints "native", "none" (with LFA_I386_NATIVE=no: always "none"), or
# "handler": the probe runs, but not as the kernel's own (its machine is
# not the kernel's), so a binfmt_misc handler this run did not register
# (a machine's own qemu-i386) runs i386 programs.
i386_detect() {
	local machine
	i386_build_probe || { echo none; return; }
	[ "${LFA_I386_NATIVE:-}" != no ] || { echo none; return; }
	if machine=$("$i386_probe_dir/probe" 2> /dev/null); then
		if [ "$machine" = "$(uname -m)" ]; then echo native; else echo handler; fi
	else
		echo none
	fi
}

# Registers qemu-i386 for i386 ELF programs (F: opened now, so it serves in
# every mount namespace; C: credentials from the program, so setuid tests
# stay meaningful; the kernel asks the newest handler first, so it also
# stands in front of a machine's own) and checks that a probe now runs under it.  WHY is said
# in the skip messages of tests that cannot run under qemu.
i386_qemu_on() { # WHY
	i386_build_probe || return 1
	[ -x "$i386_qemu" ] || { echo "no $i386_qemu (qemu-user-static)"; return 1; }
	if [ ! -e "$i386_binfmt/register" ]; then
		mount -t binfmt_misc binfmt_misc "$i386_binfmt" 2> /dev/null ||
			{ echo "cannot mount binfmt_misc"; return 1; }
		i386_mounted_binfmt=yes
	fi
	[ ! -e "$i386_binfmt/$i386_entry" ] || echo -1 > "$i386_binfmt/$i386_entry"
	printf '%s' ":$i386_entry:M::"'\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00:\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'":$i386_qemu:FC" \
		> "$i386_binfmt/register" 2> /dev/null || { echo "binfmt_misc refused the registration"; return 1; }
	local machine
	machine=$("$i386_probe_dir/probe" 2>&1) || true
	[ "$machine" = i686 ] || { echo "an i386 program does not run under qemu after all: $machine"; return 1; }
	export LFA_I386_EMULATED="i386 programs run under qemu-i386 (binfmt_misc): $1"
}

i386_qemu_off() {
	[ ! -e "$i386_binfmt/$i386_entry" ] || echo -1 > "$i386_binfmt/$i386_entry"
	if [ "$i386_mounted_binfmt" = yes ]; then
		umount "$i386_binfmt" 2> /dev/null || true
		i386_mounted_binfmt=no
	fi
	unset LFA_I386_EMULATED
}

i386_cleanup() {
	i386_qemu_off
	[ -z "$i386_probe_dir" ] || rm -rf "$i386_probe_dir"
	i386_probe_dir=''
}

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

# tests/lib/target-probe built for i386: it starts where something runs
# i386 programs, and --emulator names the emulator a binfmt_misc handler
# runs them under (nothing where the kernel runs them; exit 2: cannot
# tell), the same look the tests take (tests/lib/lib.sh).
i386_probe_src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/lib/target-probe.c
i386_build_probe() {
	[ -n "$i386_probe_dir" ] && return 0
	i386_probe_dir=$(mktemp -d "${TMPDIR:-/tmp}/lfa-i386.XXXXXX")
	gcc -m32 -o "$i386_probe_dir/probe" "$i386_probe_src"
}

# Prints "native", "none" (with LFA_I386_NATIVE=no: always "none"), or
# "handler WHAT": i386 programs run, but under an emulator a binfmt_misc
# handler this run did not register (a machine's own qemu-i386), or where
# the probe cannot tell.
i386_detect() {
	local emulator rc=0
	i386_build_probe || { echo none; return; }
	[ "${LFA_I386_NATIVE:-}" != no ] || { echo none; return; }
	emulator=$("$i386_probe_dir/probe" --emulator 2> /dev/null) || rc=$?
	case $rc:$emulator in
	0:) echo native ;;
	0:*) echo "handler $emulator" ;;
	2:*) echo "handler tests/lib/target-probe --emulator cannot tell: taken as one" ;;
	*) echo none ;;
	esac
}

# Registers qemu-i386 for i386 ELF programs (F: opened now, so it serves in
# every mount namespace; C: credentials from the program, so setuid tests
# stay meaningful; the kernel asks the newest handler first, so it also
# stands in front of a machine's own) and checks that the probe now runs
# under it.  WHY is said in the skip messages of tests that cannot run
# under qemu.
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
	local emulator
	emulator=$("$i386_probe_dir/probe" --emulator 2>&1) || true
	case $emulator in
	"$i386_qemu" | "$i386_qemu (deleted)") ;;
	*) echo "an i386 program does not run under $i386_qemu after all: ${emulator:-the kernel runs it}"; return 1 ;;
	esac
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

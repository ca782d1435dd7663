# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Sourced by the shell tests.  Exit codes follow automake: 0 pass, 1 fail,
# 77 skip (with the reason printed), 99 hard error.
set -u
: "${top_builddir:=$(pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${LFA_LIBRARY:=$top_builddir/.libs/libfallocate.so.1}"
LFA_CALL=$top_builddir/tests/lib/lfa-call
# shellcheck disable=SC2034 # for the tests that source this
LFA_CALL_LFS=$top_builddir/tests/lib/lfa-call-lfs
WITH_ERRNO=$top_builddir/tests/lib/with-fallocate-errno

skip() { echo "SKIP: $*$(emulated_note)"; exit 77; }
# Where CI runs i386 programs under qemu (.ci/i386.sh), an i386 tree's
# skips say so: qemu-user has no seccomp, and strace sees qemu's syscalls.
emulated_note() {
	[ -n "${LFA_I386_EMULATED:-}" ] && [ -e "$LFA_CALL" ] &&
		[ "$(elf_class "$LFA_CALL")" = 1 ] && printf ' (%s)' "$LFA_I386_EMULATED"
}
# Whether this tree's programs run under qemu-user (.ci/i386.sh), which
# refuses every pwritev2 flag and knows no cachestat.
under_qemu_user() {
	[ -n "${LFA_I386_EMULATED:-}" ] && [ -e "$LFA_CALL" ] && [ "$(elf_class "$LFA_CALL")" = 1 ]
}
fail() { echo "FAIL: $*"; exit 1; }
note() { echo "# $*"; }
# A machine may have its own binfmt_misc handler for i386 programs (a
# qemu-i386 registered before any test): they then start as if the kernel
# ran them, and only tests/lib/target-probe --emulator tells.  Such a tree
# is treated as under .ci/i386.sh's qemu.
if [ -z "${LFA_I386_EMULATED:-}" ] && [ -x "$top_builddir/tests/lib/target-probe" ]; then
	if lfa_emulator=$("$top_builddir/tests/lib/target-probe" --emulator 2> /dev/null); then
		[ -z "$lfa_emulator" ] ||
			export LFA_I386_EMULATED="this tree's programs run under $lfa_emulator, a binfmt_misc handler"
	else
		note "cannot tell whether an emulator runs this tree's programs (tests/lib/target-probe --emulator): taken as the kernel"
	fi
fi

# A scratch directory on the machine's disk, removed at exit.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/lfa-sh.XXXXXX") || exit 99
cleanup_hooks=""
on_exit() { cleanup_hooks="$1; $cleanup_hooks"; }
trap 'eval "$cleanup_hooks"; rm -rf "$scratch"' EXIT

need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"; }
# Why fallocate-preload --seccomp (the wrapper WRAPPER) cannot serve here,
# printed: the kernel's refusal (exit 126); nothing where it can.  Any
# other answer is a failure of ours: "FAIL: ..." printed, status 1, for a
# command substitution's caller to pass on.  In an i386 tree on a kernel
# that runs i386 programs, ld.so says the library of the other class is
# not preloaded into /bin/true: the supervisor ran.
seccomp_unserved() { # WRAPPER
	sc_rc=0
	sc_out=$("$1" --seccomp true 2>&1) || sc_rc=$?
	case $sc_rc:$sc_out in
	0: | 0:*"wrong ELF class"*) ;;
	126:*kernel*) printf '%s\n' "$sc_out" ;;
	*) echo "FAIL: $1 --seccomp true: exit $sc_rc: $sc_out"; return 1 ;;
	esac
}
need_seccomp() {
	[ -x "$WITH_ERRNO" ] || skip "built without libseccomp: no with-fallocate-errno"
	"$WITH_ERRNO" ENOSYS true || skip "cannot install a seccomp filter here"
}
# Whether two ELF files are of one class (32 or 64 bits): a library preloads
# only into programs of its own class.
elf_class() { od -An -tu1 -j4 -N1 "$1" | tr -d ' '; }
# A library built against another C library (musl-gcc) keeps the system's
# programs from starting at all when preloaded.
need_system_libc() {
	LD_PRELOAD=$1 /bin/sh -c : >/dev/null 2>&1 ||
		skip "$(basename "$1") cannot be preloaded into this system's programs (built for another C library?)"
}
need_same_class() {
	need_system_libc "$1"
	[ "$(elf_class "$1")" = "$(elf_class "$2")" ] ||
		skip "$(basename "$2") and $(basename "$1") are of different ELF classes"
}
file_size() { stat -c %s "$1"; }

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check's runner (automake's LOG_COMPILER and SH_LOG_COMPILER, issue
# 31): every test of a tree whose programs this kernel cannot start (an
# i386 tree, built with gcc -m32, on a kernel without IA32 emulation:
# "Exec format error") would fail.  So before each test it runs
# tests/lib/target-probe, built like the tests:
#  - it starts (natively, or through a binfmt_misc handler such as the
#    qemu-i386 .ci/i386.sh registers): the test runs as it is;
#  - it does not, but under configure's qemu-user (LFA_TARGET_QEMU:
#    qemu-i386 or qemu-i386-static for an i386 tree) it does: a test
#    program runs under that qemu; a shell test skips, since it starts the
#    tree's programs itself and only binfmt_misc could put qemu there;
#  - neither: the test skips, saying why.
# Usage: target-run.sh TEST [ARGS]            (a test program)
#        target-run.sh --shell SHELL TEST.sh   (a shell test)
# Exit status: the test's, or 77 for a skip.
set -u
shell=''
if [ "${1:-}" = --shell ]; then
	shell=$2
	shift 2
fi
: "${top_builddir:=$(pwd)}"
probe=$top_builddir/tests/lib/target-probe

run() { # the test as make check would run it without this runner
	if [ -n "$shell" ]; then
		exec "$shell" "$@"
	fi
	exec "$@"
}

# No probe (a test run by hand before the programs were built): as before.
[ -x "$probe" ] || run "$@"
"$probe" > /dev/null 2>&1 && run "$@"
err=$("$probe" 2>&1 | head -n 1)
why="this kernel does not run this tree's programs (tests/lib/target-probe: ${err##*: })"
qemu=${LFA_TARGET_QEMU:-}
if [ -z "$qemu" ]; then
	echo "SKIP: $why, and configure found no qemu-user for them (qemu-user or qemu-user-static; LFA_TARGET_QEMU=PATH at configure time names one)"
	exit 77
fi
if ! "$qemu" "$probe" > /dev/null 2>&1; then
	echo "SKIP: $why, and $qemu does not run them either (exit $?: $("$qemu" "$probe" 2>&1 | head -n 1))"
	exit 77
fi
if [ -n "$shell" ]; then
	echo "SKIP: $why; a shell test starts them itself, which needs $(basename "$qemu") registered with binfmt_misc (as .ci/i386.sh does for CI); the test programs run under $qemu"
	exit 77
fi
echo "# $why: under $qemu"
exec "$qemu" "$@"

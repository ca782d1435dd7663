# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Sourced by the --seccomp tests after lib.sh: the wrapper and its helper,
# root and the kernel's support checked (skips otherwise), and
# tests/seccomp/seccomp-target.c built statically as $bin/glibc-static, out of
# LD_PRELOAD's reach.
w=${FALLOCATE_PRELOAD:-$top_builddir/tools/fallocate-preload}
helper=${FALLOCATE_PRELOAD_SECCOMP_HELPER:-$top_builddir/tools/fallocate-seccomp}
[ -x "$w" ] || fail "no $w"
[ -x "$helper" ] || skip "fallocate-seccomp is not built (this compiler lacks Linux's seccomp headers)"
. "$top_srcdir/tests/lib/realfs-lib.sh"
need_root
: "${FALLOCATE_PRELOAD_LIBRARY:=$LFA_LIBRARY}"
export FALLOCATE_PRELOAD_LIBRARY FALLOCATE_PRELOAD_SECCOMP_HELPER=$helper
need_same_class "$FALLOCATE_PRELOAD_LIBRARY" /bin/sh
unset LIBFALLOCATE_EMULATION LIBFALLOCATE_DEBUG LIBFALLOCATE_EMULATE_FALLOCATE \
	FALLOCATE_PRELOAD_SECCOMP LD_PRELOAD
why=$(seccomp_unserved "$w") || { echo "$why"; exit 1; }
[ -z "$why" ] || skip "$why"
bin=$scratch/bin
mkdir "$bin" || exit 99
${CC:-cc} -static -O2 -pthread -o "$bin/glibc-static" "$top_srcdir/tests/seccomp/seccomp-target.c" \
	2>"$scratch/cc.err" || skip "cannot link statically with glibc: $(head -3 "$scratch/cc.err")"
# shellcheck disable=SC2034 # rc and out are for the tests that source this
run() { rc=0; out=$("$@" 2>&1) || rc=$?; }
# Milliseconds of CLOCK_REALTIME (GNU date).
now_ms() { echo $(($(date +%s%N) / 1000000)); }

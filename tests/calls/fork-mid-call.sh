#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A child forked mid-call holds none of the call's descriptors (issue 31,
# item 6): one thread calls posix_fallocate (the emulation, 8 MiB) again
# and again while another forks in a loop, and each child looks for a
# descriptor of the file other than the caller's, which it knows.  The
# parent first touches 128 MiB, so that each fork, which copies the
# descriptor table first and the page tables after, overlaps more of a
# call.  Before the fix the job's duplicate was in about 1 child in 2
# (the slot was emptied before its close); now in none.  A child made by
# _Fork(3), which runs no atfork handler, still holds it (README, Known
# limits): reported, not required.
#
# Under qemu-user (the i386 tree where the kernel runs no i386 programs)
# a held descriptor is reported, not failed: qemu's fork stops every other
# guest thread at its next guest instruction, so a thread whose dup or open
# returns while the fork runs is held before the store that records the new
# descriptor: 9 of 64 runs held one there before the fork's handler waited
# for descriptors being made (src/job_fds.c; the instant itself is
# check_race's fork_between_dup_and_record), which a wait bounded at
# 100 ms may still miss there.
. "${top_srcdir:-.}/tests/lib/lib.sh"
prog=$top_builddir/tests/calls/fork-mid-call
[ -x "$prog" ] || fail "no $prog"
unset LD_PRELOAD
export LIBFALLOCATE_EMULATION=always
mkdir "$scratch/d" || exit 99
runs=0
children=0
held=0
while [ "$runs" -lt 4 ]; do
	rc=0
	out=$("$prog" fork "$scratch/d" 25 8388608 128 2>&1) || rc=$?
	note "run $((runs + 1)): $out"
	if [ "$rc" = 1 ] && under_qemu_user; then
		held=$((held + 1))
	elif [ "$rc" != 0 ]; then
		fail "fork(3) mid-call: a child held the file: $out"
	fi
	n=$(echo "$out" | sed -n 's/.* calls, \([0-9]*\) children.*/\1/p')
	children=$((children + ${n:-0}))
	runs=$((runs + 1))
done
if [ "$held" = 0 ]; then
	note "fork(3): $children children in $runs runs of 25 calls, none held the file"
else
	note "fork(3) under qemu-user: $children children in $runs runs, a child held the file in $held runs (qemu holds a thread between its syscall and the store; not failed there)"
fi
rc=0
out=$("$prog" _Fork "$scratch/d" 10 8388608 128 2>&1) || rc=$?
case $rc in
0|1) note "_Fork(3), no atfork handlers (a known limit): $out" ;;
77) note "_Fork(3): $out" ;;
*) fail "_Fork run: exit $rc: $out" ;;
esac
exit 0

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The kernel receives exactly what the caller passed: one fallocate syscall
# per call, with the caller's fd, mode, offset and length (above 4 GiB and
# across 2^32 included), and never one of the syscalls that the 2007 RFC's
# numbers now stand for (utimensat, getcpu).
. "${top_srcdir:-.}/tests/lib/lib.sh"
need_cmd strace
strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"

mode_name() {
	case $1 in
	0) echo 0 ;;
	1) echo FALLOC_FL_KEEP_SIZE ;;
	3) echo "FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE" ;;
	*) fail "no strace name for mode $1" ;;
	esac
}

check() { # check PROGRAM CALL...
	prog=$1; shift
	f=$scratch/strace-$(basename "$prog")
	rm -f "$f"
	LIBFALLOCATE_EMULATION=never strace -f -qq -e trace=fallocate,utimensat,getcpu \
		-o "$scratch/trace" "$prog" "$f" "$@" > "$scratch/calls" ||
		fail "$(basename "$prog") failed: $(cat "$scratch/calls")"
	grep -Ev '^[0-9]+ +fallocate\(' "$scratch/trace" | grep -E 'utimensat|getcpu' &&
		fail "a syscall other than fallocate was issued"
	n_calls=$(grep -c ' -> ' "$scratch/calls")
	n_traced=$(grep -Ec '^[0-9]+ +fallocate\(' "$scratch/trace")
	[ "$n_calls" = "$n_traced" ] || fail "$n_calls calls, $n_traced fallocate syscalls: $(cat "$scratch/trace")"
	# Each call's line, in order, against the syscall the kernel saw.
	grep ' -> ' "$scratch/calls" > "$scratch/call-lines"
	i=0
	while read -r name fd mode offset len _; do
		i=$((i + 1))
		want="fallocate(${fd#fd=}, $(mode_name "${mode#mode=}"), ${offset#offset=}, ${len#len=})"
		got=$(grep -E '^[0-9]+ +fallocate\(' "$scratch/trace" | sed -n "${i}p" | sed -E 's/^[0-9]+ +//; s/ *= .*//')
		[ "$got" = "$want" ] || fail "call $i ($name): kernel saw '$got', wanted '$want'"
		note "$name: $got"
	done < "$scratch/call-lines"
}

G4=4294967296
# Plain names take off_t: 32 bits on 32-bit ABIs without _FILE_OFFSET_BITS.
check "$LFA_CALL" posix_fallocate:0:4096:8192 fallocate:1:8192:4096 fallocate:3:0:4096 \
	posix_fallocate64:0:$((G4 + 1073741824)):8192 fallocate64:0:$((G4 - 4096)):8192 \
	fallocate64:1:$((G4 * 3 + 12345)):$((G4 + 1))
check "$LFA_CALL_LFS" posix_fallocate:0:$((G4 + 4096)):4096 fallocate:1:$((G4 - 1)):2 \
	posix_fallocate64:0:$((G4 * 2)):8192 fallocate64:3:$((G4 * 2)):4096
echo PASS

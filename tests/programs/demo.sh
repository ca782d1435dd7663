#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make demo: preallocates a file natively, then with the emulation forced,
# then with the syscall failing ENOSYS as in a seccomp sandbox, where glibc
# alone gives up; prints what each left on disk.
. "${top_srcdir:-.}/tests/lib/lib.sh"
show() { printf '  %-44s size %10s  allocated %10s bytes\n' "$1" "$(stat -c %s "$2")" \
	"$(( $(stat -c %b "$2") * $(stat -c %B "$2") ))"; }
len=$((64 << 20))
echo "libfallocate demo: posix_fallocate(fd, 0, 64 MiB) in $scratch"
LIBFALLOCATE_DEBUG=1 "$LFA_CALL" "$scratch/native" posix_fallocate:0:0:$len >/dev/null
show "native (the kernel's fallocate):" "$scratch/native"
LIBFALLOCATE_DEBUG=1 LIBFALLOCATE_EMULATION=always "$LFA_CALL" "$scratch/emulated" \
	posix_fallocate:0:0:$len >/dev/null
show "emulated (LIBFALLOCATE_EMULATION=always):" "$scratch/emulated"
if [ -x "$WITH_ERRNO" ] && "$WITH_ERRNO" ENOSYS true 2>/dev/null; then
	if command -v python3 >/dev/null; then
		echo "  glibc alone under a filter that says ENOSYS:"
		"$WITH_ERRNO" ENOSYS python3 -c "import os; fd = os.open('$scratch/glibc', os.O_RDWR | os.O_CREAT); os.posix_fallocate(fd, 0, $len)" 2>&1 |
			tail -n 1 | sed 's/^/    /'
	fi
	LIBFALLOCATE_DEBUG=1 "$WITH_ERRNO" ENOSYS "$LFA_CALL" "$scratch/enosys" posix_fallocate:0:0:$len >/dev/null
	show "libfallocate under the same filter:" "$scratch/enosys"
fi

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# LD_PRELOAD puts our posix_fallocate under an unmodified python3: the debug
# line proves our code ran, and the file is allocated.
. "${top_srcdir:-.}/tests/lib/lib.sh"
need_cmd python3
[ -e "$LFA_LIBRARY" ] || fail "no $LFA_LIBRARY"
need_same_class "$LFA_LIBRARY" "$(python3 -c "import os, sys; print(os.path.realpath(sys.executable))")"
f=$scratch/py
out=$(LD_PRELOAD=$LFA_LIBRARY LIBFALLOCATE_EMULATION=always LIBFALLOCATE_DEBUG=1 python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
os.posix_fallocate(fd, 0, 3 << 20)
st = os.fstat(fd)
print("size", st.st_size)
print("hole", os.lseek(fd, 0, os.SEEK_HOLE))
' "$f" 2>&1) || fail "python3 failed: $out"
echo "$out"
echo "$out" | grep -q '^libfallocate: posix_fallocate.*emulated (LIBFALLOCATE_EMULATION=always' \
	|| fail "our posix_fallocate did not run"
echo "$out" | grep -qx 'size 3145728' || fail "wrong size"
echo "$out" | grep -qx 'hole 3145728' || fail "the range has a hole"
echo PASS

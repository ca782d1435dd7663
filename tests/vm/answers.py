# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
"""One posix_fallocate on a shared filesystem, checked on the server
(tests/vm/guest-shared.sh): python3 answers.py SHAPE CLIENT_DIR SERVER_DIR NAME

SHAPE "growth": 4 MiB on a new file; "holes": a 1 MiB file of data with
a 1 MiB hole before and after it, then the whole 3 MiB.  The call is
glibc's posix_fallocate, or the library's where it is preloaded.  Prints
"rc=ERRNO_NAME size=N holes=N intact=yes|no": holes counts the bytes of the
range the server's file has no blocks for (ext3/ext4: st_blocks is exact
there), intact whether the old data are still there."""
import errno
import os
import sys

MiB = 1 << 20
shape, client, server, name = sys.argv[1:5]
path, back = os.path.join(client, name), os.path.join(server, name)
data = bytes((i * 7 + 3) & 0xFF for i in range(MiB))
fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
if shape == "holes":
    os.pwrite(fd, data, MiB)
    os.ftruncate(fd, 3 * MiB)
    os.fsync(fd)
    off, length = 0, 3 * MiB
else:
    off, length = 0, 4 * MiB
try:
    os.posix_fallocate(fd, off, length)
    rc = "0"
except OSError as e:
    rc = errno.errorcode.get(e.errno, str(e.errno))
os.fsync(fd)
os.close(fd)
bfd = os.open(back, os.O_RDONLY)
size = os.fstat(bfd).st_size
# st_blocks on the server's ext3/ext4 file: its whole content lies in the
# range (SEEK_HOLE there calls unwritten extents holes, which they are not).
st = os.fstat(bfd)
holes = max(0, min(off + length, size) - off - st.st_blocks * 512)
intact = shape != "holes" or os.pread(bfd, MiB, MiB) == data
os.close(bfd)
os.unlink(path)
print(f"rc={rc} size={size} holes={holes} intact={'yes' if intact else 'no'}")

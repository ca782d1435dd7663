# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
"""One posix_fallocate on a shared filesystem, checked on the server
(tests/vm/guest-shared.sh): python3 answers.py SHAPE CLIENT_DIR SERVER_DIR NAME FS

SHAPE "growth": 4 MiB on a new file; "holes": a 1 MiB file of data with
a 1 MiB hole before and after it, then the whole 3 MiB.  The call is
glibc's posix_fallocate, or the library's where it is preloaded.  Prints
"rc=ERRNO_NAME size=N holes=N intact=yes|no": holes counts the bytes of the
range the server's file (FS: ext3 or ext4) has no blocks for, intact whether the old data are still there."""
import errno
import os
import sys

MiB = 1 << 20
shape, client, server, name, server_fs = sys.argv[1:6]
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
if server_fs == "ext3":
    # ext3 has no unwritten extents, so SEEK_HOLE is exact there (its
    # st_blocks also counts indirect blocks, which would hide a small hole)
    holes, pos, end = 0, off, min(off + length, size)
    while pos < end:
        hole = os.lseek(bfd, pos, os.SEEK_HOLE)
        if hole >= end:
            break
        try:
            nxt = os.lseek(bfd, hole, os.SEEK_DATA)
        except OSError:
            nxt = size
        holes += min(nxt, end) - hole
        pos = nxt
else:
    # ext4: st_blocks (its SEEK_HOLE calls unwritten extents holes, which
    # they are not; a file of one extent needs no block of metadata), and
    # the file's whole content lies in the range
    holes = max(0, min(off + length, size) - off - os.fstat(bfd).st_blocks * 512)
intact = shape != "holes" or os.pread(bfd, MiB, MiB) == data
os.close(bfd)
os.unlink(path)
print(f"rc={rc} size={size} holes={holes} intact={'yes' if intact else 'no'}")

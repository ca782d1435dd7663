#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# python3's os.posix_fallocate on O_APPEND descriptors on sshfs, a
# filesystem that finds files by name: O_WRONLY|O_APPEND is refused with
# EBADF as glibc refuses it, nothing written (nothing of the held file can
# be read through it, and no descriptor of the library's own is known to
# be the same file); O_RDWR|O_APPEND from the end of file, which glibc
# refuses too, grows the file through the caller's descriptor, whose
# appends the sshfs server places, with the data in place.
. "${top_srcdir:-.}/tests/shared/sshfs-lib.sh"
need_preloadable "$PYTHON"
mount_sshfs
enter_sshfs
sshfs_python_case append
sshfs_python_case rdwr-append 65536
echo PASS

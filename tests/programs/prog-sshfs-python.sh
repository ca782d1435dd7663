#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# python3's os.posix_fallocate on sshfs, a filesystem that finds files by
# name: an O_WRONLY descriptor of a file with data is refused with EBADF as
# glibc refuses it, nothing written; an O_RDWR one is allocated with its
# data in place (tests/shared/sshfs-lib.sh).
. "${top_srcdir:-.}/tests/shared/sshfs-lib.sh"
need_preloadable "$PYTHON"
mount_sshfs
enter_sshfs
sshfs_python_case wronly
sshfs_python_case rdwr
echo PASS

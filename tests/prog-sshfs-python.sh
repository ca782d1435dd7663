#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# python3's os.posix_fallocate on an O_WRONLY descriptor of a file with data,
# on sshfs: glibc fails with EBADF, the wrapper allocates (tests/sshfs-lib.sh).
. "${top_srcdir:-.}/tests/sshfs-lib.sh"
need_preloadable "$PYTHON"
mount_sshfs
enter_sshfs
sshfs_python_case wronly
echo PASS

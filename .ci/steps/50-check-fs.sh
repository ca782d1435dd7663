#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The filesystem matrix (make check-fs): a fresh image of each filesystem,
# FUSE ones through their daemons and sshfs through a throwaway sshd on
# 127.0.0.1, every descriptor kind on each; prints the table.  A filesystem
# this machine cannot mount is a SKIP with its reason, never a failure.
set -euo pipefail
make -j"$(nproc)" check-fs < /dev/null

#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The VM lane (make check-vm, issue 30): the unit tests and the
# real-filesystem tests on Debian 12's own kernel (6.1) under qemu-system
# (TCG, no network device), its package fetched from Debian's archive.
# Skips, saying why, where qemu or the package cannot be had.
set -euo pipefail
make check-vm < /dev/null

#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The cross-ABI and musl matrix (make check-cross): libfallocate cross-built
# with its own configure for each ABI and run under qemu-user, the musl
# build and its static fallback, and the self-check that a deliberately
# wrong argument order in an arch header makes that ABI's test fail.
# Runs from the top of the built x86_64 tree.  Every toolchain is required.
set -euo pipefail
# One self-check for each form of LFA_ARG64 the arch headers use: a pair in
# memory order (armhf; mips o32 has the same), an explicit high-low pair
# (powerpc) and one 64-bit register (s390x).  make check-cross alone breaks
# mips too.
make check-cross CROSS_FLAGS=--require-all CROSS_SELF_CHECKS="armhf powerpc s390x"

# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# pfallocate(1): a command on the lfa_ API, linked with the shared library.
# Only this fragment installs programs, so it owns bin_PROGRAMS (automake
# wants one '=' before any '+=').
bin_PROGRAMS = tools/pfallocate
tools_pfallocate_SOURCES = tools/pfallocate.c
# A program, not the library: 64-bit off_t for its own fstat on 32-bit ABIs.
tools_pfallocate_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tools_pfallocate_LDADD = libfallocate.la

TESTS += tests/programs/pfallocate.sh
EXTRA_DIST += tests/programs/pfallocate.sh tests/programs/pty-progress.py

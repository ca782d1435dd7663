# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# What a large emulation leaves in the page cache (issue 17): the window's
# bound, measured on the file itself with mincore (anyone, on a disk
# filesystem), and a 4 GiB emulation inside a 256 MiB memory cgroup (root).
CACHE_TESTS = tests/realfs/cache-window.sh tests/realfs/cache-cgroup.sh
TESTS += $(CACHE_TESTS)
EXTRA_DIST += $(CACHE_TESTS)

# The window's rules at its syscalls: the program defines the libc functions
# the engine calls, so it links the engine statically.
if HAVE_CHECK
check_PROGRAMS += tests/unit/check_cache tests/unit/check_cache_lfs
TESTS += tests/unit/check_cache tests/unit/check_cache_lfs
tests_unit_check_cache_SOURCES = tests/unit/check_cache.c
tests_unit_check_cache_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_cache_LDADD = $(UNIT_LDADD) -ldl
tests_unit_check_cache_lfs_SOURCES = tests/unit/check_cache.c
tests_unit_check_cache_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_unit_check_cache_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_cache_lfs_LDADD = $(UNIT_LDADD) -ldl
endif

# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The lfa_ extension API (include/libfallocate.h, lfa_allocate(3lfa)): one
# exported function per file, in the same convenience library as the rest.
libfallocate_core_la_SOURCES += \
	src/lfa_allocate.c \
	src/lfa_strholes.c \
	src/lfa_strpath.c \
	src/lfa_strreason.c \
	src/lfa_version.c

# Its unit tests run on the shared library, so they also prove the exports.
if HAVE_CHECK
UNIT_TESTS += tests/unit/check_api tests/unit/check_api_lfs
tests_unit_check_api_SOURCES = tests/unit/check_api.c
tests_unit_check_api_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_api_LDADD = libfallocate.la $(CHECK_LIBS)
tests_unit_check_api_LDFLAGS = -no-install
tests_unit_check_api_lfs_SOURCES = tests/unit/check_api.c
tests_unit_check_api_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_unit_check_api_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_api_lfs_LDADD = libfallocate.la $(CHECK_LIBS)
tests_unit_check_api_lfs_LDFLAGS = -no-install
endif

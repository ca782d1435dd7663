# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Tests.  Programs link the convenience library (internals reachable) or the
# shared library (what users get); each C test is built twice, with and
# without _FILE_OFFSET_BITS=64.
TEST_EXTENSIONS = .sh
# Every test goes through tests/target-run.sh: where this kernel cannot
# start the tree's programs (an i386 tree without IA32 emulation), test
# programs run under configure's qemu-user and the rest skip, saying why.
LOG_COMPILER = $(SHELL) $(srcdir)/tests/target-run.sh
SH_LOG_COMPILER = $(SHELL) $(srcdir)/tests/target-run.sh --shell '$(SHELL)'
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; top_builddir='$(abs_top_builddir)'; \
	LFA_LIBRARY='$(abs_top_builddir)/.libs/libfallocate.so.$(LFA_SONAME_MAJOR)'; \
	CC='$(CC)'; CXX='$(CXX)'; LFA_TARGET_QEMU='$(LFA_TARGET_QEMU)'; \
	export top_srcdir top_builddir LFA_LIBRARY CC CXX LFA_TARGET_QEMU;

TESTS += tests/header-compile.sh tests/strace-args.sh tests/preload-python.sh \
	tests/fallback.sh
EXTRA_DIST += tests/header-compile.sh tests/strace-args.sh tests/preload-python.sh \
	tests/fallback.sh tests/lib.sh tests/testutil.h
# Files of kernel interfaces refused; odd FUSE files end (issue 18).
TESTS += tests/pseudo-files.sh tests/fuse-odd-files.sh tests/kernel-answers.sh
EXTRA_DIST += tests/pseudo-files.sh tests/fuse-odd-files.sh tests/fuse-oddfs.c \
	tests/kernel-answers.sh

# The runner's probe: a program built as the tests are (tests/target-run.sh).
check_PROGRAMS += tests/target-probe
tests_target_probe_SOURCES = tests/target-probe.c
EXTRA_DIST += tests/target-run.sh

# A small program on the public API, linked with the shared library, for the
# shell tests; -no-install keeps libtool from wrapping it in a script.
check_PROGRAMS += tests/lfa-call tests/lfa-call-lfs
tests_lfa_call_SOURCES = tests/lfa-call.c
tests_lfa_call_LDADD = libfallocate.la
tests_lfa_call_LDFLAGS = -no-install
tests_lfa_call_lfs_SOURCES = tests/lfa-call.c
tests_lfa_call_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_lfa_call_lfs_LDADD = libfallocate.la
tests_lfa_call_lfs_LDFLAGS = -no-install

# libfallocate(7)'s table of filesystems is src/fs_facts.c's (issue 39).
check_PROGRAMS += tests/fs-table
tests_fs_table_SOURCES = tests/fs-table.c
tests_fs_table_LDADD = libfallocate-core.la
TESTS += tests/fs-table.sh
EXTRA_DIST += tests/fs-table.sh

# A call past RLIMIT_FSIZE: SIGXFSZ to the calling thread, then EFBIG, as the
# kernel's (issue 31).
check_PROGRAMS += tests/fsize-signal
tests_fsize_signal_SOURCES = tests/fsize-signal.c
tests_fsize_signal_LDADD = libfallocate.la -lpthread
tests_fsize_signal_LDFLAGS = -no-install
TESTS += tests/fsize-signal.sh
EXTRA_DIST += tests/fsize-signal.sh
# A child forked mid-call holds none of the call's descriptors (issue 31).
check_PROGRAMS += tests/fork-mid-call
tests_fork_mid_call_SOURCES = tests/fork-mid-call.c
tests_fork_mid_call_LDADD = libfallocate.la -lpthread -ldl
tests_fork_mid_call_LDFLAGS = -no-install
TESTS += tests/fork-mid-call.sh
EXTRA_DIST += tests/fork-mid-call.sh

if HAVE_SECCOMP
DEMO_HELPERS = tests/with-fallocate-errno
check_PROGRAMS += tests/with-fallocate-errno
tests_with_fallocate_errno_SOURCES = tests/with-fallocate-errno.c
tests_with_fallocate_errno_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS)
tests_with_fallocate_errno_LDADD = $(SECCOMP_LIBS)
endif

if HAVE_CHECK
UNIT_TESTS = tests/check_errors tests/check_errors_lfs tests/check_emulate tests/check_emulate_lfs \
	tests/check_race tests/check_race_lfs
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
UNIT_LDADD = libfallocate-core.la $(CHECK_LIBS) -lpthread
tests_check_errors_SOURCES = tests/check_errors.c
tests_check_errors_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_errors_LDADD = $(UNIT_LDADD)
tests_check_errors_lfs_SOURCES = tests/check_errors.c
tests_check_errors_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_check_errors_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_errors_lfs_LDADD = $(UNIT_LDADD)
tests_check_emulate_SOURCES = tests/check_emulate.c
tests_check_emulate_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_emulate_LDADD = $(UNIT_LDADD)
tests_check_emulate_lfs_SOURCES = tests/check_emulate.c
tests_check_emulate_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_check_emulate_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_emulate_lfs_LDADD = $(UNIT_LDADD)
# The race tests define libc functions the engine calls: they must link the
# engine statically (the convenience library), as these do.
tests_check_race_SOURCES = tests/check_race.c
tests_check_race_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_race_LDADD = $(UNIT_LDADD) -ldl -lpthread
tests_check_race_lfs_SOURCES = tests/check_race.c
tests_check_race_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_check_race_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_race_lfs_LDADD = $(UNIT_LDADD) -ldl -lpthread
# fallocate()'s decisions and the settings on a kernel the test plays: it
# defines syscall() and statx(), so it links the engine statically too.
UNIT_TESTS += tests/check_fallocate tests/check_fallocate_lfs
tests_check_fallocate_SOURCES = tests/check_fallocate.c
tests_check_fallocate_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_fallocate_LDADD = $(UNIT_LDADD) -ldl
tests_check_fallocate_lfs_SOURCES = tests/check_fallocate.c
tests_check_fallocate_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_check_fallocate_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_fallocate_lfs_LDADD = $(UNIT_LDADD) -ldl
endif

# For CI's sanitizer and valgrind runs.
print-unit-tests:
	@echo $(UNIT_TESTS)
.PHONY: print-unit-tests

EXTRA_DIST += tests/demo.sh tests/errname.h tests/check-run.h tests/shim.h tests/valgrind.supp
demo: tests/lfa-call $(DEMO_HELPERS)
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/tests/demo.sh
.PHONY: demo

# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Tests.  Programs link the convenience library (internals reachable) or the
# shared library (what users get); each C test is built twice, with and
# without _FILE_OFFSET_BITS=64.
TEST_EXTENSIONS = .sh
# Every test goes through tests/lib/target-run.sh: where this kernel cannot
# start the tree's programs (an i386 tree without IA32 emulation), test
# programs run under configure's qemu-user and the rest skip, saying why.
LOG_COMPILER = $(SHELL) $(srcdir)/tests/lib/target-run.sh
SH_LOG_COMPILER = $(SHELL) $(srcdir)/tests/lib/target-run.sh --shell '$(SHELL)'
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; top_builddir='$(abs_top_builddir)'; \
	LFA_LIBRARY='$(abs_top_builddir)/.libs/libfallocate.so.$(LFA_SONAME_MAJOR)'; \
	CC='$(CC)'; CXX='$(CXX)'; LFA_TARGET_QEMU='$(LFA_TARGET_QEMU)'; \
	export top_srcdir top_builddir LFA_LIBRARY CC CXX LFA_TARGET_QEMU;

TESTS += tests/build/header-compile.sh tests/calls/strace-args.sh tests/programs/preload-python.sh \
	tests/calls/fallback.sh
EXTRA_DIST += tests/build/header-compile.sh tests/calls/strace-args.sh tests/programs/preload-python.sh \
	tests/calls/fallback.sh tests/lib/lib.sh tests/lib/testutil.h
# Every path and make target the documents name exists (issue 41).
TESTS += tests/build/doc-paths.sh
EXTRA_DIST += tests/build/doc-paths.sh tests/README.md
# Files of kernel interfaces refused; odd FUSE files end (issue 18).
TESTS += tests/realfs/pseudo-files.sh tests/realfs/fuse-odd-files.sh tests/calls/kernel-answers.sh
EXTRA_DIST += tests/realfs/pseudo-files.sh tests/realfs/fuse-odd-files.sh tests/realfs/fuse-oddfs.c \
	tests/calls/kernel-answers.sh

# The runner's probe: a program built as the tests are (tests/lib/target-run.sh).
check_PROGRAMS += tests/lib/target-probe
tests_lib_target_probe_SOURCES = tests/lib/target-probe.c
EXTRA_DIST += tests/lib/target-run.sh

# A small program on the public API, linked with the shared library, for the
# shell tests; -no-install keeps libtool from wrapping it in a script.
check_PROGRAMS += tests/lib/lfa-call tests/lib/lfa-call-lfs
tests_lib_lfa_call_SOURCES = tests/lib/lfa-call.c
tests_lib_lfa_call_LDADD = libfallocate.la
tests_lib_lfa_call_LDFLAGS = -no-install
tests_lib_lfa_call_lfs_SOURCES = tests/lib/lfa-call.c
tests_lib_lfa_call_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_lib_lfa_call_lfs_LDADD = libfallocate.la
tests_lib_lfa_call_lfs_LDFLAGS = -no-install

# libfallocate(7)'s table of filesystems is src/fs_facts.c's (issue 39).
check_PROGRAMS += tests/realfs/fs-table
tests_realfs_fs_table_SOURCES = tests/realfs/fs-table.c
tests_realfs_fs_table_LDADD = libfallocate-core.la
TESTS += tests/realfs/fs-table.sh
EXTRA_DIST += tests/realfs/fs-table.sh

# A call past RLIMIT_FSIZE: SIGXFSZ to the calling thread, then EFBIG, as the
# kernel's (issue 31).
check_PROGRAMS += tests/calls/fsize-signal
tests_calls_fsize_signal_SOURCES = tests/calls/fsize-signal.c
tests_calls_fsize_signal_LDADD = libfallocate.la -lpthread
tests_calls_fsize_signal_LDFLAGS = -no-install
TESTS += tests/calls/fsize-signal.sh
EXTRA_DIST += tests/calls/fsize-signal.sh
# A child forked mid-call holds none of the call's descriptors (issue 31).
check_PROGRAMS += tests/calls/fork-mid-call
tests_calls_fork_mid_call_SOURCES = tests/calls/fork-mid-call.c
tests_calls_fork_mid_call_LDADD = libfallocate.la -lpthread -ldl
tests_calls_fork_mid_call_LDFLAGS = -no-install
TESTS += tests/calls/fork-mid-call.sh
EXTRA_DIST += tests/calls/fork-mid-call.sh

if HAVE_SECCOMP
DEMO_HELPERS = tests/lib/with-fallocate-errno
check_PROGRAMS += tests/lib/with-fallocate-errno
tests_lib_with_fallocate_errno_SOURCES = tests/lib/with-fallocate-errno.c
tests_lib_with_fallocate_errno_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS)
tests_lib_with_fallocate_errno_LDADD = $(SECCOMP_LIBS)
endif

if HAVE_CHECK
UNIT_TESTS = tests/unit/check_errors tests/unit/check_errors_lfs tests/unit/check_emulate tests/unit/check_emulate_lfs \
	tests/unit/check_race tests/unit/check_race_lfs
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
UNIT_LDADD = libfallocate-core.la $(CHECK_LIBS) -lpthread
tests_unit_check_errors_SOURCES = tests/unit/check_errors.c
tests_unit_check_errors_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_errors_LDADD = $(UNIT_LDADD)
tests_unit_check_errors_lfs_SOURCES = tests/unit/check_errors.c
tests_unit_check_errors_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_unit_check_errors_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_errors_lfs_LDADD = $(UNIT_LDADD)
tests_unit_check_emulate_SOURCES = tests/unit/check_emulate.c
tests_unit_check_emulate_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_emulate_LDADD = $(UNIT_LDADD)
tests_unit_check_emulate_lfs_SOURCES = tests/unit/check_emulate.c
tests_unit_check_emulate_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_unit_check_emulate_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_emulate_lfs_LDADD = $(UNIT_LDADD)
# The race tests define libc functions the engine calls: they must link the
# engine statically (the convenience library), as these do.
# One file of tests per rule, sharing the harness (tests/unit/race/harness.h).
RACE_SOURCES = tests/unit/race/harness.c tests/unit/race/harness.h \
	tests/unit/race/shorter.c tests/unit/race/range.c tests/unit/race/descriptors.c \
	tests/unit/race/limits.c tests/unit/race/invisible.c tests/unit/race/appends.c \
	tests/unit/race/faults.c tests/unit/race/fiemap.c tests/unit/race/quick.c
tests_unit_check_race_SOURCES = $(RACE_SOURCES)
tests_unit_check_race_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_race_LDADD = $(UNIT_LDADD) -ldl -lpthread
tests_unit_check_race_lfs_SOURCES = $(RACE_SOURCES)
tests_unit_check_race_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_unit_check_race_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_race_lfs_LDADD = $(UNIT_LDADD) -ldl -lpthread
# fallocate()'s decisions and the settings on a kernel the test plays: it
# defines syscall() and statx(), so it links the engine statically too.
UNIT_TESTS += tests/unit/check_fallocate tests/unit/check_fallocate_lfs
tests_unit_check_fallocate_SOURCES = tests/unit/check_fallocate.c
tests_unit_check_fallocate_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_fallocate_LDADD = $(UNIT_LDADD) -ldl
tests_unit_check_fallocate_lfs_SOURCES = tests/unit/check_fallocate.c
tests_unit_check_fallocate_lfs_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64
tests_unit_check_fallocate_lfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_fallocate_lfs_LDADD = $(UNIT_LDADD) -ldl
endif

# For CI's sanitizer and valgrind runs.
print-unit-tests:
	@echo $(UNIT_TESTS)
.PHONY: print-unit-tests

EXTRA_DIST += tests/programs/demo.sh tests/lib/errname.h tests/unit/check-run.h tests/unit/shim.h tests/unit/valgrind.supp
demo: tests/lib/lfa-call $(DEMO_HELPERS)
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/tests/programs/demo.sh
.PHONY: demo

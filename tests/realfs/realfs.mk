# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Real filesystems (issue 3): the emulation's contract on ext2, ext3, ramfs,
# small filesystems for ENOSPC, RLIMIT_FSIZE, syscall counts, and a
# differential fuzzer against the kernel's own fallocate.
REALFS_CPPFLAGS = $(AM_CPPFLAGS) -D_FILE_OFFSET_BITS=64

# realfs-check calls lfa_allocate() (emulation forced) or, with -p, the
# posix_fallocate of the convenience library; realfs-check-public the one of
# the shared library users get.
# They need Linux's own headers (FIEMAP, seccomp), which a musl toolchain
# may lack; without them the tests below skip.
if HAVE_LINUX_HEADERS
check_PROGRAMS += tests/realfs/realfs-check tests/realfs/realfs-check-public tests/calls/fuzz
endif
REALFS_CHECK_SOURCES = tests/realfs/realfs-check.c tests/realfs/realfs-check.h \
	tests/realfs/realfs-enospc.c tests/realfs/realfs-fs.c tests/lib/realfs-util.h
tests_realfs_realfs_check_SOURCES = $(REALFS_CHECK_SOURCES)
tests_realfs_realfs_check_CPPFLAGS = $(REALFS_CPPFLAGS)
tests_realfs_realfs_check_LDADD = libfallocate-core.la
tests_realfs_realfs_check_public_SOURCES = $(REALFS_CHECK_SOURCES)
tests_realfs_realfs_check_public_CPPFLAGS = $(REALFS_CPPFLAGS) -DREALFS_PUBLIC_ONLY
tests_realfs_realfs_check_public_LDADD = libfallocate.la
tests_realfs_realfs_check_public_LDFLAGS = -no-install
tests_calls_fuzz_SOURCES = tests/calls/fuzz.c tests/lib/realfs-util.h
tests_calls_fuzz_CPPFLAGS = $(REALFS_CPPFLAGS)
tests_calls_fuzz_LDADD = libfallocate-core.la -lpthread

REALFS_TESTS = tests/realfs/realfs.sh tests/realfs/realfs-edges.sh tests/realfs/realfs-seccomp.sh \
	tests/realfs/realfs-fiemap.sh tests/calls/syscall-count.sh tests/calls/fuzz.sh tests/calls/fuzz-replay.sh tests/calls/append-race.sh
TESTS += $(REALFS_TESTS)
EXTRA_DIST += $(REALFS_TESTS) tests/lib/realfs-lib.sh

# make fuzz [N=OPS] [SEED=FIRST]: a longer run than make check's (defaults in
# tests/calls/fuzz.sh); a failing seed prints the operations to replay.
fuzz: tests/calls/fuzz
	@$(AM_TESTS_ENVIRONMENT) FUZZ_OPS='$(N)' FUZZ_SEED='$(SEED)' FUZZ_LONG=1 \
		$(SHELL) $(srcdir)/tests/calls/fuzz.sh
.PHONY: fuzz

# make check-fs (root; issue 10): every descriptor kind on a fresh image of
# each filesystem users have (block, copy-on-write, tmpfs, ramfs, overlayfs,
# FUSE: sshfs, GlusterFS, ntfs-3g, exfat-fuse, bindfs), error parity on hugetlbfs and
# read-only filesystems, and a table.  Not part of make check: it needs
# packages and daemons CI installs (.ci/packages-ci) and runs as a step.
EXTRA_DIST += tests/realfs/check-fs.sh
check-fs: tests/realfs/realfs-check-public$(EXEEXT)
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/tests/realfs/check-fs.sh
.PHONY: check-fs

# make check-cephfs (root; issue 38): CephFS through ceph-fuse on a
# throwaway single-node Ceph (tests/shared/ceph-lib.sh): the 0 that stores
# nothing, the descriptor matrix, two clients' appends, a new file against
# dd.  Not part of make check: CI installs Ceph (.ci/packages-ci) and runs
# it as a step.  A skip (77: no Ceph, no /dev/fuse, not root) says why.
EXTRA_DIST += tests/shared/cephfs.sh tests/shared/ceph-lib.sh tests/shared/ceph-smoke.sh
check-cephfs: tests/lib/lfa-call$(EXEEXT) tests/calls/append-race$(EXEEXT) tests/realfs/realfs-check-public$(EXEEXT) \
		$(DEMO_HELPERS)
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/tests/shared/cephfs.sh; rc=$$?; \
	test $$rc = 0 || test $$rc = 77
.PHONY: check-cephfs

# make window: markers another writer wrote inside the range that a call
# zeroed, libfallocate against glibc's emulation (tests/calls/window.c); built by
# make check, run only by hand.
check_PROGRAMS += tests/calls/window
tests_calls_window_SOURCES = tests/calls/window.c
tests_calls_window_CPPFLAGS = $(REALFS_CPPFLAGS)
tests_calls_window_LDADD = libfallocate-core.la -lpthread -ldl
EXTRA_DIST += tests/calls/window.sh
window: tests/calls/window
	@$(AM_TESTS_ENVIRONMENT) WINDOW_SECONDS='$(T)' $(SHELL) $(srcdir)/tests/calls/window.sh
.PHONY: window

# Appends by another writer while posix_fallocate grows the file (issue 18):
# linked with the shared library, as users get posix_fallocate.
check_PROGRAMS += tests/calls/append-race
tests_calls_append_race_SOURCES = tests/calls/append-race.c
tests_calls_append_race_CPPFLAGS = $(REALFS_CPPFLAGS)
tests_calls_append_race_LDADD = libfallocate.la -lpthread -ldl
tests_calls_append_race_LDFLAGS = -no-install

# A file cut again and again while posix_fallocate runs (issue 25): linked
# with the shared library, as users get posix_fallocate.
check_PROGRAMS += tests/calls/copytruncate
tests_calls_copytruncate_SOURCES = tests/calls/copytruncate.c
tests_calls_copytruncate_CPPFLAGS = $(REALFS_CPPFLAGS)
tests_calls_copytruncate_LDADD = libfallocate.la -lpthread
tests_calls_copytruncate_LDFLAGS = -no-install
TESTS += tests/calls/copytruncate.sh
EXTRA_DIST += tests/calls/copytruncate.sh

# make realfs-busy [N=RUNS] (root; issue 25): realfs.sh N times in a row
# (20 by default) while another process writes and syncs on a loop-mounted
# ext4 and two CPU hogs run.  Not part of make check: about half an hour.
EXTRA_DIST += tests/realfs/realfs-busy.sh
realfs-busy: tests/realfs/realfs-check$(EXEEXT) tests/realfs/realfs-check-public$(EXEEXT) tests/lib/lfa-call$(EXEEXT) libfallocate.la
	@$(AM_TESTS_ENVIRONMENT) REALFS_BUSY_RUNS='$(N)' $(SHELL) $(srcdir)/tests/realfs/realfs-busy.sh
.PHONY: realfs-busy

# ...and by another machine, on a shared filesystem (issue 24): two clients
# of GlusterFS (replica 2 on ext3 bricks) and of sshfs (root).
TESTS += tests/shared/two-clients.sh
EXTRA_DIST += tests/shared/two-clients.sh tests/shared/gluster-lib.sh

# A new 64 MiB file on GlusterFS: 16 writes, no fadvise64 (issue 31; root).
TESTS += tests/shared/gluster-syscalls.sh
EXTRA_DIST += tests/shared/gluster-syscalls.sh

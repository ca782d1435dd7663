# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check-vm (root; issue 30): the unit tests and the real-filesystem
# tests on Debian 12's own kernel (6.1) under qemu (tests/vm/vm.sh), from
# this build tree; make check-vm-full adds realfs.sh (about 5 minutes more
# under TCG).  Skips where qemu-system-x86 or the kernel package is missing.
# make check-vm-nfs: two NFS clients of the guest's own nfsd
# (tests/vm/guest-nfs.sh), the library beside glibc and NFS's own appends;
# skips where nfs-kernel-server is missing.
EXTRA_DIST += tests/vm/vm.sh tests/vm/init tests/vm/guest-check.sh tests/vm/check-vm.sh \
	tests/vm/vm.mk tests/vm/guest-power.sh tests/vm/power.sh tests/vm/guest-nfs.sh \
	tests/vm/check-vm-nfs.sh
VM_TESTS = $(UNIT_TESTS) tests/check_cache tests/check_cache_lfs \
	tests/realfs-edges.sh tests/realfs-fiemap.sh
check-vm: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/check-vm.sh $(VM_TESTS)
check-vm-full: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/check-vm.sh $(VM_TESTS) tests/realfs.sh
# make check-vm-power (root; issue 30's power-loss row): dm-log-writes
# under ext3 and ext2 on a device filled with a stale pattern, the
# emulation of a growth and of a hole fill logged (the library's and
# glibc's), the log replayed to a spread of its flush, FUA and mark points
# (tests/vm/replay-log), and at each: fsck, mount, the files checked.
# make check-vm-power-full replays to every such point.
check_PROGRAMS += tests/vm/replay-log
tests_vm_replay_log_SOURCES = tests/vm/replay-log.c
check-vm-power: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/power.sh
check-vm-power-full: $(check_PROGRAMS) libfallocate.la
	@LFA_POWER_POINTS=all $(SHELL) $(srcdir)/tests/vm/power.sh
check-vm-nfs: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/check-vm-nfs.sh
.PHONY: check-vm check-vm-full check-vm-power check-vm-power-full check-vm-nfs

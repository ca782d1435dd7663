# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check-vm (root; issue 30, CI): the VM lane (tests/vm/lane.sh) on
# Debian 12's own kernel (6.1) under qemu (tests/vm/vm.sh), from this build
# tree: the unit tests and the real-filesystem tests, NFS and SMB3 rows,
# two NFS clients and power loss, each sized for CI; make check-vm-full
# runs every row in full and adds realfs.sh.  Each part skips where qemu-system-x86,
# the kernel package or its servers are missing.
# make check-vm-nfs: two NFS clients of the guest's own nfsd
# (tests/vm/guest-nfs.sh), the library beside glibc and NFS's own appends;
# skips where nfs-kernel-server is missing.
EXTRA_DIST += tests/vm/vm.sh tests/vm/init tests/vm/guest-check.sh tests/vm/check-vm.sh \
	tests/vm/vm.mk tests/vm/guest-power.sh tests/vm/power.sh tests/vm/guest-nfs.sh \
	tests/vm/check-vm-nfs.sh tests/vm/servers.sh tests/vm/guest-shared.sh tests/vm/answers.py \
	tests/vm/check-vm-shared.sh tests/vm/lane.sh tests/vm/guest-ceph.sh tests/vm/check-vm-ceph.sh
VM_TESTS = $(UNIT_TESTS) tests/unit/check_cache tests/unit/check_cache_lfs \
	tests/realfs/realfs-edges.sh tests/realfs/realfs-fiemap.sh
check-vm: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/lane.sh quick $(VM_TESTS)
check-vm-full: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/lane.sh full $(VM_TESTS) tests/realfs/realfs.sh
# make check-vm-shared: every NFS and SMB3 row (tests/vm/guest-shared.sh)
check-vm-shared: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/check-vm-shared.sh
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
# make check-vm-ceph (root; issue 38): the kernel CephFS client (ceph.ko)
# against a throwaway cluster started in the guest from the host's Ceph
# (tests/vm/guest-ceph.sh): the descriptor matrix and two clients, the
# library beside glibc and CephFS's own appends.  A skip (77: no qemu, no
# kernel package, no Ceph packages, no ceph.ko) says why.
check-vm-ceph: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/check-vm-ceph.sh; rc=$$?; \
	test $$rc = 0 || test $$rc = 77
.PHONY: check-vm check-vm-full check-vm-power check-vm-power-full check-vm-nfs check-vm-shared \
	check-vm-ceph

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
	tests/vm/vm.mk tests/vm/guest-nfs.sh tests/vm/check-vm-nfs.sh
VM_TESTS = $(UNIT_TESTS) tests/check_cache tests/check_cache_lfs \
	tests/realfs-edges.sh tests/realfs-fiemap.sh
check-vm: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/check-vm.sh $(VM_TESTS)
check-vm-full: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/check-vm.sh $(VM_TESTS) tests/realfs.sh
.PHONY: check-vm check-vm-full check-vm-nfs
check-vm-nfs: $(check_PROGRAMS) libfallocate.la
	@$(SHELL) $(srcdir)/tests/vm/check-vm-nfs.sh

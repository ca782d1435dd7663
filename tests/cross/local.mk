# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The cross-ABI and musl matrix: `make check-cross` builds the library for
# every ABI with its own configure --host, from a fresh distdir (so the
# tarball's contents are what gets cross-built, and an in-place configured
# tree does not get in the way), and runs tests/cross/abi-test.c on each,
# under qemu-user where the CPU differs.  See tests/cross/run-matrix.sh.
EXTRA_DIST += tests/cross/abi-test.c tests/cross/probe.c tests/cross/run-matrix.sh

# Which ABIs (empty: all), which to break on purpose to show the test fails,
# and extra options (CI passes --require-all: a missing toolchain fails).
CROSS_ABIS =
CROSS_SELF_CHECKS = powerpc armhf mips s390x
CROSS_FLAGS =

if HAVE_SECCOMP
CROSS_ERRNO_HELPER = tests/lib/with-fallocate-errno
endif

check-cross: $(CROSS_ERRNO_HELPER)
	$(AM_V_at)rm -rf $(distdir) && $(MAKE) $(AM_MAKEFLAGS) distdir > /dev/null
	$(AM_V_at)status=0; \
	$(SHELL) $(srcdir)/tests/cross/run-matrix.sh --srcdir '$(abs_builddir)/$(distdir)' \
		$(CROSS_ERRNO_HELPER:%=--errno-helper '$(abs_builddir)/%') \
		$(CROSS_SELF_CHECKS:%=--self-check %) $(CROSS_FLAGS) $(CROSS_ABIS) || status=$$?; \
	rm -rf $(distdir); exit $$status
.PHONY: check-cross

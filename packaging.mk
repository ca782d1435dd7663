# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Packaging and releases (RELEASING.md): the RPM spec ships in the tarball,
# make dist refuses a spec of another version, and check-package runs the
# tests a distribution's build can run.
EXTRA_DIST += libfallocate.spec RELEASING.md AUTHORS

# make check's tests that need neither root nor loop devices nor programs a
# build chroot lacks, whoever runs them: debian/rules (dh_auto_test) and the
# spec's %check run these.  Tests that need root skip by themselves without
# it; these are the ones that never try.
PACKAGE_TESTS = $(UNIT_TESTS) tests/build/header-compile.sh tests/build/exports.sh \
	tests/build/man-lint.sh tests/build/install.sh tests/programs/preload-wrapper.sh \
	tests/programs/preload-python.sh tests/calls/fallback.sh tests/programs/pfallocate.sh \
	tests/unit/scratch-clean.sh
check-package:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(PACKAGE_TESTS)'
.PHONY: check-package

dist-hook: dist-check-spec
dist-check-spec:
	@v=$$(sed -n 's/^Version:[[:space:]]*//p' $(srcdir)/libfallocate.spec); \
	if [ "$$v" != '$(VERSION)' ]; then \
		echo "libfallocate.spec says Version $$v, configure.ac $(VERSION): update the spec (RELEASING.md)" >&2; \
		exit 1; \
	fi
.PHONY: dist-check-spec

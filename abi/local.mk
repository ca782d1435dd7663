# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make abi-check (issue 26): the built library against the ABI of every
# release of its soname, with libabigail (Debian's abigail-tools): a program
# built against any of them runs with this build.  RELEASING.md says how
# ABI_BASELINES grows at each release.
ABI_BASELINES = abi/libfallocate-0.1.0.abi abi/libfallocate-0.2.0.abi
EXTRA_DIST += abi/check.sh $(ABI_BASELINES)
abi-check: libfallocate.la
	@status=0; for b in $(ABI_BASELINES); do \
		$(SHELL) $(srcdir)/abi/check.sh $(srcdir)/$$b \
			.libs/libfallocate.so.$(LFA_SONAME_MAJOR) $(srcdir)/include || status=1; \
	done; exit $$status
# abi-dump: the ABI of this build, as a release stores it (RELEASING.md).
abi-dump: libfallocate.la
	@abidw --headers-dir $(srcdir)/include --no-corpus-path --no-comp-dir-path \
		--short-locs --drop-private-types --drop-undefined-syms \
		.libs/libfallocate.so.$(LFA_SONAME_MAJOR)
.PHONY: abi-check abi-dump

# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make abi-check (issue 26): the built library against the ABI of the last
# release, with libabigail (Debian's abigail-tools).  RELEASING.md says how
# ABI_BASELINE moves at each release.
ABI_BASELINE = $(srcdir)/abi/libfallocate-0.1.0.abi
EXTRA_DIST += abi/check.sh abi/libfallocate-0.1.0.abi
abi-check: libfallocate.la
	@$(SHELL) $(srcdir)/abi/check.sh $(ABI_BASELINE) \
		.libs/libfallocate.so.$(LFA_SONAME_MAJOR) $(srcdir)/include
# abi-dump: the ABI of this build, as a release stores it (RELEASING.md).
abi-dump: libfallocate.la
	@abidw --headers-dir $(srcdir)/include --no-corpus-path --no-comp-dir-path \
		--short-locs --drop-private-types --drop-undefined-syms \
		.libs/libfallocate.so.$(LFA_SONAME_MAJOR)
.PHONY: abi-check abi-dump

# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Manual pages, in man(7) so that mandoc -Tlint and groff -ww pass them
# without a warning.  Section 3lfa pages install into man3 under their own
# suffix (man3/posix_fallocate.3lfa), so they never hide the system's pages.
# Other fragments use dist_man_MANS; these per-section variables are this
# fragment's alone.
dist_man1_MANS = man/pfallocate.1
dist_man3_MANS = man/fallocate.3lfa man/lfa_allocate.3lfa man/posix_fallocate.3lfa
dist_man7_MANS = man/libfallocate.7

# Names documented on another name's page: symbolic links, not .so stubs
# (mandoc calls those fragile).  Format: LINK=TARGET, both in man3.
MAN3_LINKS = \
	posix_fallocate64.3lfa=posix_fallocate.3lfa \
	fallocate64.3lfa=fallocate.3lfa \
	lfa_strpath.3lfa=lfa_allocate.3lfa \
	lfa_strreason.3lfa=lfa_allocate.3lfa \
	lfa_strholes.3lfa=lfa_allocate.3lfa \
	lfa_version.3lfa=lfa_allocate.3lfa

# Prerequisites only: another fragment may give these hooks a recipe.
install-data-hook: install-man3-links
uninstall-hook: uninstall-man3-links
install-man3-links:
	@$(NORMAL_INSTALL)
	@for l in $(MAN3_LINKS); do \
		echo " ln -s $${l#*=} $(DESTDIR)$(man3dir)/$${l%%=*}"; \
		rm -f "$(DESTDIR)$(man3dir)/$${l%%=*}" && \
		$(LN_S) "$${l#*=}" "$(DESTDIR)$(man3dir)/$${l%%=*}" || exit 1; \
	done
uninstall-man3-links:
	@$(NORMAL_UNINSTALL)
	@for l in $(MAN3_LINKS); do \
		echo " rm -f $(DESTDIR)$(man3dir)/$${l%%=*}"; \
		rm -f "$(DESTDIR)$(man3dir)/$${l%%=*}"; \
	done
.PHONY: install-man3-links uninstall-man3-links

TESTS += tests/build/man-lint.sh
EXTRA_DIST += tests/build/man-lint.sh

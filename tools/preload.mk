# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate-preload (the LD_PRELOAD wrapper), its man page, the tests that run
# real programs under it, and the packaging tests.

# The script names the library under the configured libdir, known only at
# make time (libdir may be written in terms of ${exec_prefix}).
bin_SCRIPTS += tools/fallocate-preload
# What the wrapper puts in LD_PRELOAD: the library under libdir, or under
# ld.so's $LIB token (configure --enable-preload-lib-token), which the dynamic
# linker expands to each program's own ABI's library directory.
if PRELOAD_LIB_TOKEN
preload_library = $(prefix)/$$LIB/libfallocate.so.$(LFA_SONAME_MAJOR)
else
preload_library = $(libdir)/libfallocate.so.$(LFA_SONAME_MAJOR)
endif
CLEANFILES += tools/fallocate-preload
EXTRA_DIST += tools/fallocate-preload.in
tools/fallocate-preload: $(srcdir)/tools/fallocate-preload.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && rm -f $@ $@.tmp && \
	sed -e 's|@libdir[@]|$(libdir)|g' \
	    -e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' \
	    -e 's|@LFA_SONAME_MAJOR[@]|$(LFA_SONAME_MAJOR)|g' \
	    -e 's|@preload_library[@]|$(preload_library)|g' \
	    -e 's|@seccomp_helper[@]|$(pkglibexecdir)/fallocate-seccomp|g' \
	    $(srcdir)/tools/fallocate-preload.in > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

dist_man_MANS += man/fallocate-preload.1

# No .la file is installed.  It only lists dependency libraries for libtool
# to add when linking statically, and this library has none (libc only);
# distributions delete it anyway (Debian since policy 10.2's advice), and a
# stale one in a sysroot breaks cross builds.  libtool's uninstall finds the
# other files through the .la, so they are removed by name here.
install-exec-hook: install-exec-drop-la
install-exec-drop-la:
	rm -f $(DESTDIR)$(libdir)/libfallocate.la
uninstall-hook: uninstall-drop-lib
uninstall-drop-lib:
	rm -f $(DESTDIR)$(libdir)/libfallocate.so \
	      $(DESTDIR)$(libdir)/libfallocate.so.$(LFA_SONAME_MAJOR) \
	      $(DESTDIR)$(libdir)/libfallocate.so.$(LFA_SONAME_MAJOR).* \
	      $(DESTDIR)$(libdir)/libfallocate.a
.PHONY: install-exec-drop-la uninstall-drop-lib

# What `make install` must put in place, for tests/build/install.sh: every file
# this build installs, by the variables that install them.
print-install-list:
	@for f in $(bin_SCRIPTS) $(bin_PROGRAMS); do echo "bin $$f"; done
	@for f in $(pkglibexec_PROGRAMS); do echo "libexec $$f"; done
	@for f in $(include_HEADERS); do echo "include $$f"; done
	@for f in $(pkgconfig_DATA); do echo "pkgconfig $$f"; done
	@for f in $(dist_man_MANS) $(man_MANS) $(dist_man1_MANS) $(man1_MANS) \
		$(dist_man3_MANS) $(man3_MANS) $(dist_man7_MANS) $(man7_MANS); do \
		echo "man $$f"; done
	@for l in $(MAN3_LINKS); do echo "man $${l%%=*}"; done
	@for f in $(dist_doc_DATA) $(doc_DATA); do echo "doc $$f"; done
	@echo "dir bindir $(bindir)"
	@echo "dir pkglibexecdir $(pkglibexecdir)"
	@echo "dir docdir $(docdir)"
	@echo "dir libdir $(libdir)"
	@echo "dir includedir $(includedir)"
	@echo "dir pkgconfigdir $(pkgconfigdir)"
	@echo "dir mandir $(mandir)"
	@echo "soname $(LFA_SONAME_MAJOR)"
	@echo "version-info $(LT_VERSION_INFO)"
.PHONY: print-install-list

PRELOAD_TESTS = tests/programs/prog-python.sh tests/programs/prog-fallocate.sh tests/programs/prog-fio.sh \
	tests/programs/prog-aria2c.sh tests/programs/prog-cryptsetup.sh tests/programs/prog-sshfs-python.sh \
	tests/programs/prog-sshfs-qemu-img.sh tests/programs/prog-sshfs-append.sh \
	tests/programs/prog-qemu-img.sh tests/programs/prog-rsync.sh tests/programs/preload-wrapper.sh \
	tests/programs/secure-mode.sh tests/build/install.sh tests/build/exports.sh tests/shared/rename-held.sh
TESTS += $(PRELOAD_TESTS)
EXTRA_DIST += $(PRELOAD_TESTS) tests/programs/preload-lib.sh tests/shared/sshfs-lib.sh \
	tests/shared/sshd-lib.sh tests/lib/held-file.c
# The tests run the build tree's wrapper on the build tree's library.
AM_TESTS_ENVIRONMENT += \
	FALLOCATE_PRELOAD='$(abs_top_builddir)/tools/fallocate-preload'; \
	FALLOCATE_PRELOAD_LIBRARY=$$LFA_LIBRARY; LFA_MAKE='$(MAKE)'; \
	FALLOCATE_PRELOAD_SECCOMP_HELPER='$(abs_top_builddir)/tools/fallocate-seccomp'; \
	export FALLOCATE_PRELOAD FALLOCATE_PRELOAD_LIBRARY LFA_MAKE FALLOCATE_PRELOAD_SECCOMP_HELPER;

# fallocate-preload --seccomp (issue 16): the supervisor that serves static
# and Go programs, which LD_PRELOAD cannot reach.  A helper of the wrapper,
# not a command (its options are private): libexecdir.  It needs Linux's
# seccomp headers, which a musl toolchain may lack.
if HAVE_LINUX_HEADERS
pkglibexec_PROGRAMS = tools/fallocate-seccomp
endif
tools_fallocate_seccomp_SOURCES = tools/fallocate-seccomp.c \
	tools/seccomp-abi.c tools/seccomp-abi.h \
	tools/seccomp-recv.c tools/seccomp-workers.c \
	tools/seccomp-serve.c tools/seccomp-serve.h \
	tools/seccomp-identity.c tools/seccomp-rules.c
# The engine (lfa_allocate) and the running ABI's raw syscall
# (lfa_sys_fallocate), linked in: the supervisor does not load the library
# it serves, and needs no 64-bit off_t of its own on 32-bit ABIs.
tools_fallocate_seccomp_LDADD = libfallocate-core.la -lpthread

# Its filter for every ABI, on a BPF interpreter (compat ABIs cannot run
# here), and the whole of it on ext3 and ramfs with static glibc and musl
# programs, busybox, Go, threads, kills, signals; no call queued behind
# another's (seccomp-queue.sh, issue 31).
if HAVE_CHECK
if HAVE_LINUX_HEADERS
UNIT_TESTS += tests/unit/check_seccomp_abi
endif
endif
tests_unit_check_seccomp_abi_SOURCES = tests/unit/check_seccomp_abi.c tools/seccomp-abi.c tools/seccomp-abi.h
tests_unit_check_seccomp_abi_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_unit_check_seccomp_abi_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_seccomp_abi_LDADD = $(CHECK_LIBS)
TESTS += tests/seccomp/preload-seccomp.sh tests/seccomp/seccomp-parallel.sh tests/seccomp/seccomp-identity.sh \
	tests/seccomp/seccomp-i386.sh tests/seccomp/seccomp-queue.sh tests/seccomp/seccomp-limits.sh
EXTRA_DIST += tests/seccomp/preload-seccomp.sh tests/seccomp/seccomp-target.c tests/seccomp/seccomp-target.go \
	tests/programs/ctrl-c.py tests/seccomp/seccomp-lib.sh tests/seccomp/seccomp-parallel.sh \
	tests/seccomp/seccomp-identity.sh tests/seccomp/seccomp-i386.sh tests/seccomp/seccomp-queue.sh \
	tests/seccomp/seccomp-limits.sh

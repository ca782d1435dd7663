# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make coverage (issue 26): the library and its tests built again with gcov
# instrumentation, a chosen set of tests run there, and gcovr's report of
# src/ and tools/: coverage/index.html (line by line) and the text summary
# printed.  It fails when src/ is below the floors below.  CI runs it as
# root (.ci/steps/47-coverage.sh); without root the tests that mount
# filesystems skip and the floors may not be met.
#
# The build is out of tree, from a copy of the distributed sources
# (make distdir), as CI's other builds: configure refuses a second build of a
# source tree that is configured in place.  -fprofile-update=atomic: the
# race and append tests run threads, whose plain counter updates race and
# leave counts gcov cannot read (negative).
COV_DIR = coverage-build
COV_REPORT = coverage
COV_CFLAGS = -O0 -g --coverage -fprofile-update=atomic
# The floors apply to src/, the library; tools/ is reported only.  A little
# under what this tree reaches with COV_TESTS as root: 95 % of the lines and
# 85 % of the branches of src/ (the disk's pace and the machine's load move
# the branches taken by a point or so; check_race's fault sweeps take the
# error branches by script, whatever the pace).
# Branches count as gcc made them: at -O0 it adds few of its own, and C has
# no exception branches (no --exclude-unreachable-branches, no
# --exclude-throw-branches).
COV_FLOOR_LINES = 92
COV_FLOOR_BRANCHES = 82
# The tests, about 80 s of work on two cores: the unit tests, and the
# integration tests that call the library directly: the emulation on real
# filesystems (realfs*: the checker's matrix, edges, FIEMAP, seccomp's
# ENOSYS), the fuzzer's fixed seeds, fallback and the kernel's answers
# through lfa-call, a file cut mid-call, the page-cache window.  Not the
# tests that run other programs under LD_PRELOAD (prog-*, preload-*,
# secure-mode, the --seccomp supervisor's): minutes of images, downloads
# and daemons for few lines of src/, and some run the library under another
# uid, which cannot write this build's .gcda files.  Not the long races
# (append-race, syscall-count, cache-*, two-clients: one path each, over and
# over), nor pfallocate.sh (a minute for tools/pfallocate.c only: 91 % of
# its lines); COV_EXTRA_TESTS adds any of them:
#   make coverage COV_EXTRA_TESTS=tests/programs/pfallocate.sh
# Longest first, for make -j.
COV_TESTS = tests/realfs/realfs.sh tests/realfs/realfs-seccomp.sh tests/calls/fuzz.sh \
	$(UNIT_TESTS) tests/unit/check_cache tests/unit/check_cache_lfs \
	tests/calls/copytruncate.sh tests/realfs/realfs-fiemap.sh tests/calls/fuzz-replay.sh \
	tests/realfs/realfs-edges.sh tests/calls/fallback.sh tests/calls/strace-args.sh \
	tests/calls/kernel-answers.sh tests/realfs/pseudo-files.sh
COV_EXTRA_TESTS =
COV_GCOVR = gcovr -j 2 -r source --object-directory build build
# As many jobs as processors, unless make was given -j (its jobserver then).
COV_JOBS = case ' $(MAKEFLAGS) ' in *' -j'*) jobs= ;; *) jobs=-j$$(nproc) ;; esac

coverage:
	@command -v gcovr > /dev/null || { echo "coverage: gcovr is not installed" >&2; exit 1; }
	rm -rf $(COV_DIR) $(COV_REPORT)
	$(MKDIR_P) $(COV_DIR)/build $(COV_REPORT)
	$(MAKE) $(AM_MAKEFLAGS) distdir distdir='$(abs_builddir)/$(COV_DIR)/source' > /dev/null
	@echo "coverage: configure and build in $(COV_DIR)/build with CFLAGS='$(COV_CFLAGS)'"
	@cd $(COV_DIR)/build && \
	CFLAGS='$(COV_CFLAGS)' LDFLAGS='--coverage' ../source/configure > configure.out 2>&1 || \
		{ cat configure.out config.log; exit 1; }
	@rm -f $(COV_DIR)/build/*.gcda $(COV_DIR)/build/*.gcno  # configure's conftests
	$(COV_JOBS); cd $(COV_DIR)/build && $(MAKE) $(AM_MAKEFLAGS) $$jobs > build.out 2>&1 || { cat build.out; exit 1; }
	$(COV_JOBS); cd $(COV_DIR)/build && $(MAKE) $(AM_MAKEFLAGS) $$jobs check TESTS='$(COV_EXTRA_TESTS) $(COV_TESTS)'
	cd $(COV_DIR) && $(COV_GCOVR) --filter 'source/(src|tools)/' \
		--html-details ../$(COV_REPORT)/index.html \
		--txt ../$(COV_REPORT)/lines.txt
	cd $(COV_DIR) && $(COV_GCOVR) --filter 'source/(src|tools)/' -b \
		--txt ../$(COV_REPORT)/branches.txt
	@echo "coverage: lines (full list of missing lines in $(COV_REPORT)/lines.txt)"
	@cut -c 1-66 $(COV_REPORT)/lines.txt
	@echo "coverage: branches taken ($(COV_REPORT)/branches.txt)"
	@cut -c 1-66 $(COV_REPORT)/branches.txt
	@echo "coverage: src/ against the floors ($(COV_FLOOR_LINES) % lines, $(COV_FLOOR_BRANCHES) % branches)"
	@cd $(COV_DIR) && $(COV_GCOVR) --filter 'source/src/' -s \
		--txt ../$(COV_REPORT)/src.txt \
		--fail-under-line $(COV_FLOOR_LINES) --fail-under-branch $(COV_FLOOR_BRANCHES) || \
		{ echo "coverage: src/ is below the floors" >&2; exit 1; }
	@echo "coverage: report in $(COV_REPORT)/index.html"
.PHONY: coverage

clean-local: clean-coverage
clean-coverage:
	rm -rf $(COV_DIR) $(COV_REPORT)
.PHONY: clean-coverage

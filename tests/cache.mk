# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# What a large emulation leaves in the page cache (issue 17): the window's
# bound, measured on the file itself with mincore (anyone, on a disk
# filesystem), and a 4 GiB emulation inside a 256 MiB memory cgroup (root).
CACHE_TESTS = tests/cache-window.sh tests/cache-cgroup.sh
TESTS += $(CACHE_TESTS)
EXTRA_DIST += $(CACHE_TESTS)

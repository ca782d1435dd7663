#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Test coverage (issue 26): make coverage builds the library and the tests
# again with gcov instrumentation (coverage-build/), runs the unit tests and
# the fast integration tests there, and prints gcovr's summary of src/ and
# tools/; it fails when src/ is below the floors in cov/local.mk.  The
# line-by-line report stays in coverage/index.html.
set -euo pipefail
make -s -j"$(nproc)" coverage

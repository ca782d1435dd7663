# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check leaves nothing behind under $TMPDIR (tests/unit/scratch-clean.sh).
TESTS += tests/unit/scratch-clean.sh
EXTRA_DIST += tests/unit/scratch-clean.sh

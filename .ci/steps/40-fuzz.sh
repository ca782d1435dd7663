#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A longer differential fuzz than make check's, on fixed seeds (a failure
# must be reproducible): 1000 operations per seed, 10 seeds on $TMPDIR with
# the emulation forced, 5 on an ext3 loop image, 5 on a ramfs.
set -euo pipefail
make -s fuzz N=1000 SEED=9000

#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A longer differential fuzz than make check's, with the second writer
# (fuzz -c: records outside each allocated range and past the end of file,
# every byte of which must survive): 600 operations per seed, 10 seeds on
# $TMPDIR with the emulation forced, 5 on an ext3 loop image, 5 on a ramfs,
# seeds 101 and 401 on xfs.  About a minute.  The writer's timing varies: a
# divergence is replayed from the operations printed (tests/calls/fuzz -r).
set -euo pipefail
make -s fuzz N=600 SEED=9000

#!/bin/bash
# A longer differential fuzz than make check's, on fixed seeds (a failure
# must be reproducible): 1000 operations per seed, 10 seeds on $TMPDIR with
# the emulation forced, 5 on an ext3 loop image, 5 on a ramfs.
set -euo pipefail
make -s fuzz N=1000 SEED=9000

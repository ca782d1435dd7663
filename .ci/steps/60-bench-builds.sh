#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make bench's programs build, and the driver runs one tiny round of each
# kind.  No timing is judged: CI never runs the benchmark itself.
set -euo pipefail
make -j"$(nproc)" bench-programs
lib=$(pwd)/.libs/libfallocate.so.1
dir=$(mktemp -d "${TMPDIR:-/tmp}/lfa-bench-ci.XXXXXX")
trap 'rm -rf "$dir"' EXIT
bench() { ./bench/lfa-bench --lib "$lib" --dir "$dir" --fs ci --reps 1 "$@"; }
bench --scenario native --size 64K --calls 10
forced=""
if [ -x tests/lib/with-fallocate-errno ] && tests/lib/with-fallocate-errno EOPNOTSUPP true; then
	forced="tests/lib/with-fallocate-errno EOPNOTSUPP"
fi
$forced ./bench/lfa-bench --lib "$lib" --dir "$dir" --fs ci --reps 1 --scenario new --dd --size 2M
# dd with another block size, as scenario 13 (CephFS) runs it
$forced ./bench/lfa-bench --lib "$lib" --dir "$dir" --fs ci --reps 1 --scenario new --dd --dd-bs 512K \
	--size 2M --only ours,dd | grep -q ',dd,'
$forced ./bench/lfa-bench --lib "$lib" --dir "$dir" --fs ci --reps 1 --scenario rewrite --size 2M
$forced ./bench/lfa-bench --lib "$lib" --dir "$dir" --fs ci --reps 1 --scenario sparse --size 2M --chunk 256K
$forced ./bench/lfa-bench --lib "$lib" --dir "$dir" --fs ci --reps 1 --scenario sparse --size 2M --chunk 1K --keep
$forced ./bench/lfa-bench --lib "$lib" --dir "$dir" --fs ci --reps 1 --scenario rss --size 2M
# A second copy of the library as the previous release (make bench builds
# 0.2.0; CI only proves two copies load and run side by side).
mkdir "$dir/previous"
cp -L "$lib" "$dir/previous/libfallocate.so.1"
$forced ./bench/lfa-bench --lib "$lib" --previous "$dir/previous/libfallocate.so.1" --dir "$dir" \
	--fs ci --reps 1 --scenario sparse --size 2M --chunk 256K | grep -q ',previous,'
echo "bench programs built; lfa-bench ran each scenario once (2 MiB, no timing judged)"

#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Static analysis (issue 26): gcc -fanalyzer on src/ and tools/ with
# -Werror, cppcheck on the same, shellcheck at -S warning on every shell
# script.  A false finding is silenced where it stands, with its reason.
set -euo pipefail
arch=$(sed -n 's/^LFA_ARCH = //p' Makefile)
arch_dir=src/arch/$arch
[ -d "$arch_dir" ] || { echo "46-analyzers: no arch directory ($arch_dir)"; exit 1; }
n=0
for f in src/*.c tools/*.c; do
	gcc -fanalyzer -Werror -c -o /dev/null -I. -Iinclude -Isrc -I"$arch_dir" \
		-DLFA_ARCH="\"$arch\"" "$f"
	n=$((n + 1))
done
echo "46-analyzers: gcc -fanalyzer: $n files, no finding"
cppcheck --enable=warning,portability,performance --error-exitcode=1 --quiet --inline-suppr \
	-I. -Iinclude -Isrc -I"$arch_dir" src tools
echo "46-analyzers: cppcheck: src tools, no finding"
mapfile -t scripts < <(git ls-files '*.sh' .ci/run .ci/install-deps quickstart autogen.sh \
	debian/tests/multiarch debian/tests/pkg-config debian/tests/preload)
shellcheck -S warning "${scripts[@]}" tools/fallocate-preload
echo "46-analyzers: shellcheck -S warning: ${#scripts[@]} scripts and the wrapper, no finding"

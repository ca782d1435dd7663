#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# README's musl build: CC=musl-gcc ./configure && make && make check, from
# the distributed sources.  Debian's musl-gcc sees no Linux headers, Check
# or libseccomp of its own: configure leaves out what needs them and those
# tests skip, with the reason.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s distdir distdir="$work/src" > /dev/null
mkdir "$work/build"
cd "$work/build"
CC=musl-gcc "$work/src/configure" > configure.log 2>&1 || { cat configure.log; exit 1; }
grep 'WARNING' configure.log || true
make -j"$(nproc)" > make.log 2>&1 || { tail -n 40 make.log; exit 1; }
make -j"$(nproc)" check > check.log 2>&1 || { cat check.log tests/*/*.log; exit 1; }
grep -E '^(PASS|FAIL|SKIP|ERROR|# [A-Z]+:)' check.log
readelf -d .libs/libfallocate.so.1 | grep -E 'NEEDED|SONAME'
echo "72-musl: CC=musl-gcc ./configure && make && make check passed"

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate-preload(1) draws no message from mandoc -Tlint (any level) and
# no warning from groff -ww.
. "${top_srcdir:-.}/tests/lib.sh"
page=$top_srcdir/man/fallocate-preload.1
checked=
if command -v mandoc >/dev/null 2>&1; then
	out=$(mandoc -Tlint "$page" 2>&1) || true
	[ -z "$out" ] || fail "mandoc -Tlint: $out"
	checked="$checked mandoc"
fi
if command -v groff >/dev/null 2>&1; then
	out=$(LC_ALL=C groff -ww -b -z -man "$page" 2>&1) || fail "groff: $out"
	[ -z "$out" ] || fail "groff -ww: $out"
	checked="$checked groff"
fi
[ -n "$checked" ] || skip "neither mandoc nor groff is installed"
echo "PASS: fallocate-preload.1 clean under$checked"

#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The release tarball builds and tests on a machine without autotools: every
# autotools program is shadowed on PATH by one that fails and leaves a mark,
# so a timestamp or a missing generated file that makes make call one shows.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make -s dist > /dev/null
tarball=libfallocate-$(sed -n "s/^PACKAGE_VERSION = //p" Makefile).tar.xz
echo "tarball: $tarball ($(stat -c %s "$tarball") bytes, $(tar -tJf "$tarball" | wc -l) entries)"
tar -C "$work" -xJf "$tarball"
src=$work/${tarball%.tar.xz}

mkdir "$work/no-autotools"
for tool in autoconf autoheader autom4te autoreconf autoscan autoupdate ifnames \
	aclocal aclocal-1.16 automake automake-1.16 libtool libtoolize m4; do
	cat > "$work/no-autotools/$tool" <<SHIM
#!/bin/sh
echo "$tool \$*" >> "$work/autotools-called"
echo "30-tarball: the tarball build ran $tool" >&2
exit 1
SHIM
	chmod +x "$work/no-autotools/$tool"
done

cd "$src"
export PATH="$work/no-autotools:$PATH"
./configure --enable-werror > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
make -j"$(nproc)" > "$work/make.log" 2>&1 || { tail -n 50 "$work/make.log"; exit 1; }
make -j"$(nproc)" check TESTS="tests/build/header-compile.sh tests/build/exports.sh tests/programs/preload-wrapper.sh \
	tests/build/man-lint.sh tests/calls/fallback.sh" > "$work/check.log" 2>&1 ||
	{ cat "$work/check.log" tests/*/*.log; exit 1; }
if [ -e "$work/autotools-called" ]; then
	echo "30-tarball: the tarball needed autotools:"
	cat "$work/autotools-called"
	exit 1
fi
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' "$work/check.log"
echo "30-tarball: $tarball configures, builds and passes its tests with no autotools on PATH"

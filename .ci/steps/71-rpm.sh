#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The RPM packages, built by rpmbuild from the release tarball and the spec
# it carries (rpmbuild -ta); %check runs make check-package.  rpm knows no
# Debian package, so --nodeps: .ci/packages provides the BuildRequires.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s dist > /dev/null
tarball=libfallocate-$(sed -n "s/^PACKAGE_VERSION = //p" Makefile).tar.xz
rpmbuild -ta --nodeps --define "_topdir $work/rpm" "$tarball" > "$work/rpmbuild.log" 2>&1 ||
	{ tail -n 80 "$work/rpmbuild.log"; exit 1; }
echo "--- %check (make check-package):"
grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS|# [A-Z]+:)' "$work/rpmbuild.log"
for rpm in "$work"/rpm/RPMS/*/*.rpm "$work"/rpm/SRPMS/*.rpm; do
	echo "--- $(basename "$rpm")"
	rpm -qlp "$rpm" 2>/dev/null | grep -v '^/usr/lib/\.build-id' | sed 's/^/  /'
done
echo "71-rpm: rpmbuild -ta $tarball built the library, -devel and -tools packages"

#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The Debian packages, as a distribution builds them: amd64 natively and
# i386 with the cross toolchain, each from a clean export of the commit
# (dpkg-buildpackage -us -uc -b), lintian with no error and no warning, the
# symbols file against libtool's version-info, then the .debs of both
# architectures installed side by side and the autopkgtest tests run
# against them (null runner): a pkg-config build and fallocate-preload
# under ENOSYS, and a -m32 and a 64-bit program under the installed wrapper.
set -euo pipefail
top=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
upstream=${version%-*}

# libtool's current - age is the soname in the symbols file and the package name.
vinfo=$(sed -n 's/^AC_SUBST(\[LT_VERSION_INFO\], \[\(.*\)\])$/\1/p' configure.ac)
major=$(echo "$vinfo" | awk -F: '{ print $1 - $3 }')
grep -qx "libfallocate.so.$major libfallocate$major #MINVER#" debian/libfallocate1.symbols ||
	{ echo "70-debian: version-info $vinfo (soname $major) disagrees with debian/libfallocate1.symbols"; exit 1; }
echo "version-info $vinfo: libfallocate.so.$major, package libfallocate$major, symbols file agrees"

export_tree() { # DIR: the committed tree, as a fresh checkout has it
	mkdir -p "$1"
	if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
		git -C "$top" archive --prefix="libfallocate-$upstream/" HEAD | tar -x -C "$1"
	else
		cp -a "$top" "$1/libfallocate-$upstream"
	fi
}

build() { # ARCH
	local arch=$1 dir=$work/$1 opts=()
	export_tree "$dir"
	if [ "$arch" != "$(dpkg --print-architecture)" ]; then
		opts=(-a "$arch")
		# i386 programs run on this amd64 kernel: the tests run too.
		export CC=i686-linux-gnu-gcc DEB_BUILD_OPTIONS=crossbuildcanrunhostbinaries
	fi
	(cd "$dir/libfallocate-$upstream" && dpkg-buildpackage -us -uc -b "${opts[@]}") \
		> "$work/build-$arch.log" 2>&1 || { tail -n 80 "$work/build-$arch.log"; exit 1; }
	unset CC DEB_BUILD_OPTIONS
	echo "--- $arch: dh_auto_test (make check-package):"
	grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS|# [A-Z]+:)' "$work/build-$arch.log"
	echo "--- $arch: packages"
	for deb in "$dir"/*.deb; do
		case $deb in *-dbgsym_*) continue ;; esac
		printf '%s: %s files:' "$(basename "$deb")" "$(dpkg-deb -c "$deb" | grep -vc '/$')"
		dpkg-deb -c "$deb" | awk '$6 !~ /\/$/ { sub(/^\./, "", $6); printf " %s", $6 }'
		echo
	done
	echo "--- $arch: lintian"
	# Exits nonzero on any error or warning; info and pedantic tags are shown.
	# (A clean run prints nothing, so the filter's status must not count.)
	local lint rc=0
	lint=$(lintian --fail-on error,warning -I --pedantic \
		"$dir/libfallocate_${version}_$arch.changes" 2>&1) || rc=$?
	grep -v '^running with root privileges' <<< "$lint" || true
	[ "$rc" = 0 ] || { echo "70-debian: lintian failed ($arch)"; exit 1; }
	echo "lintian ($arch): no error, no warning"
}

# The two builds run side by side (each is mostly one process: configure,
# a small make, the package tests), printed one after the other.
(build amd64) > "$work/step-amd64.out" 2>&1 &
pid_amd64=$!
(build i386) > "$work/step-i386.out" 2>&1 &
pid_i386=$!
failed=''
wait "$pid_amd64" || failed="$failed amd64"
cat "$work/step-amd64.out"
wait "$pid_i386" || failed="$failed i386"
cat "$work/step-i386.out"
[ -z "$failed" ] || { echo "70-debian: the package build failed:$failed"; exit 1; }

# Packages this machine kept from an earlier run (CI may run where a session
# ran) would make the install an upgrade of the same version with other
# files: start from none, and leave none behind.
purge_ours() {
	local installed
	installed=$(dpkg-query -W -f '${Package}:${Architecture} ' 'libfallocate*' 2>/dev/null) || true
	[ -z "$installed" ] ||
		DEBIAN_FRONTEND=noninteractive dpkg --purge $installed > /dev/null 2>&1 || true
}
purge_ours
trap 'purge_ours; rm -rf "$work"' EXIT

echo "--- install amd64 and i386 side by side"
debs=("$work"/amd64/libfallocate1_*.deb "$work"/amd64/libfallocate-dev_*.deb
	"$work"/amd64/libfallocate-tools_*.deb "$work"/i386/libfallocate1_*.deb
	"$work"/i386/libfallocate-dev_*.deb)
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
	--no-install-recommends --allow-downgrades "${debs[@]}" > "$work/install.log" 2>&1 ||
	{ tail -n 40 "$work/install.log"; exit 1; }
dpkg-query -W -f '${Package}:${Architecture} ${Version} ${Status}\n' 'libfallocate*'

echo "--- autopkgtest (null runner) against the installed packages"
rc=0
autopkgtest -B "$work/amd64/libfallocate-$upstream" -- null > "$work/autopkgtest.log" 2>&1 || rc=$?
sed -n '/@@@@ summary/,$p' "$work/autopkgtest.log"
grep -E '^(64-bit|32-bit|glibc alone|with libfallocate|fallocate --posix|libfallocate:)' "$work/autopkgtest.log" || true
if [ "$rc" != 0 ] || ! sed -n '/@@@@ summary/,$p' "$work/autopkgtest.log" | grep -q '^multiarch *PASS'; then
	cat "$work/autopkgtest.log"
	echo "70-debian: autopkgtest failed (exit $rc), or the 32/64-bit test did not run"
	exit 1
fi
echo "70-debian: amd64 and i386 packages built, lintian clean, installed together, autopkgtest passed"

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# `make install DESTDIR=...` installs exactly the files this build defines
# (the versioned library and its links, the static library, no .la, the
# header, the pkg-config file, the tools and man pages), and a program
# compiles, links and runs with `pkg-config --cflags --libs libfallocate`
# pointed at that tree.
. "${top_srcdir:-.}/tests/lib/lib.sh"
: "${LFA_MAKE:=make}" "${CC:=cc}"
need_cmd pkg-config
[ -f "$top_builddir/Makefile" ] || fail "no Makefile in $top_builddir"
# A make of our own: the parent's job server and variables are not ours.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $LFA_MAKE -s -C "$top_builddir" "$@"; }

dest=$scratch/destdir
mk install DESTDIR="$dest" > "$scratch/install.log" 2>&1 ||
	{ cat "$scratch/install.log"; fail "make install failed"; }
list=$(mk print-install-list) || fail "make print-install-list failed"
dir() { echo "$list" | awk -v d="$1" '$1 == "dir" && $2 == d { print $3 }'; }
bindir=$(dir bindir) pkglibexecdir=$(dir pkglibexecdir) libdir=$(dir libdir) includedir=$(dir includedir)
pkgconfigdir=$(dir pkgconfigdir) mandir=$(dir mandir) docdir=$(dir docdir)
major=$(echo "$list" | awk '$1 == "soname" { print $2 }')
vinfo=$(echo "$list" | awk '$1 == "version-info" { print $2 }')
# libtool's names on Linux for current:revision:age: .so.(c-a).a.r
real=$(echo "$vinfo" | awk -F: '{ printf "libfallocate.so.%d.%d.%d", $1 - $3, $3, $2 }')
[ "libfallocate.so.$major" = "$(echo "$real" | cut -d. -f1-3)" ] ||
	fail "LFA_SONAME_MAJOR $major does not match version-info $vinfo"
libtool_cfg=$("$top_builddir/libtool" --config)
shared=$(echo "$libtool_cfg" | sed -n 's/^build_libtool_libs=//p')
static=$(echo "$libtool_cfg" | sed -n 's/^build_old_libs=//p')

# What must be there, from the variables that install it.
{
	if [ "$shared" = yes ]; then
		echo "$libdir/$real"
		echo "$libdir/libfallocate.so.$major"
		echo "$libdir/libfallocate.so"
	fi
	[ "$static" = yes ] && echo "$libdir/libfallocate.a"
	echo "$list" | while read -r kind path; do
		name=${path##*/}
		case $kind in
		bin) echo "$bindir/$name" ;;
		libexec) echo "$pkglibexecdir/$name" ;;
		include) echo "$includedir/$name" ;;
		pkgconfig) echo "$pkgconfigdir/$name" ;;
		doc) echo "$docdir/$name" ;;
		man) sect=${name##*.}; echo "$mandir/man$(echo "$sect" | cut -c1)/$name" ;;
		esac
	done
} | sort -u > "$scratch/expected"
# The core, whatever else the build adds.
for f in "$libdir/$real" "$libdir/libfallocate.so.$major" "$libdir/libfallocate.so" \
	"$includedir/libfallocate.h" "$pkgconfigdir/libfallocate.pc" \
	"$bindir/fallocate-preload" "$mandir/man1/fallocate-preload.1"; do
	grep -qxF "$f" "$scratch/expected" || fail "the build does not install $f"
done
(cd "$dest" && find . ! -type d | sed 's|^\.||' | sort) > "$scratch/installed"
sed 's/^/# installed: /' "$scratch/installed"
if ! cmp -s "$scratch/expected" "$scratch/installed"; then
	diff -u "$scratch/expected" "$scratch/installed" | sed 's/^/# /'
	fail "installed files differ from the expected list (- missing, + unexpected)"
fi
[ -e "$dest$libdir/libfallocate.la" ] && fail "libfallocate.la was installed"

# The links, and what the tools were given.
if [ "$shared" = yes ]; then
	[ "$(readlink "$dest$libdir/libfallocate.so.$major")" = "$real" ] || fail "bad soname link"
	[ "$(readlink "$dest$libdir/libfallocate.so")" = "$real" ] || fail "bad .so link"
fi
[ -x "$dest$bindir/fallocate-preload" ] || fail "fallocate-preload is not executable"
out=$(env -u FALLOCATE_PRELOAD_LIBRARY "$dest$bindir/fallocate-preload" --help)
echo "$out" | grep -qxF "Library: $libdir/libfallocate.so.$major" ||
	fail "the installed wrapper names another library: $out"
note "installed: $(wc -l < "$scratch/installed") files, as expected"

# pkg-config from the staged tree, then a program built with its flags.
export PKG_CONFIG_PATH="$dest$pkgconfigdir" PKG_CONFIG_SYSROOT_DIR="$dest"
export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
unset PKG_CONFIG_LIBDIR
flags=$(pkg-config --cflags --libs libfallocate) || fail "pkg-config failed"
note "pkg-config --cflags --libs libfallocate: $flags"
echo "$flags" | grep -qF -- "-I$dest$includedir" || fail "no -I into the staged tree: $flags"
echo "$flags" | grep -qF -- "-L$dest$libdir" || fail "no -L into the staged tree: $flags"
[ "$(pkg-config --modversion libfallocate)" = "$(sed -n 's/^Version: //p' "$dest$pkgconfigdir/libfallocate.pc")" ] ||
	fail "pkg-config --modversion"
cat > "$scratch/user.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <libfallocate.h>

int main(int argc, char **argv)
{
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0600);
	int r = fd < 0 ? -1 : posix_fallocate(fd, 0, 65536);

	printf("posix_fallocate: %d\n", r);
	return r != 0;
}
C
runs() { # PROGRAM: uses libfallocate (debug line) and allocates
	out=$(LIBFALLOCATE_EMULATION=always LIBFALLOCATE_DEBUG=1 "$@" "$scratch/f.$$" 2>&1) ||
		fail "$*: $out"
	echo "$out" | grep -q '^libfallocate: posix_fallocate' || fail "$* did not use libfallocate: $out"
	[ "$(file_size "$scratch/f.$$")" = 65536 ] || fail "$*: wrong size"
	rm -f "$scratch/f.$$"
}
if [ "$shared" = yes ]; then
	# shellcheck disable=SC2086
	$CC -o "$scratch/user" "$scratch/user.c" $flags || fail "cannot build with pkg-config's flags"
	LD_LIBRARY_PATH=$dest$libdir runs "$scratch/user"
	note "a program built with pkg-config's flags links the installed library and runs"
fi
if [ "$static" = yes ]; then
	# shellcheck disable=SC2086
	# shellcheck disable=SC2046 # pkg-config's flags are words
	$CC -o "$scratch/user-static" "$scratch/user.c" $(pkg-config --cflags libfallocate) \
		"$dest$libdir/libfallocate.a" || fail "cannot link libfallocate.a"
	runs "$scratch/user-static"
	note "a program linked with the installed libfallocate.a runs"
fi

# And uninstall leaves nothing behind (distcheck checks the same).
mk uninstall DESTDIR="$dest" > "$scratch/uninstall.log" 2>&1 ||
	{ cat "$scratch/uninstall.log"; fail "make uninstall failed"; }
left=$(cd "$dest" && find . ! -type d)
[ -z "$left" ] || fail "left after uninstall: $left"
echo PASS

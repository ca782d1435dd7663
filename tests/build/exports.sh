#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The shared library exports the four libc names and lfa_* names, nothing
# else, and none of them in a named version node: a program's reference to
# posix_fallocate@GLIBC_2.2.5 binds to an unversioned definition in a
# preloaded library, but never to one in a named node (FACTS §2).
. "${top_srcdir:-.}/tests/lib/lib.sh"
need_cmd nm
need_cmd readelf
lib=$LFA_LIBRARY
[ -e "$lib" ] || fail "no $lib"

# Names as nm prints them, with any version suffix (binutils 2.35+ adds it).
syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sort -u)
[ -n "$syms" ] || fail "nm found no exports in $lib"
echo "$syms" | sed 's/^/# export: /'
bad=
for s in $syms; do
	case $s in
	*@*) bad="$bad $s(versioned)" ;;
	fallocate | fallocate64 | posix_fallocate | posix_fallocate64) ;;
	lfa_[a-z0-9]*) ;;
	*) bad="$bad $s" ;;
	esac
done
[ -z "$bad" ] || fail "unexpected exports:$bad"
for s in fallocate fallocate64 posix_fallocate posix_fallocate64; do
	echo "$syms" | grep -qx "$s" || fail "$s is not exported"
done

# readelf agrees: no defined dynamic symbol with a version, and no version
# definitions at all (an anonymous node makes none).
versioned=$(readelf --dyn-syms -W "$lib" | awk '$7 != "UND" && $8 ~ /@/ { print $8 }')
[ -z "$versioned" ] || fail "versioned definitions: $versioned"
readelf -V -W "$lib" | grep -q "Version definition section" &&
	fail "$lib defines version nodes: $(readelf -V -W "$lib" | grep -A5 'Version definition')"
# The soname is the versioned file the wrapper preloads.
soname=$(readelf -d -W "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "$(basename "$lib")" ] || fail "soname $soname, file $(basename "$lib")"
note "soname $soname; $(echo "$syms" | wc -l) exports, all unversioned"
echo PASS

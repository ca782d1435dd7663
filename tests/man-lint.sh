#!/bin/sh
# Every man page the build installs renders without a warning from mandoc
# (-Tlint, warnings and errors; its style notes about pages missing from
# this machine's database depend on what is installed, so are left out) and
# from groff -ww.
. "${top_srcdir:-.}/tests/lib.sh"
: "${LFA_MAKE:=make}"
pages=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $LFA_MAKE -s -C "$top_builddir" print-install-list |
	awk '$1 == "man" { print $2 }')
[ -n "$pages" ] || fail "the build installs no man pages"
checked=0
for p in $pages; do
	f=$top_srcdir/$p
	[ -f "$f" ] || f=$top_builddir/$p
	[ -f "$f" ] || fail "no $p"
	if command -v mandoc >/dev/null 2>&1; then
		out=$(mandoc -Tlint -Wwarning "$f" 2>&1) || true
		[ -z "$out" ] || fail "mandoc -Tlint $p: $out"
		checked=$((checked + 1))
	fi
	if command -v groff >/dev/null 2>&1; then
		out=$(LC_ALL=C groff -ww -b -z -mandoc -Tutf8 "$f" 2>&1) || fail "groff $p: $out"
		[ -z "$out" ] || fail "groff -ww $p: $out"
		checked=$((checked + 1))
	fi
	note "$p: clean"
done
[ "$checked" -gt 0 ] || skip "neither mandoc nor groff is installed"
echo PASS

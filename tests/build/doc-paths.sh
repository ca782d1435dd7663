#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Every path and make target the documents name still exists (issue 41):
# README.md, tests/README.md, bench/README.md, RELEASING.md and the manual
# pages name files of the tree (tests/..., src/..., .ci/...) and targets
# (make check-fs); a file moved or a target renamed must take its mentions
# along.  A path is found when the source tree has it, when it is a
# program built from PATH.c (tests/calls/fuzz), or when a glob matches;
# what the tree makes at run time (bench/results/, coverage/) is named
# below.  Targets are read from the Makefile of this build.
. "${top_srcdir:-.}/tests/lib/lib.sh"
docs="README.md tests/README.md bench/README.md RELEASING.md"
for page in "$top_srcdir"/man/*.[1-9]*; do docs="$docs man/${page##*/}"; done

# The words of a document that look like paths of the tree: a known top
# folder, a slash, more; roff's \- becomes -, and trailing punctuation goes.
paths_of() {
	sed 's/\\-/-/g; s/\\&//g' "$top_srcdir/$1" |
		grep -oE '(^|[^A-Za-z0-9_./$-])(\.ci|src|tests|tools|bench|man|debian|abi|cov|include)/[A-Za-z0-9_./*-]*' |
		sed -E 's/^[^.a-z]//; s/[.]+$//'
}
made_at_run_time() {
	case $1 in
	bench/results/* | bench/results) return 0 ;; # make bench's output
	tests/*.log) return 0 ;; # make check's logs
	esac
	return 1
}
checked=0
for doc in $docs; do
	[ -f "$top_srcdir/$doc" ] || fail "$doc is missing"
	for p in $(paths_of "$doc" | sort -u); do
		checked=$((checked + 1))
		made_at_run_time "$p" && continue
		# A release tarball carries neither .ci/ nor debian/.
		[ -d "$top_srcdir/${p%%/*}" ] || continue
		p=${p%/}
		# shellcheck disable=SC2086 # the glob is meant
		set -- "$top_srcdir"/$p
		[ -e "$1" ] && continue
		[ -e "$top_srcdir/$p.c" ] && continue # a program built from it
		grep -Fq "$p\$(EXEEXT)" "$top_builddir/Makefile" && continue # or from several
		# A placeholder (VERSION, ABI) stands for any name.
		# shellcheck disable=SC2046
		set -- "$top_srcdir"/$(echo "$p" | sed -E 's/[A-Z][A-Z0-9_]{2,}/*/g')
		[ -e "$1" ] && continue
		fail "$doc names $p, which the tree does not have"
	done
done
[ "$checked" -ge 50 ] || fail "only $checked paths found: is the extraction broken?"

# make targets, as the documents write commands: `make TARGET`, a line of
# a shell example, or roff's .B make TARGET.
targets=$(for doc in $docs; do
	case $doc in
	*.md) how='(`|^(    )?|&& )' ;; # inline code, a code block, a chain
	*) how='(\.B "?|\\fB)' ;;      # roff's bold
	esac
	sed 's/\\-/-/g; s/\\&//g' "$top_srcdir/$doc" |
		grep -oE "${how}make +[a-z][a-z0-9.-]*" | sed -E 's/.*make +//'
done | sort -u)
n=0
for t in $targets; do
	case $t in
	install | dist | distcheck | check | clean) continue ;; # automake's own
	esac
	grep -Eq "^$t:" "$top_builddir/Makefile" ||
		fail "the documents name make $t, which the Makefile has no rule for"
	n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "only $n make targets found"
echo "PASS: $checked paths and $n make targets named by $docs"

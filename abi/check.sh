#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make abi-check: the built libfallocate.so.1 against the ABI of the last
# release (abi/libfallocate-VERSION.abi, abidw's output for that release's
# build; RELEASING.md says how it moves).  Fails on a change a program built
# against the release could notice: a removed or changed function, a member
# of a public struct moved, removed or retyped.  Reports the compatible
# ones: new functions, members appended to a struct whose callers pass its
# size (lfa_options, lfa_report).
#   check.sh BASELINE LIBRARY HEADERS-DIR
set -u
baseline=$1 lib=$2 headers=$3
command -v abidiff > /dev/null || { echo "abi-check: abidiff is not installed (abigail-tools)" >&2; exit 2; }
[ -r "$baseline" ] || { echo "abi-check: no baseline $baseline" >&2; exit 2; }
[ -r "$lib" ] || { echo "abi-check: no library $lib (build it first)" >&2; exit 2; }
report=$(abidiff --headers-dir2 "$headers" --drop-private-types "$baseline" "$lib" 2>&1)
rc=$?
echo "$report"
# abidiff's status is a bit mask: 1 error, 2 usage, 4 the ABI changed,
# 8 changed incompatibly.  A struct's layout is only "changed" (4) to it:
# whether that is compatible here is decided by the report's lines.
if [ $((rc & 3)) != 0 ]; then
	echo "abi-check: abidiff failed (status $rc)" >&2
	exit 2
fi
if [ $((rc & 8)) != 0 ]; then
	echo "abi-check: INCOMPATIBLE with $(basename "$baseline"): a removed or changed export" >&2
	exit 1
fi
[ $((rc & 4)) = 0 ] && { echo "abi-check: the same ABI as $(basename "$baseline")"; exit 0; }
# A change is compatible only where every line says a struct grew at its
# end: its size, and members inserted at or past the old size.
bad=$(echo "$report" | awk '
	/type size changed from/ { match($0, /from [0-9]+/); old = substr($0, RSTART + 5, RLENGTH - 5) + 0; next }
	/data member insertion/ { ins = 1; next }
	ins && /^ *'"'"'.*'"'"', at offset [0-9]+/ {
		match($0, /at offset [0-9]+/); off = substr($0, RSTART + 10, RLENGTH - 10) + 0
		if (off < old) print "member inserted inside the old struct: " $0
		next
	}
	/offset changed|data member deletion|data member change|type of .* changed|removed|return type changed|parameter [0-9]+ .* (added|removed|changed)|size of .* changed|[1-9][0-9]* Removed/ { print }
	/^ *\[D\]|^ *\[C\].*(was removed|type changed)/ { print }
	{ ins = ins && !/^ *$/ }
')
if [ -n "$bad" ]; then
	echo "abi-check: INCOMPATIBLE with $(basename "$baseline"):" >&2
	echo "$bad" >&2
	exit 1
fi
echo "abi-check: compatible with $(basename "$baseline") (additions only, listed above)"

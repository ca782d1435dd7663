#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# With the syscall failing as an old kernel (ENOSYS) or an unsupporting
# filesystem (EOPNOTSUPP) makes it fail, posix_fallocate falls back to the
# emulation; any other error (EPERM from a sandbox) is passed back, and so is
# every error when LIBFALLOCATE_EMULATION=never.  fallocate() emulates only
# mode 0 and only with LIBFALLOCATE_EMULATE_FALLOCATE=1.
. "${top_srcdir:-.}/tests/lib/lib.sh"
need_seccomp

expect() { # expect WANT-REGEX DESCRIPTION -- COMMAND...
	want=$1 what=$2; shift 3
	out=$("$@" 2>&1)
	echo "$out" | grep -Eq -e "$want" || fail "$what: wanted /$want/, got: $out"
	note "$what: ok"
}

for e in ENOSYS EOPNOTSUPP; do
	for prog in "$LFA_CALL" "$LFA_CALL_LFS"; do
		f=$scratch/fb-$e; rm -f "$f"
		expect '^posix_fallocate fd=[0-9]+ mode=0 offset=4096 len=1048576 -> ok' \
			"$e falls back ($(basename "$prog"))" -- \
			"$WITH_ERRNO" $e env LIBFALLOCATE_DEBUG=1 "$prog" "$f" posix_fallocate:0:4096:1048576
		[ "$(file_size "$f")" = 1052672 ] || fail "$e: size $(file_size "$f")"
		rm -f "$f"
		expect "posix_fallocate64.*-> ok" "$e falls back (64)" -- \
			"$WITH_ERRNO" $e "$prog" "$f" posix_fallocate64:0:5000000000:65536
		[ "$(file_size "$f")" = 5000065536 ] || fail "$e: size $(file_size "$f")"
	done
	f=$scratch/never-$e; rm -f "$f"
	expect "-> $e\$" "$e passed back with LIBFALLOCATE_EMULATION=never" -- \
		"$WITH_ERRNO" $e env LIBFALLOCATE_EMULATION=never "$LFA_CALL" "$f" posix_fallocate:0:0:4096
	[ "$(file_size "$f")" = 0 ] || fail "never: size changed"
	expect "^fallocate .*-> $e\$" "fallocate() passes $e back by default" -- \
		"$WITH_ERRNO" $e "$LFA_CALL" "$f" fallocate:0:0:4096
	expect "^fallocate .*-> ok\$" "fallocate() emulates with LIBFALLOCATE_EMULATE_FALLOCATE=1" -- \
		"$WITH_ERRNO" $e env LIBFALLOCATE_EMULATE_FALLOCATE=1 "$LFA_CALL" "$f" fallocate:0:0:4096
	# Not emulated, KEEP_SIZE gets EOPNOTSUPP: with mode 0 emulated,
	# fallocate() exists, and ENOSYS would say it did not (issue 25).
	expect "^fallocate .*-> EOPNOTSUPP\$" "fallocate() never emulates KEEP_SIZE" -- \
		"$WITH_ERRNO" $e env LIBFALLOCATE_EMULATE_FALLOCATE=1 "$LFA_CALL" "$f" fallocate:1:0:8192
done

f=$scratch/eperm; rm -f "$f"
expect "-> EPERM\$" "EPERM is passed back, not emulated" -- \
	"$WITH_ERRNO" EPERM "$LFA_CALL" "$f" posix_fallocate:0:0:4096
[ "$(file_size "$f")" = 0 ] || fail "EPERM: size changed"

# The debug line names the path taken; a bad setting is reported, not fatal.
out=$("$WITH_ERRNO" ENOSYS env LIBFALLOCATE_DEBUG=1 "$LFA_CALL" "$f" posix_fallocate:0:0:4096 2>&1)
echo "$out" | grep -q '^libfallocate: posix_fallocate.*emulated (kernel said' || fail "debug line: $out"
out=$(env LIBFALLOCATE_EMULATION=bogus "$LFA_CALL" "$f" posix_fallocate:0:0:4096 2>&1)
echo "$out" | grep -q "libfallocate: ignoring LIBFALLOCATE_EMULATION=bogus" || fail "bad setting: $out"
echo "$out" | grep -q -- '-> ok' || fail "bad setting broke the call: $out"
echo "PASS"

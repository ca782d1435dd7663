#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The environment controls are ignored in a program running with AT_SECURE
# set (setuid here), as secure_getenv() does: a setuid-root copy of lfa-call,
# run by an unprivileged user, emulates on ext3 despite
# LIBFALLOCATE_EMULATION=never and prints no debug line, while an ordinary
# copy run by the same user obeys both.  The descriptor is O_APPEND, which
# glibc's emulation refuses: an "ok" there can only come from libfallocate.
. "${top_srcdir:-.}/tests/programs/preload-lib.sh"
[ "$(id -u)" = 0 ] || skip "not root: cannot make a setuid-root program"
need_cmd setpriv
: "${CC:=cc}"
mount_ext3 || skip "$why"
user=65534
# The unprivileged user must reach the files: the scratch directory is 0700.
chmod 711 "$scratch"
# Our own mount, without nosuid; the program, its library and its output
# all live on it.
d=$scratch/ext3/suid
mkdir -p "$d/out"
chmod 755 "$d"
chmod 1777 "$d/out"
findmnt -no OPTIONS -T "$d" | grep -qw nosuid && fail "$d is on a nosuid mount"

cp "$FALLOCATE_PRELOAD_LIBRARY" "$d/libfallocate.so.1"
chmod 755 "$d/libfallocate.so.1"
# Built here against the copy (found through an absolute RUNPATH, which
# the dynamic linker follows in secure mode too).
$CC -I"$top_srcdir/include" -o "$d/plain" "$top_srcdir/tests/lib/lfa-call.c" \
	"$d/libfallocate.so.1" -Wl,-rpath,"$d" || fail "cannot build the test program"
cp "$d/plain" "$d/setuid"
chown 0:0 "$d/plain" "$d/setuid"
chmod 755 "$d/plain"
chmod 4755 "$d/setuid"
# Every directory above $TMPDIR must be searchable by the user too.
setpriv --reuid=$user --regid=$user --clear-groups test -x "$d/plain" ||
	skip "user $user cannot reach $d: a directory above it is not searchable (TMPDIR mode 0700?)"

as_user() { # FILE PROGRAM ENV...: run PROGRAM as the user on FILE; out, rc
	f=$1 p=$2; shift 2
	rc=0
	out=$(setpriv --reuid=$user --regid=$user --clear-groups \
		env "$@" "$d/$p" -o append "$d/out/$f" posix_fallocate:0:0:1048576 2>&1) || rc=$?
	note "$p $*: rc=$rc: $(printf '%s' "$out" | tr '\n' '|')"
}
want() { printf '%s\n' "$out" | grep -Eq -e "$1" || fail "$2: wanted /$1/ in: $out"; }
want_not() { printf '%s\n' "$out" | grep -Eq -e "$1" && fail "$2: unexpected /$1/ in: $out"; return 0; }

# The ordinary copy obeys the settings.
as_user plain-never plain LIBFALLOCATE_EMULATION=never LIBFALLOCATE_DEBUG=1
want '^posix_fallocate .*-> EOPNOTSUPP$' "plain copy: LIBFALLOCATE_EMULATION=never is obeyed"
want '^libfallocate: ' "plain copy: LIBFALLOCATE_DEBUG=1 is obeyed"
[ "$(stat -c %u "$d/out/plain-never")" = $user ] || fail "the plain copy ran as root"
as_user plain-bogus plain LIBFALLOCATE_EMULATION=bogus
want 'libfallocate: ignoring LIBFALLOCATE_EMULATION=bogus' "plain copy: a bad value is reported"

# The setuid copy ignores them: it emulates, silently.
as_user setuid-never setuid LIBFALLOCATE_EMULATION=never LIBFALLOCATE_DEBUG=1
[ "$(stat -c %u "$d/out/setuid-never")" = 0 ] ||
	fail "the setuid copy did not run as root: is setuid honoured here?"
want '^posix_fallocate .*-> ok$' "setuid copy: LIBFALLOCATE_EMULATION=never is ignored"
want_not '^libfallocate: ' "setuid copy: LIBFALLOCATE_DEBUG=1 is ignored"
[ "$(file_size "$d/out/setuid-never")" = 1048576 ] || fail "setuid copy: wrong size"
as_user setuid-bogus setuid LIBFALLOCATE_EMULATION=bogus
want_not 'libfallocate' "setuid copy: a bad value is not even read"
want '^posix_fallocate .*-> ok$' "setuid copy with a bad value"
echo PASS

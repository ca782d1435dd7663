#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Files of kernel interfaces (issue 18): their size is not their content and
# a zero written there changes a setting.  The kernel's fallocate answers
# EOPNOTSUPP; the emulation, forced or behind a seccomp filter answering
# EOPNOTSUPP, must answer the same with nothing written: a procfs file (the
# comm of a sleeping child) and a sysfs attribute (transparent huge pages,
# whose store refuses zeros, should a broken build write any; root).
. "${top_srcdir:-.}/tests/lib/lib.sh"
LFA_CALL=$top_builddir/tests/lib/lfa-call

refused() { # refused FILE [WRAPPER...]: EOPNOTSUPP and the content unchanged
	file=$1; shift
	before=$(cat "$file") || fail "cannot read $file"
	out=$("$@" "$LFA_CALL" "$file" posix_fallocate:0:0:16 2>&1)
	case $out in
	*"-> EOPNOTSUPP"*) ;;
	*) fail "$file ($*): $out" ;;
	esac
	[ "$(cat "$file")" = "$before" ] || fail "$file changed: $(cat "$file")"
}

sleep 60 &
child=$!
on_exit "kill $child 2>/dev/null"
[ -w "/proc/$child/comm" ] || skip "cannot write /proc/$child/comm"
# Until the child has run exec, its comm is the shell's: it changes by itself.
tries=0
until [ "$(cat "/proc/$child/comm" 2>/dev/null)" = sleep ]; do
	tries=$((tries + 1))
	[ $tries -le 200 ] || fail "the child never became sleep: $(cat "/proc/$child/comm")"
	sleep 0.05
done
refused "/proc/$child/comm" env LIBFALLOCATE_EMULATION=always
refused "/proc/$child/comm" env
if [ -x "$WITH_ERRNO" ] && "$WITH_ERRNO" EOPNOTSUPP true 2>/dev/null; then
	refused "/proc/$child/comm" "$WITH_ERRNO" EOPNOTSUPP
fi
thp=/sys/kernel/mm/transparent_hugepage/enabled
[ "$(id -u)" = 0 ] && [ -w "$thp" ] || skip "not root or no $thp: the sysfs half"
refused "$thp" env LIBFALLOCATE_EMULATION=always
if [ -x "$WITH_ERRNO" ] && "$WITH_ERRNO" EOPNOTSUPP true 2>/dev/null; then
	refused "$thp" "$WITH_ERRNO" EOPNOTSUPP
fi

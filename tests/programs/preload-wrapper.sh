#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate-preload itself: options become LIBFALLOCATE_* settings, the
# versioned library goes first in LD_PRELOAD and what was there stays, a
# missing library stops it before the command runs, bad usage exits 1.
. "${top_srcdir:-.}/tests/lib/lib.sh"
: "${FALLOCATE_PRELOAD:=$top_builddir/tools/fallocate-preload}"
: "${FALLOCATE_PRELOAD_LIBRARY:=$LFA_LIBRARY}"
export FALLOCATE_PRELOAD_LIBRARY
w=$FALLOCATE_PRELOAD
[ -x "$w" ] || fail "no $w"
need_system_libc "$FALLOCATE_PRELOAD_LIBRARY"
unset LIBFALLOCATE_EMULATION LIBFALLOCATE_DEBUG LIBFALLOCATE_EMULATE_FALLOCATE LD_PRELOAD

run() { rc=0; out=$("$@" 2>&1) || rc=$?; }
want_rc() { [ "$rc" = "$1" ] || fail "$2: exit status $rc, wanted $1: $out"; note "$2: ok"; }
want_out() { printf '%s\n' "$out" | grep -Eq -e "$1" || fail "$2: wanted /$1/ in: $out"; }
# Commands that only print their environment run with stderr dropped: the
# dynamic linker warns there when the library is of another ELF class than
# the shell (a 32-bit build on a 64-bit system).
run_stdout() { rc=0; out=$("$@" 2>/dev/null) || rc=$?; }
show_env='echo "LD_PRELOAD=$LD_PRELOAD"; env | grep ^LIBFALLOCATE_ | sort; echo "args:$*"'

# The installed script names the versioned file under the configured libdir.
run env -u FALLOCATE_PRELOAD_LIBRARY "$w" --help
want_rc 0 "--help"
want_out "^Library: /.*/libfallocate\.so\.[0-9]+$" "--help names the versioned library"
want_out "^Usage: fallocate-preload " "--help usage"
run "$w" --version
want_rc 0 "--version"
want_out '^fallocate-preload \(libfallocate\) [0-9]' "--version"

# No option: LD_PRELOAD, and fallocate() with mode 0 emulates.
run_stdout "$w" sh -c "$show_env" sh a 'b c'
want_rc 0 "plain run"
[ "$out" = "LD_PRELOAD=$FALLOCATE_PRELOAD_LIBRARY
LIBFALLOCATE_EMULATE_FALLOCATE=1
args:a b c" ] || fail "plain run: $out"
# --no-emulate-fallocate turns that off; the option beats the environment,
# and a value already in the environment beats the default.
run_stdout env LIBFALLOCATE_EMULATE_FALLOCATE=1 "$w" --no-emulate-fallocate sh -c "$show_env"
[ "$out" = "LD_PRELOAD=$FALLOCATE_PRELOAD_LIBRARY
LIBFALLOCATE_EMULATE_FALLOCATE=0
args:" ] || fail "--no-emulate-fallocate: $out"
run_stdout env LIBFALLOCATE_EMULATE_FALLOCATE=0 "$w" sh -c 'echo $LIBFALLOCATE_EMULATE_FALLOCATE'
[ "$out" = 0 ] || fail "LIBFALLOCATE_EMULATE_FALLOCATE=0 in the environment: $out"
run_stdout env LIBFALLOCATE_EMULATE_FALLOCATE=0 "$w" --emulate-fallocate sh -c 'echo $LIBFALLOCATE_EMULATE_FALLOCATE'
[ "$out" = 1 ] || fail "--emulate-fallocate over the environment: $out"

# Each option sets its variable; an earlier LD_PRELOAD is kept, after ours.
run_stdout env LD_PRELOAD=/nonexistent/other.so "$w" --emulation=never --debug --emulate-fallocate \
	-- sh -c "$show_env" sh --debug
want_rc 0 "all options"
[ "$out" = "LD_PRELOAD=$FALLOCATE_PRELOAD_LIBRARY:/nonexistent/other.so
LIBFALLOCATE_DEBUG=1
LIBFALLOCATE_EMULATE_FALLOCATE=1
LIBFALLOCATE_EMULATION=never
args:--debug" ] || fail "all options: $out"
run_stdout "$w" --emulation always sh -c 'echo $LIBFALLOCATE_EMULATION'
[ "$out" = always ] || fail "--emulation VALUE: $out"

# The library really is loaded and does what the options say.
if [ -x "$LFA_CALL" ]; then
	run "$w" --emulation=always --debug "$LFA_CALL" "$scratch/f" posix_fallocate:0:0:65536
	want_rc 0 "lfa-call under the wrapper"
	want_out '^libfallocate: posix_fallocate.*emulated \(LIBFALLOCATE_EMULATION=always' \
		"the options reach the library"
fi

# --seccomp without its supervisor: refused before the command runs (126);
# =auto warns and runs it with LD_PRELOAD alone.
run env FALLOCATE_PRELOAD_SECCOMP_HELPER=$scratch/missing-helper "$w" --seccomp touch "$scratch/ran"
want_rc 126 "--seccomp, no supervisor"
want_out "missing-helper is missing" "--seccomp, no supervisor: message"
[ ! -e "$scratch/ran" ] || fail "--seccomp ran the command without its supervisor"
run_stdout env FALLOCATE_PRELOAD_SECCOMP_HELPER=$scratch/missing-helper "$w" --seccomp=auto sh -c 'echo "$LD_PRELOAD"'
want_rc 0 "--seccomp=auto, no supervisor"
[ "$out" = "$FALLOCATE_PRELOAD_LIBRARY" ] || fail "--seccomp=auto, no supervisor: $out"
run "$w" --help
want_out "^  --seccomp\\[=auto\\]" "--help names --seccomp"

# Bad usage: message, exit 1, nothing run.
for bad in "--emulation=sometimes true" "--bogus true" "" "--emulation" "--seccomp=always true"; do
	run "$w" $bad
	want_rc 1 "bad usage '$bad'"
	want_out "^fallocate-preload: " "bad usage '$bad' message"
	want_out "Try 'fallocate-preload --help'" "bad usage '$bad' hint"
done

# A missing library: loud, exit 127, the command never runs.
run env FALLOCATE_PRELOAD_LIBRARY=$scratch/missing/libfallocate.so.1 "$w" touch "$scratch/ran"
want_rc 127 "missing library"
want_out "missing/libfallocate.so.1: no such library" "missing library message"
[ ! -e "$scratch/ran" ] || fail "the command ran without the library"
run env FALLOCATE_PRELOAD_LIBRARY=relative/libfallocate.so.1 "$w" true
want_rc 127 "relative library path"

# A missing command: 127, as from the shell.
run "$w" "$scratch/no-such-command"
want_rc 127 "missing command"
echo PASS

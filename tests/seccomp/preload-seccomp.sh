#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate-preload --seccomp (issue 16): programs LD_PRELOAD cannot reach,
# each shown failing under the plain wrapper and served under --seccomp, on
# an ext3 image and a ramfs: static glibc and musl programs calling
# posix_fallocate and fallocate, busybox fallocate, a Go program, a shell
# script running a static and a dynamic program, many threads at once, a
# target killed mid-call, a signal during a call; then exit statuses,
# forwarded signals, Ctrl-C on a terminal, nesting, and the refusals
# (setuid targets without privileges, a second supervisor).
. "${top_srcdir:-.}/tests/lib/lib.sh"
# The wrapper, root, the kernel's support, and $bin/glibc-static: the
# library preloads into the system's programs (sh, true), so the i386
# tree's cannot serve them on an x86_64 system; only the kernel's refusals
# skip, anything else is a failure of ours.
. "$top_srcdir/tests/seccomp/seccomp-lib.sh"

missing=""
${CC:-cc} -O2 -pthread -o "$bin/glibc-dynamic" "$top_srcdir/tests/seccomp/seccomp-target.c" || exit 99
# Where musl-gcc is, the program must build with it: a failure to is ours
# (its message is shown), never a skip.
if ! command -v musl-gcc >/dev/null 2>&1; then
	missing="$missing musl-gcc(musl-tools)"
elif ! musl-gcc -static -O2 -pthread -o "$bin/musl-static" "$top_srcdir/tests/seccomp/seccomp-target.c" \
	2>"$scratch/musl-gcc.err"; then
	cat "$scratch/musl-gcc.err" >&2
	fail "musl-gcc cannot build tests/seccomp/seccomp-target.c (above)"
fi
if command -v go >/dev/null 2>&1; then
	mkdir "$scratch/go" && cp "$top_srcdir/tests/seccomp/seccomp-target.go" "$scratch/go/main.go" &&
	(cd "$scratch/go" && GOCACHE=$scratch/go/cache GOPATH=$scratch/go/path GO111MODULE=off \
		GOFLAGS='' CGO_ENABLED=0 go build -o "$bin/go-static" main.go) ||
		fail "go build failed"
else
	missing="$missing go(golang-go)"
fi
busybox=""
for b in /bin/busybox /usr/bin/busybox; do
	if [ -x "$b" ] && "$b" --list 2>/dev/null | grep -qx fallocate &&
		! readelf -l "$b" 2>/dev/null | grep -q 'program interpreter'; then
		busybox=$b
		break
	fi
done
[ -n "$busybox" ] || missing="$missing busybox-static(with its fallocate applet)"
need_cmd strace
for p in "$bin"/*-static; do
	readelf -l "$p" | grep -q 'program interpreter' && fail "$p is not static"
done

mount_fs ext3 ext3 400M
ext3=$MNT
mount_fs ramfs ramfs 0
ramfs=$MNT
LEN=3000000 # not a multiple of any block size

# check_file FILE LEN: exact size, zeros, and on ext3 blocks for all of it.
check_file() {
	[ "$(file_size "$1")" = "$2" ] || fail "$1: size $(file_size "$1"), wanted $2"
	cmp -s -n "$2" "$1" /dev/zero || fail "$1: not all zeros"
	case $1 in
	"$ext3"/*)
		blocks=$(stat -c '%b * %B' "$1")
		[ $((blocks)) -ge "$2" ] || fail "$1: $((blocks)) bytes allocated, wanted $2"
	esac
}
# with_file FILE COMMAND...: run, with each argument @F@ replaced by FILE.
with_file() {
	f=$1
	shift
	i=$#
	for a in "$@"; do
		[ "$a" = @F@ ] && a=$f
		set -- "$@" "$a"
	done
	shift "$i"
	run "$@"
}

# row NAME FS COMMAND...: COMMAND (its argument @F@ names the file, LEN
# long) fails under the plain wrapper and allocates under --seccomp.
n=0
row() {
	name=$1 fs=$2
	shift 2
	n=$((n + 1))
	where="$name on ${fs##*/}"
	with_file "$fs/plain-$n" "$w" "$@"
	[ "$rc" != 0 ] || fail "$where: passed without --seccomp: $out"
	[ ! -s "$fs/plain-$n" ] || fail "$where: without --seccomp the file grew"
	plain_out=$out
	with_file "$fs/seccomp-$n" "$w" --seccomp "$@"
	[ "$rc" = 0 ] || fail "$where: under --seccomp: exit $rc: $out"
	check_file "$fs/seccomp-$n" $LEN
	note "$where: without --seccomp: $plain_out; with it: $out"
}

for fs in "$ext3" "$ramfs"; do
	# glibc's posix_fallocate emulates by itself on an O_RDWR descriptor
	# (one byte per block), but says EBADF on an O_APPEND one.
	row "glibc -static posix_fallocate (O_APPEND)" "$fs" "$bin/glibc-static" posix @F@ $LEN append
	row "glibc -static fallocate" "$fs" "$bin/glibc-static" fallocate @F@ $LEN
	if [ -x "$bin/musl-static" ]; then
		row "musl -static posix_fallocate" "$fs" "$bin/musl-static" posix @F@ $LEN
		row "musl -static fallocate" "$fs" "$bin/musl-static" fallocate @F@ $LEN
	fi
	if [ -x "$bin/go-static" ]; then
		row "Go syscall.Fallocate" "$fs" "$bin/go-static" @F@ $LEN
	fi
	# A script running a static program (which fails alone) and a
	# dynamic one (which LD_PRELOAD serves either way).
	row "sh script, static program" "$fs" sh -c \
		'"$1" fallocate "$2" "$4"; s=$?; "$3" fallocate "$2.dynamic" "$4" || exit 9; exit $s' \
		sh "$bin/glibc-static" @F@ "$bin/glibc-dynamic" $LEN
	check_file "$fs/plain-$n.dynamic" $LEN
	check_file "$fs/seccomp-$n.dynamic" $LEN
	note "sh script, dynamic program on ${fs##*/}: served with and without --seccomp"

	# busybox fallocate calls glibc's posix_fallocate on an O_RDWR
	# descriptor: alone, glibc's emulation writes a byte per block (that
	# is what strace shows); under --seccomp the syscall succeeds.
	if [ -n "$busybox" ]; then
		for v in plain seccomp; do
			[ $v = seccomp ] && opt=--seccomp || opt=
			run "$w" $opt strace -f -qq -o "$scratch/bb-$v.log" -e trace=fallocate,pwrite64 \
				"$busybox" fallocate -l $LEN "$fs/busybox-$v"
			[ "$rc" = 0 ] || fail "busybox fallocate ($v) on ${fs##*/}: exit $rc: $out"
			check_file "$fs/busybox-$v" $LEN
			eval "writes_$v=\$(grep -c '^[0-9]* *pwrite64(' \"\$scratch/bb-$v.log\")"
			eval "call_$v=\$(grep '^[0-9]* *fallocate(' \"\$scratch/bb-$v.log\" | sed 's/.*= //')"
		done
		# shellcheck disable=SC2154
		{ [ "$writes_plain" -gt 100 ] && [ "$call_plain" != 0 ]; } ||
			fail "busybox without --seccomp: fallocate = $call_plain, $writes_plain writes"
		# shellcheck disable=SC2154
		{ [ "$writes_seccomp" = 0 ] && [ "$call_seccomp" = 0 ]; } ||
			fail "busybox under --seccomp: fallocate = $call_seccomp, $writes_seccomp writes of its own"
		note "busybox fallocate on ${fs##*/}: without --seccomp fallocate = $call_plain and glibc's emulation wrote $writes_plain single bytes; with it fallocate = 0, no write of its own"
	fi

	# Eight threads at once, each its own file and length.
	mkdir "$fs/threads-plain" "$fs/threads-seccomp" || exit 99
	run "$w" "$bin/glibc-static" threads "$fs/threads-plain" 8 $LEN
	[ "$rc" != 0 ] || fail "threads on ${fs##*/}: passed without --seccomp"
	plain_out=$(printf '%s\n' "$out" | tail -1)
	run "$w" --seccomp "$bin/glibc-static" threads "$fs/threads-seccomp" 8 $LEN
	[ "$rc" = 0 ] || fail "threads on ${fs##*/} under --seccomp: $out"
	for i in 0 1 2 3 4 5 6 7; do
		check_file "$fs/threads-seccomp/t$i" $((LEN + i * 4096))
	done
	note "8 threads on ${fs##*/}: without --seccomp: $plain_out; with it: $out"
done

# The wrapper's rules hold for the supervisor too: no emulation under
# --no-emulate-fallocate or --emulation=never; --debug says what it did.
for opt in --no-emulate-fallocate --emulation=never; do
	run "$w" --seccomp $opt "$bin/glibc-static" fallocate "$ramfs/rules" $LEN
	case $rc:$out in "1:fallocate: Operation not supported") ;; *) fail "--seccomp $opt: exit $rc: $out" ;; esac
done
run "$w" --seccomp --debug "$bin/glibc-static" fallocate "$ramfs/debug" $LEN
case $out in *"fallocate-preload: seccomp: pid "*" (x86_64) fallocate(fd=3, mode=0, offset=0, len=$LEN): emulated: 0"*) ;;
	*) fail "--seccomp --debug: $out" ;; esac
note "--no-emulate-fallocate and --emulation=never: the kernel's answer; --debug: $(echo "$out" | grep '^fallocate-preload')"

# The caller's RLIMIT_FSIZE applies, not the supervisor's, and one
# caller's lower limit does not stay for the next.  (SIGXFSZ ignored: at
# its default action the caller dies of it, as tests/calls/fsize-signal.sh shows.)
run "$w" --seccomp sh -c '(ulimit -f 100; trap "" XFSZ; "$0" fallocate "$1" 200000); "$0" fallocate "$2" 200000' \
	"$bin/glibc-static" "$ext3/limited" "$ext3/unlimited"
case $rc:$out in "0:fallocate: File too large"*"fallocate: 0") ;; *) fail "RLIMIT_FSIZE: exit $rc: $out" ;; esac
[ ! -s "$ext3/limited" ] || fail "RLIMIT_FSIZE: the limited call wrote"
check_file "$ext3/unlimited" 200000
note "RLIMIT_FSIZE: the caller's (EFBIG under ulimit -f 100, then 0 for a sibling without it)"

# A target killed with SIGKILL while the supervisor writes its zeros: the
# supervisor stops writing (its progress check sees the call gone), keeps
# serving the rest of the tree, and exits 0 with it.
BIG=300000000
run "$w" --seccomp sh -c '
	"$1" fallocate "$2" "$3" > /dev/null & p=$!
	i=0
	while [ $i -lt 20000 ]; do
		s=$(stat -c %s "$2" 2>/dev/null) || s=0
		[ "$s" -gt 0 ] && break
		i=$((i + 1))
	done
	kill -9 $p; wait $p; echo "killed: $? at $s bytes"
	mkdir "$4"
	"$1" threads "$4" 4 1000000' sh "$bin/glibc-static" "$ext3/killed" $BIG "$ext3/after-kill"
[ "$rc" = 0 ] || fail "kill mid-call: exit $rc: $out"
case $out in *"killed: 137 at "*"threads: 4 of 4 right"*) ;; *) fail "kill mid-call: $out" ;; esac
at=${out#*killed: 137 at }
at=${at%% bytes*}
size=$(file_size "$ext3/killed")
{ [ "$at" -gt 0 ] && [ "$at" -lt $BIG ]; } ||
	fail "kill mid-call: the kill came at $at bytes of $BIG, not mid-call"
[ "$size" -lt $BIG ] || fail "kill mid-call: the supervisor went on writing to $size bytes for a dead target"
cmp -s -n "$size" "$ext3/killed" /dev/zero || fail "kill mid-call: not zeros"
note "kill mid-call: killed at $at bytes, the supervisor stopped at $size of $BIG and served 4 more threads"

# A signal with a handler (no SA_RESTART) during a long call: under the
# filter's killable wait the call completes and is reported done only when
# it is; the handler runs afterwards.  (Without that flag, kernels before
# 5.19, the call says EINTR and the supervisor stops at its next write.)
run "$w" "$bin/glibc-static" interrupt "$ext3/interrupt-plain" 100000000
[ "$rc" != 0 ] || fail "interrupt: passed without --seccomp"
run "$w" --seccomp "$bin/glibc-static" interrupt "$ext3/interrupt" 100000000
[ "$rc" = 0 ] || fail "interrupt: $out"
case $out in
"interrupt: 0, "[1-9]*" signals, file right") ;;
"interrupt: Interrupted system call, "*) ;;
*) fail "interrupt: $out" ;;
esac
note "signal during a call: $out"
rm -f "$ext3/killed" "$ext3/interrupt"

# Exit status and signals.
run "$w" --seccomp sh -c 'exit 42'
[ "$rc" = 42 ] || fail "exit status: $rc, wanted 42"
run "$w" --seccomp sh -c 'kill -TERM $$'
[ "$rc" = 143 ] || fail "a command killed by SIGTERM: $rc, wanted 143 (the wrapper dies of it too)"
run "$w" --seccomp "$scratch/no-such-command"
[ "$rc" = 127 ] || fail "missing command: $rc, wanted 127"
note "exit statuses: 42, killed by SIGTERM, missing command: as the command's"
# A signal sent to the wrapper reaches the command once (even from a
# script, whose background jobs start with SIGINT ignored).
"$w" --seccomp "$bin/glibc-static" wait-int > "$scratch/wi" 2>&1 &
p=$!
i=0
until grep -qs ready "$scratch/wi" || [ $i -gt 500 ]; do sleep 0.01; i=$((i + 1)); done
kill -INT $p
rc=0
wait $p || rc=$?
{ [ "$rc" = 5 ] && grep -q "^sigint: 1$" "$scratch/wi"; } ||
	fail "SIGINT to the wrapper: exit $rc, $(cat "$scratch/wi")"
note "SIGINT sent to the wrapper: forwarded once"
if command -v python3 >/dev/null 2>&1; then
	# Ctrl-C on a terminal: the terminal signals the whole foreground
	# group; the supervisor does not add a second one.
	run python3 "$top_srcdir/tests/programs/ctrl-c.py" "$w" --seccomp "$bin/glibc-static" wait-int
	case $out in *"sigint: 1"*"status: 5") ;; *) fail "Ctrl-C: $out" ;; esac
	# "ready" first: a Ctrl-C typed before the command runs has no one to
	# reach (the supervisor leaves terminal signals to the command).
	run python3 "$top_srcdir/tests/programs/ctrl-c.py" "$w" --seccomp sh -c 'echo ready; exec sleep 10'
	case $out in *"status: -2") ;; *) fail "Ctrl-C on sleep: $out (wanted death by SIGINT)" ;; esac
	note "Ctrl-C on a terminal: reaches the command once; a command killed by it kills the wrapper by it"
else
	missing="$missing python3"
fi

# A supervisor that dies leaves no call waiting: the listener closes and
# the kernel answers ENOSYS (its parent is the supervisor).
run "$w" --seccomp sh -c 'kill -9 $PPID; sleep 0.2; "$0" fallocate "$1" "$2"' \
	"$bin/glibc-static" "$ramfs/orphan" $LEN
case $rc:$out in 137:*"fallocate: Function not implemented"*) ;;
	*) fail "a killed supervisor: exit $rc: $out" ;; esac
note "a killed supervisor: the tree's calls fail with ENOSYS, none waits"

# Nesting: the kernel takes one listener per process tree.
run "$w" --seccomp "$w" --seccomp "$bin/glibc-static" fallocate "$ramfs/nested" $LEN
[ "$rc" = 0 ] || fail "nested --seccomp: $out"
check_file "$ramfs/nested" $LEN
run "$w" --seccomp env -u FALLOCATE_PRELOAD_SECCOMP "$w" --seccomp "$bin/glibc-static" fallocate "$ramfs/refused" $LEN
[ "$rc" = 126 ] || fail "a second supervisor: exit $rc: $out"
case $out in *"already has a seccomp supervisor"*"not run"*) ;; *) fail "a second supervisor: $out" ;; esac
[ ! -e "$ramfs/refused" ] || fail "a second supervisor: the command ran"
note "a second supervisor: $out"
run "$w" --seccomp env -u FALLOCATE_PRELOAD_SECCOMP "$w" --seccomp=auto "$bin/glibc-static" fallocate "$ramfs/auto" $LEN
[ "$rc" = 0 ] || fail "--seccomp=auto without a supervisor of its own: $out"
case $out in *"warning: --seccomp=auto"*) ;; *) fail "--seccomp=auto: no warning: $out" ;; esac
check_file "$ramfs/auto" $LEN
note "--seccomp=auto falls back with a warning (the outer supervisor serves it)"

# Without privileges: the filter needs no_new_privs, so a setuid target
# is refused unless asked for.
if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	chmod 755 "$scratch" "$bin" "$mounts_dir"
	chmod 1777 "$ramfs"
	cp "$bin/glibc-static" "$bin/setuid-target"
	chmod 4755 "$bin/setuid-target"
	as_nobody="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups"
	if $as_nobody test -x "$helper" && $as_nobody test -r "$FALLOCATE_PRELOAD_LIBRARY"; then
		run $as_nobody "$w" --seccomp "$bin/glibc-static" fallocate "$ramfs/nobody" $LEN
		[ "$rc" = 0 ] || fail "as nobody: $out"
		check_file "$ramfs/nobody" $LEN
		run $as_nobody "$w" --seccomp "$bin/setuid-target" fallocate "$ramfs/setuid" $LEN
		[ "$rc" = 126 ] || fail "a setuid target: exit $rc: $out"
		case $out in *"is setuid"*"--seccomp-allow-setuid"*) ;; *) fail "a setuid target: $out" ;; esac
		[ ! -e "$ramfs/setuid" ] || fail "a setuid target: it ran"
		run $as_nobody "$w" --seccomp --seccomp-allow-setuid "$bin/setuid-target" fallocate "$ramfs/setuid" $LEN
		[ "$rc" = 0 ] || fail "--seccomp-allow-setuid: $out"
		[ "$(stat -c %U "$ramfs/setuid")" = nobody ] || fail "--seccomp-allow-setuid: the target kept its privileges?"
		check_file "$ramfs/setuid" $LEN
		note "as nobody: served (no_new_privs); a setuid target refused, and run without its privileges when allowed"
		# A target that made itself undumpable refuses pidfd_getfd to
		# an unprivileged supervisor: the kernel answers its call itself.
		run $as_nobody "$w" --seccomp "$bin/glibc-static" undumpable "$ramfs/undumpable" $LEN
		case $rc:$out in 1:"fallocate: Operation not supported") ;;
			*) fail "an undumpable target: exit $rc: $out" ;; esac
		note "an undumpable target, unprivileged supervisor: the kernel's own answer ($out)"
	else
		missing="$missing nobody-cannot-reach-the-build-tree"
	fi
else
	missing="$missing setpriv"
fi

if [ -n "$missing" ]; then
	skip "everything else passed, but some rows could not run here:$missing"
fi
echo PASS

# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Sourced by the tests that run real programs under fallocate-preload.  Each
# case runs twice where the machine allows: on an ext3 loop image (no
# fallocate in the filesystem: glibc emulates, and fails on some descriptors)
# and under a seccomp filter that makes the syscall fail with ENOSYS (glibc
# gives up).  A case runs the program once without the library, where it
# fails or misbehaves, and once under the wrapper, where it must succeed.
. "${top_srcdir:-.}/tests/lib/lib.sh"
: "${FALLOCATE_PRELOAD:=$top_builddir/tools/fallocate-preload}"
: "${FALLOCATE_PRELOAD_LIBRARY:=$LFA_LIBRARY}"
export FALLOCATE_PRELOAD_LIBRARY
[ -x "$FALLOCATE_PRELOAD" ] || fail "no $FALLOCATE_PRELOAD (run make first)"
[ -e "$FALLOCATE_PRELOAD_LIBRARY" ] || fail "no $FALLOCATE_PRELOAD_LIBRARY"
# Inherited settings would change what is measured.
unset LIBFALLOCATE_EMULATION LIBFALLOCATE_DEBUG LIBFALLOCATE_EMULATE_FALLOCATE LD_PRELOAD

# shellcheck disable=SC2034 # for the tests that source this
MiB=1048576
# Debian's python3 where there is one: other pythons on PATH may be wrappers.
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi

# An ext3 image mounted on $scratch/ext3, unmounted and detached at exit.
# Returns nonzero, with the reason in $why, where that cannot be done.
mount_ext3() {
	why=
	[ "$(id -u)" = 0 ] || { why="not root: no loop mount"; return 1; }
	command -v mkfs.ext3 >/dev/null 2>&1 || { why="no mkfs.ext3 (e2fsprogs)"; return 1; }
	command -v losetup >/dev/null 2>&1 || { why="no losetup"; return 1; }
	truncate -s 96M "$scratch/ext3.img" &&
		mkfs.ext3 -q -F -b 4096 "$scratch/ext3.img" >/dev/null 2>&1 ||
		{ why="mkfs.ext3 failed"; return 1; }
	loopdev=$(losetup -f --show "$scratch/ext3.img" 2>/dev/null) ||
		{ why="no free loop device"; return 1; }
	on_exit "losetup -d $loopdev"
	mkdir -p "$scratch/ext3"
	mount -t ext3 "$loopdev" "$scratch/ext3" 2>/dev/null ||
		{ why="cannot mount ext3 (no ext3/ext4 driver?)"; return 1; }
	on_exit "umount $scratch/ext3"
	# The point of this filesystem is that it cannot allocate.
	if command -v fallocate >/dev/null 2>&1 &&
		fallocate -l 4096 "$scratch/ext3/probe" 2>/dev/null; then
		why="this kernel's ext3 supports fallocate"
		return 1
	fi
	rm -f "$scratch/ext3/probe"
	return 0
}

# Sets $envs to the environments this machine offers: ext3 and/or enosys.
# Skips the whole test when it offers none.
pick_envs() {
	envs=
	if mount_ext3; then
		envs="ext3"
	else
		note "ext3 part skipped: $why"
	fi
	if [ -x "$WITH_ERRNO" ] && "$WITH_ERRNO" ENOSYS true 2>/dev/null; then
		envs="$envs enosys"
	else
		note "ENOSYS part skipped: no seccomp helper, or no seccomp here"
	fi
	[ -n "$envs" ] || skip "neither an ext3 loop mount nor a seccomp filter is possible here"
}

# Enters an environment: $dir is where files go, $jail what runs commands.
enter_env() {
	env_name=$1
	case $1 in
	ext3)
		dir=$scratch/ext3/work
		jail= ;;
	enosys)
		dir=$scratch/enosys
		jail="$WITH_ERRNO ENOSYS" ;;
	esac
	rm -rf "$dir"
	mkdir -p "$dir"
	note "--- $env_name: files in $dir"
}

# without/with COMMAND...: run plainly, or under the wrapper (with --debug so
# the log shows our code ran); output in $out, status in $rc.
without() {
	rc=0
	out=$($jail "$@" 2>&1) || rc=$?
	note "without: rc=$rc: $(printf '%s' "$out" | tail -n 3 | tr '\n' '|')"
}
with() {
	rc=0
	out=$($jail "$FALLOCATE_PRELOAD" --debug $WRAPPER_OPTS "$@" 2>&1) || rc=$?
	note "with:    rc=$rc: $(printf '%s' "$out" | tail -n 3 | tr '\n' '|')"
}
WRAPPER_OPTS=

# Where the first hole at or after OFFSET is (the size when there is none).
first_hole() {
	"$PYTHON" -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(os.lseek(fd, int(sys.argv[2]), os.SEEK_HOLE))' "$1" "${2:-0}"
}
allocated() { echo $(( $(stat -c %b "$1") * $(stat -c %B "$1") )); }

# Checks FILE has SIZE bytes with no hole from OFFSET on, and, where st_blocks
# is real (ext3), that many bytes allocated.
check_allocated() { # FILE SIZE [OFFSET]
	[ "$(file_size "$1")" = "$2" ] || fail "$env_name: $1: size $(file_size "$1"), wanted $2"
	if command -v "$PYTHON" >/dev/null 2>&1; then
		h=$(first_hole "$1" "${3:-0}")
		[ "$h" = "$2" ] || fail "$env_name: $1: hole at $h, wanted none before $2"
	fi
	if [ "$env_name" = ext3 ]; then
		a=$(allocated "$1")
		[ "$a" -ge $(( $2 - ${3:-0} )) ] || fail "$env_name: $1: only $a bytes allocated"
	fi
	note "$(basename "$1"): $2 bytes, no hole, $(allocated "$1") bytes allocated"
}

# Checks FILE reads as zeros from OFFSET to its end.
check_zeros() { # FILE OFFSET
	[ "$(tail -c +$(( $2 + 1 )) "$1" | tr -d '\0' | wc -c)" = 0 ] ||
		fail "$env_name: $1: not zeros from $2 on"
}

# Counts the write syscalls COMMAND... makes (strace -f), into $writes.
count_writes() {
	strace -f -qq -o "$scratch/strace.out" -e trace=write,pwrite64,pwritev,pwritev2 "$@" \
		>/dev/null 2>&1 || return 1
	# shellcheck disable=SC2034 # the caller reads it
	writes=$(grep -c -E '(write|pwrite64|pwritev2?)\(' "$scratch/strace.out")
}

expect_out() { # REGEX DESCRIPTION: $out must match
	printf '%s\n' "$out" | grep -Eq -e "$1" || fail "$env_name: $2: wanted /$1/ in: $out"
}
expect_no_out() {
	printf '%s\n' "$out" | grep -Eq -e "$1" && fail "$env_name: $2: unexpected /$1/ in: $out"
	return 0
}
expect_rc() { # WANT DESCRIPTION
	[ "$rc" = "$1" ] || fail "$env_name: $2: exit status $rc, wanted $1: $out"
}
expect_fail_rc() {
	[ "$rc" != 0 ] || fail "$env_name: $1: succeeded without the library: $out"
}
# The wrapper's debug line proves our posix_fallocate ran and emulated.
expect_emulated() {
	expect_out '^libfallocate: (posix_)?fallocate.*emulated.*: ok' "$1 (libfallocate emulated)"
}

# Whether a program preloads our library (same ELF class); skips otherwise.
# A script (a pyenv shim, say) is let through: what it runs is checked by
# the debug line the test expects.
need_preloadable() {
	need_cmd "$1"
	exe=$(readlink -f "$(command -v "$1")")
	[ "$(head -c 4 "$exe" | od -An -c | tr -d ' ')" = '177ELF' ] || return 0
	need_same_class "$FALLOCATE_PRELOAD_LIBRARY" "$exe"
}

# python3 FILE HOW LEN [OFFSET] with this program: os.posix_fallocate(fd,
# OFFSET (default 0), LEN) on FILE opened HOW (wronly, append: O_WRONLY |
# O_APPEND, rdwr, rdwr-append); prints the answer, exits 1 on error.
# shellcheck disable=SC2034 # for the tests that source this
py_allocate='import os, sys
flags = {"wronly": os.O_WRONLY, "append": os.O_WRONLY | os.O_APPEND, "rdwr": os.O_RDWR,
         "rdwr-append": os.O_RDWR | os.O_APPEND}[sys.argv[2]]
fd = os.open(sys.argv[1], flags)
try:
    os.posix_fallocate(fd, int(sys.argv[4]) if len(sys.argv) > 4 else 0, int(sys.argv[3]))
except OSError as e:
    print("posix_fallocate:", os.strerror(e.errno))
    sys.exit(1)
print("posix_fallocate: ok")'

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# RLIMIT_FSIZE with SIGXFSZ (issue 31): a call past the caller's limit of
# 20,000 bytes, emulated, gets the kernel's answer: SIGXFSZ sent to the
# calling thread, then EFBIG, with nothing written.  At its default action
# the process dies of it; ignored, EFBIG; a handler runs once, in the
# calling thread; blocked there, it stays pending on that thread.  Both
# entry points, for a range starting at the end of the file (the quick
# path where the filesystem is ext4, xfs or btrfs) and one covering it (the
# engine).  Then the kernel's own fallocate on a native filesystem (the
# scratch directory's, or as root an ext4 image) must answer the same, and
# as root fallocate-preload --seccomp for a static program.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
lib_prog=$top_builddir/tests/calls/fsize-signal
[ -x "$lib_prog" ] || fail "no $lib_prog"
xfsz=$(kill -l XFSZ 2>/dev/null) || xfsz=25
case $xfsz in [0-9]*) ;; *) xfsz=25 ;; esac
killed=$((128 + xfsz))
plain_prog=$scratch/fsize-signal-plain
${CC:-cc} -O2 -pthread -I"$top_srcdir/include" -o "$plain_prog" "$top_srcdir/tests/calls/fsize-signal.c" ||
	exit 99
unset LIBFALLOCATE_EMULATION LIBFALLOCATE_DEBUG LD_PRELOAD

# The outcome each disposition must have (killed: no line printed).
expect() {
	case $1 in
	default) echo killed ;;
	ignore) echo "$2 -> EFBIG handler=0 in-caller=0 pending-in-caller=0" ;;
	handler) echo "$2 -> EFBIG handler=1 in-caller=1 pending-in-caller=0" ;;
	blocked) echo "$2 -> EFBIG handler=0 in-caller=0 pending-in-caller=1" ;;
	esac
}

# prepare FILE SHAPE: an empty file ("end": the range starts at its end),
# or 4,096 bytes of data ("cover": the range covers its end); a copy
# beside it to compare with.
prepare() {
	rm -f "$1" "$1.orig"
	case $2 in
	end) : > "$1" ;;
	cover) head -c 4096 /dev/zero | tr '\0' x > "$1" ;;
	esac
	cp "$1" "$1.orig"
}

# outcome WHO COMMAND...: sets got to "killed" or the line printed.
outcome() {
	what=$1
	shift
	rc=0
	out=$("$@" 2>"$scratch/err") || rc=$?
	if [ "$rc" = "$killed" ] && [ -z "$out" ]; then
		got=killed
	elif [ "$rc" = 0 ]; then
		got=$out
	else
		fail "$what: exit $rc: $out $(cat "$scratch/err")"
	fi
}

# check WHO DIR PROGRAM-PREFIX...: every disposition, both functions, both
# shapes, in DIR, by the program the arguments name.
check() {
	who=$1 dir=$2
	shift 2
	for how in default ignore handler blocked; do
		for func in posix_fallocate fallocate; do
			for shape in end cover; do
				f=$dir/$shape-$how-$func
				prepare "$f" "$shape"
				case $shape in end) off=0 ;; cover) off=2048 ;; esac
				outcome "$who $how $func $shape" "$@" "$how" "$func" "$f" "$off" 30000
				want=$(expect "$how" "$func")
				[ "$got" = "$want" ] ||
					fail "$who, SIGXFSZ $how, $func on a file ($shape): got '$got', wanted '$want'"
				cmp -s "$f" "$f.orig" ||
					fail "$who, SIGXFSZ $how, $func ($shape): the file changed (size $(file_size "$f"))"
				rm -f "$f" "$f.orig"
			done
		done
	done
	note "$who: as the kernel (killed; EFBIG; handler in the calling thread; pending there)"
}

# The library, emulating wherever the scratch directory is.
mkdir "$scratch/lib" || exit 99
check "library (LIBFALLOCATE_EMULATION=always, $(stat -f -c %T "$scratch"))" "$scratch/lib" \
	env LIBFALLOCATE_EMULATION=always LIBFALLOCATE_EMULATE_FALLOCATE=1 "$lib_prog"

# The kernel's own fallocate where it allocates (inode_newsize_ok: ext4,
# xfs, btrfs; not ext2/ext3's block-mapped files, which say EOPNOTSUPP
# before the limit is looked at).
native_ok() {
	rm -f "$1/probe"
	[ "$("$plain_prog" ignore fallocate "$1/probe" 0 100 2>/dev/null)" = \
		"fallocate -> ok handler=0 in-caller=0 pending-in-caller=0" ]
}
native=""
mkdir "$scratch/native" || exit 99
if native_ok "$scratch/native"; then
	native=$scratch/native
elif [ "$(id -u)" = 0 ] && command -v mkfs.ext4 >/dev/null 2>&1; then
	mount_fs ext4 ext4 64M
	native_ok "$MNT" && native=$MNT
fi
if [ -n "$native" ]; then
	check "the kernel ($(stat -f -c %T "$native"), no library)" "$native" "$plain_prog"
	check "library on the same filesystem (LIBFALLOCATE_EMULATION=always)" "$native" \
		env LIBFALLOCATE_EMULATION=always LIBFALLOCATE_EMULATE_FALLOCATE=1 "$lib_prog"
else
	note "SKIP the kernel's comparison: no filesystem here whose fallocate works (not root for an ext4 image)"
fi

# fallocate-preload --seccomp: a static program's calls, served by the
# supervisor with the caller's RLIMIT_FSIZE, the signal sent to the
# caller's thread.
w=${FALLOCATE_PRELOAD:-$top_builddir/tools/fallocate-preload}
helper=${FALLOCATE_PRELOAD_SECCOMP_HELPER:-$top_builddir/tools/fallocate-seccomp}
why=""
if [ "$(id -u)" != 0 ]; then
	why="not root"
elif [ ! -x "$w" ] || [ ! -x "$helper" ]; then
	why="fallocate-seccomp is not built"
elif ! ${CC:-cc} -static -O2 -pthread -I"$top_srcdir/include" -o "$scratch/fsize-signal-static" \
	"$top_srcdir/tests/calls/fsize-signal.c" 2>/dev/null; then
	why="cannot link statically with glibc"
else
	: "${FALLOCATE_PRELOAD_LIBRARY:=$LFA_LIBRARY}"
	export FALLOCATE_PRELOAD_LIBRARY FALLOCATE_PRELOAD_SECCOMP_HELPER=$helper
	# The static program below is of the library's class.
	why=$(seccomp_unserved "$w") || { echo "$why"; exit 1; }
fi
if [ -z "$why" ]; then
	mkdir "$scratch/seccomp" || exit 99
	check "fallocate-preload --seccomp, a static program" "$scratch/seccomp" \
		"$w" --seccomp "$scratch/fsize-signal-static"
	check "fallocate-preload --seccomp with LIBFALLOCATE_EMULATION=always" "$scratch/seccomp" \
		env LIBFALLOCATE_EMULATION=always "$w" --seccomp "$scratch/fsize-signal-static"
else
	note "SKIP fallocate-preload --seccomp: $why"
fi
exit 0

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate-preload --seccomp keeps its caller's RLIMIT_FSIZE (issue 40),
# where the supervisor has no right over the caller: everything here runs
# with CAP_SYS_RESOURCE dropped from the bounding set (capsh), as in
# Docker's default capability set, so prlimit(2) on a caller of another
# user fails (EPERM), whatever machine runs it.  A static program
# (tests/calls/fsize-signal.c) sets its limit, then calls:
#  - as nobody (uids and gids 65534, after opening the file), mode 0 and
#    posix_fallocate, 2 MiB past a 1 MiB limit, on ext4 (the kernel
#    allocates) and ext3 (the supervisor emulates): killed by SIGXFSZ at
#    its default action, EFBIG when ignored, the handler in the calling
#    thread then EFBIG; the file still empty;
#  - on xfs with 1 MiB of data and a 1.5 MiB limit, as root and as nobody:
#    INSERT_RANGE (0, 1 MiB), UNSHARE_RANGE (1 MiB, 1 MiB), ZERO_RANGE
#    (1 MiB, 1 MiB) without KEEP_SIZE, and WRITE_ZEROES (Linux 6.17; as the
#    kernel answers here): the same answer, signal and file as the
#    kernel's own call without the wrapper, which must be EFBIG where the
#    filesystem has the mode.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/seccomp/seccomp-lib.sh"
need_cmd capsh
capsh --drop=cap_sys_resource -- -c true 2>/dev/null ||
	skip "capsh cannot drop CAP_SYS_RESOURCE from the bounding set here"
prog=$bin/fsize-signal-static
${CC:-cc} -static -O2 -pthread -I"$top_srcdir/include" -o "$prog" "$top_srcdir/tests/calls/fsize-signal.c" ||
	exit 99
xfsz=$(kill -l XFSZ 2>/dev/null) || xfsz=25
case $xfsz in [0-9]*) ;; *) xfsz=25 ;; esac
killed=$((128 + xfsz))
MiB=1048576

# outcome COMMAND...: sets got to "killed" or the line the program printed,
# run with CAP_SYS_RESOURCE out of the bounding set.
outcome() {
	rc=0
	got=$(capsh --drop=cap_sys_resource -- -c '"$@"' capsh "$@" 2>"$scratch/err") || rc=$?
	if [ "$rc" = "$killed" ] && [ -z "$got" ]; then
		got=killed
	elif [ "$rc" != 0 ]; then
		fail "$*: exit $rc: $got $(cat "$scratch/err")"
	fi
}

# The supervisor, without CAP_SYS_RESOURCE, must really lack the right the
# old prlimit(2) needed: else this test proves nothing.
outcome sh -c 'grep CapBnd /proc/self/status'
bnd=$(echo "$got" | awk '{ print $2 }')
[ $(( (0x$bnd >> 24) & 1 )) = 0 ] || fail "CAP_SYS_RESOURCE still in the bounding set ($got)"

# data FILE BYTES: a file of BYTES bytes of 'A' (0: empty), with a copy.
data() {
	rm -f "$1" "$1.orig"
	head -c "$2" /dev/zero | tr '\0' A > "$1"
	chmod 666 "$1"
	cp "$1" "$1.orig"
}

# Mode 0 as nobody: the kernel's answer on a filesystem that allocates,
# the emulation's where the supervisor emulates; both as the kernel's.
mount_fs ext4 ext4 64M
ext4=$MNT
mount_fs ext3 ext3 64M
ext3=$MNT
for fs in "$ext4" "$ext3"; do
	for func in fallocate posix_fallocate; do
		for how in default ignore handler; do
			case $how in
			default) want=killed ;;
			ignore) want="$func -> EFBIG handler=0 in-caller=0 pending-in-caller=0" ;;
			handler) want="$func -> EFBIG handler=1 in-caller=1 pending-in-caller=0" ;;
			esac
			f=$fs/$func-$how
			data "$f" 0
			outcome "$w" --seccomp "$prog" "$how" "$func" "$f" 0 $((2 * MiB)) $MiB 0 nobody
			[ "$got" = "$want" ] ||
				fail "--seccomp, nobody, ${fs##*/}, $func, SIGXFSZ $how: got '$got', wanted '$want'"
			[ "$(file_size "$f")" = 0 ] ||
				fail "--seccomp, nobody, ${fs##*/}, $func, SIGXFSZ $how: the file grew to $(file_size "$f")"
			if [ "$fs" = "$ext4" ] && [ "$func" = fallocate ]; then
				data "$f" 0
				outcome "$prog" "$how" "$func" "$f" 0 $((2 * MiB)) $MiB 0 nobody
				[ "$got" = "$want" ] || fail "the kernel, ext4, SIGXFSZ $how: got '$got', wanted '$want'"
			fi
			rm -f "$f" "$f.orig"
		done
	done
	note "nobody, mode 0 past RLIMIT_FSIZE on ${fs##*/}: killed / EFBIG / handler then EFBIG, nothing written"
done

# The other modes on xfs: exactly the kernel's own call.
mount_fs xfs xfs 300M
xfs=$MNT
# mode OFFSET LEN: each mode's range (no KEEP_SIZE: the file would grow)
for mode in insert:0 unshare:$MiB zero:$MiB write-zeroes:$MiB; do
	off=${mode#*:} mode=${mode%%:*}
	for user in root nobody; do
		for how in default ignore handler; do
			f=$xfs/$mode-$user-$how
			data "$f" $MiB
			outcome "$prog" "$how" fallocate "$f" "$off" $MiB $((3 * MiB / 2)) "$mode" "$user"
			kernel=$got
			cmp -s "$f" "$f.orig" || fail "the kernel's $mode ($user, $how) changed the file"
			case $kernel in
			killed | *"-> EFBIG "*) ;;
			*"-> EOPNOTSUPP "*) [ "$mode" = write-zeroes ] ||
				fail "the kernel's $mode on xfs: $kernel" ;;
			*) fail "the kernel's $mode on xfs ($user, $how): $kernel, not EFBIG" ;;
			esac
			data "$f" $MiB
			outcome "$w" --seccomp "$prog" "$how" fallocate "$f" "$off" $MiB $((3 * MiB / 2)) "$mode" "$user"
			[ "$got" = "$kernel" ] ||
				fail "--seccomp, xfs, $mode as $user, SIGXFSZ $how: got '$got', the kernel '$kernel'"
			cmp -s "$f" "$f.orig" ||
				fail "--seccomp, xfs, $mode as $user, SIGXFSZ $how: the file changed (size $(file_size "$f"))"
			rm -f "$f" "$f.orig"
		done
	done
	note "xfs, $mode past RLIMIT_FSIZE, root and nobody: as the kernel ($kernel)"
done
exit 0

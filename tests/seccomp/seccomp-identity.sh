#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate-preload --seccomp serves each call as its caller (issue 23): a
# root wrapper's tree member that dropped to nobody stops at ENOSPC outside
# the blocks ext3 reserves for root, as the kernel and the library in its
# own process stop it; a setuid/setgid file it grows loses those bits, as
# the kernel takes them from a writer without CAP_FSETID, on ext3 (the
# emulation) and ext4 (the kernel's fallocate, made by the supervisor);
# and the credentials are the calling thread's, not its process's: of two
# threads growing 6775 files at once, only the one that took fsuid nobody
# for itself loses the bits.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/seccomp/seccomp-lib.sh"
need_cmd setpriv
need_cmd tune2fs
id nobody >/dev/null 2>&1 || skip "no user nobody"
nogroup=$(id -g nobody)
as_nobody="setpriv --reuid=nobody --regid=$nogroup --clear-groups"
chmod 755 "$scratch" "$bin"
${CC:-cc} -O2 -pthread -o "$bin/glibc-dynamic" "$top_srcdir/tests/seccomp/seccomp-target.c" || exit 99
$as_nobody test -x "$bin/glibc-static" || skip "nobody cannot reach $bin"
$as_nobody test -r "$FALLOCATE_PRELOAD_LIBRARY" || skip "nobody cannot read $FALLOCATE_PRELOAD_LIBRARY"

mount_fs reserved ext3 64M -m 50
reserved=$MNT
mount_fs ext3 ext3 64M
ext3=$MNT
mount_fs ext4 ext4 64M
ext4=$MNT
chmod 755 "$mounts_dir"
chmod 1777 "$reserved" "$ext3" "$ext4"

# 1. Reserved blocks: 50 MB asked by nobody of a filesystem with 32 MiB
# free to root only.
r_blocks=$(tune2fs -l "$(findmnt -n -o SOURCE "$reserved")" | sed -n 's/^Reserved block count: *//p')
[ -n "$r_blocks" ] || fail "tune2fs gives no reserved block count"
run "$w" --seccomp $as_nobody "$bin/glibc-static" fallocate "$reserved/big" 50000000
free=$(stat -f -c %f "$reserved")
case $rc:$out in
"1:fallocate: No space left on device") ;;
*) fail "nobody asking 50 MB past the reserved blocks: exit $rc: $out ($free blocks left, $r_blocks reserved)" ;;
esac
[ "$free" -ge "$r_blocks" ] || fail "nobody's call took reserved blocks: $free free, $r_blocks reserved"
note "nobody asking 50 MB: $out, size $(file_size "$reserved/big"), $free blocks free of which $r_blocks reserved for root"
rm -f "$reserved/big"

# 2. setuid and setgid bits, stripped by a write of nobody's (mode 6775 has
# group execute: both go).  What they become without the supervisor: the
# kernel's fallocate on ext4, the library in nobody's process on ext3.
for fs in "$ext3" "$ext4"; do
	for how in own seccomp; do
		f=$fs/suid-$how
		: > "$f"
		chown nobody:"$nogroup" "$f"
		chmod 6775 "$f"
		case $how in
		own) run "$w" $as_nobody "$bin/glibc-dynamic" fallocate "$f" 1000000 ;;
		seccomp) run "$w" --seccomp $as_nobody "$bin/glibc-static" fallocate "$f" 1000000 ;;
		esac
			[ "$rc:$out" = "0:fallocate: 0" ] || fail "nobody ($how) on ${fs##*/}: exit $rc: $out"
		[ "$(file_size "$f")" = 1000000 ] || fail "nobody ($how) on ${fs##*/}: size $(file_size "$f")"
		eval "mode_$how=\$(stat -c %a \"\$f\")"
	done
	# shellcheck disable=SC2154
	[ "$mode_seccomp" = "$mode_own" ] && [ "$mode_seccomp" = 775 ] ||
		fail "a 6775 file grown by nobody under --seccomp on ${fs##*/}: mode $mode_seccomp (without the supervisor: $mode_own)"
	note "a 6775 file grown by nobody on ${fs##*/}: mode $mode_seccomp under --seccomp, $mode_own without"
done
# 3. Credentials are the calling thread's: in one process, a thread that
# took fsuid nobody (its own, raw) and one that kept root's grow two 6775
# files at once; only the first loses the bits, as with the kernel.
for fs in "$ext3" "$ext4"; do
	for how in own seccomp; do
		for t in a b; do
			: > "$fs/ids-$how-$t"
			chown nobody:"$nogroup" "$fs/ids-$how-$t"
			chmod 6775 "$fs/ids-$how-$t"
		done
		case $how in
		own) run "$w" "$bin/glibc-dynamic" two-ids "$fs/ids-$how-a" "$fs/ids-$how-b" 8000000 ;;
		seccomp) run "$w" --seccomp "$bin/glibc-static" two-ids "$fs/ids-$how-a" "$fs/ids-$how-b" 8000000 ;;
		esac
		[ "$rc:$out" = "0:fsuid 65534: 0; as the process: 0" ] || fail "two ids ($how) on ${fs##*/}: exit $rc: $out"
		# shellcheck disable=SC2034
		modes=$(stat -c %a "$fs/ids-$how-a" "$fs/ids-$how-b" | tr '\n' ' ')
		eval "modes_$how=\$modes"
		rm -f "$fs/ids-$how-a" "$fs/ids-$how-b"
	done
	# shellcheck disable=SC2154
	{ [ "$modes_seccomp" = "$modes_own" ] && [ "$modes_seccomp" = "775 6775 " ]; } ||
		fail "two threads of two identities on ${fs##*/}: modes $modes_seccomp under --seccomp, $modes_own without"
	note "two threads at once, fsuid nobody and root, on ${fs##*/}: modes $modes_seccomp under --seccomp, as without"
done

# 4. Credentials are read at every call, not kept from the thread's
# first: one thread grows twelve 6775 files one after another, four as
# root, four with fsuid nobody, four with fsuid root again (which gives back
# CAP_FSETID): only the middle four lose the bits, whichever worker of the
# supervisor serves each call (each keeps a descriptor of the thread's
# /proc/TID/status between calls, never what it read).
sw_files() { for t in a0 a1 a2 a3 b0 b1 b2 b3 c0 c1 c2 c3; do echo "$fs/sw-$how-$t"; done; }
# shellcheck disable=SC2046 # the files' names hold no blanks
for fs in "$ext3" "$ext4"; do
	for how in own seccomp; do
		{ touch $(sw_files) && chown nobody:"$nogroup" $(sw_files) && chmod 6775 $(sw_files); } ||
			fail "cannot make the 6775 files"
		case $how in
		own) run "$w" "$bin/glibc-dynamic" switch-ids 1000000 $(sw_files) ;;
		seccomp) run "$w" --seccomp "$bin/glibc-static" switch-ids 1000000 $(sw_files) ;;
		esac
		[ "$rc:$out" = "0:as the process: 0; fsuid 65534: 0; fsuid 0 again: 0" ] ||
			fail "one thread, three ids ($how) on ${fs##*/}: exit $rc: $out"
		# shellcheck disable=SC2034
		modes=$(stat -c %a $(sw_files) | tr '\n' ' ')
		eval "modes_$how=\$modes"
		rm -f $(sw_files)
	done
	# shellcheck disable=SC2154
	{ [ "$modes_seccomp" = "$modes_own" ] &&
	  [ "$modes_seccomp" = "6775 6775 6775 6775 775 775 775 775 6775 6775 6775 6775 " ]; } ||
		fail "one thread changing ids between calls on ${fs##*/}: modes $modes_seccomp under --seccomp, $modes_own without"
	note "one thread, root then fsuid nobody then root, on ${fs##*/}: modes $modes_seccomp under --seccomp, as without"
done

# 5. A tid reused: in a PID namespace of its own, a thread with fsuid
# nobody grows four 6775 files, one call after another, and ends; a thread
# given its tid (ns_last_pid), as root, grows four more.  The workers that
# kept the first thread's pidfd and status file must find it gone and
# serve the second as itself: every call served (no "not taken" in the
# --debug lines), the first four files lose the bits, the others keep them.
# shellcheck disable=SC2046 # the files' names hold no blanks
if command -v unshare >/dev/null 2>&1; then
	how=reuse
	for fs in "$ext3" "$ext4"; do
		sw_files() { for t in a0 a1 a2 a3 b0 b1 b2 b3; do echo "$fs/sw-$how-$t"; done; }
		{ touch $(sw_files) && chown nobody:"$nogroup" $(sw_files) && chmod 6775 $(sw_files); } ||
			fail "cannot make the 6775 files"
		run unshare --pid --fork --mount-proc "$w" --seccomp --debug "$bin/glibc-static" reuse-tid 1000000 $(sw_files)
		modes=$(stat -c %a $(sw_files) | tr '\n' ' ')
		rm -f $(sw_files)
		case $rc:$out in
		77:*|*"unshare: "*)
			note "a reused tid on ${fs##*/}: not shown here (exit $rc: $(printf '%s\n' "$out" | tail -1))"
			continue ;;
		*"not taken"*|*"not served"*|*"could not be taken on"*)
			fail "a reused tid on ${fs##*/}: a call not served: $out" ;;
		*"tid reused; fsuid 65534: 0; root: 0"*) ;;
		*) fail "a reused tid on ${fs##*/}: exit $rc: $out" ;;
		esac
		[ "$rc" = 0 ] || fail "a reused tid on ${fs##*/}: exit $rc: $out"
		[ "$modes" = "775 775 775 775 6775 6775 6775 6775 " ] ||
			fail "a reused tid on ${fs##*/}: modes $modes (the second thread served as the first?)"
		note "a reused tid on ${fs##*/}: modes $modes, $(printf '%s\n' "$out" | grep -c '^fallocate-preload: seccomp: pid ') calls served"
	done
else
	note "a reused tid: no unshare(1), not shown"
fi
echo PASS

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fallocate-preload --seccomp serves calls in parallel (issue 23): while one
# thread of the tree has the supervisor fill 100,000 holes of a file on a
# 1 KiB-block ext3 (seconds of work), a 4 KiB call of another thread on
# ext4 (the kernel's own fallocate) is answered at once, and a SIGTERM sent
# to the wrapper ends the tree, with the supervisor writing nothing more.
# Both are shown by order, not by a clock alone: the short call ends while
# the long one demonstrably still runs (it ends at least LAG_MS later), the
# tree ends with the long call's holes not all filled.  The times are noted.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/seccomp/seccomp-lib.sh"

mount_fs ext3 ext3 400M -b 1024
ext3=$MNT
mount_fs ext4 ext4 64M
ext4=$MNT
HOLES=100000 # 200 MB of file, half of it holes of 1 KiB
LAG_MS=500

fresh_long() {
	rm -f "$ext3/long" "$ext4/short"
	"$bin/glibc-static" holes "$ext3/long" $HOLES || fail "cannot make the file of holes"
	sync
}
allocated() { echo $(($(stat -c '%b * %B' "$ext3/long"))); }

# 1. The short call while the long one runs, both threads of one process.
fresh_long
run "$w" --seccomp "$bin/glibc-static" parallel "$ext3/long" "$ext4/short"
[ "$rc" = 0 ] || fail "parallel calls: exit $rc: $out"
short=$(printf '%s\n' "$out" | sed -n 's/^short: 0 in \([0-9.]*\) ms$/\1/p')
lag=$(printf '%s\n' "$out" | sed -n 's/^long: 0, ended \(-\{0,1\}[0-9]*\) ms after the short one$/\1/p')
{ [ -n "$short" ] && [ -n "$lag" ]; } || fail "parallel calls: $out"
[ "$lag" -ge $LAG_MS ] ||
	fail "the 4 KiB call took $short ms and ended only $lag ms before the long one: it waited for it"
[ "$(file_size "$ext4/short")" = 4096 ] || fail "the short call: size $(file_size "$ext4/short")"
[ "$(allocated)" -ge $((HOLES * 2048)) ] || fail "the long call left holes: $(allocated) bytes allocated"
note "a 4 KiB call on ext4 took $short ms while a call filling $HOLES holes on ext3 ran; that one ended $lag ms later"

# 2. SIGTERM to the wrapper while the long call runs.
fresh_long
"$w" --seccomp "$bin/glibc-static" parallel "$ext3/long" "$ext4/short" > "$scratch/term" 2>&1 &
p=$!
i=0
until grep -q '^short:' "$scratch/term" || [ $i -gt 6000 ]; do sleep 0.01; i=$((i + 1)); done
grep -q '^short: 0' "$scratch/term" || { kill -9 $p; fail "SIGTERM: the calls did not start: $(cat "$scratch/term")"; }
t0=$(now_ms)
kill -TERM $p
rc=0
wait $p || rc=$?
t1=$(now_ms)
[ "$rc" = 143 ] || fail "SIGTERM: exit $rc, wanted 143: $(cat "$scratch/term")"
! grep -q '^long:.*ended' "$scratch/term" || fail "SIGTERM: the long call ended first: $(cat "$scratch/term")"
at=$(allocated)
[ "$at" -lt $((HOLES * 2048)) ] ||
	fail "SIGTERM: the long call was completed ($at bytes allocated) before the tree ended"
sleep 0.3
[ "$(allocated)" = "$at" ] || fail "SIGTERM: the supervisor went on writing after the tree ended ($at, then $(allocated) bytes)"
note "SIGTERM to the wrapper mid-call: the tree ended $((t1 - t0)) ms later (kill to wait), the long call stopped with $at of $((HOLES * 2048)) bytes allocated, nothing written after"

# 3. Eight threads at once, each its own file and length, on ext3
# (emulated) and ext4 (the kernel), all right.
for fs in "$ext3" "$ext4"; do
	mkdir "$fs/threads" || exit 99
	run "$w" --seccomp "$bin/glibc-static" threads "$fs/threads" 8 1000000
	case $rc:$out in "0:threads: 8 of 8 right") ;; *) fail "8 threads on ${fs##*/}: exit $rc: $out" ;; esac
	note "8 threads at once on ${fs##*/}: $out"
done
echo PASS

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make realfs-busy [N=RUNS]: tests/realfs/realfs.sh N times in a row (20 by
# default) on a busy machine (issue 25): another process writes and syncs
# (sync(2): every filesystem, the test's small ones too) on a loop-mounted
# ext4 of its own, and two CPU hogs run.  Its ENOSPC cases must not depend
# on a quiet machine.  Not part of make check: 20 runs take half an hour.
# Root only, as realfs.sh.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "$top_srcdir/tests/lib/realfs-lib.sh"
need_root

runs=${REALFS_BUSY_RUNS:-20}
case $runs in '' | *[!0-9]*) fail "N must be a number of runs, not '$runs'" ;; esac

# Each in a session of its own (setsid), so that its whole process group,
# dd included, is ended by its number.
load_pids=""
stop_load() {
	for p in $load_pids; do
		kill -- "-$p" 2>/dev/null
	done
	for p in $load_pids; do
		wait "$p" 2>/dev/null
	done
	load_pids=""
}
on_exit stop_load # before the unmount: nothing is left writing there

need_cmd setsid
mount_fs busy ext4 256M
setsid sh -c 'while :; do
	dd if=/dev/urandom of="$1/load" bs=1M count=32 status=none
	sync
	rm -f "$1/load"
done' sh "$MNT" &
load_pids="$load_pids $!"
for hog in 1 2; do
	setsid sh -c 'while :; do :; done' &
	load_pids="$load_pids $!"
done
note "load: a writer with sync on $MNT and $hog CPU hogs (process groups$load_pids)"

start=$(date +%s)
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	t0=$(date +%s)
	# shellcheck disable=SC2154 # scratch: lib.sh's
	sh "$top_srcdir/tests/realfs/realfs.sh" > "$scratch/run.log" 2>&1
	rc=$?
	note "run $i of $runs: exit $rc, $(($(date +%s) - t0)) s"
	if [ "$rc" != 0 ]; then
		grep -E '^(FAIL|SKIP)|FAIL ' "$scratch/run.log"
		fail "run $i of $runs failed under load"
	fi
done
note "$runs runs of realfs.sh passed in a row under load, in $(($(date +%s) - start)) s"
echo PASS

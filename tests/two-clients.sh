#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# shellcheck disable=SC2154 # top_builddir, and what the sourced helpers set
# Another machine's appends survive (issue 24): two clients of one shared
# filesystem.  Client A appends 64-byte records through its own O_APPEND
# descriptor on one mount; client B, on another mount of the same files,
# loops posix_fallocate(fd, 0, size + 100) with the library
# (tests/append-race -a).  Every byte of every record is then looked for
# through a third, fresh mount.  Three runs of TWO_CLIENTS_RECORDS (35,000)
# records on each filesystem:
#  - GlusterFS (tests/gluster-lib.sh): a replica-2 volume on ext3 bricks,
#    where the emulation runs.  Before the engine appended through an
#    O_APPEND descriptor there, 0 to 18 records a run were damaged (zeros
#    appended with RWF_APPEND land at client B's cached size); glibc's
#    emulation 116 to 187 (86 to 112 in a third as many).  0 required.
#  - sshfs, two mounts of one directory through a throwaway sshd
#    (tests/sshd-lib.sh): 8 to 590 a run before, 0 to 5 now.  sshfs itself
#    cannot keep two clients' appends apart: client B's own O_APPEND
#    appends of 100 zeros, no library involved, damage 0 to 78 a run, and
#    three runs of them can all damage none while ours damaged some (seen
#    in CI with another build running).  So on sshfs the figures are
#    reported, ours beside its own (append-race -z, one run), never
#    required: a chance count cannot pass or fail a test.
# On both, every call must succeed.
# With TWO_CLIENTS_GLIBC=1, glibc's figure is printed beside ours (one run
# of a third as many records), not asserted.
# Root only (mounts, daemons); each filesystem this machine cannot set up
# is skipped with its reason; everything is undone at exit, on failure too.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/sshd-lib.sh"
. "$top_srcdir/tests/gluster-lib.sh"
RACE=$top_builddir/tests/append-race
[ -x "$RACE" ] || fail "$RACE is not built"
[ "$(id -u)" = 0 ] || skip "not root: cannot mount GlusterFS or sshfs, or run their daemons"
# As append-race.sh: qemu-user refuses pwritev2's RWF_APPEND, so growth
# that cannot go through an O_APPEND descriptor writes where aimed (README,
# Known limits); the i386 tree under qemu-i386 once damaged 1 record of
# 105,000 on GlusterFS.  Natively (x86_64, i386 where the kernel runs it)
# 0 is required.
under_qemu_user && skip "qemu-user refuses pwritev2's RWF_APPEND: growth writes where aimed (README, Known limits)"
records=${TWO_CLIENTS_RECORDS:-35000}
started=$(date +%s)
runs=3

# Mounts never under $scratch (removed at exit, after the hooks).
work=$(mktemp -d "${TMPDIR:-/tmp}/lfa-2c.XXXXXX") || exit 99
on_exit 'rm -rf --one-file-system "$work"'
trap 'exit 99' HUP INT TERM # the EXIT trap then undoes everything

ran="" failed="" skipped="" unreliable=""

# race NAME A B FRESH_MOUNT_CMD FRESH_UMOUNT_CMD: the runs; A appends, B
# allocates, a fresh mount checks.
race() {
	name=$1 a=$2 b=$3 mnt=$4 unmnt=$5
	damaged=""
	r=1
	while [ $r -le $runs ]; do
		t0=$(date +%s)
		"$mnt" || fail "$name: cannot mount a fresh client: $why"
		# shellcheck disable=SC2086 # options, one a word
		out=$("$RACE" ${TWO_CLIENTS_RACE_OPTS:-} -a "$a" -c "$fresh" "$b" "$records" 2>&1)
		rc=$?
		"$unmnt"
		echo "$out" | sed "s|$work/||g; s|^|[$name run $r] |"
		[ $rc = 0 ] || [ $rc = 1 ] || fail "$name: append-race exited with $rc"
		echo "$out" | grep -q ' (0 failed), ' || fail "$name: calls of posix_fallocate failed: $(echo "$out" | tail -n 1)"
		n=$(echo "$out" | sed -n 's/.*, \([0-9]*\) records damaged$/\1/p' | tail -n 1)
		damaged="$damaged ${n:-?}"
		note "$name run $r: $(($(date +%s) - t0)) s"
		r=$((r + 1))
	done
	glibc=""
	if [ "${TWO_CLIENTS_GLIBC:-0}" = 1 ]; then
		"$mnt" || fail "$name: cannot mount a fresh client: $why"
		glibc=$("$RACE" -g -a "$a" -c "$fresh" "$b" $((records / 3)) 2>&1 | tail -n 1)
		"$unmnt"
		glibc=$(echo "$glibc" | sed -n 's/.*, \([0-9]*\) records damaged$/\1/p')
		glibc="; glibc ${glibc:-?} in one run of $((records / 3))"
	fi
	note "$name: records damaged in $runs runs of $records: libfallocate$damaged$glibc"
	ran="$ran $name"
	for n in $damaged; do
		[ "$n" = 0 ] && continue
		if [ "$name" = sshfs ]; then
			"$mnt" || fail "$name: cannot mount a fresh client: $why"
			own=$("$RACE" -z -a "$a" -c "$fresh" "$b" "$records" 2>&1 | tail -n 1)
			"$unmnt"
			own=$(echo "$own" | sed -n 's/.*, \([0-9]*\) records damaged$/\1/p')
			note "$name: its own O_APPEND appends from two clients, no library involved: ${own:-?} of $records damaged in one run; the filesystem cannot keep two clients' appends apart, so its figures are reported, not required"
			unreliable="$unreliable $name"
		else
			failed="$failed $name"
		fi
		break
	done
}

# ---- GlusterFS: two clients of a replica-2 volume ---------------------------
gl_fresh() { fresh=$work/gluster/fresh; gluster_mount "$fresh"; }
gl_fresh_off() {
	gluster_umount "$fresh"
	gluster_clients=$(echo "$gluster_clients" | sed "s| $fresh||")
}
t0=$(date +%s)
gluster_start "$work/gluster" on_exit 256M 2
case $? in
0)
	note "GlusterFS: volume $gluster_volume on $gluster_host up in $(($(date +%s) - t0)) s"
	set -- $gluster_clients
	race gluster "$1" "$2" gl_fresh gl_fresh_off
	t0=$(date +%s)
	gluster_stop
	note "GlusterFS: down in $(($(date +%s) - t0)) s"
	;;
1) skipped="$skipped gluster"; note "GlusterFS: SKIP: $why" ;;
*) fail "GlusterFS: $why" ;;
esac

# ---- sshfs: two mounts of one directory --------------------------------------
sshfs_ok() {
	why="sshfs is not installed"
	command -v sshfs > /dev/null 2>&1 || return 1
	why="no $sshd_bin (openssh-server)"
	[ -x "$sshd_bin" ] || return 1
	why="no /dev/fuse"
	[ -c /dev/fuse ] || return 1
	sftp_server=""
	for s in /usr/lib/openssh/sftp-server /usr/libexec/openssh/sftp-server /usr/libexec/sftp-server; do
		[ -x "$s" ] && { sftp_server=$s; break; }
	done
	why="no sftp-server"
	[ -n "$sftp_server" ] || return 1
	sshd_start "$work/ssh" on_exit "$sftp_server"
}
ssh_mount() { # DIR
	mkdir -p "$1"
	sshfs -F "$sshd_ssh_config" "127.0.0.1:$work/shared" "$1" < /dev/null 2> "$work/ssh/sshfs.log" ||
		{ why="sshfs failed: $(tail -n 1 "$work/ssh/sshfs.log")"; return 1; }
	on_exit "umount $1 2> /dev/null || umount -l $1 2> /dev/null"
}
ssh_fresh() { fresh=$work/sshfs-fresh; ssh_mount "$fresh"; }
ssh_fresh_off() { umount "$fresh" 2> /dev/null || umount -l "$fresh"; }
mkdir -p "$work/shared"
sshfs_ok
case $? in
0)
	ssh_mount "$work/sshfs-a" || fail "$why"
	ssh_mount "$work/sshfs-b" || fail "$why"
	note "sshfs: two mounts of $work/shared through sshd pid $sshd_pid"
	race sshfs "$work/sshfs-a" "$work/sshfs-b" ssh_fresh ssh_fresh_off
	;;
1) skipped="$skipped sshfs"; note "sshfs: SKIP: $why" ;;
*) fail "sshfs: $why" ;;
esac

note "two-clients: $(($(date +%s) - started)) s"
[ -n "$failed" ] && fail "records damaged on:$failed"
[ -n "$ran" ] || skip "no shared filesystem could be set up:$skipped (reasons above)"
echo "PASS (ran:$ran${skipped:+; skipped:$skipped}${unreliable:+; figures only, the filesystem loses appends itself:$unreliable})"

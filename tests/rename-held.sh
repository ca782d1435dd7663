#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A rename never redirects a write (issue 29).  On filesystems that find a
# file by its name (sshfs, bindfs), a process holds f open; another client,
# the server, or a process in bindfs's source directory renames f away (or
# renames another file onto it) and makes a new f; then the holder calls
# posix_fallocate (tests/held-file.c does both, in that order, every time).
# Whatever the call answers, the new f (another file) must stay byte for
# byte as it was, and the held file must either be allocated as asked with
# its bytes intact, or be left as it was (a refusal before any write).
#
# Sides: sshfs with the rename on the server, sshfs with the rename by a
# second sshfs client, bindfs with the rename in its source directory.
# Each case under fallocate-preload (LD_PRELOAD) and, where seccomp and a
# static C library are here, under fallocate-preload --seccomp with a
# static program (the supervisor serves it).  glibc's own answers are
# printed beside ours.  Root only (sshd, FUSE mounts); skips otherwise.
. "${top_srcdir:-.}/tests/sshfs-lib.sh"

need_sshfs
need_cmd bindfs

bin=$scratch/bin
mkdir -p "$bin"
${CC:-cc} -O2 -o "$bin/held-file" "$top_srcdir/tests/held-file.c" || exit 99
need_same_class "$FALLOCATE_PRELOAD_LIBRARY" "$bin/held-file"
seccomp_too=
if ${CC:-cc} -O2 -static -o "$bin/held-file-static" "$top_srcdir/tests/held-file.c" 2> /dev/null &&
	[ -x "${FALLOCATE_PRELOAD_SECCOMP_HELPER:-}" ] && ! under_qemu_user; then
	seccomp_too=yes
else
	note "--seccomp part skipped: no static C library, no supervisor, or qemu-user"
fi

sshd_start "$scratch/sshd" on_exit "$sftp_server"
case $? in 0) ;; 1) skip "$why" ;; *) fail "$why" ;; esac
remote=$scratch/remote src=$scratch/src
mkdir -p "$remote" "$src" "$scratch/a" "$scratch/b" "$scratch/bind"
for m in a b; do
	sshfs -F "$sshd_ssh_config" "127.0.0.1:$remote" "$scratch/$m" 2> "$scratch/sshfs-$m.log" ||
		skip "sshfs mount failed: $(cat "$scratch/sshfs-$m.log")"
	on_exit "umount $scratch/$m 2> /dev/null || umount -l $scratch/$m"
done
bindfs "$src" "$scratch/bind" > "$scratch/bindfs.log" 2>&1 ||
	skip "bindfs mount failed: $(cat "$scratch/bindfs.log")"
on_exit "umount $scratch/bind 2> /dev/null || umount -l $scratch/bind"
note "sshfs: $remote on $scratch/a and $scratch/b (sshd pid $sshd_pid); bindfs: $src on $scratch/bind"

KiB=1024
head -c $((64 * KiB)) /dev/urandom | tr '\0' 'x' > "$scratch/data64k"
head -c $((64 * KiB)) /dev/zero > "$scratch/zeros64k"
head -c $((4 * KiB)) /dev/urandom | tr '\0' 'y' > "$scratch/data4k"
: > "$scratch/empty"
LOG=1000

# Whether FILE holds OLD's bytes first, then zeros, WANT bytes in all.
grown_from() { # FILE OLD WANT
	[ "$(file_size "$1")" = "$3" ] || return 1
	cmp -s -n "$(file_size "$2")" "$1" "$2" || return 1
	[ "$(tail -c +$(( $(file_size "$2") + 1 )) "$1" | tr -d '\0' | wc -c)" = 0 ]
}

results=$scratch/results
: > "$results"

# One case: SIDE_NAME MOUNT SIDE_DIR SWAP HOW H N OFF LEN WANT MODE
# WANT: grow (allocated, bytes intact) or refuse (nothing changed).
run_case() {
	sname=$1 mnt=$2 side=$3 swap=$4 how=$5 h=$6 n=$7 off=$8 len=$9
	shift 9
	want=$1 mode=$2
	label="$sname $swap $how off=$off len=$len ($mode)"
	rm -f "$side/f" "$side/f.old" "$side/f.new"
	cp "$scratch/$h" "$side/f"
	cp "$scratch/$n" "$side/f.new"
	cp "$scratch/$h" "$scratch/held-before"
	[ "$swap" = logrotate ] && head -c $LOG /dev/zero | tr '\0' 'L' >> "$scratch/held-before"
	rm -f "$scratch/dump"
	case $mode in
	glibc) prog="$bin/held-file" ;;
	preload) prog="$FALLOCATE_PRELOAD $bin/held-file" ;;
	seccomp) prog="$FALLOCATE_PRELOAD --seccomp $bin/held-file-static" ;;
	esac
	# shellcheck disable=SC2086 # the wrapper and its options
	out=$($prog "$swap" "$how" "$mnt/f" "$side" "$off" "$len" "$scratch/dump" $LOG 2>&1) ||
		fail "$label: the holder failed: $out"
	answer=$(printf '%s\n' "$out" | sed -n 's/^posix_fallocate: //p')
	if [ "$swap" = over ]; then held=$scratch/dump; else held=$side/f.old; fi
	[ -e "$held" ] || held=
	end=$((off + len))
	before=$(file_size "$scratch/held-before")
	[ "$end" -gt "$before" ] || end=$before
	ok=yes what=
	if ! cmp -s "$side/f" "$scratch/$n"; then
		ok=no what="the new f, another file, changed ($(file_size "$side/f") bytes)"
	elif [ -n "$held" ] && [ "$answer" = 0 ] && ! grown_from "$held" "$scratch/held-before" "$end"; then
		ok=no what="answered 0, but the held file is not its bytes then zeros to $end ($(file_size "$held") bytes)"
	elif [ -n "$held" ] && [ "$answer" != 0 ] && ! cmp -s "$held" "$scratch/held-before"; then
		ok=no what="refused ($answer) after changing the held file"
	elif [ "$want" = grow ] && [ "$answer" != 0 ]; then
		ok=no what="refused ($answer): the held file's own descriptor could allocate it"
	elif [ "$want" = refuse ] && [ "$answer" = 0 ]; then
		ok=no what="answered 0 where nothing about the held file can be learned"
	fi
	echo "$mode $ok $label: $answer${what:+: $what}" >> "$results"
	note "$mode: $label: $answer${what:+: $what}"
}

sides="sshfs-server:$scratch/a:$remote sshfs-client:$scratch/a:$scratch/b bindfs-source:$scratch/bind:$src"
modes="glibc preload"
[ -n "$seccomp_too" ] && modes="$modes seccomp"
for s in $sides; do
	sname=${s%%:*} rest=${s#*:}
	mnt=${rest%%:*} side=${rest#*:}
	for mode in $modes; do
		run_case "$sname" "$mnt" "$side" rename rdwr data64k data4k 0 $((1088 * KiB)) grow "$mode"
		run_case "$sname" "$mnt" "$side" rename wronly data64k zeros64k $((16 * KiB)) $((16 * KiB)) refuse "$mode"
		run_case "$sname" "$mnt" "$side" rename rdwr-append zeros64k data64k 0 $((64 * KiB)) refuse "$mode"
		run_case "$sname" "$mnt" "$side" over rdwr data64k data4k 0 $((1088 * KiB)) grow "$mode"
		run_case "$sname" "$mnt" "$side" logrotate rdwr-append data64k empty $((64 * KiB + LOG)) $((1024 * KiB)) grow "$mode"
	done
done

echo "glibc's own emulation, for comparison (not required):"
grep '^glibc ' "$results" | sed 's/^glibc [a-z]* /  /'
echo "libfallocate:"
grep -v '^glibc ' "$results" | sed 's/^\([a-z]*\) \([a-z]*\) /  \2: /'
if grep -v '^glibc ' "$results" | grep -q '^[a-z]* no '; then
	fail "a rename redirected or lost a write (above)"
fi
echo PASS

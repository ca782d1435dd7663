#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A rename never redirects a write (issue 29).  On filesystems that find a
# file by its name (sshfs, bindfs), a process holds f open; another client,
# the server, or a process in bindfs's source directory renames f away (or
# renames another file onto it) and makes a new f; then the holder calls
# posix_fallocate (tests/lib/held-file.c does both, in that order, every time).
# Whatever the call answers, the new f (another file) must stay byte for
# byte as it was, and the held file must either be allocated as asked with
# its bytes intact, or be left as it was (a refusal before any write).
#
# Sides: sshfs with the rename on the server, sshfs with the rename by a
# second sshfs client, bindfs with the rename in its source directory;
# unionfs-fuse, mergerfs and gocryptfs with the rename in their source
# directories, fuse-overlayfs in its upper directory; ntfs-3g and
# exfat-fuse through their own mounts; GlusterFS with the rename by a
# second client (issue 39: what src/fs_facts.c says of each server).
# Each case under fallocate-preload (LD_PRELOAD) and, where seccomp and a
# static C library are here, under fallocate-preload --seccomp with a
# static program (the supervisor serves it).  glibc's own answers are
# printed beside ours.  Root only (sshd, FUSE mounts); skips otherwise,
# and where a server is not installed its rows are left out and, once the
# others have passed, the test says so and skips (77).  Everything it
# mounts or starts is undone at exit, on failure too.
. "${top_srcdir:-.}/tests/shared/sshfs-lib.sh"
. "$top_srcdir/tests/shared/gluster-lib.sh"

need_sshfs
need_cmd bindfs
trap 'exit 99' HUP INT TERM # the EXIT trap then undoes everything

bin=$scratch/bin
mkdir -p "$bin"
${CC:-cc} -O2 -o "$bin/held-file" "$top_srcdir/tests/lib/held-file.c" || exit 99
need_same_class "$FALLOCATE_PRELOAD_LIBRARY" "$bin/held-file"
seccomp_too=
why="no static C library, no supervisor, or qemu-user"
if ${CC:-cc} -O2 -static -o "$bin/held-file-static" "$top_srcdir/tests/lib/held-file.c" 2> /dev/null &&
	[ -x "${FALLOCATE_PRELOAD_SECCOMP_HELPER:-}" ] && ! under_qemu_user; then
	why=$(seccomp_unserved "$FALLOCATE_PRELOAD") || { echo "$why"; exit 1; }
	[ -n "$why" ] || seccomp_too=yes
fi
[ -n "$seccomp_too" ] || note "--seccomp part skipped: $why"

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

# FUSE servers layered on a directory, each renamed in under its feet
# (issue 39): those missing here are named, and their rows left out.
extra_sides='' missing=''
fuse_side() { # NAME KIND MOUNT SOURCE COMMAND...: mounted, or named missing
	fs_name=$1 fs_kind=$2 fs_mnt=$3 fs_src=$4
	shift 4
	if ! command -v "$1" > /dev/null 2>&1; then
		missing="$missing $fs_name"
		return
	fi
	mkdir -p "$fs_mnt" "$fs_src"
	"$@" > "$scratch/$fs_name.log" 2>&1 || fail "$fs_name mount failed: $(cat "$scratch/$fs_name.log")"
	on_exit "umount $fs_mnt 2> /dev/null || umount -l $fs_mnt"
	extra_sides="$extra_sides $fs_name-source:$fs_mnt:$fs_src:$fs_kind"
}
fuse_side unionfs-fuse untrusted "$scratch/union" "$scratch/union-src" unionfs \
	"$scratch/union-src=RW" "$scratch/union"
fuse_side mergerfs native "$scratch/merger" "$scratch/merger-src" mergerfs \
	"$scratch/merger-src" "$scratch/merger"
# gocryptfs stores encrypted contents under their plain names
# (-plaintextnames), and its own fallocate allocates: files made and read
# through a second mount, renamed in the
# cipher directory.
if command -v gocryptfs > /dev/null 2>&1; then
	mkdir -p "$scratch/gcf-cipher"
	printf 'lfa-test\n' > "$scratch/gcf-pass"
	gocryptfs -q -init -plaintextnames -scryptn 10 -passfile "$scratch/gcf-pass" \
		"$scratch/gcf-cipher" > "$scratch/gcf-init.log" 2>&1 ||
		fail "gocryptfs -init failed: $(cat "$scratch/gcf-init.log")"
fi
fuse_side gocryptfs native-through-mount "$scratch/gcf" "$scratch/gcf-cipher" gocryptfs -q \
	-passfile "$scratch/gcf-pass" "$scratch/gcf-cipher" "$scratch/gcf"
case $extra_sides in
*gocryptfs*)
	mkdir -p "$scratch/gcf-b"
	gocryptfs -q -passfile "$scratch/gcf-pass" "$scratch/gcf-cipher" "$scratch/gcf-b" \
		> "$scratch/gcf-b.log" 2>&1 || fail "gocryptfs (second mount) failed: $(cat "$scratch/gcf-b.log")"
	on_exit "umount $scratch/gcf-b 2> /dev/null || umount -l $scratch/gcf-b"
	;;
esac
# fuse-overlayfs keeps what it learned of its upper directory (a file
# made or removed there under a running mount is not seen, or is ENOENT
# through it: its documentation calls such changes undefined): each case
# makes its files in the upper directory and mounts afresh
# (ovl_remount), and the rename then comes under its feet.
ovl=$scratch/ovl
ovl_remount() {
	umount "$ovl/mnt" 2> /dev/null
	rm -rf "$ovl/work"
	mkdir -p "$ovl/work"
	fuse-overlayfs -o "lowerdir=$ovl/lower,upperdir=$ovl/upper,workdir=$ovl/work" "$ovl/mnt" \
		> "$scratch/fuse-overlayfs.log" 2>&1 ||
		fail "fuse-overlayfs mount failed: $(cat "$scratch/fuse-overlayfs.log")"
}
if command -v fuse-overlayfs > /dev/null 2>&1; then
	mkdir -p "$ovl/lower" "$ovl/upper" "$ovl/mnt"
	on_exit "umount $ovl/mnt 2> /dev/null || umount -l $ovl/mnt 2> /dev/null; :"
	ovl_remount
	extra_sides="$extra_sides fuse-overlayfs-upper:$ovl/mnt:$ovl/upper:misdirected-remount"
else
	missing="$missing fuse-overlayfs"
fi
# fuseblk servers (ntfs-3g, exfat-fuse): the one client of their device,
# renamed through the mount itself; every file keeps its identity, so the
# library may reopen the held file and must allocate it in every case.
fuseblk_side() { # NAME MKFS MOUNT-PROGRAM
	fb_name=$1 fb_mkfs=$2 fb_mount=$3
	if ! command -v "$fb_mkfs" > /dev/null 2>&1 || ! command -v "$fb_mount" > /dev/null 2>&1; then
		missing="$missing $fb_name"
		return
	fi
	truncate -s 64M "$scratch/$fb_name.img" || exit 99
	fb_dev=$(losetup -f --show "$scratch/$fb_name.img" 2> /dev/null) ||
		{ missing="$missing $fb_name(no loop device)"; return; }
	on_exit "losetup -d $fb_dev"
	case $fb_mkfs in
	mkntfs) mkntfs -q -F -Q "$fb_dev" ;;
	*) "$fb_mkfs" "$fb_dev" ;;
	esac > "$scratch/$fb_name.mkfs" 2>&1 || fail "$fb_mkfs failed: $(tail -n 1 "$scratch/$fb_name.mkfs")"
	mkdir -p "$scratch/$fb_name"
	"$fb_mount" "$fb_dev" "$scratch/$fb_name" < /dev/null > "$scratch/$fb_name.log" 2>&1 ||
		fail "$fb_mount failed: $(cat "$scratch/$fb_name.log")"
	on_exit "umount $scratch/$fb_name 2> /dev/null || umount -l $scratch/$fb_name"
	extra_sides="$extra_sides $fb_name-mount:$scratch/$fb_name:$scratch/$fb_name:identity"
}
fuseblk_side ntfs-3g mkntfs ntfs-3g
fuseblk_side exfat-fuse mkfs.exfat mount.exfat-fuse
# GlusterFS (tests/shared/gluster-lib.sh): a replica-2 volume on this machine,
# held through one client and renamed through another, as another
# machine's program would (a rename in a brick directory is no client's
# act).  Its mounts are never under $scratch (removed after the hooks).
gl_work=$(mktemp -d "${TMPDIR:-/tmp}/lfa-rh.XXXXXX") || exit 99
on_exit 'rm -rf --one-file-system "$gl_work"'
gluster_start "$gl_work/gluster" on_exit 256M 2
case $? in
0)
	# shellcheck disable=SC2086 # two mount points
	set -- $gluster_clients
	extra_sides="$extra_sides glusterfs-client:$1:$2:gfid"
	note "GlusterFS: volume $gluster_volume held through $1, renamed through $2"
	;;
1) missing="$missing glusterfs($why)" ;;
*) fail "GlusterFS: $why" ;;
esac
[ -z "$missing" ] || note "not installed, rows left out:$missing"

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

# One case: SIDE_NAME MOUNT SIDE_DIR SWAP HOW H N OFF LEN WANT MODE KIND
# WANT: grow (allocated, bytes intact) or refuse (nothing changed).
# KIND, what the side's server is (src/fs_facts.c): by-handle (it answers
# the held file's handle by the handle: sshfs, bindfs); identity (every
# rename passes through this kernel and the file keeps its identity:
# ntfs-3g, exfat-fuse, where every case must grow); native (and its
# own fallocate allocates the held file through its handle: mergerfs,
# where every case must grow); untrusted (it answers even the handle by
# the name: unionfs-fuse, where the library must refuse every case, and
# under --seccomp the supervisor does, leaving the static program's glibc
# to do what it does alone, which is printed, not judged); misdirected
# (fuse-overlayfs: its own fallocate opens the node's path and so
# allocates whatever has the name now, for glibc too, and its getattr goes
# by the path: the library must write nothing, leaving the held file as it
# was, and the other file may only have been grown with zeros by the
# server); gfid (GlusterFS: files keep their identity, but after another
# client's rename over it the holder's own descriptor answers ESTALE, to
# glibc too: the held file is then neither read back nor judged, only
# the library's answer, which must be one the kernel gives).
# A side's KIND may end in -through-mount (below) or -remount (fresh
# mount per case, files made in SIDE first: fuse-overlayfs).
run_case() {
	sname=$1 mnt=$2 side=$3 swap=$4 how=$5 h=$6 n=$7 off=$8 len=$9
	shift 9
	want=$1 mode=$2 kind=$3
	# Files are made and read where their bytes are plain (for a server
	# that encrypts what it stores, a second mount of its store, MOUNT-b,
	# read once the names it cached have expired: FUSE's entry timeout,
	# one second), renamed in SIDE.
	through="" remount=""
	case $kind in *-through-mount) files=$mnt-b through=yes kind=${kind%-through-mount} ;; *) files=$side ;; esac
	case $kind in *-remount) remount=yes kind=${kind%-remount} ;; esac
	# GlusterFS: the second client's cached attributes expire too
	[ "$kind" = gfid ] && through=yes
	case $kind in native | identity) want=grow ;; untrusted) want=refuse ;; misdirected | gfid) want=either ;; esac
	label="$sname $swap $how off=$off len=$len ($mode)"
	[ -z "$remount" ] || umount "$mnt" 2> /dev/null
	rm -f "$files/f" "$files/f.old" "$files/f.new"
	cp "$scratch/$h" "$files/f"
	cp "$scratch/$n" "$files/f.new"
	[ -z "$remount" ] || ovl_remount
	cp "$scratch/$h" "$scratch/held-before"
	[ "$swap" = logrotate ] && head -c $LOG /dev/zero | tr '\0' 'L' >> "$scratch/held-before"
	rm -f "$scratch/dump"
	case $mode in
	glibc) prog="$bin/held-file" ;;
	preload) prog="$FALLOCATE_PRELOAD $bin/held-file" ;;
	seccomp) prog="$FALLOCATE_PRELOAD --seccomp --debug $bin/held-file-static" ;;
	esac
	# shellcheck disable=SC2086 # the wrapper and its options
	out=$($prog "$swap" "$how" "$mnt/f" "$side" "$off" "$len" "$scratch/dump" $LOG 2>&1) ||
		fail "$label: the holder failed: $out"
	answer=$(printf '%s\n' "$out" | sed -n 's/^posix_fallocate: //p')
	readback=$(printf '%s\n' "$out" | sed -n 's/^read-back: //p')
	[ -z "$through" ] || sleep 1.2
	if [ "$swap" = over ]; then held=$scratch/dump; else held=$files/f.old; fi
	[ -e "$held" ] || held=
	end=$((off + len))
	before=$(file_size "$scratch/held-before")
	[ "$end" -gt "$before" ] || end=$before
	ok=yes what=
	# The held file's bytes read back through its handle end where the
	# kernel's kept size says, which a look by the name (the server's
	# answer to fstat) may have taken from the other file: not evidence
	# of the call where the server answers the handle by the name, nor
	# where its own fallocate did the work (the library wrote nothing).
	# fuse-overlayfs's kept size for the unlinked held file is not its
	# bytes either (the kernel's 0 grew the other file).
	case $kind:$swap in untrusted:over | native:over | misdirected:over) held= ;; esac
	# The new f, as the server's own fallocate by the name leaves it.
	other_ok=no
	if cmp -s "$files/f" "$scratch/$n"; then
		other_ok=yes
	elif [ "$kind" = misdirected ] && [ "$answer" = 0 ] &&
		grown_from "$files/f" "$scratch/$n" "$(file_size "$files/f")" &&
		[ "$(file_size "$files/f")" -le "$((off + len))" ]; then
		other_ok=yes what="(the server's fallocate grew the new f)"
	fi
	if [ "$mode" != glibc ] && ! kernel_answer "$answer"; then
		ok=no what="$answer is no answer of the kernel's fallocate"
	elif [ -n "$readback" ] && [ "$kind" != gfid ]; then
		ok=no what="the held file could not be read back: $readback"
	elif [ "$kind:$mode" = untrusted:seccomp ]; then
		# The supervisor refused before writing; then glibc, alone.
		case $out in
		*"fallocate-preload --seccomp("*"Operation not supported, 0 bytes written"*) ;;
		*) ok=no what="the supervisor did not refuse before writing: $out" ;;
		esac
		[ $ok = yes ] && what="supervisor refused; the static program's glibc then, alone"
	elif [ $other_ok = no ]; then
		ok=no what="the new f, another file, changed ($(file_size "$files/f") bytes)"
	elif [ "$kind" = misdirected ]; then
		# Its bytes as they were; a logger's last page, written back
		# after the call, may bring zeros up to the page's end (under
		# glibc too: the kernel keeps the size the server's 0 gave).
		if [ -n "$held" ] && { [ "$(file_size "$held")" -gt "$end" ] ||
			! grown_from "$held" "$scratch/held-before" "$(file_size "$held")"; }; then
			ok=no what="the held file changed ($(file_size "$held") bytes), where only the server's fallocate (by the name) should have run"
		fi
	elif [ -n "$held" ] && [ "$answer" = 0 ] && ! grown_from "$held" "$scratch/held-before" "$end"; then
		ok=no what="answered 0, but the held file is not its bytes then zeros to $end ($(file_size "$held") bytes)"
	elif [ -n "$held" ] && [ "$answer" != 0 ] && ! cmp -s "$held" "$scratch/held-before"; then
		ok=no what="refused ($answer) after changing the held file"
	elif [ "$want" = grow ] && [ "$answer" != 0 ]; then
		ok=no what="refused ($answer): the held file's own descriptor could allocate it"
	elif [ "$want" = refuse ] && [ "$answer" = 0 ]; then
		ok=no what="answered 0 where nothing about the held file can be learned"
	fi
	# not judged: glibc's own answers
	shown=$mode
	[ "$kind:$mode" = untrusted:seccomp ] && [ $ok = yes ] && shown=glibc
	[ -z "$readback" ] || answer="$answer (read-back: $readback)"
	# the sizes after the call, where they can be seen
	seen="not seen"
	[ -z "$held" ] || seen="$(file_size "$held") bytes"
	answer="$answer [held: $seen, new f: $(file_size "$files/f")]"
	echo "$shown $ok $label: $answer${what:+: $what}" >> "$results"
	note "$mode: $label: $answer${what:+: $what}"
}

# Whether ANSWER (0 or strerror's text) is one the kernel's fallocate (or
# posix_fallocate's EBADF) gives: ESTALE too, from a network filesystem.
kernel_answer() {
	case $1 in
	0 | "Bad file descriptor" | "Operation not supported" | "Stale file handle" | \
		"Invalid argument" | "No space left on device" | "File too large" | \
		"Input/output error" | "Interrupted system call" | "No such device" | \
		"Operation not permitted" | "Illegal seek" | "Text file busy" | \
		"Function not implemented" | "Disk quota exceeded") return 0 ;;
	*) return 1 ;;
	esac
}

sides="${LFA_RENAME_SIDES:-sshfs-server:$scratch/a:$remote:by-handle sshfs-client:$scratch/a:$scratch/b:by-handle bindfs-source:$scratch/bind:$src:by-handle$extra_sides}"
modes="glibc preload"
[ -n "$seccomp_too" ] && modes="$modes seccomp"
for s in $sides; do
	sname=${s%%:*} rest=${s#*:}
	mnt=${rest%%:*} rest=${rest#*:}
	side=${rest%%:*} side_kind=${rest#*:}
	for mode in $modes; do
		run_case "$sname" "$mnt" "$side" rename rdwr data64k data4k 0 $((1088 * KiB)) grow "$mode" "$side_kind"
		run_case "$sname" "$mnt" "$side" rename wronly data64k zeros64k $((16 * KiB)) $((16 * KiB)) refuse "$mode" "$side_kind"
		run_case "$sname" "$mnt" "$side" rename rdwr-append zeros64k data64k 0 $((64 * KiB)) refuse "$mode" "$side_kind"
		run_case "$sname" "$mnt" "$side" rename rdwr-append data64k data4k 0 $((1088 * KiB)) either "$mode" "$side_kind"
		run_case "$sname" "$mnt" "$side" over rdwr data64k data4k 0 $((1088 * KiB)) grow "$mode" "$side_kind"
		run_case "$sname" "$mnt" "$side" logrotate rdwr-append data64k empty $((64 * KiB + LOG)) $((1024 * KiB)) grow "$mode" "$side_kind"
	done
done

echo "glibc's own emulation, for comparison (not required):"
grep '^glibc ' "$results" | sed 's/^glibc [a-z]* /  /'
echo "libfallocate:"
grep -v '^glibc ' "$results" | sed 's/^\([a-z]*\) \([a-z]*\) /  \2: /'
if grep -v '^glibc ' "$results" | grep -q '^[a-z]* no '; then
	fail "a rename redirected or lost a write (above)"
fi
[ -z "$missing" ] || skip "the other sides passed; not here, so not tried:$missing"
echo PASS

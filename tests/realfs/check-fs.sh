#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check-fs (issue 10): the emulation on the filesystems users have, one
# fresh filesystem at a time, every descriptor kind on each (realfs-check fs,
# or realfs-check parity where only errors can be compared), then a table of
# filesystem by descriptor kind.  Root only: it mounts, starts an sshd and
# FUSE daemons; everything is undone by a trap, also on failure.  A
# filesystem this machine cannot set up is a SKIP with the reason; any FAIL
# makes the exit status 1.
#
# Environment: CHECK_FS_ONLY="ext3-4k sshfs ..." runs those rows only.
# CHECK_FS_REFUSE_PWRITEV2=1 (test-only) makes pwritev2 fail with EOPNOTSUPP
# in the checker, as on kernels before 6.9, so O_APPEND descriptors take the
# engine's reopened-descriptor path instead of RWF_NOAPPEND: a way to see the
# matrix pass where RWF_NOAPPEND is not honoured by a lower layer.
. "${top_srcdir:-.}/tests/lib/lib.sh"
. "${top_srcdir:-.}/tests/shared/sshd-lib.sh"
. "${top_srcdir:-.}/tests/shared/gluster-lib.sh"
REALFS_CHECK_PUBLIC=$top_builddir/tests/realfs/realfs-check-public
[ "$(id -u)" = 0 ] || skip "not root: make check-fs mounts filesystems and starts sshd"
[ -x "$REALFS_CHECK_PUBLIC" ] || fail "$REALFS_CHECK_PUBLIC is not built"
started=$(date +%s)

kinds="rdwr wronly append wronly-append direct-aligned direct-unaligned dsync sparse straddle"
only=${CHECK_FS_ONLY:-}
checker_opts=""
[ "${CHECK_FS_REFUSE_PWRITEV2:-0}" = 1 ] && checker_opts="-k"

# ---- what one filesystem set up; undone after each row and at exit --------
# Never under $scratch (lib.sh removes it at exit and must not reach into a
# mount that failed to go away).
work=$(mktemp -d "${TMPDIR:-/tmp}/lfa-check-fs.XXXXXX") || exit 99
mounts="" loops="" restores=""
results=$scratch/results
: > "$results"

teardown() {
	# FUSE daemons and overlays first (they sit on the images), then the
	# daemons they talk to and the rest (restores), then the images.
	for m in $mounts; do
		umount "$m" 2>/dev/null || { sleep 1; umount "$m" 2>/dev/null; } ||
			umount -l "$m" 2>/dev/null || echo "# cannot unmount $m"
	done
	eval "$restores"
	for l in $loops; do
		losetup -d "$l" 2>/dev/null
	done
	mounts="" loops="" restores=""
}
final_cleanup() {
	teardown
	# Only empty mount points, images and keys are left; rm stays on this
	# filesystem in case an unmount failed.
	rm -rf --one-file-system "$work"
}
on_exit final_cleanup
trap 'exit 99' HUP INT TERM # the EXIT trap then undoes everything

# mounted DIR, looped DEV, restore CMD: register for teardown.
mounted() { mounts="$1 $mounts"; }
looped() { loops="$1 $loops"; }
restore() { restores="$1; $restores"; }

# new_dir NAME: a fresh directory in $work.
new_dir() {
	d=$work/$1
	mkdir -p "$d" || exit 99
	echo "$d"
}

# image NAME SIZE: a sparse image file, attached to a loop device; sets DEV.
image() {
	img=$work/$1.img
	rm -f "$img"
	truncate -s "$2" "$img" || exit 99
	command -v losetup > /dev/null || { why="losetup is not installed"; return 1; }
	DEV=$(losetup -f --show "$img" 2>/dev/null) || { why="no free loop device"; return 1; }
	looped "$DEV"
}

# mkfs_mount NAME TYPE SIZE "MKFS ARGS" "MOUNT OPTIONS": sets MNT.
mkfs_mount() {
	name=$1 type=$2 size=$3 mkfs_args=$4 opts=$5
	mkfs=mkfs.$type
	command -v "$mkfs" > /dev/null || { why="$mkfs is not installed"; return 1; }
	grep -qw "$type" /proc/filesystems || modprobe "$type" 2>/dev/null ||
		{ why="the kernel has no $type"; return 1; }
	image "$name" "$size" || return 1
	# shellcheck disable=SC2086 # the arguments are meant to split
	$mkfs $mkfs_args "$DEV" > "$work/$name.mkfs" 2>&1 ||
		{ why="$mkfs failed: $(tail -n 1 "$work/$name.mkfs")"; return 1; }
	MNT=$(new_dir "$name")
	mount -t "$type" ${opts:+-o "$opts"} "$DEV" "$MNT" 2> "$work/$name.mount" ||
		{ why="cannot mount $type: $(tail -n 1 "$work/$name.mount")"; return 1; }
	mounted "$MNT"
}

need_fuse() {
	[ -c /dev/fuse ] || { why="no /dev/fuse"; return 1; }
	grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null ||
		{ why="the kernel has no FUSE"; return 1; }
}

# ---- one function per row: sets MNT (where to test), BACK (the directory
# on a real filesystem holding the files served, for FUSE and overlayfs),
# POLICY, MODE (fs or parity) and OPTS; or returns 1 with $why. -----------
BACK="" POLICY=auto MODE=fs OPTS=""

setup_ext2() { mkfs_mount ext2 ext2 64M "-q -F" ""; }
setup_ext3_4k() { mkfs_mount ext3-4k ext3 64M "-q -F -b 4096" ""; }
setup_ext3_1k() { mkfs_mount ext3-1k ext3 64M "-q -F -b 1024" ""; }
setup_ext4() { mkfs_mount ext4 ext4 64M "-q -F" ""; }
setup_ext4_bigalloc() {
	mkfs_mount ext4-bigalloc ext4 128M "-q -F -O bigalloc -C 65536" ""
}
# mkfs.xfs of xfsprogs 6.x refuses filesystems under 300 MB.
setup_xfs() { mkfs_mount xfs xfs 320M "-q -f" ""; }
setup_btrfs() { mkfs_mount btrfs btrfs 256M "-q -f" ""; }
setup_btrfs_zstd() { mkfs_mount btrfs-zstd btrfs 256M "-q -f" "compress=zstd"; }
setup_tmpfs() {
	MNT=$(new_dir tmpfs)
	mount -t tmpfs -o size=128M,mode=0700 lfa-tmpfs "$MNT" || { why="cannot mount tmpfs"; return 1; }
	mounted "$MNT"
}
setup_ramfs() {
	MNT=$(new_dir ramfs)
	mount -t ramfs -o mode=0700 lfa-ramfs "$MNT" || { why="cannot mount ramfs"; return 1; }
	mounted "$MNT"
}

# overlay TYPE [copy-up]: lower, upper and work directories on a fresh TYPE
# image.  With copy-up, every file is in the lower layer before the mount
# (an image's files in a container), so each writable open copies it up.
overlay() {
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
		{ why="the kernel has no overlayfs"; return 1; }
	mkfs_mount "overlay-$1-img" "$1" 128M "-q -F" "" || return 1
	mkdir "$MNT/lower" "$MNT/upper" "$MNT/work" || exit 99
	if [ "${2:-}" = copy-up ]; then
		"$REALFS_CHECK_PUBLIC" prepare-fs "$MNT/lower" || exit 99
		OPTS=-c
	fi
	BACK=$MNT/upper
	o=$MNT/lower
	MNT=$(new_dir "overlay-$1")
	mount -t overlay -o "lowerdir=$o,upperdir=$BACK,workdir=${BACK%/upper}/work" \
		lfa-overlay "$MNT" 2> "$work/overlay.mount" ||
		{ why="cannot mount overlay: $(tail -n 1 "$work/overlay.mount")"; return 1; }
	mounted "$MNT"
}
setup_overlay_ext3() { overlay ext3; }
setup_overlay_ext4() { overlay ext4; }
setup_overlay_ext3_copy_up() { overlay ext3 copy-up; }
setup_overlay_ext4_copy_up() { overlay ext4 copy-up; }

# sshfs over 127.0.0.1: an sshd of our own (tests/shared/sshd-lib.sh: config,
# host key, user key in $work), on a free port, killed by PID at teardown;
# files on ext3.
setup_sshfs() {
	[ -x "$sshd_bin" ] || { why="openssh-server is not installed"; return 1; }
	command -v sshfs > /dev/null || { why="sshfs is not installed"; return 1; }
	need_fuse || return 1
	mkfs_mount sshfs-ext3 ext3 64M "-q -F" "" || return 1
	BACK=$MNT
	ssh=$(new_dir ssh)
	sshd_start "$ssh" restore
	case $? in 0) ;; 1) return 1 ;; *) echo "check-fs: $why" >&2; exit 99 ;; esac
	MNT=$(new_dir sshfs)
	sshfs -F "$sshd_ssh_config" "127.0.0.1:$BACK" "$MNT" < /dev/null 2> "$ssh/sshfs.log" ||
		{ why="sshfs failed: $(tail -n 1 "$ssh/sshfs.log")"; return 1; }
	mounted "$MNT"
	# sshfs finds files by name: no descriptor of the library's own
	# (src/names_files.c), so write-only, O_APPEND-into-the-file and
	# O_DIRECT kinds are refused as glibc refuses them.
	OPTS=-N
	note "sshfs: sshd pid $sshd_pid on 127.0.0.1:$sshd_port"
}

# GlusterFS (tests/shared/gluster-lib.sh): a replica-2 volume of two ext3 bricks
# (ext3 has no fallocate, so neither has the volume), its glusterd in $work,
# two FUSE clients; the files are checked through the first client, their
# allocation on the first brick.  Start and stop times are noted.
gluster_row_stop() {
	gl_t0=$(date +%s)
	gluster_stop
	note "glusterfs: down in $(($(date +%s) - gl_t0)) s"
}
gluster_row_hook() { restore gluster_row_stop; }
# shellcheck disable=SC2154 # gluster-lib.sh sets the gluster_ variables
setup_glusterfs() {
	need_fuse || return 1
	gl_t0=$(date +%s)
	gluster_start "$(new_dir gluster)" gluster_row_hook 256M 2
	case $? in 0) ;; 1) return 1 ;; *) echo "check-fs: $why" >&2; exit 99 ;; esac
	# shellcheck disable=SC2086 # one mount point a word
	set -- $gluster_clients
	MNT=$1
	BACK=$gluster_dir/b1/brick
	note "glusterfs: volume $gluster_volume on $gluster_host, 2 clients, up in $(($(date +%s) - gl_t0)) s"
}

setup_ntfs_3g() {
	command -v ntfs-3g > /dev/null || { why="ntfs-3g is not installed"; return 1; }
	command -v mkntfs > /dev/null || { why="mkntfs (ntfs-3g) is not installed"; return 1; }
	need_fuse || return 1
	image ntfs 64M || return 1
	mkntfs -q -F -Q "$DEV" > "$work/ntfs.mkfs" 2>&1 ||
		{ why="mkntfs failed: $(tail -n 1 "$work/ntfs.mkfs")"; return 1; }
	MNT=$(new_dir ntfs-3g)
	ntfs-3g "$DEV" "$MNT" < /dev/null > "$work/ntfs.mount" 2>&1 ||
		{ why="ntfs-3g failed: $(tail -n 1 "$work/ntfs.mount")"; return 1; }
	mounted "$MNT"
	# ntfs-3g reports the clusters it allocated; it invents nothing.
	OPTS=-S
}

setup_exfat_fuse() {
	command -v mount.exfat-fuse > /dev/null || { why="exfat-fuse is not installed"; return 1; }
	command -v mkfs.exfat > /dev/null || { why="exfatprogs is not installed"; return 1; }
	need_fuse || return 1
	image exfat 64M || return 1
	mkfs.exfat "$DEV" > "$work/exfat.mkfs" 2>&1 ||
		{ why="mkfs.exfat failed: $(tail -n 1 "$work/exfat.mkfs")"; return 1; }
	MNT=$(new_dir exfat-fuse)
	mount.exfat-fuse "$DEV" "$MNT" < /dev/null > "$work/exfat.mount" 2>&1 ||
		{ why="exfat-fuse failed: $(tail -n 1 "$work/exfat.mount")"; return 1; }
	mounted "$MNT"
	# exFAT has no sparse files: st_blocks is the clusters of the file.
	OPTS=-S
}

setup_bindfs() {
	command -v bindfs > /dev/null || { why="bindfs is not installed"; return 1; }
	need_fuse || return 1
	mkfs_mount bindfs-ext3 ext3 64M "-q -F" "" || return 1
	BACK=$MNT
	MNT=$(new_dir bindfs)
	bindfs "$BACK" "$MNT" < /dev/null > "$work/bindfs.mount" 2>&1 ||
		{ why="bindfs failed: $(tail -n 1 "$work/bindfs.mount")"; return 1; }
	mounted "$MNT"
	OPTS=-N # found by name, as sshfs
}

# hugetlbfs: only where huge pages can be had.  The kernel allocates there,
# ours is compared with it; no write() exists, so the emulation forced can
# only fail, having changed nothing.
huge_pages() {
	grep -qw hugetlbfs /proc/filesystems || { why="the kernel has no hugetlbfs"; return 1; }
	[ "$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)" = 2048 ] ||
		{ why="huge pages are not 2 MiB here"; return 1; }
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	if [ "${free:-0}" -lt 64 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
		# Borrowed for this row only, given back at teardown.
		old=$(cat /proc/sys/vm/nr_hugepages)
		echo $((old + 64)) > /proc/sys/vm/nr_hugepages 2>/dev/null
		restore "echo $old > /proc/sys/vm/nr_hugepages"
		free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	fi
	[ "${free:-0}" -ge 64 ] || { why="no huge pages (HugePages_Free ${free:-0}; 64 needed)"; return 1; }
	MNT=$(new_dir hugetlbfs)
	mount -t hugetlbfs -o mode=0700 lfa-hugetlbfs "$MNT" || { why="cannot mount hugetlbfs"; return 1; }
	mounted "$MNT"
	MODE=parity
	"$REALFS_CHECK_PUBLIC" prepare "$MNT" || { why="cannot write files on hugetlbfs"; return 1; }
}
setup_hugetlbfs() { huge_pages; }
setup_hugetlbfs_forced() { huge_pages; }

# Read-only: the files are written first, then the filesystem is made
# read-only; writable descriptors cannot be opened, read-only ones get
# EBADF from the kernel and must get it from ours.  The emulation is forced
# (the row sets POLICY): with the kernel's EBADF it would never run.
setup_ro_remount() {
	mkfs_mount ro-ext4 ext4 64M "-q -F" "" || return 1
	"$REALFS_CHECK_PUBLIC" prepare "$MNT" || exit 99
	mount -o remount,ro "$MNT" || { why="cannot remount read-only"; return 1; }
	MODE=parity
}
# read_only_image NAME TYPE MKFS...: the files made in a directory, packed.
read_only_image() {
	name=$1 type=$2
	shift 2
	command -v "$1" > /dev/null || { why="$1 is not installed"; return 1; }
	grep -qw "$type" /proc/filesystems || modprobe "$type" 2>/dev/null ||
		{ why="the kernel has no $type"; return 1; }
	src=$(new_dir "$name-src")
	"$REALFS_CHECK_PUBLIC" prepare "$src" || exit 99
	"$@" "$work/$name.img" "$src" > "$work/$name.mkfs" 2>&1 ||
		{ why="$1 failed: $(tail -n 1 "$work/$name.mkfs")"; return 1; }
	DEV=$(losetup -f --show -r "$work/$name.img" 2>/dev/null) || { why="no free loop device"; return 1; }
	looped "$DEV"
	MNT=$(new_dir "$name")
	mount -t "$type" -o ro "$DEV" "$MNT" 2> "$work/$name.mount" ||
		{ why="cannot mount $type: $(tail -n 1 "$work/$name.mount")"; return 1; }
	mounted "$MNT"
	MODE=parity
}
mksquashfs_args() { mksquashfs "$2" "$1" -quiet -noappend; }
setup_squashfs() {
	command -v mksquashfs > /dev/null || { why="squashfs-tools is not installed"; return 1; }
	read_only_image squashfs squashfs mksquashfs_args
}
setup_erofs() {
	command -v mkfs.erofs > /dev/null || { why="erofs-utils is not installed"; return 1; }
	read_only_image erofs erofs mkfs.erofs --quiet
}

# ---- the rows -----------------------------------------------------------
# NAME:SETUP:KIND.  forced and read-only rows run with the emulation forced
# (LIBFALLOCATE_EMULATION=always); the others with the default policy, so
# the emulation runs where the kernel says EOPNOTSUPP, as users get it.
rows="
ext2:ext2:no-fallocate
ext3-4k:ext3_4k:no-fallocate
ext3-1k:ext3_1k:no-fallocate
ext4:ext4:forced
ext4-bigalloc:ext4_bigalloc:forced
xfs:xfs:forced
btrfs:btrfs:forced
btrfs-zstd:btrfs_zstd:forced
tmpfs:tmpfs:forced
ramfs:ramfs:no-fallocate
overlay/ext3:overlay_ext3:no-fallocate
overlay/ext4:overlay_ext4:forced
copy-up/ext3:overlay_ext3_copy_up:no-fallocate
copy-up/ext4:overlay_ext4_copy_up:forced
sshfs:sshfs:FUSE
glusterfs:glusterfs:FUSE
ntfs-3g:ntfs_3g:FUSE
exfat-fuse:exfat_fuse:FUSE
bindfs/ext3:bindfs:FUSE
hugetlbfs:hugetlbfs:huge
hugetlbfs-forced:hugetlbfs_forced:huge-forced
ro-remount:ro_remount:read-only
squashfs:squashfs:read-only
erofs:erofs:read-only
"

run_row() { # NAME SETUP KIND
	rname=$1 fn=$2
	BACK="" POLICY=auto MODE=fs OPTS="" why=""
	case $3 in forced|read-only|huge-forced) POLICY=always ;; esac
	t0=$(date +%s)
	if ! "setup_$fn"; then
		echo "ROW $rname SKIP $why" >> "$results"
		note "$rname: SKIP: $why"
		teardown
		return
	fi
	set -- $OPTS $checker_opts
	[ -n "$BACK" ] && set -- "$@" -b "$BACK"
	LIBFALLOCATE_EMULATION=$POLICY "$REALFS_CHECK_PUBLIC" "$@" "$MODE" "$MNT" \
		> "$scratch/out" 2>&1
	rc=$?
	grep -E '^(# |FAIL)' "$scratch/out" | sed "s|$work/||g; s|^|[$rname] |"
	grep '^KIND ' "$scratch/out" | sed "s|$work/||g; s|^KIND |$rname |" >> "$results"
	if ! grep -q '^KIND ' "$scratch/out"; then
		echo "ROW $rname FAIL the checker exited with $rc: $(tail -n 1 "$scratch/out")" >> "$results"
	fi
	teardown
	note "$rname ($MODE, emulation $POLICY): $(($(date +%s) - t0)) s"
}

for row in $rows; do
	name=${row%%:*} rest=${row#*:}
	if [ -n "$only" ]; then
		case " $only " in *" $name "*) ;; *) continue ;; esac
	fi
	run_row "$name" "${rest%%:*}" "${rest#*:}"
done

# ---- the table ------------------------------------------------------------
echo
# each column as wide as its kind's name
col() { printf " %-$((${#1} > 4 ? ${#1} : 4))s" "$2"; }
printf '%-17s' filesystem
for k in $kinds; do col "$k" "$k"; done
echo
failed=0
for row in $rows; do
	name=${row%%:*}
	grep -q "^$name \|^ROW $name " "$results" || continue
	printf '%-17s' "$name"
	if line=$(grep "^ROW $name " "$results"); then
		st=$(echo "$line" | cut -d' ' -f3)
		[ "$st" = FAIL ] && failed=1
		for k in $kinds; do col "$k" "$st"; done
		echo
		continue
	fi
	for k in $kinds; do
		st=$(awk -v n="$name" -v k="$k" '$1 == n && $2 == k { print $3 }' "$results")
		[ "$st" = FAIL ] && failed=1
		col "$k" "${st:-none}"
		[ -n "$st" ] || failed=1
	done
	echo
done
echo
echo "Reasons (each FAIL and SKIP):"
grep -E '^ROW [^ ]+ (SKIP|FAIL)' "$results" | sed 's/^ROW \([^ ]*\) \([A-Z]*\) /  \1: whole row \2: /'
grep -E '^[^ ]+ [^ ]+ (SKIP|FAIL) ' "$results" | grep -v '^ROW ' |
	sed 's/^\([^ ]*\) \([^ ]*\) \([A-Z]*\) /  \1, \2: \3: /'
echo "Error parity (hugetlbfs, read-only): the kind's own call, nothing written (len 0 and a"
echo "negative offset are compared too: ours must give the kernel's error):"
for row in $rows; do
	name=${row%%:*}
	case ${row##*:} in huge*|read-only) ;; *) continue ;; esac
	# one line per distinct outcome, with the kinds that had it
	awk -v n="$name" '$1 == n && $3 == "PASS" {
		note = $0; sub(/^[^ ]+ [^ ]+ PASS /, "", note)
		if (!(note in kinds)) order[++m] = note
		kinds[note] = kinds[note] (kinds[note] == "" ? "" : ",") $2
	}
	END { for (i = 1; i <= m; i++) printf "  %s (%s): %s\n", n, kinds[order[i]], order[i] }' "$results"
done
echo
echo "check-fs: $(($(date +%s) - started)) s"
[ $failed = 0 ] || fail "some filesystems failed (see the table)"
echo PASS

#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make bench: libfallocate's posix_fallocate against glibc's, side by side.
# Writes results.csv, results.txt and ratios.png into $BENCH_OUT (default
# bench/results in the build tree).  See bench/README.md.
#
# Environment: BENCH_OUT, BENCH_TMPDIR (scratch space on the machine's own
# disk, default /var/tmp; needs about 8 GiB free), BENCH_REPS (timed rounds
# per side for the large scenarios, default 5), BENCH_ONLY (scenario
# numbers to run, e.g. "2 3"; default all; 11 is GlusterFS, 13 CephFS), BENCH_VERBOSE=1 (each round's
# time on stderr), BENCH_CACHE_SIZES (MiB, scenario 9; default 1024, the
# issue's full run is "1024 4096"), BENCH_CACHE_REPS (default 3),
# BENCH_GLUSTER_1G_REPS (rounds of scenario 11's 1 GiB row, default 1),
# BENCH_CEPH_SIZES, BENCH_CEPH_REPS, BENCH_CEPH_1G_REPS (scenario 13:
# bench/cephfs.sh),
# BENCH_CACHE_SIDES (bench/cache.py --sides: e.g. add ours@/path/to/an/older/
# libfallocate.so.1 to compare engines), BENCH_PREVIOUS (the release every
# row stands beside: a libfallocate.so path, or none; default 0.2.0, built
# once from git history and kept in $BENCH_TMPDIR/lfa-bench-0.2.0-c83cca3).
set -euo pipefail
: "${top_builddir:=$(pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${LFA_LIBRARY:=$top_builddir/.libs/libfallocate.so.1}"
bench=$top_builddir/bench/lfa-bench
forcer=$top_builddir/tests/lib/with-fallocate-errno
out=${BENCH_OUT:-$top_builddir/bench/results}
reps=${BENCH_REPS:-5}
only=${BENCH_ONLY:-1 2 3 4 5 6 7 8 9 10 11 12 13}
cache_sizes=${BENCH_CACHE_SIZES:-1024}
cache_reps=${BENCH_CACHE_REPS:-3}
verbose=()
[ "${BENCH_VERBOSE:-0}" = 1 ] && verbose=(--verbose)
started=$(date +%s)

[ -x "$bench" ] || { echo "bench: $bench is not built" >&2; exit 1; }
[ -e "$LFA_LIBRARY" ] || { echo "bench: $LFA_LIBRARY is not built" >&2; exit 1; }
mkdir -p "$out"
csv=$out/results.csv
skips=$out/skipped.txt
: > "$skips"
echo "id,scenario,fs,side,bytes,unit,median_s,min_s,max_s,reps,syscalls,maxrss_kib,paired_ratio,rss_after_kib" > "$csv"

# ---- cleanup: everything set up below registers its undoing here ----------
undo=""
on_exit() { undo="$1; $undo"; }
cleanup() { set +e; eval "$undo"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

work=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/lfa-bench.XXXXXX")
on_exit "rm -rf '$work'"
mkdir "$work/disk"

is_root() { [ "$(id -u)" = 0 ]; }
wanted() { [[ " $only " == *" $1 "* ]]; }
skip() { echo "scenario $1 skipped: $2" | tee -a "$skips" >&2; }
log() { printf '[%3ds] %s\n' $(( $(date +%s) - started )) "$*" >&2; }
fstype() { findmnt -n -o FSTYPE --target "$1" | tail -n 1; } # the top mount

run() { # ID DIR FS-LABEL ARGS...: one driver run, rows appended to the CSV
	local id=$1 dir=$2 fs=$3
	shift 3
	log "$id on $fs: lfa-bench $*"
	"$bench" --lib "$LFA_LIBRARY" "${previous_args[@]}" --id "$id" --dir "$dir" --fs "$fs" \
		"${verbose[@]}" "$@" >> "$csv"
	sync
}
forced() { # the same, with the fallocate syscall failing EOPNOTSUPP for both sides
	local id=$1 dir=$2 fs=$3
	shift 3
	log "$id on $fs: with-fallocate-errno EOPNOTSUPP lfa-bench $*"
	"$forcer" EOPNOTSUPP "$bench" --lib "$LFA_LIBRARY" "${previous_args[@]}" --id "$id" \
		--dir "$dir" --fs "$fs" \
		"${verbose[@]}" "$@" >> "$csv"
	sync
}

# ---- the previous release, beside every row ----------------------------------
# 0.2.0 comes from this tree's git history, built once (about a minute) and
# kept: no network.  Taken with git archive into a scratch directory, so the
# repository's own state (its worktree list, shared with other checkouts) is
# never touched, and an interrupted build leaves nothing behind in it.
previous_release=0.2.0
previous_commit=c83cca3
previous_name=$previous_release
build_previous() { # sets previous to the built library, or says why not
	local cache=${BENCH_TMPDIR:-/var/tmp}/lfa-bench-$previous_release-$previous_commit tree
	previous=$cache/libfallocate.so.1
	[ -e "$previous" ] && return 0
	previous=""
	if ! git -C "$top_srcdir" rev-parse -q --verify "$previous_commit^{commit}" > /dev/null 2>&1; then
		echo "bench: no $previous_release (commit $previous_commit) in $top_srcdir's git history:" \
			"rows without it (BENCH_PREVIOUS=path/to/libfallocate.so.1 gives one)" >&2
		return 0
	fi
	tree=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/lfa-bench-previous.XXXXXX")
	log "building $previous_release (commit $previous_commit) in $tree, once"
	if git -C "$top_srcdir" archive --format=tar "$previous_commit" | tar -x -C "$tree" &&
		(cd "$tree" && ./autogen.sh && ./configure --quiet && make -j"$(nproc)" libfallocate.la) \
			> "$tree/build.log" 2>&1 &&
		mkdir -p "$cache" && cp -L "$tree/.libs/libfallocate.so.1" "$cache/libfallocate.so.1.tmp" &&
		mv "$cache/libfallocate.so.1.tmp" "$cache/libfallocate.so.1"; then
		previous=$cache/libfallocate.so.1
	else
		echo "bench: building $previous_release failed (last lines of its log below):" \
			"rows without it" >&2
		tail -n 5 "$tree/build.log" >&2 || true
	fi
	rm -rf "$tree"
}
previous_args=()
case ${BENCH_PREVIOUS:-} in
none) previous="" ;;
"") build_previous ;;
*)
	previous=$BENCH_PREVIOUS
	previous_name=${BENCH_PREVIOUS_NAME:-previous}
	[ -e "$previous" ] || { echo "bench: BENCH_PREVIOUS=$previous does not exist" >&2; exit 1; }
	;;
esac
if [ -n "$previous" ]; then
	previous_args=(--previous "$previous")
	log "previous: $previous_name ($previous)"
	echo "$previous_name" > "$out/previous.txt"
else
	rm -f "$out/previous.txt"
fi

# ---- what the machine offers ----------------------------------------------
disk=$work/disk
disk_fs=$(fstype "$disk")
can_force=no
if [ -x "$forcer" ] && "$forcer" EOPNOTSUPP true 2>/dev/null; then
	can_force=yes
fi
forced_fs="$disk_fs-forced"

# Syscall counts come from the raw_syscalls tracepoint: tracefs must be there.
if is_root && ! [ -e /sys/kernel/tracing/events/raw_syscalls ] &&
	! [ -e /sys/kernel/debug/tracing/events/raw_syscalls ] &&
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	on_exit "umount /sys/kernel/tracing"
fi

ext3=""
if is_root && command -v mkfs.ext3 > /dev/null && command -v losetup > /dev/null; then
	truncate -s 6G "$work/ext3.img"
	mkfs.ext3 -q -F "$work/ext3.img"
	if loop=$(losetup -f --show "$work/ext3.img"); then
		on_exit "losetup -d '$loop'"
		mkdir "$work/ext3"
		if mount -t ext3 "$loop" "$work/ext3"; then
			on_exit "umount '$work/ext3'"
			ext3=$work/ext3
		fi
	fi
fi
no_ext3="no ext3 loop image (needs root, mkfs.ext3 and a loop device)"

# ---- the scenarios ----------------------------------------------------------
if wanted 1; then
	if shm=$(mktemp -d /dev/shm/lfa-bench.XXXXXX 2>/dev/null); then
		on_exit "rm -rf '$shm'"
		run 1-native "$shm" "$(fstype "$shm")" --scenario native --size 64K --reps 301 --calls 300
	else
		skip 1 "no tmpfs at /dev/shm"
	fi
	run 1-native "$disk" "$disk_fs" --scenario native --size 64K --reps 301 --calls 300
fi

if wanted 2; then
	if [ -n "$ext3" ]; then
		run 2-new "$ext3" ext3 --scenario new --dd --reps "$reps"
	else
		skip 2 "$no_ext3"
	fi
	if [ $can_force = yes ]; then
		forced 2-new "$disk" "$forced_fs" --scenario new --dd --reps "$reps"
	else
		skip 2 "cannot force EOPNOTSUPP (tests/lib/with-fallocate-errno: no libseccomp?)"
	fi
fi

if wanted 3; then
	cold=""
	is_root && cold=yes
	if [ -n "$ext3" ]; then
		run 3-warm "$ext3" ext3 --scenario rewrite --reps "$reps"
		[ -n "$cold" ] && run 3-cold "$ext3" ext3 --scenario rewrite --cold --dd --reps "$reps"
	fi
	if [ $can_force = yes ]; then
		forced 3-warm "$disk" "$forced_fs" --scenario rewrite --reps "$reps"
		[ -n "$cold" ] && forced 3-cold "$disk" "$forced_fs" --scenario rewrite --cold --dd \
			--reps "$reps"
	fi
	[ -n "$cold" ] || skip 3 "cold cache needs root to drop caches"
fi

if wanted 4; then
	[ -n "$ext3" ] && run 4-sparse "$ext3" ext3 --scenario sparse --chunk 1M --reps "$reps"
	[ $can_force = yes ] &&
		forced 4-sparse "$disk" "$forced_fs" --scenario sparse --chunk 1M --reps "$reps"
fi

if wanted 5; then
	if [ -n "$ext3" ]; then
		run 5-dsync "$ext3" ext3 --scenario new --dsync --size 8M --reps 3
	else
		skip 5 "$no_ext3"
	fi
fi

# sshfs over 127.0.0.1 only: a throwaway sshd with keys made for this run
# (tests/shared/sshd-lib.sh).  Not in a subshell: what it starts must be undone by
# this shell's trap.  Says why in $why.
. "$top_srcdir/tests/shared/sshd-lib.sh"
sshfs_setup() {
	why="needs root (sshd, FUSE mount)"
	is_root || return 1
	why="openssh-server is not installed"
	[ -x "$sshd_bin" ] || return 1
	why="sshfs is not installed"
	command -v sshfs > /dev/null || return 1
	why="no /dev/fuse"
	[ -e /dev/fuse ] || return 1
	mkdir -p "$work/remote" "$work/sshfs"
	sshd_start "$work/ssh" on_exit || return 1
	sshfs -F "$sshd_ssh_config" "127.0.0.1:$work/remote" "$work/sshfs" 2> "$work/ssh/sshfs.log" ||
		{ why="sshfs failed: $(tail -n 1 "$work/ssh/sshfs.log")"; return 1; }
	on_exit "umount '$work/sshfs'"
	why="sshfs on 127.0.0.1:$sshd_port"
}

if wanted 6; then
	if sshfs_setup; then
		log "$why"
		run 6-new "$work/sshfs" sshfs --scenario new --dd --size 256M --reps 3
		run 6-rewrite "$work/sshfs" sshfs --scenario rewrite --dd --size 256M --reps 3
		# glibc takes about 17 s a round here: one synchronous SFTP round
		# trip per 4 KiB block.
		run 6-dsync "$work/sshfs" sshfs --scenario new --dsync --size 8M --reps 3
	else
		skip 6 "$why"
	fi
fi

# ntfs-3g on a loop image: the FUSE filesystem of Windows disks, with real
# block accounting (unlike sshfs) and no fallocate.  Says why in $why.
ntfs_setup() {
	why="needs root (loop device, FUSE mount)"
	is_root || return 1
	why="ntfs-3g is not installed"
	command -v ntfs-3g > /dev/null && command -v mkntfs > /dev/null || return 1
	why="no /dev/fuse"
	[ -e /dev/fuse ] || return 1
	truncate -s 2G "$work/ntfs.img"
	why="no loop device"
	loop=$(losetup -f --show "$work/ntfs.img") || return 1
	on_exit "losetup -d '$loop'"
	why="mkntfs failed"
	mkntfs -q -F -Q "$loop" > /dev/null 2>&1 || return 1
	mkdir "$work/ntfs"
	why="ntfs-3g failed to mount"
	ntfs-3g "$loop" "$work/ntfs" || return 1
	on_exit "umount '$work/ntfs'"
	why="ntfs-3g $(ntfs-3g --version 2>&1 | awk 'NR == 1 { print $2 }')"
}

if wanted 8; then
	if ntfs_setup; then
		log "$why"
		run 8-new "$work/ntfs" ntfs-3g --scenario new --dd --size 256M --reps 5
		run 8-dsync "$work/ntfs" ntfs-3g --scenario new --dsync --size 8M --reps 3
	else
		skip 8 "$why"
	fi
fi

# GlusterFS (tests/shared/gluster-lib.sh): a replica-2 volume of two ext3 bricks
# (no fallocate) and one FUSE client, the shared filesystem of issue 24.
# Says why in $why.
. "$top_srcdir/tests/shared/gluster-lib.sh"
# shellcheck disable=SC2154 # gluster-lib.sh sets the gluster_ variables
gluster_setup() {
	why="needs root (glusterd, loop devices, FUSE mount)"
	is_root || return 1
	gluster_start "$work/gluster" on_exit 1536M 1 || return 1
	gluster_bench_dir=${gluster_clients# }
	why="GlusterFS $(glusterfs --version 2>/dev/null | awk 'NR == 1 { print $2 }') on $gluster_host, bricks on ext3"
}

if wanted 11; then
	if gluster_setup; then
		log "$why"
		run 11-new-64M "$gluster_bench_dir" glusterfs --scenario new --dd --size 64M --reps 3
		# glibc takes one to three minutes a round here: one round by
		# default, to keep make bench under its 10 minutes.
		run 11-new-1G "$gluster_bench_dir" glusterfs --scenario new --dd --size 1G \
			--reps "${BENCH_GLUSTER_1G_REPS:-1}"
	else
		skip 11 "$why"
	fi
fi

# Scenario 13: CephFS through ceph-fuse (issue 38), a throwaway single-node
# Ceph of its own (bench/cephfs.sh, tests/shared/ceph-lib.sh), which that script
# starts and ends itself, on failure too; one cluster at a time.
if wanted 13; then
	if ! is_root; then
		skip 13 "needs root (Ceph's daemons, ceph-fuse)"
	else
		log "13-new on ceph-fuse: a single-node Ceph (bench/cephfs.sh)"
		rc=0
		env top_srcdir="$top_srcdir" top_builddir="$top_builddir" LFA_LIBRARY="$LFA_LIBRARY" \
			TMPDIR="$work" BENCH_CEPH_PREVIOUS="$previous" \
			sh "$top_srcdir/bench/cephfs.sh" "$csv" > "$work/cephfs.out" || rc=$?
		sed 's/^/  /' "$work/cephfs.out" >&2
		case $rc in
		0) ;;
		77) skip 13 "$(sed -n 's/^SKIP: //p' "$work/cephfs.out" | tail -n 1)" ;;
		*) skip 13 "bench/cephfs.sh failed ($rc): $(grep -E '^(FAIL|SKIP)' "$work/cephfs.out" | tail -n 1)" ;;
		esac
	fi
fi

if wanted 7; then
	if [ $can_force = yes ]; then
		forced 7-rss "$disk" "$forced_fs" --scenario rss --reps 3
	elif [ -n "$ext3" ]; then
		run 7-rss "$ext3" ext3 --scenario rss --reps 3
	else
		skip 7 "no filesystem where both sides emulate"
	fi
fi

# Scenario 9: what a large new range leaves in the page cache (issue 17),
# every side in a memory cgroup of its own (bench/cache.py).
cache_run() { # DIR FS-LABEL [--forcer F]
	local dir=$1 fs=$2 mib
	shift 2
	for mib in $cache_sizes; do
		if [ "$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')" -le $(( (mib + 256) * 1024 )) ]; then
			skip 9 "$fs: not enough room for $mib MiB"
			continue
		fi
		log "9-cache on $fs: $mib MiB, $cache_reps rounds"
		python3 "$top_srcdir/bench/cache.py" --lib "$LFA_LIBRARY" --dir "$dir" --fs "$fs" \
			--size "$mib" --reps "$cache_reps" ${cache_sides:+--sides "$cache_sides"} \
			"${verbose[@]}" "$@" >> "$out/cache.csv"
	done
}
cache_sides=${BENCH_CACHE_SIDES:-}
if [ -z "$cache_sides" ] && [ -n "$previous" ]; then
	cache_sides="ours,ours-keep,glibc,dd,dd-direct,dd-nocache,ours@$previous"
fi
if wanted 9; then
	echo "id,scenario,fs,side,bytes,call_median_s,call_min_s,sync_median_s,sync_min_s,reps,peak_dirty_mib,peak_cache_mib,cache_left_mib" > "$out/cache.csv"
	if ! is_root || ! command -v python3 > /dev/null; then
		skip 9 "needs root (memory cgroups) and python3"
	else
		if [ -n "$ext3" ]; then cache_run "$ext3" ext3; else skip 9 "$no_ext3"; fi
		if [ $can_force = yes ]; then
			cache_run "$disk" "$forced_fs" --forcer "$forcer"
		else
			skip 9 "cannot force EOPNOTSUPP"
		fi
	fi
else
	rm -f "$out/cache.csv"
fi

# Scenario 10: a file grown by small steps, 20,000 calls of 4 KiB and of
# 64 KiB, against glibc and a bare pwrite of the same zeros; 7 rounds, as
# issue 18 measured them.
if wanted 10; then
	for step in 4K 64K; do
		[ -n "$ext3" ] && run "10-extend-$step" "$ext3" ext3 --scenario extend --chunk "$step" \
			--calls 20000 --reps 7 --pwrite
		[ $can_force = yes ] && forced "10-extend-$step" "$disk" "$forced_fs" --scenario extend \
			--chunk "$step" --calls 20000 --reps 7 --pwrite
	done
	# The same 4 KiB step in a process that has started a thread: ours
	# works on a dup of the caller's descriptor there (two syscalls more).
	[ $can_force = yes ] && forced "10-extend-4K-threads" "$disk" "$forced_fs" --scenario extend \
		--chunk 4K --calls 20000 --reps 7 --threaded
fi

# Scenario 12: a fragmented file (issue 25), 100,000 1 KiB data blocks and
# 100,000 1 KiB holes between them, on an ext3 with 1 KiB blocks: ours with
# its page-cache window beside ours without it (LIBFALLOCATE_CACHE=keep)
# and glibc, in one run.
if wanted 12; then
	if is_root && command -v mkfs.ext3 > /dev/null && command -v losetup > /dev/null; then
		truncate -s 1G "$work/ext3-1k.img"
		mkfs.ext3 -q -F -b 1024 "$work/ext3-1k.img"
		if loop1k=$(losetup -f --show "$work/ext3-1k.img"); then
			on_exit "losetup -d '$loop1k'"
			mkdir "$work/ext3-1k"
			if mount -t ext3 "$loop1k" "$work/ext3-1k"; then
				on_exit "umount '$work/ext3-1k'"
				run 12-fragmented "$work/ext3-1k" ext3-1k --scenario sparse --chunk 1K \
					--size 200000K --keep --reps "${BENCH_FRAGMENTED_REPS:-3}"
			else
				skip 12 "cannot mount the 1 KiB-block ext3"
			fi
		else
			skip 12 "no loop device"
		fi
	else
		skip 12 "$no_ext3"
	fi
fi

log "done; writing the report"
machine="$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))," 
machine="$machine $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM, Linux $(uname -r),"
# sed reads all of ldd's output: with head, ldd could die of SIGPIPE and
# pipefail end the run before the report.
machine="$machine $(ldd --version | sed -n '1{s/.*) //;s/^/glibc /;p}'), disk: $disk_fs"
echo "$machine" > "$out/machine.txt"
bash "$top_srcdir/bench/report.sh" "$out" | tee "$out/results.txt"
if command -v gnuplot > /dev/null; then
	gnuplot -e "datafile='$out/ratios.dat'; outfile='$out/ratios.png'; machine='$machine'" \
		"$top_srcdir/bench/ratios.gp" && echo "chart: $out/ratios.png"
else
	echo "chart: skipped (gnuplot is not installed)"
fi
echo "csv: $csv"
echo "total: $(( $(date +%s) - started )) s"

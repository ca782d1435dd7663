# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Sourced by the tests that run real programs on sshfs (a FUSE filesystem
# without fallocate, where SEEK_HOLE and st_blocks cannot be trusted and
# whose server opens files with the caller's O_APPEND).  mount_sshfs starts
# a throwaway sshd on 127.0.0.1 (tests/shared/sshd-lib.sh) with its own host and
# user keys in the scratch directory, and mounts a directory of the scratch
# directory through it; everything is unmounted, killed by PID and
# removed at exit, on failure too.  Needs root (sshd, FUSE mounts); skips otherwise.
. "${top_srcdir:-.}/tests/programs/preload-lib.sh"
. "${top_srcdir:-.}/tests/shared/sshd-lib.sh"

# Skips unless this machine can serve sshfs mounts; sets sftp_server.
need_sshfs() {
	[ "$(id -u)" = 0 ] || skip "not root: cannot run sshd and mount sshfs"
	need_cmd sshfs
	need_cmd ssh
	need_cmd ssh-keygen
	[ -x "$sshd_bin" ] || skip "no $sshd_bin (openssh-server)"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	sftp_server=
	for s in /usr/lib/openssh/sftp-server /usr/libexec/openssh/sftp-server /usr/libexec/sftp-server; do
		[ -x "$s" ] && { sftp_server=$s; break; }
	done
	[ -n "$sftp_server" ] || skip "no sftp-server"
}

mount_sshfs() {
	need_sshfs
	sshd_start "$scratch/sshd" on_exit "$sftp_server"
	case $? in 0) ;; 1) skip "$why" ;; *) fail "$why" ;; esac

	remote=$scratch/remote
	sshfs_dir=$scratch/sshfs
	mkdir -p "$remote" "$sshfs_dir"
	sshfs -F "$sshd_ssh_config" "127.0.0.1:$remote" "$sshfs_dir" 2> "$scratch/sshd/sshfs.log" ||
		skip "sshfs mount failed: $(cat "$scratch/sshd/sshfs.log")"
	on_exit "umount $sshfs_dir 2> /dev/null || umount -l $sshfs_dir"
	# The point of this filesystem is that it cannot allocate.
	if command -v fallocate > /dev/null 2>&1 && fallocate -l 4096 "$sshfs_dir/probe" 2> /dev/null; then
		skip "this sshfs supports fallocate"
	fi
	rm -f "$sshfs_dir/probe"
	note "sshfs: $remote mounted on $sshfs_dir through sshd (pid $sshd_pid, port $sshd_port)"
}

# Like enter_env, for sshfs: $dir on the mount, $remote_dir the same
# directory seen directly (the truth about size and contents).
enter_sshfs() {
	env_name=sshfs
	jail=
	dir=$sshfs_dir/work
	remote_dir=$remote/work
	mkdir -p "$dir"
	note "--- sshfs: files in $dir"
}

# python3's os.posix_fallocate on sshfs, on a file with 64 KiB of data
# opened HOW, from OFFSET (default 0) up to 8 MiB.  sshfs finds files by
# name (src/names_files.c): the library opens no descriptor of its own
# there, since a rename by another client would make it another file's, and
# learns the file only through the caller's.  So, checked on the server's
# side (the truth about size and contents):
#  - wronly, append (O_WRONLY|O_APPEND): nothing of the file can be read
#    through the caller's descriptor: EBADF, glibc's answer, nothing written;
#  - rdwr: allocated, data in place, zeros after (glibc does it too);
#  - rdwr-append from the end: grown through the caller's O_APPEND, data in
#    place (glibc refuses any O_APPEND descriptor with EBADF).
sshfs_python_case() { # HOW [OFFSET]
	how=$1 off=${2:-0}
	len=$((8 * MiB - off))
	head -c 65536 /dev/urandom > "$scratch/data"
	f=$dir/$how
	cp "$scratch/data" "$f"
	without "$PYTHON" -c "$py_allocate" "$f" "$how" $len "$off"
	case $how in
	rdwr) expect_rc 0 "python3 $how on sshfs, glibc" ;;
	*)
		expect_fail_rc "python3 $how on sshfs"
		expect_out 'posix_fallocate: Bad file descriptor' "glibc's EBADF on $how" ;;
	esac
	cp "$scratch/data" "$f"
	with "$PYTHON" -c "$py_allocate" "$f" "$how" $len "$off"
	case $how in
	wronly|append)
		expect_fail_rc "python3 $how on sshfs under fallocate-preload"
		expect_out 'posix_fallocate: Bad file descriptor' "the library's EBADF on $how"
		expect_out '^libfallocate: posix_fallocate.*emulated.*: Bad file descriptor' \
			"python3 $how (libfallocate emulated, refused)"
		[ "$(file_size "$remote_dir/$how")" = 65536 ] ||
			fail "sshfs: $how: the refused call changed the size to $(file_size "$remote_dir/$how")"
		cmp -s "$scratch/data" "$remote_dir/$how" || fail "sshfs: $how: the refused call changed the data"
		note "sshfs: python3 os.posix_fallocate on $how: EBADF as glibc, nothing written" ;;
	*)
		expect_rc 0 "python3 $how on sshfs under fallocate-preload"
		expect_out '^posix_fallocate: ok' "python3 $how"
		expect_emulated "python3 $how"
		[ "$(file_size "$remote_dir/$how")" = $((8 * MiB)) ] ||
			fail "sshfs: $how: size $(file_size "$remote_dir/$how") on the server, wanted $((8 * MiB))"
		cmp -s -n 65536 "$scratch/data" "$remote_dir/$how" || fail "sshfs: $how: the data in the file changed"
		check_zeros "$remote_dir/$how" 65536
		note "sshfs: python3 os.posix_fallocate on $how from $off: ok, data kept, zeros after" ;;
	esac
}

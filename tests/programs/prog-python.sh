#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# python3's os.posix_fallocate, unmodified, on the descriptors glibc's
# emulation refuses: O_WRONLY on a file that has data (its one-byte pread
# probe fails: EBADF) and O_APPEND (refused outright: EBADF); under ENOSYS
# glibc does not emulate at all.  Under fallocate-preload both work, and the
# data already in the file is kept.
. "${top_srcdir:-.}/tests/programs/preload-lib.sh"
need_preloadable "$PYTHON"
pick_envs

len=$((8 * MiB))

for env in $envs; do
	enter_env "$env"
	head -c 65536 /dev/urandom > "$dir/data"
	for how in wronly append; do
		f=$dir/$how
		cp "$dir/data" "$f"
		without "$PYTHON" -c "$py_allocate" "$f" $how $len
		expect_fail_rc "python3 $how"
		case $env in
		ext3) expect_out 'posix_fallocate: Bad file descriptor' "glibc's EBADF on $how" ;;
		enosys) expect_out 'posix_fallocate: Function not implemented' "glibc's ENOSYS" ;;
		esac
		[ "$(file_size "$f")" = 65536 ] || fail "$env: the failed call changed the size"

		with "$PYTHON" -c "$py_allocate" "$f" $how $len
		expect_rc 0 "python3 $how under fallocate-preload"
		expect_out '^posix_fallocate: ok' "python3 $how"
		expect_emulated "python3 $how"
		check_allocated "$f" $len
		cmp -s -n 65536 "$dir/data" "$f" || fail "$env: $how: the data in the file changed"
		# The rest reads as zeros.
		[ "$(tail -c $((len - 65536)) "$f" | tr -d '\0' | wc -c)" = 0 ] ||
			fail "$env: $how: the new range is not zeros"
		note "$env: python3 os.posix_fallocate on $how: without: fails; with: ok"
	done
done
echo PASS

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fio, unmodified, with fallocate=posix and direct=1, appending to a file
# that already has 1 MiB of data (file_append=1): fio lays the file out to
# 9 MiB through an O_WRONLY descriptor, where glibc's emulation fails with
# EBADF on ext3 (its pread probe), and gives up under ENOSYS.  fio logs the
# failure and runs on with the file unallocated; under fallocate-preload the
# whole 9 MiB is allocated and the first MiB is untouched.  The job writes
# only 64 KiB (io_size), so what is allocated is what preallocation did.
. "${top_srcdir:-.}/tests/programs/preload-lib.sh"
need_preloadable fio
pick_envs

direct_works() { dd if=/dev/zero of="$1/direct-probe" bs=4096 count=1 oflag=direct 2>/dev/null; }
for env in $envs; do
	enter_env "$env"
	direct=1
	direct_works "$dir" || { direct=0; note "no O_DIRECT on this filesystem: direct=0"; }
	head -c $MiB /dev/urandom > "$dir/data"
	job="--name=prealloc --filename=$dir/job --ioengine=psync --rw=write --bs=64k
		--size=8m --io_size=64k --file_append=1 --fallocate=posix --direct=$direct
		--output=$scratch/fio-report"

	cp "$dir/data" "$dir/job"
	without fio $job
	expect_rc 0 "fio without the library (it only logs the failure)"
	case $env in
	ext3) expect_out 'posix_fallocate fails: Bad file descriptor' "glibc's EBADF" ;;
	enosys) expect_out 'posix_fallocate fails: Function not implemented' "glibc's ENOSYS" ;;
	esac
	[ "$(first_hole "$dir/job")" -lt $((9 * MiB)) ] ||
		fail "$env: fio's file is allocated without the library"
	note "without: $(file_size "$dir/job") bytes, first hole at $(first_hole "$dir/job")"

	cp "$dir/data" "$dir/job"
	with fio $job
	expect_rc 0 "fio under fallocate-preload"
	expect_no_out 'posix_fallocate fails' "fio under fallocate-preload"
	expect_emulated "fio"
	check_allocated "$dir/job" $((9 * MiB))
	cmp -s -n $MiB "$dir/data" "$dir/job" || fail "$env: the first MiB changed"
	note "$env: fio fallocate=posix direct=$direct file_append=1: ok"
done
echo PASS

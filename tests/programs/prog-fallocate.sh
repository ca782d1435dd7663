#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# util-linux `fallocate -x` (posix_fallocate mode), unmodified.  Under ENOSYS
# glibc gives up and the command fails.  On ext3 glibc's emulation succeeds
# (fallocate(1) opens O_RDWR) but writes one byte per 4 KiB block, and on a
# file that has data reads each of its blocks first; libfallocate writes the
# holes in large pieces.  Write syscalls are counted (strace), never timed.
# Under ENOSYS, util-linux 2.38 exits 0 having allocated nothing: it checks
# posix_fallocate's result with `< 0`, but the error comes back positive.
# Without -x it calls fallocate() with mode 0, which the wrapper emulates
# unless --no-emulate-fallocate; -n (FALLOC_FL_KEEP_SIZE) is never emulated.
. "${top_srcdir:-.}/tests/programs/preload-lib.sh"
need_preloadable fallocate
fallocate --help 2>&1 | grep -q -- '--posix' || skip "this fallocate(1) has no --posix (-x)"
pick_envs

len=$((8 * MiB))
for env in $envs; do
	enter_env "$env"
	f=$dir/new
	without fallocate -x -l $len "$f"
	case $env in
	enosys)
		# Fails, or (util-linux 2.38) says nothing and allocates nothing.
		[ ! -s "$f" ] || fail "$env: glibc allocated $(file_size "$f") bytes under ENOSYS"
		if [ "$rc" = 0 ]; then
			note "fallocate -x exited 0 but the file is empty: the error was lost"
		else
			expect_out 'Function not implemented' "glibc's ENOSYS"
		fi ;;
	ext3)
		# Works, at a cost: count the writes glibc makes.
		expect_rc 0 "fallocate -x with glibc's emulation"
		check_allocated "$f" $len
		if command -v strace >/dev/null 2>&1; then
			rm -f "$f"
			count_writes fallocate -x -l $len "$f" || fail "strace fallocate failed"
			glibc_writes=$writes
			rm -f "$f"
			count_writes "$FALLOCATE_PRELOAD" fallocate -x -l $len "$f" ||
				fail "strace fallocate-preload fallocate failed"
			note "write syscalls for 8 MiB on ext3: glibc $glibc_writes, libfallocate $writes"
			[ "$glibc_writes" -ge $((len / 4096)) ] ||
				fail "glibc made only $glibc_writes writes: is this ext3?"
			[ "$writes" -le 16 ] || fail "libfallocate made $writes writes for 8 MiB"
		else
			note "strace missing: write counts not compared"
		fi
		rm -f "$f" ;;
	esac

	with fallocate -x -l $len "$f"
	expect_rc 0 "fallocate -x under fallocate-preload"
	expect_emulated "fallocate -x"
	check_allocated "$f" $len
	check_zeros "$f" 0

	# Growing a file that has data keeps the data.
	head -c 100000 /dev/urandom > "$dir/data"
	cp "$dir/data" "$dir/grow"
	with fallocate -x -o 0 -l $len "$dir/grow"
	expect_rc 0 "fallocate -x on a file with data"
	expect_emulated "fallocate -x on a file with data"
	check_allocated "$dir/grow" $len
	cmp -s -n 100000 "$dir/data" "$dir/grow" || fail "$env: the file's data changed"
	note "$env: fallocate -x: ok"

	# Without -x, fallocate(1) calls fallocate() itself, with mode 0: the
	# wrapper emulates that by default, --no-emulate-fallocate (and a bare
	# LD_PRELOAD) pass the kernel's error back, with a debug line naming
	# the switch; -n (FALLOC_FL_KEEP_SIZE) is never emulated.
	case $env in
	ext3) err='Operation not supported' ;;
	enosys) err='Function not implemented' ;;
	esac
	f=$dir/direct
	without fallocate -l $len "$f"
	expect_fail_rc "fallocate (mode 0)"
	expect_out "$err" "fallocate (mode 0) error"
	with fallocate -l $len "$f"
	expect_rc 0 "fallocate (mode 0) under fallocate-preload"
	expect_emulated "fallocate (mode 0)"
	check_allocated "$f" $len
	check_zeros "$f" 0
	rm -f "$f"
	WRAPPER_OPTS=--no-emulate-fallocate
	with fallocate -l $len "$f"
	WRAPPER_OPTS=
	expect_fail_rc "fallocate (mode 0) under fallocate-preload --no-emulate-fallocate"
	expect_out "^libfallocate: fallocate\\(.*mode=0(x0)?, .*native: $err \\(not emulated: set LIBFALLOCATE_EMULATE_FALLOCATE=1" \
		"the debug line names the switch"
	out=$($jail env LD_PRELOAD="$FALLOCATE_PRELOAD_LIBRARY" LIBFALLOCATE_DEBUG=1 \
		fallocate -l $len "$f" 2>&1) && fail "$env: a bare LD_PRELOAD emulated fallocate(): $out"
	expect_out "native: $err" "a bare LD_PRELOAD keeps the thin fallocate()"
	out=$($jail env LD_PRELOAD="$FALLOCATE_PRELOAD_LIBRARY" LIBFALLOCATE_DEBUG=1 \
		LIBFALLOCATE_EMULATE_FALLOCATE=1 fallocate -l $len "$f" 2>&1) ||
		fail "$env: LD_PRELOAD with LIBFALLOCATE_EMULATE_FALLOCATE=1: $out"
	expect_emulated "a bare LD_PRELOAD with LIBFALLOCATE_EMULATE_FALLOCATE=1"
	check_allocated "$f" $len
	# The wrapper makes fallocate() exist for mode 0, so a mode it cannot
	# do is refused as by a filesystem without it, EOPNOTSUPP, also where
	# the kernel said ENOSYS (issue 25).
	with fallocate -n -l $((2 * len)) "$f"
	expect_fail_rc "fallocate -n (KEEP_SIZE) under the wrapper"
	expect_out "native: Operation not supported" "fallocate -n error"
	[ "$(file_size "$f")" = $len ] || fail "$env: fallocate -n changed the size"
	note "$env: fallocate (mode 0): fails without; with: ok; --no-emulate-fallocate: fails, names the switch; -n: fails both ways"
done
echo PASS

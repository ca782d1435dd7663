#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# rsync --preallocate, unmodified.  rsync calls fallocate() itself, always
# with FALLOC_FL_KEEP_SIZE, on a new, empty temporary file; where that fails
# (ext3: EOPNOTSUPP; a sandbox: ENOSYS) it prints a warning, copies without
# preallocating and exits 0.  libfallocate's fallocate() never emulates a
# mode other than 0, though the wrapper emulates mode 0: zeros cannot be written
# past the end of a file without changing its size.  So this test shows the
# call reaching libfallocate and being refused, and the copy coming out
# right: rsync behaves as without the library.  The refusal is the
# kernel's EOPNOTSUPP, also where the kernel said ENOSYS: with mode 0
# emulated, fallocate() exists, and a mode it cannot do gets what a
# filesystem without it answers (issue 25).
. "${top_srcdir:-.}/tests/programs/preload-lib.sh"
need_preloadable rsync
rsync --help 2>&1 | grep -q -- '--preallocate' || skip "this rsync has no --preallocate"
pick_envs

for env in $envs; do
	enter_env "$env"
	head -c $((3 * MiB)) /dev/urandom > "$dir/src"
	case $env in
	ext3) err='Operation not supported' ;;
	enosys) err='Function not implemented' ;;
	esac

	without rsync --preallocate "$dir/src" "$dir/copy1"
	expect_rc 0 "rsync --preallocate"
	expect_out "do_fallocate .*$err" "rsync's warning"
	cmp -s "$dir/src" "$dir/copy1" || fail "$env: rsync's copy differs"

	with rsync --preallocate "$dir/src" "$dir/copy2"
	expect_rc 0 "rsync --preallocate under fallocate-preload"
	expect_out "^libfallocate: fallocate\\(fd=[0-9]+, mode=0x1, offset=0, len=[0-9]+\\): native: Operation not supported" \
		"the KEEP_SIZE call reached libfallocate and was refused"
	expect_out "do_fallocate .*Operation not supported" "rsync's warning"
	cmp -s "$dir/src" "$dir/copy2" || fail "$env: rsync's copy differs under the wrapper"
	note "$env: rsync --preallocate: warns and copies, with or without the library"
done
echo PASS

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# cryptsetup luksFormat with a detached header (--header FILE), unmodified,
# under a seccomp filter that makes fallocate fail with ENOSYS, as a sandbox
# or an old kernel would.  cryptsetup sizes a new header file with
# posix_fallocate(); glibc gives up on ENOSYS, and cryptsetup says "Cannot
# create header file" and leaves an empty file.  Under fallocate-preload the
# header is written: 16 MiB allocated, a LUKS2 header that opens with the
# key.  Nothing is mapped or activated: --test-passphrase only checks it.
. "${top_srcdir:-.}/tests/programs/preload-lib.sh"
[ "$(id -u)" = 0 ] || skip "not root: cryptsetup wants its locking directory"
need_preloadable cryptsetup
need_seccomp

enter_env enosys
truncate -s $((32 * MiB)) "$dir/data.img"
printf 'libfallocate test passphrase' > "$dir/key"
# The cheapest key derivation: this tests the header file, not the crypto.
format() { # HEADER
	echo cryptsetup luksFormat --batch-mode --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 --key-file "$dir/key" --header "$1" "$dir/data.img"
}

# shellcheck disable=SC2046
without $(format "$dir/hdr-without.img")
expect_fail_rc "cryptsetup luksFormat --header"
expect_out 'Cannot create header file' "cryptsetup's message"
[ ! -s "$dir/hdr-without.img" ] || fail "glibc sized the header file under ENOSYS"

hdr=$dir/hdr.img
# shellcheck disable=SC2046
with $(format "$hdr")
expect_rc 0 "cryptsetup luksFormat --header under fallocate-preload"
expect_emulated "cryptsetup's posix_fallocate"
size=$(file_size "$hdr")
[ "$size" -ge $((4 * MiB)) ] || fail "header file of $size bytes"
check_allocated "$hdr" "$size"
cryptsetup isLuks --type luks2 "$hdr" || fail "not a LUKS2 header"
cryptsetup open --test-passphrase --key-file "$dir/key" --header "$hdr" "$dir/data.img" ||
	fail "the header does not open with its key"
printf 'wrong' > "$dir/wrong"
cryptsetup open --test-passphrase --key-file "$dir/wrong" --header "$hdr" "$dir/data.img" \
	2> /dev/null && fail "the header opens with a wrong key"
[ "$(tr -d '\0' < "$dir/data.img" | wc -c)" = 0 ] || fail "the data device was written"
note "enosys: cryptsetup luksFormat --header: without: fails; with: ok, $size-byte header opens"
echo PASS

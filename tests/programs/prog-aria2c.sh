#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# aria2c --file-allocation=falloc, unmodified, downloading from a
# python3 -m http.server on 127.0.0.1.  aria2c calls fallocate() with mode
# 0, not posix_fallocate(): on ext3 (EOPNOTSUPP) and under ENOSYS it stops
# with "fallocate failed" and exit status 17 before downloading.  Under
# fallocate-preload, which emulates mode 0 by default, the download
# completes, and the file is the server's, byte for byte (sha256).
. "${top_srcdir:-.}/tests/programs/preload-lib.sh"
need_preloadable aria2c
need_cmd sha256sum
"$PYTHON" -c 'import http.server' 2> /dev/null || skip "python3 has no http.server"
pick_envs

# The server, on a port the kernel picks, killed by its PID at exit.
mkdir -p "$scratch/www"
len=$((6 * MiB + 12345))
head -c $len /dev/urandom > "$scratch/www/payload.bin"
want=$(sha256sum < "$scratch/www/payload.bin")
"$PYTHON" -u -m http.server --bind 127.0.0.1 --directory "$scratch/www" 0 \
	> "$scratch/http.log" 2>&1 &
http_pid=$!
on_exit "kill $http_pid 2> /dev/null; wait $http_pid 2> /dev/null"
port=
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	port=$(sed -n 's/^Serving HTTP on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$scratch/http.log")
	[ -n "$port" ] && break
	sleep 0.25
done
[ -n "$port" ] || skip "python3 -m http.server did not start: $(cat "$scratch/http.log")"
url=http://127.0.0.1:$port/payload.bin

aria() { # DIR: aria2c's arguments, quiet but for errors, no config file
	echo aria2c --no-conf --enable-color=false --console-log-level=error \
		--summary-interval=0 --download-result=hide --file-allocation=falloc \
		--allow-overwrite=true --auto-file-renaming=false -d "$1" -o payload.bin "$url"
}

for env in $envs; do
	enter_env "$env"
	case $env in
	ext3) err='Operation not supported' ;;
	enosys) err='Function not implemented' ;;
	esac
	# shellcheck disable=SC2046
	without $(aria "$dir/without")
	expect_rc 17 "aria2c --file-allocation=falloc"
	expect_out "fallocate failed.*$err" "aria2c's message"
	[ ! -s "$dir/without/payload.bin" ] || fail "$env: aria2c downloaded without allocating"

	# shellcheck disable=SC2046
	with $(aria "$dir/with")
	expect_rc 0 "aria2c --file-allocation=falloc under fallocate-preload"
	expect_out "^libfallocate: fallocate\\(fd=[0-9]+, offset=0, len=$len\\): emulated .*: ok" \
		"aria2c's fallocate() emulated"
	check_allocated "$dir/with/payload.bin" $len
	[ "$(sha256sum < "$dir/with/payload.bin")" = "$want" ] || fail "$env: the download differs"
	note "$env: aria2c --file-allocation=falloc: without: exit 17 ($err); with: ok, sha256 matches"
done
echo PASS

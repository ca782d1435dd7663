# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Sourced by the autopkgtest scripts: a scratch directory removed at exit,
# the seccomp helper, and checks that print what they saw.
set -eu
work=$(mktemp -d "${AUTOPKGTEST_TMP:-${TMPDIR:-/tmp}}/lfa-autopkgtest.XXXXXX")
trap 'rm -rf "$work"' EXIT
srcdir=$(cd "$(dirname "$0")/../.." && pwd)

fail() { echo "FAIL: $*" >&2; exit 1; }

# The fallocate syscall fails with ENOSYS for COMMAND: an old kernel or a
# sandbox, and no root needed.
build_enosys() {
	# shellcheck disable=SC2046
	gcc -o "$work/with-fallocate-errno" "$srcdir/tests/lib/with-fallocate-errno.c" \
		$(pkg-config --cflags --libs libseccomp)
	"$work/with-fallocate-errno" ENOSYS true ||
		{ echo "cannot install a seccomp filter here"; exit 77; }
}
enosys() { "$work/with-fallocate-errno" ENOSYS "$@"; }

# A program that calls posix_fallocate(3) on a new file: 0 and the size, or
# the error.
write_caller() {
	cat > "$work/caller.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	int err;

	if (argc != 2 || fd < 0)
		return 2;
	err = posix_fallocate(fd, 0, 1 << 20);
	if (err) {
		printf("posix_fallocate: %s\n", strerror(err));
		return 1;
	}
	if (fstat(fd, &st) != 0 || st.st_size != 1 << 20)
		return 1;
	printf("posix_fallocate: ok, size %lld\n", (long long)st.st_size);
	return 0;
}
C
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* posix_fallocate of 1 MiB on a new file in DIR, nothing else: linked
 * statically with musl alone, and again with -lfallocate, it shows what the
 * library adds where the kernel says EOPNOTSUPP (tests/cross/run-matrix.sh).
 *   probe DIR    prints the result; exits 0 when it worked, 1 otherwise */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096];
	struct stat st;
	int fd, err;

	if (argc != 2) {
		fprintf(stderr, "usage: probe DIR\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/probe.%ld", argv[1], (long)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		printf("open %s: %s\n", path, strerror(errno));
		return 1;
	}
	unlink(path);
	err = posix_fallocate(fd, 0, 1 << 20);
	if (!err && (fstat(fd, &st) != 0 || st.st_size != 1 << 20))
		err = EIO;
	printf("posix_fallocate(new file, 0, 1 MiB): %s\n",
	       !err ? "ok" : err == EOPNOTSUPP ? "EOPNOTSUPP" : strerror(err));
	close(fd);
	return err ? 1 : 0;
}

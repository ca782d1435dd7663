/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* tests/shared/rename-held.sh's holder: opens FILE, then, through SIDE (the same
 * directory seen by another client, the server or a FUSE server's source
 * directory), takes the name away from the file it holds, and only then
 * calls posix_fallocate, so that the call meets the rename at its start,
 * every time:
 *   rename     SIDE/f -> SIDE/f.old, then SIDE/f.new -> SIDE/f
 *   over       SIDE/f.new -> SIDE/f (the held file, unlinked, stays open)
 *   logrotate  as rename, then LOG bytes written through the held
 *              descriptor, as a logger that goes on writing would
 * Usage: held-file SWAP HOW FILE SIDE OFFSET LEN DUMP [LOG]
 * HOW: rdwr, wronly, rdwr-append.  Prints "posix_fallocate: 0" or the
 * error's name; where the descriptor reads, DUMP receives the held file's
 * bytes read through it afterwards (the only view of an unlinked file), or
 * "read-back: ERROR" is printed where that read fails. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void path_in(char *out, size_t n, const char *dir, const char *name)
{
	if ((size_t)snprintf(out, n, "%s/%s", dir, name) >= n) {
		fprintf(stderr, "held-file: path too long\n");
		exit(99);
	}
}

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "held-file: %s: %s\n", what, strerror(errno));
		exit(99);
	}
}

/* A read that fails (GlusterFS: ESTALE on the holder's own descriptor
 * once another client renamed a file over the held one, under glibc too)
 * is printed, "read-back: ERROR", and leaves no DUMP. */
static void dump(int fd, const char *to)
{
	static char buf[65536];
	off_t pos = 0;
	ssize_t r;
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	must(out >= 0, "open the dump");
	while ((r = pread(fd, buf, sizeof buf, pos)) > 0) {
		must(write(out, buf, (size_t)r) == r, "write the dump");
		pos += r;
	}
	if (r < 0) {
		printf("read-back: %s\n", strerror(errno));
		must(unlink(to) == 0, "remove the dump");
	}
	must(close(out) == 0, "close the dump");
}

int main(int argc, char **argv)
{
	char f[4096], old[4096], fresh[4096], name[64];
	const char *swap, *how;
	long long off, len;
	int flags, fd, err;

	if (argc < 8) {
		fprintf(stderr, "usage: held-file SWAP HOW FILE SIDE OFFSET LEN DUMP [LOG]\n");
		return 99;
	}
	swap = argv[1], how = argv[2];
	off = atoll(argv[5]), len = atoll(argv[6]);
	flags = strcmp(how, "wronly") == 0 ? O_WRONLY :
		strcmp(how, "rdwr-append") == 0 ? O_RDWR | O_APPEND : O_RDWR;
	fd = open(argv[3], flags);
	must(fd >= 0, argv[3]);
	path_in(f, sizeof f, argv[4], "f");
	path_in(old, sizeof old, argv[4], "f.old");
	path_in(fresh, sizeof fresh, argv[4], "f.new");
	if (strcmp(swap, "over") != 0)
		must(rename(f, old) == 0, "rename f f.old");
	must(rename(fresh, f) == 0, "rename f.new f");
	if (strcmp(swap, "logrotate") == 0 && argc > 8) {
		size_t n = (size_t)atol(argv[8]);
		char *line = malloc(n);

		must(line != NULL, "malloc");
		memset(line, 'L', n);
		must(write(fd, line, n) == (ssize_t)n, "write the log line");
		free(line);
	}
	err = posix_fallocate(fd, (off_t)off, (off_t)len);
	snprintf(name, sizeof name, "%s", err ? strerror(err) : "0");
	printf("posix_fallocate: %s\n", name);
	if ((flags & O_ACCMODE) == O_RDWR)
		dump(fd, argv[7]);
	close(fd);
	return 0;
}

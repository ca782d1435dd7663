/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* make bench-seccomp's timer (bench/seccomp.sh): the cost of one call, run
 * plainly, under fallocate-preload, or under fallocate-preload --seccomp.
 *   seccomp-cost fallocate|fallocate-raw FILE N   N calls, each growing FILE
 *                                                 by one 4 KiB block
 *   seccomp-cost getpid|pwrite FILE N             N batches of 100 calls
 * fallocate calls the C library's symbol (which LD_PRELOAD replaces);
 * fallocate-raw issues the syscall itself, as a static or Go program does.
 * Prints "MIN MEDIAN" in nanoseconds per call. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCH 100

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static char block[4096];
	const char *mode;
	double *t, t0;
	long n, i, j;
	int fd, raw;

	if (argc != 4 || (n = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: seccomp-cost fallocate|fallocate-raw|getpid|pwrite FILE N\n");
		return 2;
	}
	mode = argv[1];
	raw = !strcmp(mode, "fallocate-raw");
	t = calloc((size_t)n, sizeof *t);
	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (!t || fd < 0) {
		perror("seccomp-cost");
		return 1;
	}
	for (i = 0; i < n; i++) {
		off_t off = (off_t)i * 4096;
		int err = 0;

		t0 = now_ns();
		if (raw)
			err = syscall(SYS_fallocate, fd, 0, off, (off_t)4096) != 0;
		else if (!strcmp(mode, "fallocate"))
			err = fallocate(fd, 0, off, 4096) != 0;
		else if (!strcmp(mode, "getpid"))
			for (j = 0; j < BATCH; j++)
				syscall(SYS_getpid);
		else if (!strcmp(mode, "pwrite"))
			for (j = 0; j < BATCH; j++)
				err |= pwrite(fd, block, sizeof block, 0) != (ssize_t)sizeof block;
		else {
			fprintf(stderr, "seccomp-cost: unknown mode %s\n", mode);
			return 2;
		}
		t[i] = now_ns() - t0;
		if (err) {
			perror("seccomp-cost");
			return 1;
		}
		if (strncmp(mode, "fallocate", 9) != 0) /* per call of the batch */
			t[i] /= BATCH;
	}
	qsort(t, (size_t)n, sizeof *t, by_value);
	printf("%.0f %.0f\n", t[0], t[n / 2]);
	return 0;
}

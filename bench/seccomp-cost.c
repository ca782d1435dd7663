/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* make bench-seccomp's timer (bench/seccomp.sh): the cost of one call, run
 * plainly, under fallocate-preload, or under fallocate-preload --seccomp.
 *   seccomp-cost fallocate|fallocate-raw FILE N   N calls, each growing FILE
 *                                                 by one 4 KiB block
 *   seccomp-cost getpid|pwrite FILE N             N batches of 100 calls
 *   ... FILE N THREADS                            the same on THREADS threads
 *                                                 at once, each its own FILE.k
 * fallocate calls the C library's symbol (which LD_PRELOAD replaces);
 * fallocate-raw issues the syscall itself, as a static or Go program does.
 * Prints "MIN MEDIAN RATE": nanoseconds per call over all threads' calls,
 * and the calls completed per second by all threads together. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
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

struct runner {
	const char *mode;
	char path[4096];
	long n;
	double *t;
	int err;
};

static pthread_barrier_t start;

static void *run(void *arg)
{
	static char block[4096];
	struct runner *r = arg;
	int raw = !strcmp(r->mode, "fallocate-raw");
	int fd = open(r->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	double t0;
	long i, j;

	pthread_barrier_wait(&start);
	if (fd < 0) {
		r->err = 1;
		return NULL;
	}
	for (i = 0; i < r->n; i++) {
		off_t off = (off_t)i * 4096;
		int err = 0;

		t0 = now_ns();
		if (raw)
			err = syscall(SYS_fallocate, fd, 0, off, (off_t)4096) != 0;
		else if (!strcmp(r->mode, "fallocate"))
			err = fallocate(fd, 0, off, 4096) != 0;
		else if (!strcmp(r->mode, "getpid"))
			for (j = 0; j < BATCH; j++)
				syscall(SYS_getpid);
		else
			for (j = 0; j < BATCH; j++)
				err |= pwrite(fd, block, sizeof block, 0) != (ssize_t)sizeof block;
		r->t[i] = now_ns() - t0;
		if (err) {
			r->err = 1;
			break;
		}
		if (strncmp(r->mode, "fallocate", 9) != 0) /* per call of the batch */
			r->t[i] /= BATCH;
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "fallocate", "fallocate-raw", "getpid", "pwrite" };
	struct runner *r;
	pthread_t *th;
	double *all, t0, wall;
	long n, k, threads = 1;
	size_t m;

	if ((argc != 4 && argc != 5) || (n = atol(argv[3])) < 1 ||
	    (argc == 5 && (threads = atol(argv[4])) < 1)) {
		fprintf(stderr, "usage: seccomp-cost fallocate|fallocate-raw|getpid|pwrite FILE N [THREADS]\n");
		return 2;
	}
	for (m = 0; m < sizeof modes / sizeof modes[0] && strcmp(modes[m], argv[1]); m++)
		;
	if (m == sizeof modes / sizeof modes[0]) {
		fprintf(stderr, "seccomp-cost: unknown mode %s\n", argv[1]);
		return 2;
	}
	r = calloc((size_t)threads, sizeof *r);
	th = calloc((size_t)threads, sizeof *th);
	all = calloc((size_t)(n * threads), sizeof *all);
	if (!r || !th || !all) {
		perror("seccomp-cost");
		return 1;
	}
	pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
	for (k = 0; k < threads; k++) {
		r[k].mode = argv[1];
		r[k].n = n;
		r[k].t = all + k * n;
		if (threads == 1)
			snprintf(r[k].path, sizeof r[k].path, "%s", argv[2]);
		else
			snprintf(r[k].path, sizeof r[k].path, "%s.%ld", argv[2], k);
		pthread_create(&th[k], NULL, run, &r[k]);
	}
	pthread_barrier_wait(&start);
	t0 = now_ns();
	for (k = 0; k < threads; k++)
		pthread_join(th[k], NULL);
	wall = now_ns() - t0;
	for (k = 0; k < threads; k++) {
		if (threads > 1)
			unlink(r[k].path);
		if (r[k].err) {
			fprintf(stderr, "seccomp-cost: %s: a call failed\n", r[k].path);
			return 1;
		}
	}
	qsort(all, (size_t)(n * threads), sizeof *all, by_value);
	printf("%.0f %.0f %.0f\n", all[0], all[n * threads / 2], (double)(n * threads) / wall * 1e9);
	return 0;
}

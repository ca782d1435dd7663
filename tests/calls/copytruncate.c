/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* A log rotator's copytruncate in a loop (issue 25): another thread cuts
 * the file to nothing every PERIOD microseconds while posix_fallocate
 * allocates LEN bytes from 0.  The kernel's fallocate and glibc answer 0
 * whatever the cuts' timing; so must the library, never EAGAIN, and it
 * never writes past the range.
 *   copytruncate FILE CALLS PERIOD_US LEN
 * Prints a line of counts; exits 0 when every call answered 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/errname.h"

static atomic_int stop;
static int cutter_fd;
static long period_us;
static atomic_long cuts;

static void *cutter(void *arg)
{
	struct timespec t = { period_us / 1000000, (period_us % 1000000) * 1000 };

	(void)arg;
	while (!atomic_load(&stop)) {
		if (ftruncate(cutter_fd, 0) == 0)
			atomic_fetch_add(&cuts, 1);
		nanosleep(&t, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long calls, i, failed = 0, past = 0;
	long long len;
	pthread_t th;
	struct stat st;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: copytruncate FILE CALLS PERIOD_US LEN\n");
		return 2;
	}
	calls = atol(argv[2]);
	period_us = atol(argv[3]);
	len = atoll(argv[4]);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	cutter_fd = open(argv[1], O_RDWR);
	if (fd < 0 || cutter_fd < 0) {
		perror(argv[1]);
		return 2;
	}
	if (pthread_create(&th, NULL, cutter, NULL) != 0)
		return 2;
	for (i = 0; i < calls; i++) {
		int err = posix_fallocate(fd, 0, (off_t)len);

		if (err) {
			printf("call %ld: %s\n", i, err_name(err));
			failed++;
		}
		if (fstat(fd, &st) == 0 && st.st_size > len)
			past++;
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("%ld calls, %ld failed, %ld grew the file past the range, %ld cuts every %ld us\n",
	       calls, failed, past, atomic_load(&cuts), period_us);
	close(fd);
	close(cutter_fd);
	return failed || past;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The in-range window, measured against glibc's emulation:
 *   window [-t SECONDS] [-l LENGTH] DIR
 * A writer thread writes 8-byte markers (a sequence number and a tag, never
 * zero) at random 8-byte slots INSIDE [0, LENGTH) while the other thread
 * allocates that range of a file in DIR, over and over; after each call
 * (the writer stopped) every slot's last marker whose write began while the
 * call ran is read back.  A marker no longer there was zeroed by the call:
 * another writer's bytes inside the range, which an emulation can destroy
 * only in the gap between its look at a piece and its write of that piece.
 * Two implementations, rounds alternating, on the same file and workload:
 *   libfallocate  the emulation, forced (lfa_run_job, LFA_EMULATE_ALWAYS)
 *   glibc         glibc's own posix_fallocate, which emulates only where the
 *                 kernel answers EOPNOTSUPP: DIR must be such a filesystem
 *                 (ramfs, an ext3 image), or its row is left out;
 * and two starting states: "holes" (a file of LENGTH bytes, all hole) and
 * "past EOF" (an empty file, the range past its end, as the writer extends
 * it).  Prints one table; markers lost per 1000 written during calls.
 * Built by make check, run by hand: make window (tests/calls/window.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emulate.h"

enum { IMPL_LFA, IMPL_GLIBC, N_IMPL };
enum { START_HOLES, START_EMPTY, N_START };
static const char *const impl_names[N_IMPL] = { "libfallocate", "glibc" };
static const char *const start_names[N_START] = { "holes", "past EOF" };

struct tally {
	uint64_t calls, failed, markers, lost, zeroed;
	double seconds;
};

static int fd;
static int64_t len;
static uint32_t *slots;           /* per 8-byte slot: the last marker's number, 0 none */
static atomic_int phase;          /* 0 wait, 1 the call runs, 2 stop */
static uint32_t seq;
static uint64_t round_markers;
static int writer_err;
static int (*glibc_posix_fallocate)(int, off_t, off_t);

static void marker(unsigned char m[8], uint32_t n)
{
	memcpy(m, &n, 4);
	m[4] = 'M', m[5] = 'K', m[6] = (unsigned char)(n | 1), m[7] = 0xA5;
}

static void *writer(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull | 1;
	int64_t n_slots = len / 8;

	(void)arg;
	while (atomic_load(&phase) == 0)
		sched_yield();
	while (atomic_load(&phase) == 1) {
		unsigned char m[8];
		int64_t slot;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		slot = (int64_t)(x % (uint64_t)n_slots);
		marker(m, ++seq);
		if (pwrite(fd, m, 8, (off_t)(slot * 8)) != 8) {
			writer_err = errno ? errno : EIO;
			break;
		}
		if (slots[slot] == 0)
			round_markers++;
		slots[slot] = seq;
	}
	return NULL;
}

static int call(int impl)
{
	if (impl == IMPL_GLIBC)
		return glibc_posix_fallocate(fd, 0, (off_t)len);
	{
		struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, 0, 0, 0, 0, 0, 0, 0 };
		struct lfa_job_report rep;

		memset(&rep, 0, sizeof rep);
		return lfa_run_job("window", fd, 0, len, INT64_MAX, &opt, &rep);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int one_round(int impl, int start, struct tally *t, unsigned round)
{
	unsigned char *buf = malloc((size_t)len);
	int64_t i, got;
	pthread_t th;
	double t0;
	int err;

	if (!buf)
		exit(99);
	if (ftruncate(fd, 0) != 0 || (start == START_HOLES && ftruncate(fd, (off_t)len) != 0)) {
		perror("ftruncate");
		exit(99);
	}
	memset(slots, 0, (size_t)(len / 8) * sizeof *slots);
	round_markers = 0;
	atomic_store(&phase, 0);
	if (pthread_create(&th, NULL, writer, (void *)(uintptr_t)(round + 1)) != 0)
		exit(99);
	t0 = now();
	atomic_store(&phase, 1);
	err = call(impl);
	atomic_store(&phase, 2);
	t->seconds += now() - t0;
	pthread_join(th, NULL);
	if (writer_err) {
		fprintf(stderr, "window: the writer's pwrite: %s\n", strerror(writer_err));
		exit(99);
	}
	t->calls++;
	if (err) {
		t->failed++;
		fprintf(stderr, "window: %s: %s\n", impl_names[impl], strerror(err));
	}
	for (got = 0; got < len;) {
		ssize_t r = pread(fd, buf + got, (size_t)(len - got), (off_t)got);

		if (r <= 0)
			break;
		got += r;
	}
	memset(buf + got, 0, (size_t)(len - got));
	for (i = 0; i < len / 8; i++) {
		unsigned char m[8];

		if (!slots[i])
			continue;
		marker(m, slots[i]);
		if (memcmp(buf + i * 8, m, 8) != 0) {
			t->lost++;
			if (memcmp(buf + i * 8, "\0\0\0\0\0\0\0\0", 8) == 0)
				t->zeroed++;
		}
	}
	t->markers += round_markers;
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct tally tally[N_IMPL][N_START];
	double seconds = 3, until;
	int c, impl, start, glibc_emulates;
	char path[4096];
	unsigned round = 0;
	void *libc;

	len = 8 << 20;
	while ((c = getopt(argc, argv, "t:l:")) != -1) {
		switch (c) {
		case 't': seconds = strtod(optarg, NULL); break;
		case 'l': len = strtoll(optarg, NULL, 0) & ~(int64_t)7; break;
		default: goto usage;
		}
	}
	if (argc - optind != 1 || len < 4096 || seconds <= 0)
		goto usage;
	unsetenv("LIBFALLOCATE_EMULATE_FALLOCATE");
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	glibc_posix_fallocate = libc ? (int (*)(int, off_t, off_t))dlsym(libc, "posix_fallocate64")
				     : NULL;
	snprintf(path, sizeof path, "%s/window-test", argv[optind]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	slots = calloc((size_t)(len / 8), sizeof *slots);
	if (fd < 0 || !slots) {
		perror(path);
		return 99;
	}
	unlink(path);
	/* glibc emulates only where the kernel says EOPNOTSUPP. */
	glibc_emulates = glibc_posix_fallocate &&
			 fallocate(fd, 0, 0, 4096) != 0 && errno == EOPNOTSUPP;
	if (!glibc_emulates)
		printf("# glibc does not emulate in %s (the kernel allocates%s): its rows are "
		       "left out\n", argv[optind], glibc_posix_fallocate ? "" : "; or no libc.so.6");
	memset(tally, 0, sizeof tally);
	/* Alternate rounds: both see the same machine at the same time. */
	until = now() + seconds * (glibc_emulates ? 2 * N_START : N_START);
	while (now() < until) {
		for (impl = 0; impl < N_IMPL; impl++) {
			if (impl == IMPL_GLIBC && !glibc_emulates)
				continue;
			for (start = 0; start < N_START; start++)
				one_round(impl, start, &tally[impl][start], round++);
		}
	}
	printf("# %s, %" PRId64 " bytes a call, a writer of 8-byte markers inside the range\n",
	       argv[optind], len);
	printf("%-13s %-9s %7s %8s %11s %10s %8s %12s\n", "", "start", "calls", "failed",
	       "markers", "lost", "zeroed", "lost/1000");
	for (impl = 0; impl < N_IMPL; impl++) {
		if (impl == IMPL_GLIBC && !glibc_emulates)
			continue;
		for (start = 0; start < N_START; start++) {
			struct tally *t = &tally[impl][start];

			printf("%-13s %-9s %7" PRIu64 " %8" PRIu64 " %11" PRIu64 " %10" PRIu64
			       " %8" PRIu64 " %12.3f   (%.2f ms a call)\n",
			       impl_names[impl], start_names[start], t->calls, t->failed, t->markers,
			       t->lost, t->zeroed,
			       t->markers ? 1000.0 * (double)t->lost / (double)t->markers : 0.0,
			       t->calls ? 1000.0 * t->seconds / (double)t->calls : 0.0);
		}
	}
	close(fd);
	return 0;
usage:
	fprintf(stderr, "usage: window [-t SECONDS] [-l LENGTH] DIR\n");
	return 2;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Another writer's appends survive a call that grows the file:
 *   append-race DIR RECORDS [tail]
 * One thread appends RECORDS 64-byte records (no byte zero) through its own
 * O_APPEND descriptor of DIR/append-race, noting where each landed (its
 * offset after the write); the other calls posix_fallocate(fd, 0, size + 100)
 * on a descriptor of its own, in a loop, until the appender is done (with
 * "tail": posix_fallocate(fd, size, 100), the same growth without reading
 * back the whole file each time where holes are found by reading, as on
 * ramfs, so that many more calls race the appender).  Then
 * every byte of every record is read back.  Zeros written at a size read
 * before an append land on the record; the kernel's fallocate and zeros
 * appended (RWF_APPEND) never do.  Linked with the shared library, so
 * posix_fallocate is the one users get: it emulates where the kernel says
 * EOPNOTSUPP (ext3, ramfs) or where LIBFALLOCATE_EMULATION=always.
 * Prints the counts; exits 1 when a record was damaged. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD 64

static const char *path;
static long records;
static off_t *landed;
static atomic_int appender_done;

static void record_bytes(unsigned char *b, long i)
{
	int k;

	for (k = 0; k < RECORD; k++)
		b[k] = (unsigned char)(0x80 | ((i * 7 + k * 29) & 0x7f));
}

static void *appender(void *arg)
{
	unsigned char b[RECORD];
	int fd = open(path, O_WRONLY | O_APPEND);
	long i;

	(void)arg;
	if (fd < 0) {
		perror("append-race: open for appending");
		exit(99);
	}
	for (i = 0; i < records; i++) {
		record_bytes(b, i);
		if (write(fd, b, RECORD) != RECORD) {
			perror("append-race: append");
			exit(99);
		}
		landed[i] = lseek(fd, 0, SEEK_CUR) - RECORD;
	}
	close(fd);
	atomic_store(&appender_done, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned char want[RECORD], got[RECORD];
	long calls = 0, failed = 0, damaged = 0, i;
	char file[4096];
	pthread_t t;
	int fd, tail, err = 0;

	if (argc < 3 || argc > 4 || (records = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: append-race DIR RECORDS [tail]\n");
		return 99;
	}
	tail = argc == 4 && !strcmp(argv[3], "tail");
	snprintf(file, sizeof file, "%s/append-race", argv[1]);
	path = file;
	landed = calloc((size_t)records, sizeof *landed);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!landed || fd < 0) {
		perror("append-race: setup");
		return 99;
	}
	if (pthread_create(&t, NULL, appender, NULL) != 0)
		return 99;
	while (!atomic_load(&appender_done)) {
		struct stat st;

		if (fstat(fd, &st) != 0)
			return 99;
		err = tail ? posix_fallocate(fd, st.st_size, 100) :
			     posix_fallocate(fd, 0, st.st_size + 100);
		calls++;
		if (err) {
			failed++;
			fprintf(stderr, "append-race: posix_fallocate: %s\n", strerror(err));
			if (failed > 10)
				break;
		}
	}
	pthread_join(t, NULL);
	for (i = 0; i < records; i++) {
		record_bytes(want, i);
		if (pread(fd, got, RECORD, landed[i]) != RECORD || memcmp(got, want, RECORD)) {
			if (damaged++ < 5)
				fprintf(stderr, "append-race: record %ld at %lld damaged\n", i,
					(long long)landed[i]);
		}
	}
	close(fd);
	unlink(path);
	free(landed);
	printf("%s: %ld records appended, %ld calls of posix_fallocate(fd, %s) (%ld failed), "
	       "%ld records damaged\n", argv[1], records, calls,
	       tail ? "size, 100" : "0, size + 100", failed, damaged);
	return damaged || failed ? 1 : 0;
}

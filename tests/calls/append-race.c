/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Another writer's appends survive a call that grows the file:
 *   append-race [-a APPEND_DIR] [-c CHECK_DIR] [-g] [-A] DIR RECORDS [tail]
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
 * EOPNOTSUPP (ext3, ramfs) or where LIBFALLOCATE_EMULATION=always.  The
 * library is called as lfa_allocate, the same job with a report: the
 * bytes it reports written are summed and set against the zeros the file
 * grew by, and fewer reported than grown fails (every byte accounted for).
 * Two clients of a shared filesystem (issue 24): -a APPEND_DIR, another
 * mount of DIR, where the appender opens the file; -c CHECK_DIR, a fresh
 * mount of it, through which the records are read back (no cache of
 * either client answers).  -g calls glibc's posix_fallocate instead of the
 * library's, for its figure beside ours; -z appends 100 zeros through an
 * O_APPEND descriptor of its own instead of calling posix_fallocate (what
 * the filesystem itself does with two clients' appends).  -A opens the
 * calling client's descriptor O_RDWR|O_APPEND, and with "tail" takes the
 * size from lseek(SEEK_END) on it, which FUSE answers through the file's
 * handle (growth by the caller's own appends, where files are found by
 * name: issue 29).
 * Prints the counts; exits 1 when a record was lost (some of its bytes
 * overwritten) or a call failed.  A record the filesystem split (its bytes
 * all there, in order, with another client's appended zeros between them)
 * is counted apart: no writer of zeros can move bytes, only the
 * filesystem's append can. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libfallocate.h"

#define RECORD 64

static const char *path, *append_path;
static long records;
static off_t *landed, *at;
static atomic_int appender_done;
static uint64_t library_written; /* the bytes lfa_allocate reported written */

/* The library's call, as posix_fallocate makes it, with its report: every
 * byte it writes must be accounted for (issue 30). */
static int library_allocate(int fd, off_t offset, off_t len)
{
	struct lfa_report rep = LFA_REPORT_INIT;
	int err = lfa_allocate(fd, offset, len, NULL, &rep);

	library_written += rep.bytes_written;
	return err;
}

/* 'R', the record's number in ten digits, then a pattern: no byte zero,
 * so a record can be found again whatever zeros land around it. */
static void record_bytes(unsigned char *b, long i)
{
	char head[16];
	int k;

	for (k = 0; k < RECORD; k++)
		b[k] = (unsigned char)(0x80 | ((i * 7 + k * 29) & 0x7f));
	snprintf(head, sizeof head, "R%010ld", i);
	memcpy(b, head, 11);
}

/* A record not found whole, looked for between the records found whole
 * around it with every zero byte left out (records hold none).  Found so,
 * all its bytes are there in order with zeros between them: the filesystem
 * split its append and put another client's appended zeros inside it
 * (GlusterFS and sshfs do that with two clients' O_APPEND writes, no
 * library involved).  Not found, some of its bytes are gone: zeros were
 * written over it.  Returns 1 for split, 0 for lost; tells the first few. */
static int split_by_filesystem(const unsigned char *buf, off_t size, long i, long told)
{
	unsigned char want[RECORD], packed[RECORD * 64];
	off_t from = 0, to = size, p, zeros = 0;
	size_t n = 0;
	int split = 0;
	long k;

	for (k = i - 1; k >= 0 && at[k] < 0; k--)
		;
	if (k >= 0)
		from = at[k] + RECORD;
	for (k = i + 1; k < records && at[k] < 0; k++)
		;
	if (k < records)
		to = at[k];
	record_bytes(want, i);
	for (p = from; p < to; p++) {
		zeros += !buf[p];
		if (buf[p] && n < sizeof packed)
			packed[n++] = buf[p];
	}
	split = n < sizeof packed && memmem(packed, n, want, RECORD) != NULL;
	if (told < 5)
		fprintf(stderr, "append-race: record %ld not found whole: %s; %lld bytes between the "
			"records found whole around it (%lld to %lld), %lld of them zero\n", i,
			split ? "split by the filesystem, every byte there" : "LOST, bytes overwritten",
			(long long)(to - from), (long long)from, (long long)to, (long long)zeros);
	return split;
}

/* Through a FUSE client, an O_APPEND write's file offset is this client's
 * idea of the end, not where the server appended: where two clients
 * write, the records are found by reading the whole file instead.  Zeros
 * are skipped; a record counts when all its bytes are there, in a row.
 * Returns the records not found whole; *split, how many of them the
 * filesystem split. */
static long damaged_by_scan(int fd, long *split)
{
	unsigned char *seen = calloc((size_t)records, 1), want[RECORD];
	unsigned char *buf;
	struct stat st;
	off_t size, pos, got;
	long i, whole = 0, told = 0;
	ssize_t r;

	at = malloc((size_t)records * sizeof *at);
	for (i = 0; at && i < records; i++)
		at[i] = -1;
	if (!seen || !at || fstat(fd, &st) != 0 || !(buf = malloc((size_t)st.st_size + 1))) {
		perror("append-race: scan");
		exit(99);
	}
	for (size = 0; size < st.st_size; size += r)
		if ((r = pread(fd, buf + size, (size_t)(st.st_size - size), size)) <= 0)
			break;
	for (pos = 0; pos + RECORD <= size;) {
		if (buf[pos] != 'R') {
			pos++;
			continue;
		}
		i = strtol((char *)buf + pos + 1, NULL, 10);
		got = 0;
		if (i >= 0 && i < records) {
			record_bytes(want, i);
			got = !memcmp(buf + pos, want, RECORD);
		}
		if (got && !seen[i]) {
			seen[i] = 1;
			at[i] = pos;
			whole++;
		}
		pos += got ? RECORD : 1;
	}
	for (i = 0; i < records && records - whole > 0; i++)
		if (!seen[i])
			*split += split_by_filesystem(buf, size, i, told++);
	free(buf);
	free(seen);
	free(at);
	return records - whole;
}

static void *appender(void *arg)
{
	unsigned char b[RECORD];
	int fd = open(append_path, O_WRONLY | O_APPEND);
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
	long calls = 0, failed = 0, damaged = 0, split = 0, i;
	char file[4096], afile[4096], cfile[4096];
	const char *append_dir = NULL, *check_dir = NULL;
	int (*allocate)(int, off_t, off_t) = library_allocate;
	int64_t grown = -1;
	int unreported = 0;
	pthread_t t;
	int fd, cfd, tail, c, err = 0, zeros_only = 0, zfd = -1, append_fd = 0;
	static const char zero100[100];

	while ((c = getopt(argc, argv, "a:c:gzA")) != -1) {
		switch (c) {
		case 'A':
			append_fd = 1;
			break;
		case 'a':
			append_dir = optarg;
			break;
		case 'c':
			check_dir = optarg;
			break;
		case 'z':
			zeros_only = 1;
			break;
		case 'g':
			allocate = (int (*)(int, off_t, off_t))dlsym(dlopen("libc.so.6", RTLD_NOW),
								     "posix_fallocate64");
			if (!allocate) {
				fprintf(stderr, "append-race: no glibc posix_fallocate64\n");
				return 77;
			}
			break;
		default:
			return 99;
		}
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 3 || argc > 4 || (records = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: append-race [-a APPEND_DIR] [-c CHECK_DIR] [-g] [-A] DIR RECORDS [tail]\n");
		return 99;
	}
	tail = argc == 4 && !strcmp(argv[3], "tail");
	/* A name of this run's own: a client that opened the last run's file
	 * within its entry timeout (GlusterFS's FUSE client: 1 s) would open
	 * the unlinked one by that name, and its appends fail with ESTALE. */
	snprintf(file, sizeof file, "%s/append-race.%ld", argv[1], (long)getpid());
	snprintf(afile, sizeof afile, "%s/append-race.%ld", append_dir ? append_dir : argv[1],
		 (long)getpid());
	snprintf(cfile, sizeof cfile, "%s/append-race.%ld", check_dir ? check_dir : argv[1],
		 (long)getpid());
	path = file;
	append_path = afile;
	landed = calloc((size_t)records, sizeof *landed);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | (append_fd ? O_APPEND : 0), 0600);
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
		if (append_fd && tail && (st.st_size = lseek(fd, 0, SEEK_END)) < 0)
			return 99;
		if (zeros_only && zfd < 0)
			zfd = open(path, O_WRONLY | O_APPEND);
		if (zeros_only)
			err = write(zfd, zero100, sizeof zero100) == sizeof zero100 ? 0 : errno;
		else
			err = tail ? allocate(fd, st.st_size, 100) : allocate(fd, 0, st.st_size + 100);
		calls++;
		if (err) {
			failed++;
			fprintf(stderr, "append-race: posix_fallocate: %s\n", strerror(err));
			if (failed > 10)
				break;
		}
	}
	pthread_join(t, NULL);
	cfd = check_dir ? open(cfile, O_RDONLY) : fd;
	if (cfd < 0) {
		perror("append-race: open through the checking mount");
		return 99;
	}
	{
		struct stat st;

		if (fstat(cfd, &st) == 0)
			grown = (int64_t)st.st_size - (int64_t)records * RECORD;
	}
	for (i = 0; i < records && append_dir; i++) {
		damaged = damaged_by_scan(cfd, &split);
		break;
	}
	for (i = 0; i < records && !append_dir; i++) {
		record_bytes(want, i);
		if (pread(cfd, got, RECORD, landed[i]) != RECORD || memcmp(got, want, RECORD)) {
			if (damaged++ < 5)
				fprintf(stderr, "append-race: record %ld at %lld damaged\n", i,
					(long long)landed[i]);
		}
	}
	if (cfd != fd)
		close(cfd);
	if (zfd >= 0)
		close(zfd);
	close(fd);
	unlink(path);
	free(landed);
	/* The file grew by the zeros that landed past the records; what the
	 * library wrote beyond that is not in that growth: written over blocks
	 * it read back as zeros (on NFS from the server, with O_DIRECT: its
	 * own earlier zeros) or over another client's records (then lost), or
	 * overwritten since by that client's appends placed at a stale end of
	 * file (NFS: the records intact, the zeros gone).  Fewer written than
	 * grown would be writes not reported. */
	if (allocate == library_allocate && !zeros_only) {
		printf("append-race: accounted: the library reported %" PRIu64 " bytes written, the file "
		       "grew by %" PRId64 " bytes of zeros: %" PRId64 " not in that growth (written over "
		       "zeros it read back or over lost records, or overwritten by later appends)\n",
		       library_written, grown, (int64_t)library_written - grown);
		if (grown >= 0 && (int64_t)library_written < grown) {
			fprintf(stderr, "append-race: zeros written that the library did not report\n");
			unreported = 1;
		}
	}
	printf("%s: %ld records appended%s%s, %ld calls of %sposix_fallocate(fd, %s) (%ld failed), "
	       "%ld records damaged: %ld lost, %ld split by the filesystem\n", argv[1], records,
	       append_dir ? " through " : "", append_dir ? append_dir : "", calls,
	       allocate == library_allocate ? "" : "glibc's ", tail ? "size, 100" : "0, size + 100",
	       failed, damaged, damaged - split, split);
	return damaged > split || failed || unreported ? 1 : 0;
}

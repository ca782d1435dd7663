/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Shared by the C tests: scratch files and the checks every test makes. */
#ifndef LFA_TESTUTIL_H
#define LFA_TESTUTIL_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pthread.h>
#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define LFA_TEST_HAS_SINGLE_THREADED 1
#endif
#endif

/* Every scratch directory of a test program lives under one root, made by
 * the main process before any test runs (scratch_root_begin, from
 * run_suite) and removed by it at exit, whatever the tests did: a forked
 * test that fails, crashes or times out leaves its files to the parent, and
 * make check leaves nothing under $TMPDIR (a build chroot's expectation). */
static char scratch_root[2048];
static pid_t scratch_root_owner;

static inline int scratch_remove_one(const char *path, const struct stat *st,
				     int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type != FTW_DP)
		return unlink(path) != 0 && errno != ENOENT;
	/* A test that failed between mount and umount left a mount here. */
	if (rmdir(path) != 0 && errno == EBUSY && umount2(path, MNT_DETACH) == 0)
		return rmdir(path) != 0;
	return 0;
}

/* Removes the root and everything under it; 0 when nothing is left. */
static inline int scratch_root_end(void)
{
	struct stat st;

	if (!scratch_root[0] || getpid() != scratch_root_owner)
		return 0;
	nftw(scratch_root, scratch_remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (lstat(scratch_root, &st) == 0) {
		fprintf(stderr, "could not remove the scratch directory %s\n", scratch_root);
		return -1;
	}
	scratch_root[0] = '\0';
	return 0;
}

static inline void scratch_root_atexit(void)
{
	scratch_root_end();
}

/* Makes the root under $LFA_TEST_DIR, $TMPDIR or /tmp, and points
 * LFA_TEST_DIR (which forked tests inherit) at it. */
static inline void scratch_root_begin(void)
{
	const char *base = getenv("LFA_TEST_DIR");

	if (!base || !*base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	snprintf(scratch_root, sizeof scratch_root, "%s/lfa-test.XXXXXX", base);
	if (!mkdtemp(scratch_root) || setenv("LFA_TEST_DIR", scratch_root, 1) != 0) {
		perror(scratch_root);
		exit(99);
	}
	scratch_root_owner = getpid();
	atexit(scratch_root_atexit);
}

/* A fresh directory under $LFA_TEST_DIR, $TMPDIR or /tmp. */
static inline const char *test_dir(void)
{
	static char dir[2048];
	const char *base = getenv("LFA_TEST_DIR");

	if (dir[0])
		return dir;
	if (!base || !*base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	snprintf(dir, sizeof dir, "%s/lfa-test.XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror(dir);
		exit(99);
	}
	return dir;
}

/* Creates an empty file and returns its path (a static buffer per slot). */
static inline const char *scratch_path(const char *name)
{
	static char path[4][4096];
	static int slot;
	char *p = path[slot++ & 3];

	if ((size_t)snprintf(p, 4096, "%s/%s", test_dir(), name) >= 4096)
		abort();
	return p;
}

/* Mounts a fresh ramfs (where SEEK_HOLE reports no holes) at dir, a new
 * directory of the test's scratch space; 0, or -1 after saying why the
 * caller skips (not root, no ramfs).  unmount_scratch_ramfs undoes it. */
static inline int scratch_ramfs(char *dir, size_t n, const char *what)
{
	snprintf(dir, n, "%s/ramfs", test_dir());
	if (mkdir(dir, 0700) != 0)
		abort();
	if (mount("ramfs", dir, "ramfs", 0, NULL) == 0)
		return 0;
	fprintf(stderr, "skipping %s: mount ramfs: %s\n", what, strerror(errno));
	rmdir(dir);
	return -1;
}

static inline void unmount_scratch_ramfs(const char *dir)
{
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

static inline void fill_pattern(unsigned char *buf, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)(((i * 131u) ^ seed) % 251u + 1u); /* never zero */
}

static inline int64_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* Writes n pattern bytes at off through a separate descriptor. */
static inline void write_pattern_at(const char *path, int64_t off, size_t n, unsigned seed)
{
	unsigned char *buf = malloc(n);
	int fd = open(path, O_WRONLY | O_CREAT, 0600);

	if (!buf || fd < 0)
		abort();
	fill_pattern(buf, n, seed);
	if (pwrite(fd, buf, n, off) != (ssize_t)n)
		abort();
	close(fd);
	free(buf);
}

/* The first byte of [off, end) that differs from what pattern(seed) put
 * at [poff, poff+plen) and zero elsewhere; -1 when all match. */
static inline int64_t first_mismatch(const char *path, int64_t off, int64_t end,
				     int64_t poff, int64_t plen, unsigned seed)
{
	unsigned char buf[65536];
	unsigned char *pat = malloc((size_t)plen + 1);
	int fd = open(path, O_RDONLY | O_LARGEFILE); /* a non-LFS i386 build: past 2 GiB */
	int64_t pos = off;

	if (!pat || fd < 0)
		abort();
	fill_pattern(pat, (size_t)plen, seed);
	while (pos < end) {
		ssize_t got = pread(fd, buf, (size_t)(end - pos < 65536 ? end - pos : 65536), pos);
		ssize_t i;

		if (got <= 0)
			break;
		for (i = 0; i < got; i++) {
			int64_t at = pos + i;
			unsigned char want = at >= poff && at < poff + plen ? pat[at - poff] : 0;

			if (buf[i] != want) {
				close(fd);
				free(pat);
				return at;
			}
		}
		pos += got;
	}
	close(fd);
	free(pat);
	return pos < end ? pos : -1;
}

/* Whether [off, end) has no hole, by SEEK_HOLE on a private descriptor (the
 * tests run where it is real; written zeros are data there). */
static inline int fully_allocated(const char *path, int64_t off, int64_t end)
{
	int fd = open(path, O_RDONLY | O_LARGEFILE); /* a non-LFS i386 build: past 2 GiB */
	off_t hole;

	if (fd < 0)
		return 0;
	hole = lseek(fd, (off_t)(off & ~(int64_t)4095), SEEK_HOLE);
	close(fd);
	return hole >= 0 && (int64_t)hole >= end;
}

static inline void *idle_thread(void *arg)
{
	return arg;
}

/* The library dups the caller's descriptor only where another thread could
 * replace or fork it mid-call: in a process that ever started one (glibc's
 * __libc_single_threaded).  A test of those rules starts one first. */
static inline void become_multithreaded(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, idle_thread, NULL) == 0)
		pthread_join(t, NULL);
}

/* Whether the library would treat the caller as alone (no dup). */
static inline int process_single_threaded(void)
{
#ifdef LFA_TEST_HAS_SINGLE_THREADED
	return __libc_single_threaded;
#else
	return 0;
#endif
}

/* Whether this process holds a descriptor of the file (dev, ino) other
 * than except: 1 or 0, -1 where /proc/self/fd cannot be read (a child
 * forked while a call ran looks with it). */
static inline int holds_other_descriptor(dev_t dev, ino_t ino, int except)
{
	struct dirent *e;
	struct stat st;
	DIR *d = opendir("/proc/self/fd");
	int fd, found = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		fd = atoi(e->d_name);
		if (e->d_name[0] == '.' || fd == dirfd(d) || fd == except)
			continue;
		if (fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino)
			found = 1;
	}
	closedir(d);
	return found;
}

#endif

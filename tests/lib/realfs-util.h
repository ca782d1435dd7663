/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Shared by realfs-check and fuzz: what a filesystem can tell about a
 * file's allocation, read without trusting what it cannot tell. */
#ifndef LFA_REALFS_UTIL_H
#define LFA_REALFS_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/falloc.h>
#include <unistd.h>

#include "errname.h"

#define RAMFS_MAGIC_ 0x858458f6u
#define TMPFS_MAGIC_ 0x01021994u
#define EXT_MAGIC_ 0xEF53u


/* The kernel's own answer to fallocate(fd, mode, off, len): 0 or errno.
 * The programs link libfallocate, whose fallocate() is the bare syscall
 * for every ABI (main() clears LIBFALLOCATE_EMULATE_FALLOCATE). */
static inline int native_fallocate(int fd, int mode, int64_t off, int64_t len)
{
	return fallocate(fd, mode, (off_t)off, (off_t)len) == 0 ? 0 : errno;
}

static inline unsigned fs_magic(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 ? (unsigned)sf.f_type : 0;
}

/* Holes as FIEMAP reports them (unwritten extents count as allocated):
 * 1 covered, 0 not, -1 FIEMAP unsupported here. */
static inline int fiemap_covers(int fd, int64_t off, int64_t end)
{
	enum { N = 256 };
	union {
		struct fiemap fm;
		char raw[sizeof(struct fiemap) + N * sizeof(struct fiemap_extent)];
	} u;
	int64_t pos = off;

	while (pos < end) {
		unsigned i;

		memset(&u, 0, sizeof u);
		u.fm.fm_start = (uint64_t)pos;
		u.fm.fm_length = (uint64_t)(end - pos);
		u.fm.fm_flags = 0; /* delalloc extents are listed too */
		u.fm.fm_extent_count = N;
		if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) != 0)
			return errno == EOPNOTSUPP || errno == ENOTTY ? -1 : 0;
		if (u.fm.fm_mapped_extents == 0)
			return 0;
		for (i = 0; i < u.fm.fm_mapped_extents; i++) {
			struct fiemap_extent *e = &u.fm.fm_extents[i];

			if ((int64_t)e->fe_logical > pos)
				return 0; /* a hole before this extent */
			if ((int64_t)(e->fe_logical + e->fe_length) > pos)
				pos = (int64_t)(e->fe_logical + e->fe_length);
			if (pos >= end || (e->fe_flags & FIEMAP_EXTENT_LAST))
				break;
		}
		if (pos < end && i < u.fm.fm_mapped_extents)
			return 0; /* the last extent ended short of end */
	}
	return 1;
}

/* Where FIEMAP lists an unwritten or delayed-allocation extent over pos:
 * its end, else -1.  Such blocks are allocated (or reserved), but SEEK_HOLE
 * calls them holes on xfs and ext4 when no page of theirs is cached. */
static inline int64_t fiemap_unwritten_end(int fd, int64_t pos)
{
	union {
		struct fiemap fm;
		char raw[sizeof(struct fiemap) + sizeof(struct fiemap_extent)];
	} u;
	struct fiemap_extent *e = &u.fm.fm_extents[0];

	memset(&u, 0, sizeof u);
	u.fm.fm_start = (uint64_t)pos;
	u.fm.fm_length = 1;
	u.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) != 0 || u.fm.fm_mapped_extents != 1 ||
	    (int64_t)e->fe_logical > pos || (int64_t)(e->fe_logical + e->fe_length) <= pos ||
	    !(e->fe_flags & (FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_DELALLOC)))
		return -1;
	return (int64_t)(e->fe_logical + e->fe_length);
}

/* Per page, whether the page cache holds it: on ramfs a page that is not
 * there is a hole.  1 covered, 0 not, -1 cannot tell. */
static inline int mincore_covers(int fd, int64_t off, int64_t end)
{
	int64_t page = sysconf(_SC_PAGESIZE);
	int64_t first = off & ~(page - 1);
	size_t n = (size_t)(end - first + page - 1) / (size_t)page, i;
	unsigned char *vec;
	void *map;
	int ok = 1;

	map = mmap(NULL, (size_t)(end - first), PROT_READ, MAP_SHARED, fd, first);
	if (map == MAP_FAILED)
		return -1;
	vec = malloc(n);
	if (!vec || mincore(map, (size_t)(end - first), vec) != 0)
		ok = -1;
	for (i = 0; ok == 1 && i < n; i++)
		if (!(vec[i] & 1))
			ok = 0;
	free(vec);
	munmap(map, (size_t)(end - first));
	return ok;
}

/* Whether every block of [off, end) of path is allocated and written, by
 * every means this filesystem answers truthfully; *how names the means.
 * FIEMAP where it exists; SEEK_HOLE where holes are real (never on ramfs,
 * FUSE or NFS, where it only finds end of file); mincore and st_blocks on
 * ramfs.  The emulation writes zeros, so its blocks are data to SEEK_HOLE;
 * unwritten extents, though, are holes to it on xfs and ext4 until a page of
 * theirs is cached: the kernel's preallocation, and on xfs blocks the
 * filesystem itself leaves unwritten in an emulated file (speculative
 * preallocation past the end of file, then grown over; seeds 101 and 401 of
 * fuzz on xfs).  So a hole SEEK_HOLE finds counts only where FIEMAP has no
 * unwritten or delayed extent over it. */
static inline int range_allocated(const char *path, int64_t off, int64_t end,
				  const char **how)
{
	int fd = open(path, O_RDONLY);
	unsigned magic;
	int ok = 1, r;

	*how = "nothing";
	if (fd < 0 || end <= off) {
		if (fd >= 0)
			close(fd);
		return fd >= 0;
	}
	magic = fs_magic(fd);
	r = fiemap_covers(fd, off, end);
	if (r >= 0) {
		*how = "FIEMAP";
		ok = r;
	}
	if (ok && (magic == EXT_MAGIC_ || magic == TMPFS_MAGIC_ || magic == 0x58465342u ||
		   magic == 0x9123683Eu)) {
		off_t hole = lseek(fd, (off_t)(off & ~(int64_t)511), SEEK_HOLE);
		int64_t next;

		*how = r >= 0 ? "FIEMAP+SEEK_HOLE" : "SEEK_HOLE";
		while (hole >= 0 && (int64_t)hole < end && r == 1 &&
		       (next = fiemap_unwritten_end(fd, (int64_t)hole)) > (int64_t)hole)
			hole = next >= end ? (off_t)end : lseek(fd, (off_t)next, SEEK_HOLE);
		ok = hole >= 0 && (int64_t)hole >= end;
	}
	if (ok && magic == RAMFS_MAGIC_) {
		struct stat st;
		int64_t page = sysconf(_SC_PAGESIZE);

		*how = "mincore+st_blocks";
		ok = mincore_covers(fd, off, end) == 1;
		/* st_blocks counts the pages ramfs holds: at least the range's. */
		if (ok && fstat(fd, &st) == 0)
			ok = (int64_t)st.st_blocks * 512 >=
			     ((end + page - 1) / page - off / page) * page;
	}
	close(fd);
	return ok;
}

#endif

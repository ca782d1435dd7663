/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* What the library knows of each filesystem (fs_facts.c, the one table);
 * what it does not know is the worst case. */
#ifndef LFA_FS_FACTS_H
#define LFA_FS_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "settings.h"

/* One bit a fact, each a column of the table (and of libfallocate(7)). */
enum lfa_fs_fact {
	LFA_FS_PSEUDO        = 1u << 0,  /* files of kernel interfaces: nothing emulated */
	LFA_FS_SHARED        = 1u << 1,  /* another machine may write the file meanwhile */
	LFA_FS_BY_NAME       = 1u << 2,  /* finds files by name: a reopen, fstat, the size
					  * the kernel keeps may be another file's */
	LFA_FS_HANDLE        = 1u << 3,  /* answers a handle's attributes by the handle */
	LFA_FS_SEEK_HOLE     = 1u << 4,  /* SEEK_HOLE and st_blocks can be believed */
	LFA_FS_FIEMAP        = 1u << 5,  /* FIEMAP can be believed */
	LFA_FS_ZERO_LIES     = 1u << 6,  /* its 0 may reserve nothing, whatever it shows */
	LFA_FS_COPY_ON_WRITE = 1u << 7,  /* an overwrite allocates anew */
	LFA_FS_APPEND_OPEN   = 1u << 8,  /* only an O_APPEND open appends for certain */
	LFA_FS_SERVER_DIRECT = 1u << 9,  /* the page cache misses the server's bytes: O_DIRECT */
	LFA_FS_QUICK         = 1u << 10, /* the quick path may append */
	LFA_FS_WRITEBACK     = 1u << 11, /* writeback can be started (the cache window) */
	LFA_FS_SEALS         = 1u << 12, /* memfd seals apply */
	LFA_FS_BLOCK_MAPPED  = 1u << 13, /* ext2/3/4: block-mapped files' smaller maximum */
};
#define LFA_FS_FACT_COUNT 14

/* statfs f_type values (linux/magic.h, which not every libc's headers
 * have) that the table names more than once, and the unit tests play.  No
 * file but fs_facts.c switches on them. */
#define FS_EXT        0xEF53u
#define FS_XFS        0x58465342u
#define FS_BTRFS      0x9123683Eu
#define FS_TMPFS      0x01021994u
#define FS_RAMFS      0x858458F6u
#define FS_HUGETLBFS  0x958458F6u
#define FS_F2FS       0xF2F52010u
#define FS_BCACHEFS   0xCA451A4Eu
#define FS_ZFS        0x2FC12FC1u
#define FS_FUSE       0x65735546u
#define FS_NFS        0x6969u
#define FS_CIFS       0xFF534D42u
#define FS_9P         0x01021997u

/* The facts of the filesystem whose statfs says fs_type, on device dev
 * (a FUSE server is told by its mount's type in /proc/self/mountinfo).
 * A filesystem or FUSE server not in the table gets the most careful value
 * of every fact.  Counts the syscalls it made. */
unsigned lfa_fs_facts(uint32_t fs_type, uint64_t dev, unsigned *syscalls) LFA_HIDDEN;
/* The same without the FUSE server (no syscall): the facts every FUSE
 * server shares, or the careful ones. */
unsigned lfa_fs_facts_of_type(uint32_t fs_type) LFA_HIDDEN;
/* An end that every file of the filesystem can reach, below its smallest
 * maximum size; 0 where that maximum is not known. */
int64_t lfa_fs_end_always_allowed(uint32_t fs_type, int64_t fs_block) LFA_HIDDEN;
/* On a filesystem with LFA_FS_BLOCK_MAPPED: the maximum size of fd's file
 * where it is block-mapped (no extents flag), from the filesystem's block
 * size; -1 where it is not, or cannot be told. */
int64_t lfa_fs_block_mapped_max(int fd, int64_t fs_block, unsigned *syscalls) LFA_HIDDEN;

/* fuse_server.c: the type /proc/self/mountinfo gives the mount of device
 * dev ("fuse.sshfs", "fuseblk", "fuse"), cut to n - 1 bytes; "" where it
 * cannot be read.  Counts the syscalls it made. */
void lfa_fuse_server(uint64_t dev, char *type, size_t n, unsigned *syscalls) LFA_HIDDEN;
/* The same, read from an open mountinfo (for unit tests). */
void lfa_mountinfo_type(int fd, uint64_t dev, char *type, size_t n, unsigned *syscalls)
	LFA_HIDDEN;

/* The table, row by row, for libfallocate(7)'s copy and its test: 0 with
 * the row's fields, -1 past the last. */
struct lfa_fs_row {
	const char *name;    /* as users know it */
	uint32_t type;       /* statfs's f_type; 0 for the catch-all rows */
	const char *server;  /* the FUSE server's mount type, or NULL */
	unsigned facts;
};
int lfa_fs_table_row(size_t i, struct lfa_fs_row *row) LFA_HIDDEN;

#endif

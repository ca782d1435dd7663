/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* What the library knows of each filesystem, in one table: a row per
 * filesystem (statfs's f_type) and, for FUSE, per server (its mount's type
 * in /proc/self/mountinfo: the kernel, not the server, names the mount by
 * its device), a column per fact the engine uses.  No other file of the
 * library switches on f_type.  A filesystem or FUSE server not in the
 * table gets the most careful value of every fact: shared, finds files by
 * name, its handle's answers not trusted, nothing it shows believed, its
 * 0 possibly empty.  libfallocate(7) carries the same table
 * (tests/realfs/fs-table.sh checks that the two agree).
 *
 * Why each fact is what it is, in a word per row; at length:
 *   SEEK_HOLE   local filesystems whose holes are real (not xfs: on Linux
 *               6.1 SEEK_DATA in a reflinked file skips shared data beside
 *               a copy-on-write preallocation; xfs is read back)
 *   FIEMAP      ext4 and btrfs (ext3's block map included); xfs's misses
 *               its copy-on-write fork's unsynced data
 *   SHARED      network and cluster clients whose size is a cache of the
 *               server's, and FUSE (ocfs2 and gfs2 keep one size for every
 *               node under their cluster locks)
 *   BY_NAME     servers that open and stat paths: a rename by another
 *               client, on the server or in a FUSE server's source
 *               directory gives the name, and with it a reopen and fstat,
 *               to another file (names are the caller's file only where
 *               files have identities: inodes, file handles, FIDs, gfids)
 *   HANDLE      of those, servers that answer a handle's attributes
 *               (FUSE's GETATTR with the file handle) by the handle, so
 *               that the held file's size can be learned at all; measured
 *               with tests/shared/rename-held.sh (unionfs-fuse answers by path:
 *               nothing is emulated there)
 *   ZERO_LIES   SMB3 with a lease grows a file by SetEOF and answers 0 (and
 *               counts blocks from the size); so does ceph-fuse 16.2 (no
 *               RADOS object written); an unknown server may do anything
 *   APPEND_OPEN shared filesystems, where only the server appends for
 *               certain, and overlayfs, whose 6.1 drops RWF_APPEND
 *   SERVER_DIRECT  NFS, CephFS and ceph-fuse: a cached page can hold zeros where
 *               the server has another client's bytes, and buffered
 *               appends reach the server late or at a stale size: read
 *               and write with O_DIRECT
 *   QUICK       appends land where the size says, with a known maximum
 *   WRITEBACK   the page cache is the way to a disk that writeback empties
 *   SEALS       memfd seals (tmpfs, hugetlbfs)
 *   BLOCK_MAPPED  ext2/3/4's block-mapped files have the smallest maximum */
#define _GNU_SOURCE
#include "config.h"

#include <string.h>
#include <sys/ioctl.h>
#ifdef HAVE_LINUX_FS_H
#include <linux/fs.h>
#endif

#include "fs_facts.h"

#define PSEUDO        LFA_FS_PSEUDO
#define SHARED        LFA_FS_SHARED
#define BY_NAME       LFA_FS_BY_NAME
#define HANDLE        LFA_FS_HANDLE
#define SEEK_HOLE_OK  LFA_FS_SEEK_HOLE
#define FIEMAP_OK     LFA_FS_FIEMAP
#define ZERO_LIES     LFA_FS_ZERO_LIES
#define COW           LFA_FS_COPY_ON_WRITE
#define APPEND_OPEN   LFA_FS_APPEND_OPEN
#define DIRECT        LFA_FS_SERVER_DIRECT
#define QUICK         LFA_FS_QUICK
#define WRITEBACK     LFA_FS_WRITEBACK
#define SEALS         LFA_FS_SEALS
#define BLOCK_MAPPED  LFA_FS_BLOCK_MAPPED

/* What is not known: every fact at its most careful. */
#define CAREFUL       (SHARED | BY_NAME | APPEND_OPEN | ZERO_LIES)
/* A server other machines write through. */
#define NETWORK       (SHARED | APPEND_OPEN)

#define GiB ((int64_t)1 << 30)
#define TiB ((int64_t)1 << 40)

static const struct lfa_fs_row table[] = {
	/* local filesystems */
	{ "ext2, ext3, ext4", FS_EXT, NULL, SEEK_HOLE_OK | FIEMAP_OK | QUICK | WRITEBACK | BLOCK_MAPPED },
	{ "xfs", FS_XFS, NULL, QUICK | WRITEBACK },
	{ "btrfs", FS_BTRFS, NULL, SEEK_HOLE_OK | FIEMAP_OK | COW | QUICK | WRITEBACK },
	{ "bcachefs", FS_BCACHEFS, NULL, SEEK_HOLE_OK | COW },
	{ "OpenZFS", FS_ZFS, NULL, SEEK_HOLE_OK | COW },
	{ "f2fs", FS_F2FS, NULL, SEEK_HOLE_OK | WRITEBACK },
	{ "tmpfs", FS_TMPFS, NULL, SEEK_HOLE_OK | SEALS },
	{ "hugetlbfs", FS_HUGETLBFS, NULL, SEALS },
	{ "ramfs", FS_RAMFS, NULL, 0 },
	{ "ocfs2", 0x7461636Fu, NULL, SEEK_HOLE_OK },
	{ "gfs2", 0x01161970u, NULL, SEEK_HOLE_OK },
	{ "vfat, msdos", 0x4D44u, NULL, 0 },
	{ "exfat", 0x2011BAB0u, NULL, 0 },
	{ "ntfs3", 0x7366746Eu, NULL, 0 },
	{ "ntfs (old driver)", 0x5346544Eu, NULL, 0 },
	{ "jfs", 0x3153464Au, NULL, 0 },
	{ "reiserfs", 0x52654973u, NULL, 0 },
	{ "nilfs2", 0x3434u, NULL, 0 },
	{ "udf", 0x15013346u, NULL, 0 },
	{ "hfsplus", 0x482Bu, NULL, 0 },
	{ "hfs", 0x4244u, NULL, 0 },
	{ "minix", 0x137Fu, NULL, 0 },
	{ "minix (30-char names)", 0x138Fu, NULL, 0 },
	{ "minix2", 0x2468u, NULL, 0 },
	{ "minix2 (30-char names)", 0x2478u, NULL, 0 },
	{ "minix3", 0x4D5Au, NULL, 0 },
	{ "ubifs", 0x24051905u, NULL, 0 },
	{ "jffs2", 0x72B6u, NULL, 0 },
	{ "zonefs", 0x5A4F4653u, NULL, 0 },
	{ "squashfs", 0x73717368u, NULL, 0 },
	{ "erofs", 0xE0F5E1E2u, NULL, 0 },
	{ "iso9660", 0x9660u, NULL, 0 },
	{ "romfs", 0x7275u, NULL, 0 },
	{ "cramfs", 0x28CD3D45u, NULL, 0 },
	/* layers over the kernel's own dentries */
	{ "overlayfs", 0x794C7630u, NULL, APPEND_OPEN },
	{ "ecryptfs", 0xF15Fu, NULL, 0 },
	/* network and cluster filesystems: file handles, inode numbers, FIDs */
	{ "NFS", FS_NFS, NULL, NETWORK | DIRECT },
	/* Its kernel client too (make check-vm-ceph: buffered, the library
	 * lost 36 and 22 records of 1,000; with O_DIRECT 7 and 3) */
	{ "CephFS (kernel client)", 0x00C36400u, NULL, NETWORK | DIRECT },
	{ "AFS", 0x5346414Fu, NULL, NETWORK },
	{ "kAFS", 0x6B414653u, NULL, NETWORK },
	{ "Coda", 0x73757245u, NULL, NETWORK },
	{ "Lustre", 0x0BD00BD0u, NULL, NETWORK },
	{ "GPFS", 0x47504653u, NULL, NETWORK },
	/* network filesystems that open paths.  Their handles' answers are
	 * taken as before this table (SMB's open file id, 9p's fid), not
	 * measured with renames here: the VM lane has no rename case. */
	{ "CIFS", FS_CIFS, NULL, NETWORK | BY_NAME | HANDLE | ZERO_LIES },
	{ "SMB2, SMB3", 0xFE534D42u, NULL, NETWORK | BY_NAME | HANDLE | ZERO_LIES },
	{ "SMB (smbfs)", 0x517Bu, NULL, NETWORK | BY_NAME | HANDLE | ZERO_LIES },
	{ "9p", FS_9P, NULL, NETWORK | BY_NAME | HANDLE },
	/* FUSE, by server */
	{ "GlusterFS", FS_FUSE, "fuse.glusterfs", NETWORK | HANDLE },
	/* ceph-fuse 16.2 answers 0 to mode 0 and stores nothing (no RADOS
	 * object of the file; st_blocks is size / 512), and each client's
	 * kernel caches pages and a size that another client's writes
	 * outdate (its own O_APPEND lands at that stale size): the server's
	 * bytes, read and written with O_DIRECT (tests/shared/cephfs.sh) */
	{ "ceph-fuse", FS_FUSE, "fuse.ceph-fuse", NETWORK | HANDLE | ZERO_LIES | DIRECT },
	{ "ceph-fuse (older)", FS_FUSE, "fuse.ceph", NETWORK | HANDLE | ZERO_LIES | DIRECT },
	{ "ntfs-3g, exfat-fuse", FS_FUSE, "fuseblk", NETWORK | HANDLE },
	{ "virtiofs", FS_FUSE, "virtiofs", NETWORK | HANDLE },
	{ "sshfs", FS_FUSE, "fuse.sshfs", NETWORK | BY_NAME | HANDLE },
	{ "bindfs (no subtype)", FS_FUSE, "fuse", NETWORK | BY_NAME | HANDLE },
	{ "mergerfs", FS_FUSE, "fuse.mergerfs", NETWORK | BY_NAME | HANDLE },
	{ "gocryptfs", FS_FUSE, "fuse.gocryptfs", NETWORK | BY_NAME | HANDLE },
	{ "unionfs-fuse", FS_FUSE, "fuse.unionfs", NETWORK | BY_NAME },
	/* fuse-overlayfs 1.10 trusts nothing of a handle: its getattr and its
	 * fallocate go by the node's path (a fallocate after a rename in its
	 * upper directory allocated the file that has the name now, for glibc
	 * too), so its 0 says nothing of the held file (tests/rename-held.sh):
	 * the closed world's facts, named */
	{ "fuse-overlayfs", FS_FUSE, "fuse.fuse-overlayfs", CAREFUL },
	{ "the tests' FUSE server", FS_FUSE, "fuse.fuse-oddfs", NETWORK | BY_NAME | HANDLE },
	{ "FUSE, any other server", FS_FUSE, "*", CAREFUL },
	/* files of kernel interfaces: their size is not their content, and a
	 * zero written there changes a setting */
	{ "sysfs", 0x62656572u, NULL, PSEUDO },
	{ "proc", 0x9FA0u, NULL, PSEUDO },
	{ "debugfs", 0x64626720u, NULL, PSEUDO },
	{ "configfs", 0x62656570u, NULL, PSEUDO },
	{ "securityfs", 0x73636673u, NULL, PSEUDO },
	{ "cgroup", 0x27E0EBu, NULL, PSEUDO },
	{ "cgroup2", 0x63677270u, NULL, PSEUDO },
	{ "tracefs", 0x74726163u, NULL, PSEUDO },
	{ "bpf", 0xCAFE4A11u, NULL, PSEUDO },
	{ "pstore", 0x6165676Cu, NULL, PSEUDO },
	{ "efivarfs", 0xDE5E81E4u, NULL, PSEUDO },
	{ "selinuxfs", 0xF97CFF8Cu, NULL, PSEUDO },
	{ "smackfs", 0x43415D53u, NULL, PSEUDO },
	{ "binfmt_misc", 0x42494E4Du, NULL, PSEUDO },
	{ "fusectl", 0x65735543u, NULL, PSEUDO },
	{ "resctrl", 0x07655821u, NULL, PSEUDO },
	{ "usbdevfs", 0x9FA2u, NULL, PSEUDO },
	{ "mqueue", 0x19800202u, NULL, PSEUDO },
	/* the closed world's last row */
	{ "anything else", 0, NULL, CAREFUL },
};

#define ROWS (sizeof table / sizeof table[0])

int lfa_fs_table_row(size_t i, struct lfa_fs_row *row)
{
	if (i >= ROWS)
		return -1;
	*row = table[i];
	return 0;
}

/* The row of fs_type and server (NULL: any FUSE server's catch-all). */
static unsigned facts_of(uint32_t fs_type, const char *server)
{
	size_t i;

	for (i = 0; i < ROWS - 1; i++) {
		if (table[i].type != fs_type)
			continue;
		if (!table[i].server || strcmp(table[i].server, "*") == 0 ||
		    (server && strcmp(table[i].server, server) == 0))
			return table[i].facts;
	}
	return table[ROWS - 1].facts;
}

unsigned lfa_fs_facts_of_type(uint32_t fs_type)
{
	return facts_of(fs_type, NULL);
}

unsigned lfa_fs_facts(uint32_t fs_type, uint64_t dev, unsigned *syscalls)
{
	char server[64];

	if (fs_type != FS_FUSE)
		return facts_of(fs_type, NULL);
	lfa_fuse_server(dev, server, sizeof server, syscalls);
	return facts_of(fs_type, server);
}

int64_t lfa_fs_end_always_allowed(uint32_t fs_type, int64_t fs_block)
{
	switch (fs_type) {
	case FS_EXT: /* ext2/3/4: block-mapped files have the smallest maximum,
		      * 16 GiB + 64 MiB with 1 KiB blocks, 256 GiB + 512 MiB with
		      * 2 KiB, 2 TiB less their indirect blocks with 4 KiB */
		return fs_block <= 1024 ? 16 * GiB : fs_block <= 2048 ? 256 * GiB : TiB;
	case FS_F2FS: /* f2fs: 3.94 TiB with 4 KiB blocks */
		return TiB;
	case FS_XFS:
	case FS_BTRFS:
	case FS_TMPFS:
	case FS_RAMFS:
	case FS_HUGETLBFS:
	case FS_FUSE: /* fuse (its server has its own limits, which no check here sees) */
	case FS_BCACHEFS:
	case FS_ZFS:
		return 8 * TiB; /* MAX_LFS_FILESIZE or more: 16 TiB on 32-bit kernels */
	default:     /* overlayfs, NFS, ...: another's maximum, or the server's */
		return 0;
	}
}

/* ext4_max_bitmap_size(): the maximum of a block-mapped (ext2/ext3-style)
 * file, from the block size alone.  With 1 and 2 KiB blocks the block tree
 * limits it; with 4 KiB and more it is i_blocks's limit, larger with the
 * huge_file feature, which is assumed (a smaller answer would refuse ranges
 * the kernel allows). */
int64_t lfa_fs_block_mapped_max(int fd, int64_t fs_block, unsigned *syscalls)
{
#if defined(FS_IOC_GETFLAGS) && defined(FS_EXTENT_FL)
	int64_t per_block, blocks;
	int bits = 10, attr = 0;

	++*syscalls;
	if (ioctl(fd, FS_IOC_GETFLAGS, &attr) != 0 || (attr & FS_EXTENT_FL))
		return -1;
	while (bits < 16 && ((int64_t)1 << bits) < fs_block)
		bits++;
	per_block = (int64_t)1 << (bits - 2);
	blocks = 12 + per_block + per_block * per_block + per_block * per_block * per_block;
	return blocks > (INT64_MAX >> bits) ? INT64_MAX : blocks << bits;
#else
	(void)fd, (void)fs_block, (void)syscalls;
	return -1;
#endif
}

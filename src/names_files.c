/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Whether a filesystem finds a file by its name each time it is asked.
 *
 * Where it does, a rename (logrotate, an editor's save by rename-over,
 * rsync, mv), done by another client, on the server or under a FUSE
 * server's source directory, detaches the name from the file the caller
 * holds: a descriptor reopened through /proc opens whatever has the name
 * now, with the same st_dev and st_ino (sshfs's inode number is FUSE's
 * node id, which follows the name), and fstat, and with it the size the
 * kernel places RWF_APPEND at, may describe that other file.  Only reads
 * and writes through the caller's own open file description reach the
 * held file (the FUSE server's handle, SMB's open file id).
 *
 *   filesystem                     reopen   why
 *   ext2/3/4, xfs, btrfs, f2fs,    same     the kernel's inode: /proc's link
 *   tmpfs, ramfs, vfat, squashfs,           is the open file's own dentry
 *   erofs, ...
 *   overlayfs, ecryptfs            same     layered on such dentries
 *   NFS                            same     file handles, not names
 *   CephFS, AFS, Coda, Lustre,     same     inode numbers and FIDs
 *   GPFS, OCFS2, GFS2
 *   FUSE: glusterfs                same     every file is its gfid
 *   FUSE: ceph-fuse                same     inode numbers, as the kernel's
 *   virtiofs                       same     virtiofsd holds the host's files
 *                                           by descriptor or file handle
 *   FUSE: fuseblk (ntfs-3g,        same     the one client of its device:
 *   exfat-fuse)                             every rename passes through this
 *                                           kernel, and libfuse's table of
 *                                           names follows it
 *   FUSE: sshfs, bindfs, mergerfs, by name  their servers open and stat
 *   any other                               paths (bindfs: a rename in its
 *                                           source directory)
 *   CIFS/SMB, 9p                   by name  SMB opens paths; 9p servers
 *                                           such as QEMU's resolve them
 *   anything not named here        by name  not known to be safe
 *
 * The FUSE server is told by the subtype /proc/self/mountinfo gives the
 * mount (fuse.sshfs, fuse.glusterfs; bindfs says plain "fuse"): the mount
 * is found by the device number, which the kernel, not the server, gives.
 * The file is read here through a descriptor of the call's own
 * (job_fds.c), into the stack; nothing is remembered, since a FUSE device
 * number is reused by the next mount. */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "emul_job.h"
#include "job_fds.h"

#define FS_ECRYPTFS  0xF15Fu
#define FS_MSDOS     0x4D44u     /* vfat, msdos */
#define FS_EXFAT     0x2011BAB0u
#define FS_NTFS3     0x7366746Eu
#define FS_JFS       0x3153464Au
#define FS_REISERFS  0x52654973u
#define FS_NILFS     0x3434u
#define FS_UDF       0x15013346u
#define FS_HFSPLUS   0x482Bu
#define FS_SQUASHFS  0x73717368u
#define FS_EROFS     0xE0F5E1E2u
#define FS_ISOFS     0x9660u

/* The FUSE servers whose files keep their identity across renames. */
static int fuse_server_keeps_files(const char *type)
{
	static const char *const by_handle[] = {
		"fuse.glusterfs", "fuse.ceph-fuse", "fuse.ceph", "fuseblk", "virtiofs",
	};
	size_t i;

	for (i = 0; i < sizeof by_handle / sizeof by_handle[0]; i++)
		if (strcmp(type, by_handle[i]) == 0)
			return 1;
	return 0;
}

/* Walks /proc/self/mountinfo a byte at a time, so that a line of any
 * length (overlayfs's option lists) needs no buffer for itself: field 3 is
 * "major:minor", and the field after the lone "-" is the type. */
struct mountinfo_walk {
	char want[24];      /* "major:minor" of the file's device */
	char field[64];     /* the field being read, cut at 63 bytes */
	size_t len;
	int index;          /* fields seen on this line */
	int dev_matches, after_dash, found;
	char type[64];
};

static void end_field(struct mountinfo_walk *w)
{
	w->field[w->len] = '\0';
	if (w->index == 2)
		w->dev_matches = strcmp(w->field, w->want) == 0;
	else if (w->index > 5 && !w->after_dash && strcmp(w->field, "-") == 0)
		w->after_dash = w->index;
	else if (w->after_dash && w->index == w->after_dash + 1 && w->dev_matches) {
		memcpy(w->type, w->field, w->len + 1);
		w->found = 1;
	}
	w->index++;
	w->len = 0;
}

static void walk_byte(struct mountinfo_walk *w, char c)
{
	if (c == ' ' || c == '\n') {
		end_field(w);
		if (c == '\n')
			w->index = w->dev_matches = w->after_dash = 0;
	} else if (w->len < sizeof w->field - 1) {
		w->field[w->len++] = c;
	}
}

void emul_mountinfo_type(int fd, uint64_t dev, char *type, size_t n, unsigned *syscalls)
{
	struct mountinfo_walk w;
	char buf[1024];
	ssize_t got, i;

	type[0] = '\0';
	memset(&w, 0, sizeof w);
	snprintf(w.want, sizeof w.want, "%u:%u", major(dev), minor(dev));
	do {
		++*syscalls;
		got = read(fd, buf, sizeof buf);
		for (i = 0; i < got && !w.found; i++)
			walk_byte(&w, buf[i]);
	} while (got > 0 && !w.found);
	if (w.found)
		snprintf(type, n, "%s", w.type);
}

/* The mount's type, "" where it cannot be read. */
static void fuse_type(uint64_t dev, char *type, size_t n, unsigned *syscalls)
{
	struct stat64 st;
	int fd, slot;

	type[0] = '\0';
	/* Its identity, which a child forked meanwhile checks before it
	 * closes the number (job_fds.c). */
	++*syscalls;
	if (stat64("/proc/self/mountinfo", &st) != 0)
		return;
	fd = lfa_job_open("/proc/self/mountinfo", O_RDONLY | O_NOCTTY, (uint64_t)st.st_dev,
			  (uint64_t)st.st_ino, &slot, syscalls);
	if (fd < 0)
		return;
	emul_mountinfo_type(fd, dev, type, n, syscalls);
	++*syscalls;
	lfa_job_close(fd, slot);
}

int emul_names_files(uint32_t fs_type, uint64_t dev, unsigned *syscalls)
{
	char type[64];

	switch (fs_type) {
	case FS_EXT: case FS_XFS: case FS_BTRFS: case FS_F2FS: case FS_BCACHEFS:
	case FS_ZFS: case FS_TMPFS: case FS_RAMFS: case FS_HUGETLBFS:
	case FS_MSDOS: case FS_EXFAT: case FS_NTFS3: case FS_JFS: case FS_REISERFS:
	case FS_NILFS: case FS_UDF: case FS_HFSPLUS: case FS_SQUASHFS: case FS_EROFS: case FS_ISOFS:
	case FS_OVERLAY: case FS_ECRYPTFS:
	case FS_NFS: case FS_CEPH: case FS_AFS: case FS_KAFS: case FS_CODA:
	case FS_LUSTRE: case FS_GPFS: case FS_OCFS2: case FS_GFS2:
		return 0;
	case FS_FUSE:
		fuse_type(dev, type, sizeof type, syscalls);
		return !fuse_server_keeps_files(type);
	default: /* CIFS, SMB, 9p, and whatever is not known */
		return 1;
	}
}

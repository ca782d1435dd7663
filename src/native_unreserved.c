/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "emulate.h"
#include "fs_facts.h"
#include "mount_facts.h"

/* Whether the kernel's 0 for fallocate(fd, 0, offset, len) cannot be
 * taken.  Every byte of an allocated range lies in an allocated block, so
 * a file whose blocks (st_blocks, in 512-byte units) hold fewer bytes than
 * the range has not got it, whatever a layer below said.  Where the
 * filesystem's 0 may reserve nothing whatever it shows (fs_facts.c: SMB3
 * with a lease grows a file by SetEOF alone and counts its blocks from the
 * size; a filesystem or FUSE server not known), the emulation does the
 * work, and refuses where it cannot (then the 0 stands, reported).
 *
 * The 0 is second-guessed only by a look that reaches the held file.  The
 * first look takes what the kernel keeps (AT_STATX_DONT_SYNC: a FUSE
 * server or SMB asked now would answer by the name, which a rename may
 * have given to another file, and the kernel would keep that answer as
 * the held file's).  A filesystem on a block device whose blocks cover the
 * range is done with that one look.  Elsewhere the table decides: where
 * files are found by name no look reaches the held file, and the 0
 * stands; elsewhere a count that falls short is asked of the filesystem
 * (a server's count after its ALLOCATE) before it is believed.  Any doubt
 * (a look failing) lets the answer stand.  Keeps errno; counts its
 * syscalls. */
static int short_of(int64_t blocks, int64_t len)
{
	return blocks < (len - 1) / 512 + 1;
}

static int short_when_asked(int fd, int64_t len, unsigned *syscalls)
{
#ifdef HAVE_STATX
	struct statx sx;

	++*syscalls;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BLOCKS, &sx) == 0)
		return (sx.stx_mask & STATX_BLOCKS) && short_of((int64_t)sx.stx_blocks, len);
	if (errno != ENOSYS)
		return 0;
#endif
	{
		struct stat64 st;

		++*syscalls;
		return fstat64(fd, &st) == 0 && short_of(st.st_blocks, len);
	}
}

int lfa_native_unreserved(int fd, int64_t len, struct lfa_job_report *rep)
{
	unsigned *syscalls = &rep->syscalls;
	int saved_errno = errno, unreserved = 0, looked = 0, on_block_device = 0, short_kept = 0;
	uint64_t mount = 0, dev = 0;
	uint32_t fs_type;
	int64_t fs_block;
	unsigned facts;
#ifdef HAVE_STATX
	struct statx sx;

	++*syscalls;
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_BLOCKS | LFA_STATX_MNT_ID_UNIQUE,
		  &sx) == 0) {
		looked = 1;
		short_kept = !(sx.stx_mask & STATX_BLOCKS) || short_of((int64_t)sx.stx_blocks, len);
		on_block_device = sx.stx_dev_major != 0;
		dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
#ifdef HAVE_STRUCT_STATX_STX_MNT_ID
		mount = (sx.stx_mask & LFA_STATX_MNT_ID_UNIQUE) ? sx.stx_mnt_id : 0;
#endif
	}
#endif
	if (!looked) {
		struct stat64 st;

		++*syscalls;
		if (fstat64(fd, &st) != 0)
			goto out;
		short_kept = short_of(st.st_blocks, len);
		on_block_device = major(st.st_dev) != 0;
		dev = st.st_dev;
	}
	/* A disk's filesystem whose blocks hold the range: the common case,
	 * one look. */
	if (on_block_device && !short_kept)
		goto out;
	if (lfa_mount_facts(fd, mount, &fs_type, &fs_block, syscalls) != 0)
		goto out;
	facts = lfa_fs_facts(fs_type, dev, syscalls);
	rep->fs_known = 1;
	rep->fs_dev = dev;
	rep->fs_type = fs_type;
	rep->fs_block = fs_block;
	rep->fs_facts = facts;
	if (facts & LFA_FS_ZERO_LIES)
		unreserved = 1;
	else if (!(facts & LFA_FS_BY_NAME) && short_kept)
		unreserved = short_when_asked(fd, len, syscalls);
out:
	errno = saved_errno;
	return unreserved;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>

#include "emul_job.h"
#include "emulate.h"

/* SMB's client, and no other, marks these two attributes as ones it can
 * tell and the append-only and immutable ones as ones it cannot: a sieve
 * that spares every other filesystem the fstatfs that settles it. */
#define SMB_ATTRIBUTES (STATX_ATTR_COMPRESSED | STATX_ATTR_ENCRYPTED)
#define LOCAL_ATTRIBUTES (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND)

static int smb_client(int fd, unsigned *syscalls)
{
	struct statfs64 sf;

	++*syscalls;
	if (fstatfs64(fd, &sf) != 0)
		return 0;
	return (uint32_t)sf.f_type == FS_CIFS || (uint32_t)sf.f_type == FS_SMB2 ||
	       (uint32_t)sf.f_type == FS_SMB;
}

/* Whether the kernel's 0 for fallocate(fd, 0, offset, len) cannot be
 * taken.  Every byte of an allocated range lies in an allocated block, so
 * a file whose blocks (st_blocks, in 512-byte units) hold fewer bytes than
 * the range has not got it, whatever a layer below said.  And SMB's 0
 * means nothing: measured on Linux 6.1, its client holding a lease (the
 * default) grows a file by SetEOF alone and answers 0, or answers 0 for a
 * range inside a file it believes is not sparse, while Samba (strict
 * allocate = no, its default) keeps the holes; and it counts a file's
 * blocks from its size (i_blocks after a cached write), so the count
 * cannot tell.  The look is the kernel's as the caller's fstat would see
 * it: a cache a reply refreshed costs nothing, and a stale one only sends
 * the call to the emulation, which trusts no count.  A lie over a range
 * that the file's other blocks outnumber is not seen, except on SMB
 * (README, Known limits).  Any doubt (the look failing) lets the answer
 * stand.  Keeps errno; counts its syscalls. */
int lfa_native_unreserved(int fd, int64_t len, unsigned *syscalls)
{
	int saved_errno = errno;
	int64_t blocks;
	int unreserved = 0;
#ifdef HAVE_STATX
	struct statx sx;

	++*syscalls;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BLOCKS, &sx) == 0 && (sx.stx_mask & STATX_BLOCKS)) {
		blocks = (int64_t)sx.stx_blocks;
		unreserved = blocks < (len - 1) / 512 + 1 ||
			     (sx.stx_dev_major == 0 &&
			      (sx.stx_attributes_mask & SMB_ATTRIBUTES) == SMB_ATTRIBUTES &&
			      !(sx.stx_attributes_mask & LOCAL_ATTRIBUTES) && smb_client(fd, syscalls));
		errno = saved_errno;
		return unreserved;
	}
#endif
	{
		struct stat64 st;

		++*syscalls;
		if (fstat64(fd, &st) == 0) {
			blocks = st.st_blocks;
			unreserved = blocks < (len - 1) / 512 + 1 ||
				     (major(st.st_dev) == 0 && smb_client(fd, syscalls));
		}
	}
	errno = saved_errno;
	return unreserved;
}

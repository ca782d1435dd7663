/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "emulate.h"

/* Whether the kernel's 0 for fallocate(fd, 0, offset, len) cannot be true:
 * every byte of an allocated range lies in an allocated block, so a file
 * whose blocks (st_blocks, in 512-byte units) hold fewer bytes than the
 * range has not got it, whatever a layer below said.  Measured on Linux
 * 6.1: its SMB3 client, holding a lease, grows the file by SetEOF alone
 * and answers 0, and Samba (strict allocate = no, its default) leaves a
 * hole, 0 blocks for 64 MiB on client and server alike.  The size is the
 * kernel's as the caller would see it (fstat's revalidation, no
 * AT_STATX_DONT_SYNC: a cache that a reply already refreshed costs
 * nothing, and a stale one would only send the call to the emulation,
 * which trusts no count).  A lie over a range that the file's other blocks
 * outnumber is not seen (README, Known limits).  Returns 0 when the answer
 * can stand, 1 when it cannot; any doubt (the look failing) lets it
 * stand. */
int lfa_native_unreserved(int fd, int64_t len)
{
	int saved_errno = errno;
	int64_t blocks;
#ifdef HAVE_STATX
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_BLOCKS, &sx) == 0 && (sx.stx_mask & STATX_BLOCKS))
		blocks = (int64_t)sx.stx_blocks;
	else
#endif
	{
		struct stat64 st;

		if (fstat64(fd, &st) != 0) {
			errno = saved_errno;
			return 0;
		}
		blocks = st.st_blocks;
	}
	errno = saved_errno;
	return blocks < (len - 1) / 512 + 1;
}

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
 * size; ceph-fuse; a filesystem or FUSE server not known), the emulation
 * does the work, and refuses where it cannot (then the 0 stands, reported).
 *
 * The 0 is second-guessed only by a look that reaches the held file.  The
 * looks take what the kernel keeps (AT_STATX_DONT_SYNC: a FUSE server or
 * SMB asked now would answer by the name, which a rename may have given to
 * another file, and the kernel would keep that answer as the held file's).
 * One look comes before the kernel is asked (lfa_look_before); a file on a
 * block device whose blocks covered the range then is done with it, since
 * the kernel's 0 frees none.  Elsewhere the table decides: where files are
 * found by name no look reaches the held file, and the 0 stands; elsewhere
 * a count that falls short after the 0 is asked of the filesystem (a
 * server's count after its ALLOCATE) before it is believed.  Any doubt (a
 * look failing) lets the answer stand.  Both keep errno and count their
 * syscalls. */
static int short_of(int64_t blocks, int64_t len)
{
	return blocks < (len - 1) / 512 + 1;
}

/* Whether the file's block count falls short of len: the count the kernel
 * keeps (statx_sync: AT_STATX_DONT_SYNC) or the filesystem's, asked now
 * (statx_sync: 0).
 * A count statx leaves out is if_unknown: short for the kept one, which
 * proves nothing, since the filesystem is asked next; not short for the
 * filesystem's.  A look that fails lets the answer stand (not short);
 * fstat looks only where there is no statx (before Linux 4.11). */
static int blocks_short(int fd, int64_t len, int statx_sync, int if_unknown, unsigned *syscalls)
{
	struct stat64 st;
#ifdef HAVE_STATX
	struct statx sx;

	++*syscalls;
	if (statx(fd, "", AT_EMPTY_PATH | statx_sync, STATX_BLOCKS, &sx) == 0)
		return sx.stx_mask & STATX_BLOCKS ? short_of((int64_t)sx.stx_blocks, len) : if_unknown;
	if (errno != ENOSYS)
		return 0;
#else
	(void)statx_sync, (void)if_unknown;
#endif
	++*syscalls;
	return fstat64(fd, &st) == 0 && short_of(st.st_blocks, len);
}

#ifndef AT_STATX_DONT_SYNC
#define AT_STATX_DONT_SYNC 0 /* no statx: fstat is the look */
#endif

static int kept_short(int fd, int64_t len, unsigned *syscalls)
{
	return blocks_short(fd, len, AT_STATX_DONT_SYNC, 1, syscalls);
}

static int short_when_asked(int fd, int64_t len, unsigned *syscalls)
{
	return blocks_short(fd, len, 0, 0, syscalls);
}

/* The table's facts of the file's filesystem, left in rep for the
 * emulation; -1 where statfs fails. */
static int learn_facts(int fd, const struct lfa_target *t, struct lfa_job_report *rep)
{
	uint32_t fs_type;
	int64_t fs_block;

	if (rep->fs_known)
		return 0;
	if (lfa_mount_facts(fd, t->mount, &fs_type, &fs_block, &rep->syscalls) != 0)
		return -1;
	rep->fs_facts = lfa_fs_facts(fs_type, t->dev, &rep->syscalls);
	rep->fs_known = 1;
	rep->fs_dev = t->dev;
	rep->fs_type = fs_type;
	rep->fs_block = fs_block;
	return 0;
}

/* A disk's filesystem: on a block device (t: a look that succeeded). */
static int on_block_device(const struct lfa_target *t)
{
	return major(t->dev) != 0;
}

int lfa_look_before(int fd, int64_t offset, int64_t len, struct lfa_target *t,
		    struct lfa_job_report *rep)
{
	int saved_errno = errno, empty_zero = 0;

	if (lfa_look_at_target(fd, t, &rep->syscalls) != 0) {
		errno = saved_errno;
		return -1;
	}
	/* Where the 0 would be second-guessed whatever the blocks show and
	 * the range passes the end of file, the kernel's 0 would only grow
	 * the file by its size (ceph-fuse's, SMB3's SetEOF), and the
	 * emulation would then read back, as possibly another client's, a
	 * range it could have appended: the kernel is not asked.  A disk's
	 * filesystem is not second-guessed so; the size may be stale, which
	 * only decides whether the facts are looked up now or after. */
	if (on_block_device(t) || !S_ISREG(t->mode) || offset > INT64_MAX - len ||
	    offset + len <= t->size)
		goto out;
	if (learn_facts(fd, t, rep) == 0 && (rep->fs_facts & LFA_FS_ZERO_LIES))
		empty_zero = 1;
out:
	errno = saved_errno;
	return empty_zero;
}

int lfa_native_unreserved(int fd, int64_t len, const struct lfa_target *before,
			  struct lfa_job_report *rep)
{
	int saved_errno = errno, unreserved = 0, short_kept = -1;
	int covered = !short_of(before->blocks, len);

	/* A disk's filesystem: the kernel's 0 frees no block, so a count
	 * that covered the range before it still does; else one more look. */
	if (on_block_device(before)) {
		if (covered || !(short_kept = kept_short(fd, len, &rep->syscalls)))
			goto out;
	}
	if (learn_facts(fd, before, rep) != 0)
		goto out;
	if (rep->fs_facts & LFA_FS_ZERO_LIES) {
		unreserved = 1;
		goto out;
	}
	if ((rep->fs_facts & LFA_FS_BY_NAME) || covered)
		goto out;
	if (short_kept < 0)
		short_kept = kept_short(fd, len, &rep->syscalls);
	if (short_kept)
		unreserved = short_when_asked(fd, len, &rep->syscalls);
out:
	errno = saved_errno;
	return unreserved;
}

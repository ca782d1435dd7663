/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The call most programs make where the kernel cannot allocate: a range
 * that starts at the end of a regular file on a local disk filesystem and
 * fits in one write (a log, a download or a database file grown step by
 * step).  It costs what glibc's emulation costs, four syscalls: a look
 * (statx: type, size, attributes, mount), RLIMIT_FSIZE, one append of
 * zeros, and a look at where it landed; and fstatfs once per mount
 * (mount_key).
 *
 * It only ever succeeds or declines, and declines before writing whatever
 * the whole engine would refuse or do otherwise.  It needs no fcntl for the
 * status flags: an O_RDONLY or O_PATH descriptor fails the append (EBADF)
 * with nothing written, O_DIRECT fails it where the filesystem wants the
 * end of file or the length aligned (EINVAL; btrfs writes it buffered
 * instead), and O_APPEND appends as it does.  A failed append, or a look
 * after it that shows another writer at work, hands the call to the engine,
 * which starts from a look of its own and gives the kernel's errors in the
 * kernel's order (after an append that raced another writer, a descriptor
 * that cannot write where aimed fails only where such a write is needed:
 * emul_choose_writer). */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "emul_job.h"
#include "mount_facts.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x1000u /* Linux 5.8; older headers lack it */
#endif

#ifdef HAVE_STATX
/* Filesystems whose appends land where their size says, with a known
 * maximum file size: not layers or servers, which may place an append by a
 * size of their own (FACTS.md 3), not tmpfs (memfd seals), not pseudo-files. */
static int quick_fs(uint32_t fs_type)
{
	return fs_type == FS_EXT || fs_type == FS_XFS || fs_type == FS_BTRFS;
}

/* What the mount's filesystem is remembered by: Linux 6.8's unique mount
 * id, which no other mount gets in the same boot.  Before, the mount id is
 * the lowest free one, taken again by the next mount: it serves only with
 * the device and the attributes the filesystem supports beside it, and only
 * for block devices (pseudo-filesystems, tmpfs, btrfs, FUSE and network
 * filesystems have anonymous ones and are asked every time).  A device
 * reformatted under a running process and mounted again with the same id
 * could then pass for the filesystem it held before: *reusable says so,
 * and the range is held below the smallest maximum of every filesystem the
 * quick path takes, so that the worst is a refusal after a write. */
static uint64_t mount_key(const struct statx *sx, int *reusable)
{
	*reusable = 0;
#ifdef HAVE_STRUCT_STATX_STX_MNT_ID
	if (sx->stx_mask & LFA_STATX_MNT_ID_UNIQUE)
		return sx->stx_mnt_id;
	if ((sx->stx_mask & STATX_MNT_ID) && sx->stx_dev_major != 0) {
		uint64_t k = sx->stx_mnt_id;

		*reusable = 1;
		k = (k ^ ((uint64_t)sx->stx_dev_major << 32 | sx->stx_dev_minor)) *
		    0xBF58476D1CE4E5B9ull;
		k = (k ^ (k >> 31) ^ sx->stx_attributes_mask) * 0x94D049BB133111EBull;
		return (k ^ (k >> 29)) | (uint64_t)1 << 63; /* never a unique id */
	}
#else
	(void)sx;
#endif
	return 0;
}
#endif

int lfa_extend_quickly(int fd, int64_t offset, int64_t len, const struct lfa_job_options *opt,
		       struct lfa_job_report *rep)
{
#ifdef HAVE_STATX
	struct statx sx;
	struct rlimit64 lim;
	uint64_t attr;
	uint32_t fs_type;
	int64_t fs_block, end, bound;
	int reusable;
	ssize_t w;

	if (offset < 0 || len <= 0 || len > WRITE_CHUNK || offset > INT64_MAX - len ||
	    opt->progress)
		return -1;
	end = offset + len;
	if (O_LARGEFILE && end > INT32_MAX)
		return -1;
	rep->syscalls++;
	if (statx(fd, "", AT_EMPTY_PATH,
		  STATX_TYPE | STATX_SIZE | STATX_MNT_ID | LFA_STATX_MNT_ID_UNIQUE, &sx) != 0)
		return -1;
	attr = sx.stx_attributes & sx.stx_attributes_mask;
	if (!S_ISREG(sx.stx_mode) || (int64_t)sx.stx_size != offset ||
	    (attr & (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND)))
		return -1;
	if (lfa_mount_facts(fd, mount_key(&sx, &reusable), &fs_type, &fs_block,
			    &rep->syscalls) != 0 || !quick_fs(fs_type))
		return -1;
	bound = emul_end_always_allowed(fs_type, fs_block);
	if (reusable)
		bound = emul_min(bound, emul_end_always_allowed(FS_EXT, 1024));
	if (end > bound)
		return -1;
	if (emul_copy_on_write_fs(fs_type) && lfa_settings(fd).refuse_copy_on_write)
		return -1;
	/* Past the limit a write raises SIGXFSZ, or stops at it part way. */
	rep->syscalls++;
	if (getrlimit64(RLIMIT_FSIZE, &lim) != 0 ||
	    (lim.rlim_cur != RLIM64_INFINITY && (uint64_t)end > lim.rlim_cur))
		return -1;
	rep->syscalls++;
	w = emul_append_zeros(fd, len);
	if (w <= 0)
		return -1;
	rep->bytes_written += (uint64_t)w;
	/* Where they landed: right at the range, or another writer changed
	 * the file between the looks (an append of its own before ours, a
	 * write past the end leaving a hole below ours, a truncation), and
	 * the engine looks at the range again. */
	rep->syscalls++;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, &sx) != 0 || w != len ||
	    (int64_t)sx.stx_size != end)
		return -1;
	rep->emulated = 1;
	rep->copy_on_write = emul_copy_on_write_fs(fs_type);
	return 0;
#else
	(void)fd, (void)offset, (void)len, (void)opt, (void)rep;
	return -1;
#endif
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The call most programs make where the kernel cannot allocate: a range
 * that starts at the end of a regular file on a local disk filesystem and
 * fits in one write (a log, a download or a database file grown step by
 * step).  It costs what glibc's emulation costs, four syscalls: a look
 * (statx: type, size, attributes, mount), RLIMIT_FSIZE, one append of
 * zeros, and a look (fstat) at where it landed; and fstatfs once per mount
 * (per call before Linux 6.8, whose statx names mounts by reusable ids
 * only, and where the C library has no statx).
 *
 * It only ever succeeds or declines, and declines before writing whatever
 * the whole engine would refuse or do otherwise.  It needs no fcntl for the
 * status flags: an O_RDONLY or O_PATH descriptor fails the append (EBADF)
 * with nothing written, O_DIRECT fails it where the filesystem wants the
 * end of file or the length aligned (EINVAL; btrfs writes it buffered
 * instead), and O_APPEND appends as it does.  Declined, the call goes to
 * the engine, which gives the kernel's errors in the kernel's order: from
 * this path's look where nothing was written since (no statx twice), or
 * from a look of its own after a failed append or a look after it that
 * shows another writer at work (a descriptor that cannot write where aimed
 * then fails only where such a write is needed: emul_choose_writer). */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "emul_job.h"
#include "mount_facts.h"


int lfa_extend_quickly(int fd, int64_t offset, int64_t len, const struct lfa_job_options *opt,
		       struct lfa_job_report *rep, struct lfa_target *t, int *looked)
{
	struct stat64 st;
	uint32_t fs_type;
	unsigned facts;
	int64_t fs_block, end;
	ssize_t w;

	if (offset < 0 || len <= 0 || len > WRITE_CHUNK || offset > INT64_MAX - len ||
	    opt->progress)
		return -1;
	end = offset + len;
	if (lfa_largefile_flag(opt) && end > INT32_MAX)
		return -1;
	if (!*looked) {
		if (lfa_look_at_target(fd, t, &rep->syscalls) != 0)
			return -1;
		*looked = 1;
	}
	if (!S_ISREG(t->mode) || t->size != offset || t->immutable || t->append_only)
		return -1;
	/* Only where appends land where the size says, with a known maximum
	 * file size (LFA_FS_QUICK): not layers or servers, which may place an
	 * append by a size of their own (FACTS.md 3), not tmpfs (memfd
	 * seals), not pseudo-files. */
	if (lfa_mount_facts(fd, t->mount, &fs_type, &fs_block, &rep->syscalls) != 0)
		return -1;
	facts = lfa_fs_facts_of_type(fs_type);
	if (!(facts & LFA_FS_QUICK) || end > lfa_fs_end_always_allowed(fs_type, fs_block))
		return -1;
	if ((facts & LFA_FS_COPY_ON_WRITE) && lfa_settings(fd).refuse_copy_on_write)
		return -1;
	/* Past the limit a write raises SIGXFSZ, or stops at it part way.
	 * Declined, not refused: the engine refuses it in the kernel's order
	 * (EBADF for a read-only descriptor first, which only its fcntl
	 * tells), and sends the kernel's SIGXFSZ with its EFBIG (refusals.c). */
	rep->syscalls += !opt->foreign_caller;
	if ((uint64_t)end > lfa_fsize_limit(opt))
		return -1;
	rep->syscalls++;
	w = emul_append_zeros(fd, offset, len);
	if (w <= 0)
		return -1;
	*looked = 0; /* the look is stale now: the engine takes its own */
	rep->bytes_written += (uint64_t)w;
	/* Where they landed: right at the range, or another writer changed
	 * the file between the looks (an append of its own before ours, a
	 * write past the end leaving a hole below ours, a truncation), and
	 * the engine looks at the range again. */
	rep->syscalls++;
	if (fstat64(fd, &st) != 0 || w != len || st.st_size != end)
		return -1;
	rep->emulated = 1;
	rep->copy_on_write = !!(facts & LFA_FS_COPY_ON_WRITE);
	return 0;
}

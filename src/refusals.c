/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Every answer the library chooses, and the refusals that come before the
 * first write, in vfs_fallocate's order: callers compare error numbers, and
 * a write made before a refusal could not be taken back.
 *
 *   errno        when                                         whose answer
 *   (any)        the kernel's fallocate said it, other than   the kernel's,
 *                ENOSYS or EOPNOTSUPP (allocate.c)            passed through
 *   EBADF        O_PATH, or not open for writing              the kernel's order
 *   EINVAL       offset < 0 or len <= 0                       the kernel's order
 *   EPERM        immutable file; memfd sealed against growth  the kernel's
 *   ESPIPE       a FIFO                                       the kernel's order
 *   EISDIR       a directory                                  the kernel's order
 *   ENODEV       neither a regular file nor a block device;   the kernel's;
 *                posix_fallocate on a block device, or on a   glibc's
 *                file the kernel said EOPNOTSUPP for and that
 *                is not regular (a pidfd)
 *   EOPNOTSUPP   fallocate() where nothing can be emulated:   the kernel's
 *                a block device (blkdev_fallocate's answer
 *                for mode 0), a file the kernel said it for
 *                and that is not regular (a pidfd); a pseudo
 *                filesystem (proc, sysfs, ...); copy-on-write
 *                refused (LIBFALLOCATE_COPY_ON_WRITE=refuse);
 *                fallocate()'s other modes once the library
 *                emulates mode 0 (ENOSYS would say that no
 *                fallocate exists, which mode 0 just showed
 *                false: a filesystem without a mode says this)
 *   EFBIG        past the caller's off_t, RLIMIT_FSIZE or     the kernel's
 *                the filesystem's maximum size; for           (SIGXFSZ too:
 *                RLIMIT_FSIZE, where the file would grow,     check_limits)
 *                with SIGXFSZ to the calling thread
 *   EBADF        an O_APPEND descriptor where no reopen can   glibc's
 *                aim a write (emul_write.c); write-only with
 *                no way to read the old bytes (emul_holes.c)
 *   EINVAL       O_DIRECT, an unaligned edge and no reopen    glibc's
 *                (emul_write.c); reads that keep ending
 *                before a size that holds still (a lying
 *                FUSE server, emulate.c; where another
 *                client moves it, the call gives way: 0)
 *   EPERM        an append-only file with a hole inside       the kernel's
 *                (emulate.c): only appends reach it           (EPERM for writes)
 *   ENOSPC, EDQUOT, EIO, ETXTBSY, ...  from the writes         the kernel's
 *   EIO          a write of nothing; an extent map that       the library's own
 *                makes no progress (emul_write.c,
 *                emul_holes.c)
 *   ECANCELED    the progress callback said stop              lfa_allocate's own
 *                (lfa_allocate(3lfa) only)
 *
 * Never EAGAIN: a file another writer cuts again and again is redone a
 * bounded number of times and then answered 0 (emulate.c), since the cut
 * can be ordered after the call, as the kernel's fallocate racing the same
 * truncate can end; EBADF (glibc's) where the holes stay because another
 * thread set O_APPEND on the descriptor mid-call. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emul_job.h"
#include "sys_fallocate.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010 /* Linux 5.1; older headers lack it */
#endif

/* A file that is neither regular nor a directory or FIFO.  posix_fallocate
 * answers as glibc's, ENODEV.  fallocate() answers as the kernel, which says
 * ENODEV before it asks the filesystem, except for a block device
 * (blkdev_fallocate: EOPNOTSUPP for mode 0) and for an inode that reports
 * no type to fstat but is one inside (pidfs: EOPNOTSUPP after the kernel's
 * own type checks).  Only the kernel can tell those apart: where it was not
 * asked (the policy said always), nothing can be emulated, so it is asked
 * now; under ENOSYS it never looked, and the kernel's order decides. */
static int not_regular(int fd, int64_t offset, int64_t len, mode_t mode,
		       const struct lfa_job_options *opt, int native_error)
{
	if (!opt->kernel_answers)
		return ENODEV;
	if (!native_error)
		return lfa_sys_fallocate(fd, 0, offset, len);
	if (native_error == EOPNOTSUPP || S_ISBLK(mode))
		return EOPNOTSUPP;
	return ENODEV;
}

int lfa_check_target(int fd, int64_t offset, int64_t len, int64_t max_end, struct lfa_target *t,
		     int looked, const struct lfa_job_options *opt, int native_error)
{
	int flags = fcntl(fd, F_GETFL);
	int err;
	mode_t mode;

	if (flags < 0 || (flags & O_PATH))
		return EBADF;
	if (offset < 0 || len <= 0)
		return EINVAL;
	if ((flags & O_ACCMODE) == O_RDONLY)
		return EBADF;
	if (!looked && (err = lfa_look_at_target(fd, t, NULL)) != 0)
		return err;
	mode = t->mode;
	/* (An active swapfile, ETXTBSY to the kernel, cannot be seen from
	 * here; any write to it, even of nothing, fails with ETXTBSY.) */
	if (t->immutable)
		return EPERM;
	if (S_ISFIFO(mode))
		return ESPIPE;
	if (S_ISDIR(mode))
		return EISDIR;
	if (!S_ISREG(mode) && !S_ISBLK(mode))
		return not_regular(fd, offset, len, mode, opt, native_error);
	if (len > max_end - offset)
		return EFBIG;
	/* A block device has every block already: nothing to allocate, and
	 * nothing a zero-writer may touch. */
	if (!S_ISREG(mode))
		return not_regular(fd, offset, len, mode, opt, native_error);
	t->flags = flags;
	return 0;
}

int lfa_other_mode_answer(int err, int emulating_mode_0)
{
	return err == ENOSYS && emulating_mode_0 ? EOPNOTSUPP : err;
}

/* The maximum without a descriptor of our own (the caller holds a lease, no
 * descriptor is left, /proc is not mounted).  ext2/3/4 block-mapped files
 * (no extents flag): computed.  Elsewhere a copy_file_range of nothing to
 * end - 1, which the kernel checks against the filesystem's maximum first,
 * needs a readable descriptor and moves no offset.  Neither seen: the
 * kernel's writes will say (ext2/3 with 4 KiB blocks and no huge_file: from
 * 2 to 4 TiB, after writing up to the maximum). */
static int past_maximum_without_reopen(struct emul_job *j)
{
	if (j->facts & LFA_FS_BLOCK_MAPPED) {
		int64_t max = lfa_fs_block_mapped_max(j->fd, j->fs_block, &j->rep->syscalls);

		if (max >= 0)
			return j->end > max;
	}
#ifdef HAVE_COPY_FILE_RANGE
	if ((j->flags & O_ACCMODE) == O_RDWR) {
		off64_t from = 0, to = j->end - 1;

		j->rep->syscalls++;
		return copy_file_range(j->fd, &from, j->fd, &to, 0, 0) < 0 && errno == EFBIG;
	}
#endif
	(void)j;
	return 0;
}

/* A write past RLIMIT_FSIZE raises SIGXFSZ, which kills by default, and one
 * past the filesystem's maximum fails part way: both must fail first, with
 * EFBIG as the kernel's.  The maximum matters only for a range ending high:
 * below, no syscall is spent on it and no descriptor opened (a reopen
 * through /proc shows watchers IN_OPEN and IN_CLOSE_WRITE).  Above, lseek
 * to the end fails with EINVAL past the maximum, on a descriptor of our
 * own (the caller's offset is not ours to move), or without one, as
 * past_maximum_without_reopen() can tell.  (The kernel's EOPNOTSUPP proves
 * nothing: ext3's block-mapped maximum is far below what vfs_fallocate
 * checks, and a seccomp filter's answer checks nothing.)
 *
 * The signal is the kernel's too: its fallocate checks the maximum first
 * (vfs_fallocate, s_maxbytes: EFBIG alone), then, where the file grows,
 * the filesystem's inode_newsize_ok sends SIGXFSZ to the calling thread
 * and says EFBIG.  So a range past both gets no signal, nor one past the
 * limit that ends inside the file (the kernel would allocate it; our
 * writes there would meet the limit, so it stays refused, silently). */
static int past_maximum(struct emul_job *j)
{
	if (j->end <= j->known_size || j->end <= lfa_fs_end_always_allowed(j->fs_type, j->fs_block))
		return 0;
	if (emul_private_fd(j) >= 0) {
		j->rep->syscalls++;
		return lseek64(j->priv, j->end, SEEK_SET) < 0 && errno == EINVAL;
	}
	return past_maximum_without_reopen(j);
}

static int check_limits(struct emul_job *j)
{
	int past_fsize;

	j->rep->syscalls += !(j->opt && j->opt->foreign_caller);
	past_fsize = (uint64_t)j->end > lfa_fsize_limit(j->opt);
	if (past_maximum(j))
		return EFBIG;
	if (!past_fsize)
		return 0;
	/* Sent by lfa_run_job as the call returns, where the kernel's
	 * handler would run: not from inside the job, whose descriptors a
	 * handler that longjmps would leave open. */
	j->rep->fsize_signal = j->end > j->known_size;
	return EFBIG;
}

/* A file whose writes are sealed (memfd F_SEAL_WRITE) can be neither
 * written nor, for the kernel, need to be: only its size can grow.  Returns
 * whether the seals decided the call, with its answer in *err. */
static int sealed_against_writes(struct emul_job *j, int *err)
{
#ifdef F_GET_SEALS
	int seals;

	if (!(j->facts & LFA_FS_SEALS))
		return 0;
	j->rep->syscalls++;
	seals = fcntl(j->fd, F_GET_SEALS);
	if (seals < 0)
		return 0;
	if ((seals & F_SEAL_GROW) && j->end > j->target->size) {
		*err = EPERM;
		return 1;
	}
	if (!(seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)))
		return 0;
	*err = emul_refresh_size(j);
	if (*err || j->known_size >= j->end)
		return 1;
	/* ftruncate to the end would cut back a producer that grew the file
	 * since that look (its old writable mappings still write under
	 * F_SEAL_FUTURE_WRITE), unless F_SEAL_SHRINK makes the kernel refuse
	 * the cut.  Otherwise only the kernel's fallocate grows it without
	 * that risk: where it was not asked (the policy said always) it is
	 * asked now; where it said no, that answer stands. */
	if (seals & F_SEAL_SHRINK) {
		j->rep->syscalls++;
		if (ftruncate64(j->fd, j->end) != 0) {
			*err = errno;
			if (*err == EPERM && emul_refresh_size(j) == 0 && j->known_size >= j->end)
				*err = 0; /* grown past the end meanwhile */
		}
	} else if (!j->rep->native_error) {
		j->rep->syscalls++;
		*err = lfa_sys_fallocate(j->fd, 0, j->offset, j->end - j->offset);
	} else {
		*err = j->rep->native_error;
	}
	return 1;
#else
	(void)j, (void)err;
	return 0;
#endif
}

int emul_refusal(struct emul_job *j, int *decided)
{
	int err = 0;

	*decided = 1;
	/* Files of kernel interfaces: their size is not their content, and
	 * a zero written there changes a setting.  The kernel's fallocate
	 * answers EOPNOTSUPP on them; so does the emulation, before anything. */
	if (j->facts & LFA_FS_PSEUDO)
		return EOPNOTSUPP;
	/* Where files are found by name and the server answers even the held
	 * file's handle by the name (unionfs-fuse; any server or filesystem
	 * not known), nothing tells the held file's size: a rename on the
	 * server makes every look describe another file, and zeros aimed by
	 * it land on the held file's bytes.  Nothing is written: the kernel's
	 * answer, as where nothing can be emulated. */
	if ((j->facts & (LFA_FS_BY_NAME | LFA_FS_HANDLE)) == LFA_FS_BY_NAME)
		return j->rep->native_error ? j->rep->native_error : EOPNOTSUPP;
	/* Zeros there reserve no space for later overwrites (and compress to
	 * nothing): where the kernel said 0 and its blocks show nothing
	 * (OpenZFS answers 0 and leaves the file sparse, and counts its blocks
	 * compressed and late), zeros would promise no more, so the 0 stands
	 * (lfa_run_job); elsewhere an administrator may prefer the kernel's
	 * answer. */
	if (j->rep->copy_on_write && j->rep->unreserved)
		return EOPNOTSUPP;
	if (j->rep->copy_on_write && lfa_settings(j->fd).refuse_copy_on_write)
		return j->rep->native_error ? j->rep->native_error : EOPNOTSUPP;
	/* A server's size: the first look kept what the kernel had, so it is
	 * asked afresh before the limits are weighed against it, and where
	 * files are found by name, through the caller's own open file (which
	 * an O_WRONLY one cannot do: EBADF, glibc's answer). */
	if (j->facts & (LFA_FS_SHARED | LFA_FS_BY_NAME)) {
		j->size_fresh = 0;
		if ((err = emul_refresh_size(j)) != 0)
			return err;
	}
	if ((err = check_limits(j)) != 0 || sealed_against_writes(j, &err))
		return err;
	*decided = 0;
	return 0;
}

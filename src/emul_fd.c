/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Which descriptors reach the file: the job's own (a dup of the caller's,
 * made before anything was checked), one reopened through /proc when the
 * job needs a file offset or status flags of its own, and, on filesystems
 * other machines share, one reopened with O_APPEND for growing the file. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emul_job.h"
#include "job_fds.h"

/* Keeps the descriptor only if it is the job's file: /proc/self is the
 * thread group leader's table, which a thread that unshared its descriptors
 * (or a fake /proc in a chroot) does not share, and zeros written from
 * another file's hole map would destroy data. */
static int open_same_file(struct emul_job *j, const char *path, int mode, int *slot)
{
	/* O_NONBLOCK: an open that would break another process's lease
	 * fails at once instead of waiting for it (up to lease-break-time). */
	int keep = j->flags & (O_DSYNC | O_SYNC | O_NOATIME);
	struct stat64 st;
	int fd;

	fd = lfa_job_open(path, mode | keep | O_NOCTTY | O_LARGEFILE | O_NONBLOCK, j->target->dev,
			  j->target->ino, slot, &j->rep->syscalls);
	if (fd < 0 && (keep & O_NOATIME) && errno == EPERM)
		fd = lfa_job_open(path, mode | (keep & ~O_NOATIME) | O_NOCTTY | O_LARGEFILE |
				  O_NONBLOCK, j->target->dev, j->target->ino, slot, &j->rep->syscalls);
	if (fd >= 0) {
		j->rep->syscalls++;
		if (fstat64(fd, &st) != 0 || st.st_dev != j->target->dev ||
		    st.st_ino != j->target->ino) {
			j->rep->syscalls++;
			lfa_job_close(fd, *slot);
			fd = -1;
		}
	}
	return fd;
}

/* The first of modes that opens the job's file again, through the thread's
 * table or the process's; -1 where none does.  Never while the caller holds
 * a lease on the file: our open would break it, signalling the caller and
 * stalling us.  Never where the filesystem finds files by name: the open
 * would reach whatever has the name now, with the same st_dev and st_ino
 * (fs_facts.c). */
static int reopen(struct emul_job *j, const int *modes, size_t n, int *slot, int *mode)
{
	static const char *const tables[] = { "/proc/thread-self/fd/", "/proc/self/fd/" };
	char path[40];
	size_t t, i;
	int fd = -1;

	if (j->facts & LFA_FS_BY_NAME)
		return -1;
	j->rep->syscalls++;
	if (fcntl(j->fd, F_GETLEASE) != F_UNLCK)
		return -1;
	for (t = 0; t < sizeof tables / sizeof tables[0] && fd < 0; t++) {
		snprintf(path, sizeof path, "%s%d", tables[t], j->fd);
		for (i = 0; i < n && fd < 0; i++) {
			fd = open_same_file(j, path, modes[i], slot);
			*mode = modes[i];
			/* The server has no file for the handle (NFS, renamed
			 * over there): no other mode or table opens it. */
			if (fd < 0 && errno == ESTALE)
				return -1;
		}
	}
	return fd;
}

/* Opened at most once per job. */
int emul_private_fd(struct emul_job *j)
{
	static const int modes[] = { O_RDWR, O_WRONLY, O_RDONLY };

	if (j->priv_tried)
		return j->priv;
	j->priv_tried = 1;
	j->priv = reopen(j, modes, sizeof modes / sizeof modes[0], &j->priv_slot, &j->priv_mode);
	return j->priv;
}

/* Where another machine appends to the file, this client's idea of its
 * end is stale: through FUSE, pwritev2(RWF_APPEND) lands at the size this
 * client cached, over whatever another client appended meanwhile.  A
 * descriptor opened with O_APPEND makes the server append (FUSE passes the
 * open's flags on; NFS and CIFS clients ask the server's size first).  The
 * caller's own serves if it is one (not O_DIRECT, which would want the end
 * aligned); otherwise one is opened, once per job, with the reopen's
 * price: watchers see IN_OPEN and IN_CLOSE_WRITE.  -1 where none can be
 * had (a lease, no /proc, a mode that no longer lets us write): the
 * appends are then RWF_APPEND's, with its window (README, Known limits).
 * overlayfs too (LFA_FS_APPEND_OPEN): older kernels' overlayfs drops
 * RWF_APPEND. */
int emul_append_fd(struct emul_job *j)
{
	static const int modes[] = { O_WRONLY | O_APPEND, O_RDWR | O_APPEND };
	/* NFS: a buffered append lands in this client's cache at its size,
	 * and reaches the server later, at that offset, over whatever another
	 * client appended meanwhile; with O_DIRECT it goes out at once, at the
	 * size just asked of the server (emul_refresh_size): the window is
	 * one round trip, not the client's writeback delay.  ceph-fuse
	 * (LFA_FS_SERVER_DIRECT too): a buffered append lands at the size
	 * this client's kernel cached, over another client's records (580 of
	 * 2,000 lost by plain O_APPEND zeros; the library's, through O_DIRECT,
	 * 1: tests/shared/cephfs.sh). */
	static const int nfs_modes[] = { O_WRONLY | O_APPEND | O_DIRECT,
					 O_RDWR | O_APPEND | O_DIRECT };
	int mode;

	if (j->app_tried)
		return j->app;
	j->app_tried = 1;
	j->app = -1;
	if (j->facts & LFA_FS_SERVER_DIRECT)
		j->app = reopen(j, nfs_modes, sizeof nfs_modes / sizeof nfs_modes[0], &j->app_slot,
				&mode);
	if (j->app >= 0)
		return j->app;
	if ((j->flags & O_APPEND) && !(j->flags & O_DIRECT))
		j->app = j->fd;
	else
		j->app = reopen(j, modes, sizeof modes / sizeof modes[0], &j->app_slot, &mode);
	return j->app;
}

/* pread leaves the file offset alone, so the job's own descriptor serves
 * when it reads; read-back reads unaligned pieces, which O_DIRECT refuses. */
int emul_readable_fd(struct emul_job *j)
{
	if ((j->flags & O_ACCMODE) == O_RDWR && !(j->flags & O_DIRECT))
		return j->fd;
	return emul_private_fd(j) >= 0 && j->priv_mode != O_WRONLY ? j->priv : -1;
}

/* On NFS (and ceph-fuse, whose kernel keeps pages across another
 * client's writes) a page this client cached can hold zeros where the server now
 * has another client's bytes (a page read, or appended to, when the end of
 * file was there: NFS drops no page that waits for a COMMIT, so
 * POSIX_FADV_DONTNEED cannot be relied on), and the engine would write
 * zeros over them.  A descriptor with O_DIRECT reads the server's bytes
 * (the NFS client takes O_DIRECT reads of any size and offset, and writes
 * this client's dirty pages out first).  Opened once per job; -1 where
 * it cannot be (then the cached read, after the drop, as elsewhere). */
int emul_server_read_fd(struct emul_job *j)
{
	static const int modes[] = { O_RDWR | O_DIRECT, O_RDONLY | O_DIRECT };

	if (!(j->facts & LFA_FS_SERVER_DIRECT))
		return -1;
	if (j->dio_tried)
		return j->dio;
	j->dio_tried = 1;
	j->dio = reopen(j, modes, sizeof modes / sizeof modes[0], &j->dio_slot, &j->dio_mode);
	return j->dio;
}

/* Where the filesystem finds files by name, fstat asks the server about
 * the name, and the kernel keeps the answer as the file's size until it
 * expires: the size of whatever has the name now.  A read of nothing past
 * any end through the caller's own open file asks instead with its handle
 * (FUSE's GETATTR with the file handle, when the kept attributes expired
 * or a write made them stale), and touches no page, no atime; the look
 * after it takes the kept answer as it is (AT_STATX_DONT_SYNC), never
 * asking by the name.
 * A descriptor that cannot read (O_WRONLY) can learn nothing of the held
 * file: EBADF, glibc's answer for it, before any write. */
#define HANDLE_LOOK_AT (INT64_MAX - 1)

static int look_through_handle(struct emul_job *j)
{
	char byte;

	j->rep->syscalls++;
	/* EBADF: not readable.  The server's own failure (EIO, ENOTCONN,
	 * EINTR) is the call's; EINVAL, a filesystem that refuses such a
	 * read, leaves the kept size. */
	if (pread64(j->fd, &byte, 0, HANDLE_LOOK_AT) < 0 && errno != EINVAL)
		return errno;
#ifdef HAVE_STATX
	{
		struct statx sx;

		j->rep->syscalls++;
		if (statx(j->fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_SIZE, &sx) == 0) {
			j->known_size = (int64_t)sx.stx_size;
			return 0;
		}
		if (errno != ENOSYS)
			return errno;
	}
#endif
	return -1; /* fstat's look, which the read just made fresh */
}

int emul_refresh_size(struct emul_job *j)
{
	struct stat64 st;
	int err;

	if ((j->facts & LFA_FS_BY_NAME) && (err = look_through_handle(j)) >= 0)
		return err;
#ifdef HAVE_STATX
	/* NFS: fstat answers from the attributes this client cached (up to
	 * acregmax old), which miss another client's appends: a write aimed
	 * at that size lands on them.  AT_STATX_FORCE_SYNC asks the server
	 * (a GETATTR, after this client's own dirty pages went out). */
	if (j->facts & LFA_FS_SERVER_DIRECT) {
		struct statx sx;

		j->rep->syscalls++;
		if (statx(j->fd, "", AT_EMPTY_PATH | AT_STATX_FORCE_SYNC, STATX_SIZE, &sx) == 0 &&
		    (sx.stx_mask & STATX_SIZE)) {
			j->known_size = (int64_t)sx.stx_size;
			return 0;
		}
	}
#endif
	j->rep->syscalls++;
	if (fstat64(j->fd, &st) != 0)
		return errno;
	j->known_size = st.st_size;
	return 0;
}

void emul_close_private(struct emul_job *j)
{
	if (j->priv >= 0) {
		j->rep->syscalls++;
		lfa_job_close(j->priv, j->priv_slot);
		j->priv = -1;
	}
	emul_drop_appended(j); /* before its descriptor goes */
	if (j->app_tried && j->app >= 0 && j->app != j->fd) {
		j->rep->syscalls++;
		lfa_job_close(j->app, j->app_slot);
	}
	j->app_tried = 0;
	if (j->dio_tried && j->dio >= 0) {
		j->rep->syscalls++;
		lfa_job_close(j->dio, j->dio_slot);
	}
	j->dio_tried = 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* How zeros reach the file: positional writes, one syscall per call, through
 * a descriptor that puts them where they are aimed. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "emul_job.h"
#include "job_fds.h"

/* Zeros go out from one page-aligned buffer in .bss, never written, so it
 * costs no memory and satisfies O_DIRECT's alignment. */
#define ZERO_BUF_SIZE (64 * 1024)
static unsigned char zeros[ZERO_BUF_SIZE] __attribute__((aligned(4096)));

static int private_writable(struct emul_job *j)
{
	return emul_private_fd(j) >= 0 && j->priv_mode != O_RDONLY;
}

/* An O_APPEND descriptor appends whatever offset it is given, and on
 * overlayfs and FUSE even pwritev2(RWF_NOAPPEND) is accepted and then
 * appended by the layer below: positional writes need a descriptor without
 * O_APPEND, or cannot be made (glibc says EBADF too).  A size check after
 * the write could not tell a misplaced write from another writer's append.
 * On 32-bit ABIs one without O_LARGEFILE cannot write past 2 GiB. */
int emul_choose_writer(struct emul_job *j)
{
	int no_largefile = O_LARGEFILE && !(j->flags & O_LARGEFILE) && j->end > INT32_MAX;

	j->writer = WRITE_BOUND;
	j->direct = !!(j->flags & O_DIRECT);
	if (j->target->append_only) {
		j->writer = WRITE_APPEND; /* the kernel let it open only with O_APPEND */
		return 0;
	}
	/* O_DIRECT takes aligned pieces only, an unaligned head or tail goes
	 * through a descriptor of our own: without one, glibc's answer
	 * (EINVAL) before anything is written, not part way. */
	if (j->direct && !(j->flags & O_APPEND) && ((j->offset | j->end) & (j->block - 1)) &&
	    !private_writable(j))
		return EINVAL;
	if (!(j->flags & O_APPEND) && !no_largefile)
		return 0;
	if (!private_writable(j))
		return (j->flags & O_APPEND) ? EBADF : EFBIG;
	j->writer = WRITE_PRIVATE;
	j->direct = 0;
	return 0;
}

/* O_DIRECT takes aligned pieces only: those go direct, an unaligned head or
 * tail through our buffered descriptor.  Returns the descriptor and trims
 * *n, or -1 when no descriptor can take the piece. */
static int direct_piece(struct emul_job *j, int64_t off, int64_t *n)
{
	int64_t mask = j->block - 1;

	if (!(off & mask) && *n >= j->block) {
		*n &= ~mask;
		return j->fd;
	}
	if (off & mask)
		*n = emul_min(*n, j->block - (off & mask));
	return private_writable(j) ? j->priv : -1;
}

int emul_write(struct emul_job *j, int64_t off, int64_t end, int64_t *done)
{
	struct iovec iov[WRITE_CHUNK / ZERO_BUF_SIZE];
	int64_t n = emul_min(end - off, WRITE_CHUNK), left;
	int fd = j->writer == WRITE_PRIVATE ? j->priv : j->fd;
	int cnt = 0, err;
	ssize_t w;

	*done = 0;
	/* In a child forked mid-call (by a progress callback), the job's
	 * descriptors were closed and their numbers may be another file's. */
	if (lfa_fork_generation() != j->fork_generation)
		return EBADF;
	if (j->writer == WRITE_BOUND && j->direct && (fd = direct_piece(j, off, &n)) < 0)
		return EINVAL; /* glibc's answer on O_DIRECT */
	for (left = n; left > 0; left -= ZERO_BUF_SIZE, cnt++) {
		iov[cnt].iov_base = zeros;
		iov[cnt].iov_len = (size_t)emul_min(left, ZERO_BUF_SIZE);
	}
	j->rep->syscalls++;
	w = emul_cache_pwritev(j, fd, iov, cnt, off);
	if (w < 0) {
		err = errno;
		if (err == EINTR)
			return 0; /* the caller looks again before writing */
		/* A filesystem may want stricter O_DIRECT alignment than its
		 * block: our buffered descriptor takes everything from here. */
		if (err == EINVAL && fd == j->fd && j->direct && private_writable(j)) {
			j->writer = WRITE_PRIVATE;
			j->direct = 0;
			return 0;
		}
		return err;
	}
	if (w == 0)
		return EIO;
	*done = w;
	j->rep->bytes_written += (uint64_t)w;
	emul_wrote(j);
	emul_cache_wrote(j, off, w);
	if (j->writer == WRITE_APPEND)
		return 0; /* landed at the end of file, wherever that was */
	j->known_size = emul_max(j->known_size, off + w);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The zero-writing job.  Its rules, each with a test that makes another
 * writer act at an exact syscall of this code:
 *  - no byte outside [offset, end) is ever written;
 *  - the file never gets shorter: no ftruncate, only positional writes, from
 *    low offsets to high, so a job stopped at any instant leaves old bytes
 *    intact and no hole in the part of the range it has passed;
 *  - a piece is written only right after a look that shows it needs zeros:
 *    the hole map, or the size for the part past the end of file, is read
 *    again after every write;
 *  - limits (RLIMIT_FSIZE, the filesystem's maximum) fail before any write. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "emul_job.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010 /* Linux 5.1; older headers lack it */
#endif

static int report_progress(struct emul_job *j, int64_t pos)
{
	uint64_t done = (uint64_t)(emul_min(pos, j->end) - j->offset);

	if (!j->opt || !j->opt->progress || done <= j->progress_done)
		return 0;
	j->progress_done = done;
	return j->opt->progress(j->opt->progress_arg, done, (uint64_t)(j->end - j->offset)) ?
	       ECANCELED : 0;
}

static void describe_filesystem(struct emul_job *j)
{
	struct statfs64 sf;

	j->block = 4096;
	j->rep->syscalls++;
	if (fstatfs64(j->fd, &sf) != 0)
		return;
	j->fs_type = (uint32_t)sf.f_type;
	/* Our block must not be larger than the filesystem's: a larger one
	 * could hide an unallocated block behind an allocated one. */
	if (sf.f_bsize >= 512 && sf.f_bsize < 4096 && !(sf.f_bsize & (sf.f_bsize - 1)))
		j->block = (int64_t)sf.f_bsize;
}

/* A write past RLIMIT_FSIZE raises SIGXFSZ, which kills by default, and one
 * past the filesystem's maximum fails part way: both must fail first, with
 * EFBIG as the kernel's.  lseek to an offset past the maximum fails with
 * EINVAL (on our own descriptor: the caller's offset is not ours to move). */
static int check_limits(struct emul_job *j)
{
	struct rlimit64 lim;

	j->rep->syscalls++;
	if (getrlimit64(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM64_INFINITY &&
	    (uint64_t)j->end > lim.rlim_cur)
		return EFBIG;
	if (j->end > j->target->size && emul_private_fd(j) >= 0) {
		j->rep->syscalls++;
		if (lseek64(j->priv, j->end, SEEK_SET) < 0 && errno == EINVAL)
			return EFBIG;
	}
	return 0;
}

/* Past the end of file every byte reads as zero, but another writer may
 * have appended since we last looked: look again before each write. */
static int extend(struct emul_job *j, int64_t *pos)
{
	int64_t start = *pos, done;
	int err;

	if ((err = emul_refresh_size(j)) != 0)
		return err;
	if (j->known_size > *pos)
		return 0; /* data now: the hole map decides */
	if (j->writer == WRITE_APPEND) /* lands at the end of file, wherever */
		start = j->known_size;
	if ((err = emul_write(j, start, j->end, &done)) != 0)
		return err;
	*pos = emul_max(*pos, start + done);
	return 0;
}

static int fill_inside(struct emul_job *j, int64_t *pos)
{
	int64_t a, b, done;
	int err;

	if (j->rep->hole_map == LFA_MAP_NONE && (err = emul_setup_map(j)) != 0)
		return err;
	err = emul_next_zeros(j, *pos, emul_min(j->end, j->known_size), &a, &b);
	if (err == EMUL_EOF) {
		j->known_size = a;
		*pos = emul_max(*pos, a);
		return 0;
	}
	if (err)
		return err;
	if (a == b) {
		*pos = a;
		return 0;
	}
	/* An append-only file takes no write inside it: a hole there is the
	 * one thing the emulation cannot allocate. */
	if (j->writer == WRITE_APPEND)
		return EPERM;
	if ((err = emul_write(j, a, b, &done)) != 0)
		return err;
	*pos = a + done;
	return 0;
}

/* A file whose writes are sealed (memfd F_SEAL_WRITE) can be neither
 * written nor, for the kernel, need to be: only its size can grow. */
static int sealed_against_writes(struct emul_job *j, int *err)
{
#ifdef F_GET_SEALS
	int seals;

	if (j->fs_type != 0x01021994 && j->fs_type != 0x958458F6) /* tmpfs, hugetlbfs */
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
	if (!*err && j->known_size < j->end) {
		j->rep->syscalls++;
		if (ftruncate64(j->fd, j->end) != 0)
			*err = errno;
	}
	return 1;
#else
	(void)j, (void)err;
	return 0;
#endif
}

/* When nothing needed writing, the kernel still refuses an active swapfile
 * (ETXTBSY), as a write of nothing does. */
static int nothing_written_check(struct emul_job *j)
{
	j->rep->syscalls++;
	return pwrite64(j->fd, "", 0, j->offset) < 0 ? errno : 0;
}

int lfa_emulate(int fd, int64_t offset, int64_t len, const struct lfa_target *t,
		const struct lfa_job_options *opt, struct lfa_job_report *rep)
{
	struct emul_job j;
	int64_t pos;
	int err;

	memset(&j, 0, sizeof j);
	j.offset = pos = offset;
	j.end = offset + len;
	j.target = t;
	j.opt = opt;
	j.rep = rep;
	j.fd = fd;
	j.flags = t->flags;
	j.priv = -1;
	j.data_at = -1;
	j.known_size = t->size;
	rep->emulated = 1;
	describe_filesystem(&j);
	rep->copy_on_write = emul_copy_on_write_fs(j.fs_type);
	/* Zeros there reserve no space for later overwrites (and compress to
	 * nothing): an administrator may prefer the kernel's answer. */
	if (rep->copy_on_write && lfa_settings(fd).refuse_copy_on_write) {
		err = rep->native_error ? rep->native_error : EOPNOTSUPP;
		goto out;
	}
	if ((err = check_limits(&j)) != 0 || sealed_against_writes(&j, &err) ||
	    (err = emul_choose_writer(&j)) != 0)
		goto out;
	emul_cache_start(&j);
	while (pos < j.end && !err) {
		if (pos >= j.known_size)
			err = extend(&j, &pos);
		else
			err = fill_inside(&j, &pos);
		if (!err)
			err = report_progress(&j, pos);
	}
	if (!err && rep->bytes_written == 0)
		err = nothing_written_check(&j);
out:
	emul_cache_finish(&j);
	emul_release_map(&j);
	if (j.priv >= 0) {
		rep->syscalls++;
		close(j.priv);
	}
	return err;
}

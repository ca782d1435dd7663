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
#include <sys/statfs.h>
#include <unistd.h>

#include "emul_job.h"
#include "job_fds.h"
#include "sys_fallocate.h"

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
	/* Learned by the look after the kernel's 0, if of the same device
	 * (another thread may have put another file under the caller's
	 * descriptor number since). */
	if (j->rep->fs_known && j->rep->fs_dev == j->target->dev) {
		j->fs_type = j->rep->fs_type;
		j->fs_block = j->rep->fs_block;
		j->facts = j->rep->fs_facts;
	} else {
		j->facts = lfa_fs_facts_of_type(0); /* the careful ones, until it is known */
		j->rep->syscalls++;
		if (fstatfs64(j->fd, &sf) != 0)
			return;
		j->fs_type = (uint32_t)sf.f_type;
		j->fs_block = (int64_t)sf.f_bsize;
		j->facts = lfa_fs_facts(j->fs_type, j->target->dev, &j->rep->syscalls);
	}
	/* Our block must not be larger than the filesystem's: a larger one
	 * could hide an unallocated block behind an allocated one. */
	if (j->fs_block >= 512 && j->fs_block < 4096 && !(j->fs_block & (j->fs_block - 1)))
		j->block = j->fs_block;
}

/* The file is shorter than what was done: from its new end again, but not
 * for ever (a file cut after every write gives way, as the check before
 * success does). */
static int go_back_if_cut(struct emul_job *j, int64_t *pos)
{
	if (j->known_size >= *pos || *pos <= j->offset)
		return 0;
	if (++j->setbacks > EMUL_RETRIES)
		return EMUL_GAVE_WAY;
	*pos = emul_max(j->offset, j->known_size);
	j->reshaped = 1;
	return 0;
}

/* The look after an append: where it landed.  A size other than the one
 * it implies means another writer changed the file meanwhile, before the
 * append or after: its appends are data, but a positional write or an
 * ftruncate past the end would have left a hole below our zeros, which
 * may even lie wholly past the range.  The hole map then looks at the
 * part from pos again (it reads back on ramfs, where SEEK_HOLE sees no
 * holes), and the range is checked before success. */
static int after_append(struct emul_job *j, int64_t *pos, int64_t done)
{
	int err;

	if ((err = emul_refresh_size(j)) != 0)
		return err;
	j->size_fresh = 1;
	if (j->known_size == *pos + done) {
		/* Landed where aimed: only then are they known to be ours for
		 * the page-cache window to drop. */
		emul_cache_wrote(j, *pos, done);
		*pos += done;
		return 0;
	}
	j->reshaped = 1;
	if (j->known_size >= *pos + done) {
		/* Where no write can be aimed (the caller's O_APPEND descriptor
		 * on a filesystem that finds files by name), what lies below
		 * the end now is appends, another writer's and ours, which
		 * leave no hole: nothing there needs a look, nor could take a
		 * write.  The check before success sees the size. */
		if (j->aiming_refused)
			*pos = j->known_size;
		return 0;
	}
	/* Cut below our zeros, during the append or after it. */
	if (++j->setbacks > EMUL_RETRIES)
		return EMUL_GAVE_WAY;
	*pos = emul_max(j->offset, emul_min(*pos, j->known_size));
	return 0;
}

/* Past the end of file every byte reads as zero, but another writer may
 * have appended since we last looked: look again before each write.  At
 * the end of file the zeros are appended (RWF_APPEND), so that an append
 * by another writer between that look and the write lands before them,
 * whole; the look after says where they landed (another writer's write
 * past the end in that window leaves a hole below them), and serves as the
 * next piece's look, as the size just checked serves the first piece's
 * when the range starts at the end of file.  A positional write (where the
 * kernel or the descriptor cannot append: README, Known limits) is made
 * only right after a look. */
static int extend(struct emul_job *j, int64_t *pos)
{
	int64_t start = *pos, limit = j->end, done;
	int fresh = j->size_fresh, err;

	j->size_fresh = 0;
	if (!fresh || j->known_size != *pos || j->no_append || j->writer == WRITE_APPEND) {
		if ((err = emul_refresh_size(j)) != 0 || (err = go_back_if_cut(j, pos)) != 0)
			return err;
		start = *pos;
		if (j->known_size > *pos)
			return 0; /* data now: the hole map decides */
	}
	if (j->writer == WRITE_APPEND) { /* lands at the end of file, wherever */
		start = j->known_size;
	} else if (j->known_size == *pos && !j->no_append) {
		err = emul_append(j, j->end - *pos, &done);
		if (err != EMUL_NO_APPEND)
			return err ? err : after_append(j, pos, done);
		j->no_append = 1;
		return 0; /* positional from now on, after a look */
	} else if (j->known_size < *pos && j->aiming_refused && j->rep->bytes_written) {
		/* Cut below where our appends began (a copytruncate) where no
		 * write can be aimed: the cut can be ordered after the call,
		 * and no refusal may follow a write. */
		return EMUL_GAVE_WAY;
	} else if (j->known_size < *pos) {
		/* The range starts past the end of file, whose gap stays a hole:
		 * the first piece goes where aimed, one block only, so that an
		 * append racing it loses at most that; the rest is appended. */
		limit = emul_min(j->end, *pos + j->block);
	}
	/* Otherwise no append can be made (a kernel before 4.16, O_DIRECT, a
	 * sandbox refusing pwritev2): whole pieces where aimed, right after
	 * the look above. */
	if ((err = emul_write(j, start, limit, &done)) != 0)
		return err;
	*pos = emul_max(*pos, start + done);
	return 0;
}

static int fill_inside(struct emul_job *j, int64_t *pos)
{
	int64_t a, b, done;
	int err;

	j->size_fresh = 0;
	if (j->rep->hole_map == LFA_MAP_NONE && (err = emul_setup_map(j)) != 0)
		return err;
	err = emul_next_zeros(j, *pos, emul_min(j->end, j->known_size), &a, &b);
	if (err == EMUL_EOF) {
		/* Reads that keep ending before the size fstat gives would
		 * spin for ever.  Where the size holds still, a FUSE server
		 * lies about it: EINVAL, what glibc's byte-per-block writer
		 * gets from such files.  Where another machine writes the file
		 * and the size moved between those reads, the bytes below it
		 * are another client's writes still in flight (ceph-fuse
		 * publishes the size before the data): not known to hold
		 * zeros, never written, and the call gives way as to a writer
		 * that cuts the file (no fallocate answers EINVAL there). */
		if (j->early_eofs && j->known_size != j->eof_size)
			j->eof_size_moved = 1;
		j->eof_size = j->known_size;
		if (++j->early_eofs > EMUL_RETRIES)
			return (j->facts & LFA_FS_SHARED) && j->eof_size_moved ? EMUL_GAVE_WAY : EINVAL;
		j->reshaped = 1;
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

/* Holes that stay after every redo: either another thread set O_APPEND on
 * the descriptor (on a kernel without RWF_NOAPPEND the writes then append,
 * past the range: glibc's answer for an O_APPEND descriptor), or other
 * writers keep cutting, punching or extending the file, which can be
 * ordered after the call, so it gives way. */
static int append_set_mid_call(struct emul_job *j)
{
	int flags;

	if (j->writer != WRITE_BOUND)
		return 0;
	j->rep->syscalls++;
	flags = fcntl(j->fd, F_GETFL);
	return flags >= 0 && (flags & O_APPEND);
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
	int pass, decided, err;

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
	j.fork_generation = lfa_fork_generation();
	/* Looked at just now, and nothing done since. */
	j.size_fresh = offset == t->size;
	rep->emulated = 1;
	describe_filesystem(&j);
	rep->copy_on_write = !!(j.facts & LFA_FS_COPY_ON_WRITE);
	if ((err = emul_refusal(&j, &decided)) != 0 || decided ||
	    (err = emul_choose_writer(&j)) != 0)
		goto out;
	emul_cache_start(&j);
	for (pass = 0; !err; pass++) {
		while (pos < j.end && !err) {
			if (pos >= j.known_size)
				err = extend(&j, &pos);
			else
				err = fill_inside(&j, &pos);
			if (!err)
				err = report_progress(&j, pos);
		}
		if (err || !j.reshaped)
			break;
		/* The engine's own appends leave no hole; anything else may
		 * have (a write aimed past an end another writer cut shorter
		 * meanwhile): the range is whole before success, or redone. */
		j.reshaped = j.size_fresh = 0;
		if ((err = emul_first_gap(&j, &pos)) != 0 || pos >= j.end)
			break;
		if (pass == EMUL_RETRIES)
			err = append_set_mid_call(&j) ? EBADF : EMUL_GAVE_WAY;
	}
	/* A file cut again and again by another writer (a log rotator's
	 * copytruncate in a loop): the cuts can be ordered after the call, as
	 * the kernel's fallocate racing them can end, and no fallocate answers
	 * EAGAIN.  Nothing outside the range was written, nothing cut. */
	if (err == EMUL_GAVE_WAY) {
		rep->gave_way = 1;
		err = 0;
	}
	if (!err && rep->bytes_written == 0)
		err = nothing_written_check(&j);
out:
	emul_cache_finish(&j);
	emul_release_map(&j);
	emul_close_private(&j);
	return err;
}

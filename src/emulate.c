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
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/fs.h>)
#include <linux/fs.h>
#endif
#endif

#include "emul_job.h"
#include "job_fds.h"
#include "sys_fallocate.h"

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
	j->fs_block = (int64_t)sf.f_bsize;
	/* Our block must not be larger than the filesystem's: a larger one
	 * could hide an unallocated block behind an allocated one. */
	if (sf.f_bsize >= 512 && sf.f_bsize < 4096 && !(sf.f_bsize & (sf.f_bsize - 1)))
		j->block = (int64_t)sf.f_bsize;
}

/* Files of kernel interfaces: their size is not their content, and a zero
 * written there changes a setting.  The kernel's fallocate answers
 * EOPNOTSUPP on them; so does the emulation, before anything. */
static int pseudo_filesystem(uint32_t fs_type)
{
	switch (fs_type) {
	case 0x62656572: /* sysfs */
	case 0x9FA0:     /* proc */
	case 0x64626720: /* debugfs */
	case 0x62656570: /* configfs */
	case 0x73636673: /* securityfs */
	case 0x27E0EB:   /* cgroup */
	case 0x63677270: /* cgroup2 */
	case 0x74726163: /* tracefs */
	case 0xCAFE4A11: /* bpf */
	case 0x6165676C: /* pstore */
	case 0xDE5E81E4: /* efivarfs */
	case 0xF97CFF8C: /* selinuxfs */
	case 0x43415D53: /* smackfs */
	case 0x42494E4D: /* binfmt_misc */
	case 0x65735543: /* fusectl */
	case 0x07655821: /* resctrl */
	case 0x9FA2:     /* usbdevfs */
	case 0x19800202: /* mqueue */
		return 1;
	default:
		return 0;
	}
}

#if defined(FS_IOC_GETFLAGS) && defined(FS_EXTENT_FL)
/* ext4_max_bitmap_size(): the maximum of a block-mapped (ext2/ext3-style)
 * file, from the block size alone.  With 1 and 2 KiB blocks the block tree
 * limits it; with 4 KiB and more it is i_blocks's limit, larger with the
 * huge_file feature, which is assumed (a smaller answer would refuse ranges
 * the kernel allows). */
static int64_t block_mapped_max(int64_t fs_block)
{
	int64_t per_block, blocks;
	int bits = 10;

	while (bits < 16 && ((int64_t)1 << bits) < fs_block)
		bits++;
	per_block = (int64_t)1 << (bits - 2);
	blocks = 12 + per_block + per_block * per_block + per_block * per_block * per_block;
	return blocks > (INT64_MAX >> bits) ? INT64_MAX : blocks << bits;
}
#endif

/* The maximum without a descriptor of our own (the caller holds a lease, no
 * descriptor is left, /proc is not mounted).  ext2/3/4 block-mapped files
 * (no extents flag): computed.  Elsewhere a copy_file_range of nothing to
 * end - 1, which the kernel checks against the filesystem's maximum first,
 * needs a readable descriptor and moves no offset.  Neither seen: the
 * kernel's writes will say (ext2/3 with 4 KiB blocks and no huge_file: from
 * 2 to 4 TiB, after writing up to the maximum). */
static int past_maximum_without_reopen(struct emul_job *j)
{
#if defined(FS_IOC_GETFLAGS) && defined(FS_EXTENT_FL)
	if (j->fs_type == FS_EXT) {
		int attr = 0;

		j->rep->syscalls++;
		if (ioctl(j->fd, FS_IOC_GETFLAGS, &attr) == 0 && !(attr & FS_EXTENT_FL))
			return j->end > block_mapped_max(j->fs_block);
	}
#endif
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
 * checks, and a seccomp filter's answer checks nothing.) */
static int check_limits(struct emul_job *j)
{
	j->rep->syscalls += !(j->opt && j->opt->foreign_caller);
	if ((uint64_t)j->end > lfa_fsize_limit(j->opt))
		return EFBIG;
	if (j->end <= j->target->size || j->end <= emul_end_always_allowed(j->fs_type, j->fs_block))
		return 0;
	if (emul_private_fd(j) >= 0) {
		j->rep->syscalls++;
		return lseek64(j->priv, j->end, SEEK_SET) < 0 && errno == EINVAL ? EFBIG : 0;
	}
	return past_maximum_without_reopen(j) ? EFBIG : 0;
}

/* The file is shorter than what was done: from its new end again, but not
 * for ever (a file cut after every write fails as the check before success
 * does, with EAGAIN). */
static int go_back_if_cut(struct emul_job *j, int64_t *pos)
{
	if (j->known_size >= *pos || *pos <= j->offset)
		return 0;
	if (++j->setbacks > EMUL_RETRIES)
		return EAGAIN;
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
	if (j->known_size >= *pos + done)
		return 0;
	/* Cut below our zeros, during the append or after it. */
	if (++j->setbacks > EMUL_RETRIES)
		return EAGAIN;
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
		/* Reads that keep ending before the size fstat gives (a FUSE
		 * server that lies about the size) would spin for ever.  EINVAL
		 * is what glibc's byte-per-block writer gets from such files. */
		if (++j->early_eofs > EMUL_RETRIES)
			return EINVAL;
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

/* A file whose writes are sealed (memfd F_SEAL_WRITE) can be neither
 * written nor, for the kernel, need to be: only its size can grow. */
static int sealed_against_writes(struct emul_job *j, int *err)
{
#ifdef F_GET_SEALS
	int seals;

	if (j->fs_type != FS_TMPFS && j->fs_type != FS_HUGETLBFS)
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
	int pass, err;

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
	if (pseudo_filesystem(j.fs_type)) {
		err = EOPNOTSUPP;
		goto out;
	}
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
		 * meanwhile): the range is whole before success, or redone.
		 * A file cut again and again fails with EAGAIN. */
		j.reshaped = j.size_fresh = 0;
		if ((err = emul_first_gap(&j, &pos)) != 0 || pos >= j.end)
			break;
		if (pass == EMUL_RETRIES)
			err = EAGAIN;
	}
	if (!err && rep->bytes_written == 0)
		err = nothing_written_check(&j);
out:
	emul_cache_finish(&j);
	emul_release_map(&j);
	emul_close_private(&j);
	return err;
}

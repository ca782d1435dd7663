/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "emulate.h"

#ifndef RWF_NOAPPEND
#define RWF_NOAPPEND 0x00000020 /* Linux 6.9; Debian 12's headers lack it */
#endif

/* Zeros go out from one page-aligned buffer in .bss, never written, so it
 * costs no memory and satisfies O_DIRECT's alignment; one pwritev carries up
 * to WRITE_CHUNK bytes, which under O_DSYNC is what each sync costs. */
#define ZERO_BUF_SIZE (64 * 1024)
#define WRITE_CHUNK ((int64_t)4 << 20)
#define PROBE_CHUNK ((size_t)2 << 20)
#define PROBE_STACK_CHUNK ((size_t)4096)
#define PROBE_GRAIN ((int64_t)512)

static unsigned char zeros[ZERO_BUF_SIZE] __attribute__((aligned(4096)));

enum writer {
	WRITE_CALLER,   /* pwritev on the caller's descriptor */
	WRITE_NOAPPEND, /* pwritev2(RWF_NOAPPEND) on the caller's O_APPEND descriptor */
	WRITE_PRIVATE,  /* pwritev on our own descriptor for the file */
};

struct job {
	const struct lfa_target *target;
	int fd, flags;
	int priv, priv_mode, priv_tried; /* our reopened descriptor and its access mode */
	enum writer writer;
	int direct;                      /* writes on the caller's O_DIRECT descriptor */
	int64_t block;
	int64_t offset, end, old_size, new_size;
	int64_t run_start, run_end;      /* zeros waiting to be written */
	int64_t write_limit;             /* RLIMIT_FSIZE when the size does not grow */
	uint64_t progress_done;          /* what was last reported: never goes back */
	const struct lfa_job_options *opt;
	struct lfa_job_report *rep;
};

static int64_t align_down(int64_t v, int64_t a) { return v & ~(a - 1); }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Opens path and keeps the descriptor only if it is the caller's file:
 * /proc/self is the thread group leader's table, which a thread that
 * unshared its descriptors (or a fake /proc in a chroot) does not share, and
 * zeros written from another file's hole map would destroy data. */
static int open_same_file(struct job *j, const char *path, int mode)
{
	struct stat64 st;
	int fd;

	j->rep->syscalls += 2;
	fd = open(path, mode | O_CLOEXEC | O_NOCTTY | O_LARGEFILE | (j->flags & (O_DSYNC | O_SYNC)));
	if (fd >= 0 && (fstat64(fd, &st) != 0 || st.st_dev != j->target->dev ||
			st.st_ino != j->target->ino)) {
		j->rep->syscalls++;
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A descriptor of our own, reopened through /proc: it has its own file
 * offset (for SEEK_DATA) and fresh status flags (no O_APPEND, no O_DIRECT), so
 * the caller's descriptor is never changed under other threads.  Read access
 * is asked for first, since read-back probing needs it. */
static int open_private(struct job *j)
{
	static const char *const tables[] = { "/proc/thread-self/fd/", "/proc/self/fd/" };
	static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY };
	char path[40];
	size_t t, i;

	if (j->priv_tried)
		return j->priv;
	j->priv_tried = 1;
	for (t = 0; t < sizeof tables / sizeof tables[0] && j->priv < 0; t++) {
		snprintf(path, sizeof path, "%s%d", tables[t], j->fd);
		for (i = 0; i < sizeof modes / sizeof modes[0] && j->priv < 0; i++) {
			j->priv = open_same_file(j, path, modes[i]);
			j->priv_mode = modes[i];
		}
	}
	return j->priv;
}

/* Read-back probing reads unaligned tails, which an O_DIRECT descriptor
 * refuses: ours comes first then. */
static int readable_fd(struct job *j)
{
	int caller_reads = (j->flags & O_ACCMODE) == O_RDWR;

	if (caller_reads && !(j->flags & O_DIRECT))
		return j->fd;
	if (open_private(j) >= 0 && j->priv_mode != O_WRONLY)
		return j->priv;
	return caller_reads ? j->fd : -1;
}

static int use_private_writer(struct job *j)
{
	if (open_private(j) < 0 || j->priv_mode == O_RDONLY)
		return 0;
	j->writer = WRITE_PRIVATE;
	j->direct = 0;
	return 1;
}

static int writer_fd(const struct job *j)
{
	return j->writer == WRITE_PRIVATE ? j->priv : j->fd;
}

static int report_progress(struct job *j, int64_t pos)
{
	uint64_t total = (uint64_t)(j->end - j->offset);
	uint64_t done = pos <= j->offset ? 0 : (uint64_t)(min64(pos, j->end) - j->offset);

	if (!j->opt || !j->opt->progress)
		return 0;
	if (done < j->progress_done)
		done = j->progress_done; /* a queued run flushed late lies behind */
	j->progress_done = done;
	return j->opt->progress(j->opt->progress_arg, done, total) ? ECANCELED : 0;
}

/* A C library without pwritev2 (musl 1.2.3) answers as a kernel without
 * RWF_NOAPPEND does, and write_zeros falls back to a descriptor of our own. */
static ssize_t write_once(struct job *j, const struct iovec *iov, int cnt, int64_t off)
{
	switch (j->writer) {
	case WRITE_NOAPPEND:
#if defined(HAVE_PWRITEV64V2)
		j->rep->syscalls++;
		return pwritev64v2(j->fd, iov, cnt, off, RWF_NOAPPEND);
#elif defined(HAVE_PWRITEV2) && SIZEOF_OFF_T == 8
		j->rep->syscalls++;
		return pwritev2(j->fd, iov, cnt, off, RWF_NOAPPEND);
#else
		errno = EOPNOTSUPP;
		return -1;
#endif
	case WRITE_PRIVATE:
	case WRITE_CALLER:
	default:
		j->rep->syscalls++;
		return pwritev64(writer_fd(j), iov, cnt, off);
	}
}

/* Writes zeros over [off, end), which the caller knows reads as zero. */
static int write_zeros(struct job *j, int64_t off, int64_t end)
{
	struct iovec iov[WRITE_CHUNK / ZERO_BUF_SIZE];

	/* A write past RLIMIT_FSIZE would raise SIGXFSZ, which kills by
	 * default, where the kernel's fallocate inside the old size succeeds. */
	if (end > j->write_limit)
		return EFBIG;
	while (off < end) {
		int64_t n = min64(end - off, WRITE_CHUNK);
		int cnt = 0, err;
		int64_t left;
		ssize_t w;

		if (j->direct && ((off | n) & (j->block - 1))) {
			/* O_DIRECT takes aligned pieces only: the aligned bulk
			 * goes direct, the unaligned tail (at the new end of
			 * file) through a buffered descriptor of our own. */
			if (n > j->block && !(off & (j->block - 1)))
				n = align_down(n, j->block);
			else if (!use_private_writer(j))
				return EINVAL;
		}
		for (left = n; left > 0; left -= ZERO_BUF_SIZE, cnt++) {
			iov[cnt].iov_base = zeros;
			iov[cnt].iov_len = (size_t)min64(left, ZERO_BUF_SIZE);
		}
		w = write_once(j, iov, cnt, off);
		if (w > 0) {
			off += w;
			j->rep->bytes_written += (uint64_t)w;
			if ((err = report_progress(j, off)) != 0)
				return err;
			continue;
		}
		err = w == 0 ? EIO : errno;
		if (err == EINTR)
			continue;
		/* Kernels before 6.9 refuse RWF_NOAPPEND; a filesystem may want
		 * stricter O_DIRECT alignment than its block size.  Either way
		 * a descriptor of our own can still do the write. */
		if ((j->writer == WRITE_NOAPPEND && (err == EOPNOTSUPP || err == EINVAL)) ||
		    (j->direct && err == EINVAL)) {
			if (use_private_writer(j))
				continue;
			return j->writer == WRITE_NOAPPEND ? EBADF : err;
		}
		return err;
	}
	return 0;
}

static int flush_zeros(struct job *j)
{
	int err = write_zeros(j, j->run_start, j->run_end);

	j->run_start = j->run_end;
	return err;
}

/* Queues [off, end) to be zeroed; adjacent pieces merge so that writes are
 * few and large. */
static int queue_zeros(struct job *j, int64_t off, int64_t end)
{
	int err;

	if (off >= end)
		return 0;
	if (off != j->run_end && (err = flush_zeros(j)) != 0)
		return err;
	if (off != j->run_end)
		j->run_start = off;
	j->run_end = end;
	if (j->run_end - j->run_start >= WRITE_CHUNK) {
		int64_t whole = align_down(j->run_end - j->run_start, WRITE_CHUNK);

		if ((err = write_zeros(j, j->run_start, j->run_start + whole)) != 0)
			return err;
		j->run_start += whole;
	}
	return 0;
}

/* Filesystems whose SEEK_HOLE reports real holes.  Elsewhere (ramfs, FUSE,
 * NFSv3, ...) the VFS fallback calls the whole file data and st_blocks may be
 * invented from the size, so neither can prove a block allocated: there the
 * old range is read back instead. */
static int reports_holes(int64_t fs_type)
{
	switch ((uint32_t)fs_type) {
	case 0xEF53:     /* ext2, ext3, ext4 */
	case 0x58465342: /* xfs */
	case 0x9123683E: /* btrfs */
	case 0x01021994: /* tmpfs */
	case 0xF2F52010: /* f2fs */
	case 0x7461636F: /* ocfs2 */
	case 0x01161970: /* gfs2 */
	case 0xCA451A4E: /* bcachefs */
	case 0x2FC12FC1: /* zfs */
		return 1;
	default:
		return 0;
	}
}

/* Queues the holes of [from, to) (inside the old size) as SEEK_DATA and
 * SEEK_HOLE report them, on our own descriptor so the caller's offset stays. */
static int scan_holes(struct job *j, int fd, int64_t from, int64_t to)
{
	int64_t pos = from;
	int err;

	while (pos < to) {
		int64_t data, hole;

		j->rep->syscalls++;
		data = lseek64(fd, pos, SEEK_DATA);
		if (data < 0 && errno != ENXIO)
			return errno;
		data = data < 0 ? to : min64(data, to);
		if ((err = queue_zeros(j, pos, data)) != 0 || (err = report_progress(j, data)) != 0)
			return err;
		if (data >= to)
			break;
		j->rep->syscalls++;
		hole = lseek64(fd, data, SEEK_HOLE);
		if (hole < 0)
			return errno;
		pos = hole > data ? hole : to;
	}
	return 0;
}

static int is_zero(const unsigned char *p, size_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* Queues every piece of [from, to) that reads as zero: writing zeros over it
 * changes no byte, and allocates it if it was a hole.  The pieces are 512
 * bytes, the smallest block any filesystem allocates, since one that cannot
 * report holes may not report its block size either: a larger piece holding
 * some data could hide an unallocated block beside it. */
static int scan_by_reading(struct job *j, int fd, int64_t from, int64_t to)
{
	unsigned char stack_buf[PROBE_STACK_CHUNK] __attribute__((aligned(64)));
	unsigned char *buf;
	size_t size = PROBE_CHUNK;
	int64_t pos = from;
	int err = 0;

	j->rep->syscalls++;
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		buf = stack_buf;
		size = sizeof stack_buf;
	}
	while (pos < to && !err) {
		ssize_t got;
		int64_t p;

		j->rep->syscalls++;
		got = pread64(fd, buf, (size_t)min64(to - pos, (int64_t)size), pos);
		if (got < 0) {
			if (errno != EINTR)
				err = errno;
			continue;
		}
		if (got == 0) { /* truncated under us: what is gone reads as zero */
			err = queue_zeros(j, pos, to);
			break;
		}
		for (p = pos; p < pos + got && !err; ) {
			int64_t room = PROBE_GRAIN - (p & (PROBE_GRAIN - 1));
			int64_t q = pos + got - p <= room ? pos + got : p + room;

			if (is_zero(buf + (p - pos), (size_t)(q - p)))
				err = queue_zeros(j, p, q);
			p = q;
		}
		pos += got;
		if (!err)
			err = report_progress(j, pos);
	}
	if (buf != stack_buf) {
		j->rep->syscalls++;
		munmap(buf, PROBE_CHUNK);
	}
	return err;
}

static int fill(struct job *j, int64_t fs_type)
{
	int64_t first = align_down(j->offset, j->block);
	int64_t old = j->old_size;
	int err;

	/* Inside the old size: only holes, or blocks that read as zero, up to
	 * the range's end (a partial write allocates the whole block). */
	if (first < old) {
		int64_t to = min64(j->end, old);
		int fd;

		if (reports_holes(fs_type) && open_private(j) >= 0) {
			j->rep->hole_map = LFA_MAP_SEEK;
			err = scan_holes(j, j->priv, first, to);
		} else if ((fd = readable_fd(j)) >= 0) {
			j->rep->hole_map = LFA_MAP_READ;
			err = scan_by_reading(j, fd, first, to);
		} else {
			err = EBADF; /* write-only, and no way to read: glibc's answer */
		}
		if (err)
			return err;
	}
	/* Beyond it everything reads as zero.  The block that straddles the old
	 * end of file is already allocated unless its old part was queued. */
	if (j->end > old) {
		int64_t start = max64(first, old);

		if (first < old && (old & (j->block - 1)) && j->run_end != old) {
			int64_t room = j->block - (old & (j->block - 1));

			start = j->end - old <= room ? j->end : old + room;
		}
		if ((err = queue_zeros(j, start, j->end)) != 0)
			return err;
	}
	if ((err = flush_zeros(j)) != 0)
		return err;
	return report_progress(j, j->end);
}

static int64_t block_size(int fd, int64_t *fs_type)
{
	struct statfs64 sf;
	int64_t b = 4096;

	*fs_type = 0;
	if (fstatfs64(fd, &sf) == 0) {
		*fs_type = (int64_t)sf.f_type;
		/* Our block must not be larger than the filesystem's: a larger
		 * one could hide an unallocated block behind an allocated one. */
		if (sf.f_bsize >= 512 && sf.f_bsize < 4096 && !(sf.f_bsize & (sf.f_bsize - 1)))
			b = (int64_t)sf.f_bsize;
	}
	return b;
}

int lfa_emulate(int fd, int64_t offset, int64_t len, const struct lfa_target *t,
		const struct lfa_job_options *opt, struct lfa_job_report *rep)
{
	struct job j;
	int64_t fs_type;
	int extended = 0, err = 0;

	memset(&j, 0, sizeof j);
	j.target = t;
	j.fd = fd;
	j.flags = t->flags;
	j.write_limit = INT64_MAX;
	j.priv = -1;
	j.opt = opt;
	j.rep = rep;
	j.offset = offset;
	j.end = offset + len;
	j.old_size = t->size;
	j.new_size = max64(j.old_size, j.end);
	rep->emulated = 1;
	rep->syscalls++; /* fstatfs */
	j.block = block_size(fd, &fs_type);
	j.writer = (j.flags & O_APPEND) ? WRITE_NOAPPEND : WRITE_CALLER;
	j.direct = !!(j.flags & O_DIRECT);
	/* On 32-bit ABIs a descriptor opened without O_LARGEFILE can neither
	 * write nor truncate past 2 GiB, though the kernel's fallocate can. */
	if (O_LARGEFILE && !(j.flags & O_LARGEFILE) && j.end > INT32_MAX &&
	    !use_private_writer(&j))
		err = EFBIG;
	/* The size first: a limit (RLIMIT_FSIZE, the filesystem's maximum) then
	 * fails before any byte is written, and what follows may rely on
	 * everything past the old size reading as zero. */
	if (!err && j.new_size > j.old_size) {
		rep->syscalls++;
		if (ftruncate64(writer_fd(&j), j.new_size) != 0)
			err = errno;
		else
			extended = 1;
	}
	if (!err && !extended) {
		struct rlimit64 lim;

		rep->syscalls++;
		if (getrlimit64(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur < (rlim64_t)INT64_MAX)
			j.write_limit = (int64_t)lim.rlim_cur;
	}
	if (!err)
		err = fill(&j, fs_type);
	if (!err && extended && (j.flags & O_DSYNC)) {
		rep->syscalls++;
		if (fdatasync(fd) != 0)
			err = errno;
	}
	if (err && extended) {
		/* Put the size back.  Blocks filled inside the old size stay:
		 * they read as zero, as they did before. */
		rep->syscalls++;
		(void)ftruncate64(writer_fd(&j), j.old_size);
	}
	if (j.priv >= 0) {
		rep->syscalls++;
		close(j.priv);
	}
	return err;
}

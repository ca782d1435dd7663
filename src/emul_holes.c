/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* How the pieces of the old file that need zeros are found, each checked
 * right before it is written: another writer may fill a hole at any time,
 * and only a look taken after our last write may justify the next one. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(HAVE_LINUX_FIEMAP_H) && defined(HAVE_LINUX_FS_H)
#include <linux/fiemap.h>
#include <linux/fs.h>
#endif

#include "emul_job.h"

/* Read-back pieces stay small: a zero run is written right after the scan
 * of the piece that found it, and another writer's bytes landing in the run
 * during that scan are lost (2 MiB pieces lost five times as many markers
 * on a ramfs as these, in tests/calls/window.c). */
#define READ_CHUNK ((size_t)256 << 10)
/* The smallest block any filesystem allocates: one that cannot report holes
 * may not report its block size either, and a larger piece holding some data
 * could hide an unallocated block beside it. */
#define GRAIN ((int64_t)512)

static int seek_reliable(struct emul_job *j)
{
	const struct lfa_target *t = j->target;
	int64_t whole_blocks = t->size & ~(j->block - 1);
	int64_t hole;

	/* Not xfs: on Debian 12's kernel (6.1), SEEK_DATA on a reflinked file
	 * whose copy-on-write fork has a preallocation (overwriting a shared
	 * block makes one) skips shared data beside it, and zeros written into
	 * that "hole" destroyed it (tests/realfs/realfs-fiemap.sh, reflink case, under
	 * tests/vm).  xfs's FIEMAP misses the fork's unsynced data instead, so
	 * neither map is whole there: xfs is read back, which sees both. */
	if (!(j->facts & LFA_FS_SEEK_HOLE) || emul_private_fd(j) < 0)
		return 0;
	/* The ext2 driver (and any other that answers SEEK_HOLE generically)
	 * calls the whole file data.  A file with fewer blocks than its size
	 * has a hole somewhere: SEEK_HOLE must find one. */
	if (t->blocks * 512 >= whole_blocks)
		return 1;
	j->rep->syscalls++;
	hole = lseek64(j->priv, 0, SEEK_HOLE);
	return hole >= 0 && hole < t->size;
}

/* Where the holes are is read in looks of FIEMAP_EXTENTS extents (the
 * plan), and each hole is looked at again on its own right before its
 * write: a look of one extent over just that hole, which on ext3 maps the
 * hole alone.  A look from the write front, taken after each write, mapped
 * the data before the hole and after it each time: on a fragmented file
 * (100,000 1 KiB holes between 1 KiB data blocks on ext3) every data block
 * was mapped four times (asking 4 extents a look), and those looks cost
 * more than glibc's one-byte reads.  Now each extent is mapped once by the
 * plan, each hole once more by its own look. */
#define FIEMAP_EXTENTS EMUL_PLAN_EXTENTS

/* Filesystems whose FIEMAP maps every block that holds data, delayed
 * allocations and unwritten extents included (data written and not yet
 * synced: FIEMAP_EXTENT_DELALLOC, tests/realfs/realfs-fiemap.sh), read on the
 * job's own descriptor with no offset moved and no reopen (which watchers
 * would see as IN_OPEN and IN_CLOSE_WRITE, and which a lease forbids).
 * Not xfs: a write into a hole of a reflinked file that lands in the
 * copy-on-write fork's preallocation (overwriting a shared block nearby
 * makes one) is in no extent FIEMAP lists until writeback completes, while
 * SEEK_DATA sees it (tests/realfs/realfs-fiemap.sh, reflink case): zeros there
 * would destroy it.  tmpfs has no FIEMAP; f2fs, ocfs2, gfs2, bcachefs and
 * zfs were not seen to report unsynced data (no driver where this was
 * tested).  All of these stay on SEEK_DATA. */
#ifdef FS_IOC_FIEMAP
static int fiemap_believed(const struct emul_job *j)
{
	return !!(j->facts & LFA_FS_FIEMAP); /* ext2/3/4, btrfs */
}

struct extent_look {
	struct fiemap map;
	struct fiemap_extent extent[FIEMAP_EXTENTS];
};

/* The look right before a write: the first extent in the hole. */
struct hole_look {
	struct fiemap map;
	struct fiemap_extent extent[1];
};

/* The extents of [from, to), afresh, at most ask of them, into map, which
 * has room for them (size bytes in all).  EINTR and EBUSY are tried again
 * a few times; then, as for any other error, the caller falls back. */
static int look_extents(struct emul_job *j, struct fiemap *map, size_t size, int64_t from,
			int64_t to, uint32_t ask)
{
	int tries = 0, r;

	do {
		/* The extents too: valgrind (3.19) does not know that the
		 * kernel fills them. */
		memset(map, 0, size);
		map->fm_start = (uint64_t)from;
		map->fm_length = (uint64_t)(to - from);
		map->fm_extent_count = ask;
		j->rep->syscalls++;
		r = ioctl(j->fd, FS_IOC_FIEMAP, map);
	} while (r < 0 && (errno == EINTR || errno == EBUSY) && ++tries <= EMUL_RETRIES);
	if (r < 0)
		return errno ? errno : EIO;
	if (map->fm_mapped_extents > ask)
		return EIO;
	return 0;
}

/* The first byte of [pos, limit) that no extent covers (limit: none), from
 * one look; *unknown is set when the look ran out of extents before that
 * byte, which a further look from the returned position must settle.  An
 * extent of any kind (unwritten, delayed, inline, shared, unknown) is
 * allocated: only what none covers is a hole. */
static int64_t first_uncovered(const struct extent_look *l, int64_t pos, int64_t limit,
			       int *unknown)
{
	uint32_t i;
	int64_t at = pos;

	*unknown = 0;
	for (i = 0; i < l->map.fm_mapped_extents && at < limit; i++) {
		const struct fiemap_extent *e = &l->extent[i];
		int64_t start = (int64_t)e->fe_logical, stop = start + (int64_t)e->fe_length;

		if (stop <= at)
			continue;
		if (start > at)
			return at;
		at = stop;
		if (e->fe_flags & FIEMAP_EXTENT_LAST)
			return emul_min(at, limit);
	}
	if (at < limit && l->map.fm_mapped_extents == l->map.fm_extent_count)
		*unknown = 1; /* the array was full: more extents may follow */
	return emul_min(at, limit);
}
#else /* without Linux's headers: SEEK_DATA or read-back only */
static int fiemap_believed(const struct emul_job *j)
{
	(void)j;
	return 0;
}
#endif

static int setup_without_fiemap(struct emul_job *j)
{
	if (seek_reliable(j)) {
		j->rep->hole_map = LFA_MAP_SEEK;
		return 0;
	}
	if (emul_readable_fd(j) < 0)
		return EBADF; /* write-only, and no way to read: glibc's answer */
	j->rep->hole_map = LFA_MAP_READ;
	if (!j->buf) {
		j->rep->syscalls++;
		j->buf = mmap(NULL, READ_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			      -1, 0);
		if (j->buf == MAP_FAILED) {
			j->buf = NULL;
			return errno;
		}
	}
	return 0;
}

int emul_setup_map(struct emul_job *j)
{
	if (fiemap_believed(j)) {
		j->rep->hole_map = LFA_MAP_FIEMAP;
		return 0;
	}
	return setup_without_fiemap(j);
}

void emul_release_map(struct emul_job *j)
{
	if (j->buf) {
		j->rep->syscalls++;
		munmap(j->buf, READ_CHUNK);
		j->buf = NULL;
	}
}

void emul_wrote(struct emul_job *j)
{
	j->fresh_pos = j->fresh_end = 0;
	j->plan_fresh = 0;
}

static int next_by_seek(struct emul_job *j, int64_t pos, int64_t limit, int64_t *a, int64_t *b)
{
	int64_t data = pos, hole;

	/* Data found where the last hole ended needs no second look: only a
	 * write must follow a fresh one. */
	if (pos != j->data_at) {
		j->rep->syscalls++;
		data = lseek64(j->priv, pos, SEEK_DATA);
		if (data < 0 && errno != ENXIO)
			return errno;
	}
	if (data < 0 || data > pos) { /* no data from here (ENXIO), or not yet */
		*a = pos;
		*b = pos + emul_min(emul_min(data < 0 ? limit : data, limit) - pos, WRITE_CHUNK);
		j->data_at = data < 0 ? -1 : data;
		return 0;
	}
	j->rep->syscalls++;
	hole = lseek64(j->priv, pos, SEEK_HOLE);
	if (hole < 0) {
		if (errno != ENXIO)
			return errno;
		*a = pos; /* truncated under us */
		return EMUL_EOF;
	}
	j->data_at = -1;
	/* A hole right here: the data went away since the last look, which
	 * the next call takes again. */
	*a = *b = emul_min(emul_max(hole, pos), limit);
	return 0;
}

#ifdef FS_IOC_FIEMAP
/* The plan: the extents from pos, up to FIEMAP_EXTENTS of them.  What it
 * knows ends at limit, or where its last extent ends when more may follow. */
static int look_ahead(struct emul_job *j, int64_t pos, int64_t limit)
{
	struct extent_look l;
	uint32_t i;
	int err;

	j->plan_to = 0;
	if ((err = look_extents(j, &l.map, sizeof l, pos, limit, FIEMAP_EXTENTS)) != 0)
		return err;
	j->plan_count = 0;
	for (i = 0; i < l.map.fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &l.extent[i];
		int64_t a = (int64_t)e->fe_logical, b = a + (int64_t)e->fe_length;

		if (b <= pos)
			continue;
		j->plan[j->plan_count].a = a;
		j->plan[j->plan_count++].b = b;
		if (e->fe_flags & FIEMAP_EXTENT_LAST)
			break;
	}
	j->plan_from = pos;
	j->plan_to = limit;
	j->plan_fresh = 1;
	if (l.map.fm_mapped_extents == FIEMAP_EXTENTS &&
	    !(l.extent[FIEMAP_EXTENTS - 1].fe_flags & FIEMAP_EXTENT_LAST)) {
		if (!j->plan_count) {
			j->plan_to = 0;
			return EIO; /* no progress: SEEK_DATA or read-back decides */
		}
		j->plan_to = emul_min(j->plan[j->plan_count - 1].b, limit);
	}
	return 0;
}

/* The next hole from pos the plan shows, looked at again right before the
 * write it justifies: zeros go only where that look finds no extent.  An
 * extent of any kind (unwritten, delayed, inline, shared, unknown) is
 * allocated.  The data the plan shows is passed over as allocated: blocks
 * become holes again only by another writer's punch or truncation, which
 * the kernel's own fallocate racing it could have preceded as well; a write
 * past an end cut meanwhile is caught by the check before success
 * (emul_first_gap).  A hole the plan shows that holds data now makes the
 * next call take a new plan. */
static int next_by_fiemap(struct emul_job *j, int64_t pos, int64_t limit, int64_t *a, int64_t *b)
{
	struct hole_look v;
	int64_t hole = pos, data, known, start;
	int i, err;

	if (!j->plan_to || pos < j->plan_from || pos >= j->plan_to)
		if ((err = look_ahead(j, pos, limit)) != 0)
			return err;
	for (i = 0; i < j->plan_count; i++) {
		if (j->plan[i].b <= hole)
			continue;
		if (j->plan[i].a > hole)
			break;
		hole = j->plan[i].b;
	}
	known = emul_min(j->plan_to, limit);
	if (hole >= known) {
		*a = *b = known; /* data up to there; the next call looks on */
		return 0;
	}
	data = i < j->plan_count ? emul_min(j->plan[i].a, known) : known;
	/* A plan taken since the last write is that look already. */
	if (!j->plan_fresh && (err = look_extents(j, &v.map, sizeof v, hole, data, 1)) != 0)
		return err;
	if (j->plan_fresh || v.map.fm_mapped_extents == 0) {
		*a = hole;
		*b = hole + emul_min(data - hole, WRITE_CHUNK);
		return 0;
	}
	/* Another writer's data in the hole since the plan: zeros up to it,
	 * and a new plan after. */
	j->plan_to = 0;
	start = (int64_t)v.extent[0].fe_logical;
	if (start > hole) {
		*a = hole;
		*b = hole + emul_min(start - hole, WRITE_CHUNK);
		return 0;
	}
	*a = *b = emul_min(emul_max(start + (int64_t)v.extent[0].fe_length, hole), limit);
	return 0;
}
#else
static int next_by_fiemap(struct emul_job *j, int64_t pos, int64_t limit, int64_t *a, int64_t *b)
{
	(void)j, (void)pos, (void)limit, (void)a, (void)b;
	return EOPNOTSUPP;
}
#endif

static int is_zero(const unsigned char *p, size_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* Reads [from, to) into its place in buf; what it read is fresh.  Where
 * another machine writes the file, this client's cached pages are not: a
 * page that held the end of file keeps zeros past that end after another
 * client appended there, and they would be taken for a hole.  They are
 * dropped first (writeback is started for any dirty one, which is kept),
 * so that the read asks the server.  This is the one drop on these
 * filesystems: the appends leave their pages (emul_append). */
static int read_back(struct emul_job *j, int64_t from, int64_t to, int64_t *got)
{
	ssize_t r;
	int64_t t0;
	int tries = 0, fd = emul_server_read_fd(j);

	*got = 0;
	if (fd >= 0) {
		/* NFS: the server's bytes, no page of this client's */
	} else if (j->facts & LFA_FS_SHARED) {
		/* Whole pages: the kernel keeps a page the span only touches. */
		int64_t page = getpagesize(), a = from & ~(page - 1), b = (to + page - 1) & ~(page - 1);

		j->rep->syscalls++;
		(void)posix_fadvise64(emul_readable_fd(j), a, b - a, POSIX_FADV_DONTNEED);
	}
	/* settle() pauses a few times this, on shared filesystems only */
	t0 = (j->facts & LFA_FS_SHARED) ? emul_now_ns() : 0;
	do {
		j->rep->syscalls++;
		r = pread64(fd >= 0 ? fd : emul_readable_fd(j), j->buf + (from - j->buf_pos),
			    (size_t)(to - from), from);
	} while (r < 0 && errno == EINTR && ++tries <= EMUL_RETRIES);
	if (t0)
		j->read_ns = emul_now_ns() - t0;
	if (r < 0)
		return errno ? errno : EIO;
	*got = r;
	if (from + r < to)
		j->buf_end = from + r; /* what follows is past the end of file now */
	j->fresh_pos = from;
	j->fresh_end = from + r;
	return 0;
}

/* The run of zero grains that starts first in [pos, end) of buf; grains are
 * cut at multiples of GRAIN, and at pos and end (a grain straddling an edge
 * of the range counts by its in-range part). */
static int find_zero_run(const struct emul_job *j, int64_t pos, int64_t end, int64_t *a,
			 int64_t *b)
{
	int64_t p = pos;

	*a = *b = end;
	while (p < end) {
		int64_t q = (p | (GRAIN - 1)) >= end - 1 ? end : (p | (GRAIN - 1)) + 1;
		int zero = is_zero(j->buf + (p - j->buf_pos), (size_t)(q - p));

		if (zero && *a == end)
			*a = p;
		if (!zero && *a != end)
			break;
		if (zero)
			*b = q;
		if (*a != end && *b - *a >= WRITE_CHUNK)
			break;
		p = q;
	}
	return *a < *b;
}

/* The cross-client rule.  Zeros read inside the file of a filesystem other
 * machines write may be another client's write still in flight: an NFSv3
 * client sends a file's pages in parallel, and when a later one lands first
 * the server's file holds a hole below that later data until the earlier
 * one lands (a 251.5 KiB WRITE was once overwritten so, 4,024 records);
 * ceph-fuse publishes a size before the data it covers.  So the rest of the
 * piece read, from the zeros on, is read again after a pause of a few times
 * what the read took (between 1 and 100 ms), and only zeros still there
 * are written.  At most one pause a piece; none where the piece holds no
 * zeros (a file being rewritten) or is zeros from end to end (a range the
 * kernel's 0 just grew on ceph-fuse, a long hole), which no write in flight
 * this side of the server leaves behind, nor past the end of file (a new
 * file, grown by appends). */
#define SETTLE_MIN_NS ((int64_t)1000000)
#define SETTLE_MAX_NS ((int64_t)100000000)

static int settle(struct emul_job *j, int64_t from)
{
	int64_t got, to = j->buf_end;
	int err;

	emul_nap_ns(j, emul_min(emul_max(4 * j->read_ns, SETTLE_MIN_NS), SETTLE_MAX_NS));
	if ((err = read_back(j, from, to, &got)) != 0)
		return err;
	j->settled_pos = from;
	j->settled_end = from + got;
	return got == 0 ? EMUL_EOF : 0;
}

static int next_by_reading(struct emul_job *j, int64_t pos, int64_t limit, int64_t *a, int64_t *b)
{
	int64_t got, end;
	int err;

	for (;;) {
		int full;

		if (pos < j->buf_pos || pos >= j->buf_end) {
			j->buf_pos = j->buf_end = pos;
			if ((err = read_back(j, pos, pos + emul_min(limit - pos, (int64_t)READ_CHUNK),
					     &got)) != 0)
				return err;
			j->buf_end = pos + got;
			if (got == 0) {
				*a = pos;
				return EMUL_EOF;
			}
		}
		full = j->buf_end - j->buf_pos == (int64_t)READ_CHUNK;
		end = emul_min(j->buf_end, limit);
		if (!find_zero_run(j, pos, end, a, b)) {
			*a = *b = end; /* all data up to there */
			return 0;
		}
		if ((j->facts & LFA_FS_SHARED) && !(j->settled_pos <= *a && *a < j->settled_end) &&
		    !(*a == j->buf_pos && *b == j->buf_end && full)) {
			if (*b == j->buf_end && full) {
				/* What follows the zeros is not read yet: a
				 * piece from their start shows it. */
				j->buf_pos = j->buf_end = pos = *a;
				continue;
			}
			if ((err = settle(j, *a)) != 0)
				return err;
			pos = *a;
			continue;
		}
		if (j->fresh_pos <= *a && *a < j->fresh_end) {
			*b = emul_min(*b, j->fresh_end);
			return 0;
		}
		/* Read before our last write: look again at just that run. */
		if ((err = read_back(j, *a, *b, &got)) != 0)
			return err;
		if (got == 0)
			return EMUL_EOF;
		pos = *a;
	}
}

int emul_next_zeros(struct emul_job *j, int64_t pos, int64_t limit, int64_t *a, int64_t *b)
{
	int err;

	if (j->rep->hole_map == LFA_MAP_FIEMAP) {
		if (next_by_fiemap(j, pos, limit, a, b) == 0)
			return 0;
		/* No FIEMAP here after all (tmpfs says EOPNOTSUPP), or it
		 * stays busy: SEEK_DATA where believed, else read-back. */
		if ((err = setup_without_fiemap(j)) != 0)
			return err;
	}
	if (j->rep->hole_map == LFA_MAP_SEEK)
		return next_by_seek(j, pos, limit, a, b);
	return next_by_reading(j, pos, limit, a, b);
}

#ifdef FS_IOC_FIEMAP
/* The first byte of [offset, end) that no extent covers, or the end of
 * file if that comes first (an extent past it, left by a fallocate with
 * FALLOC_FL_KEEP_SIZE, makes no byte of the range). */
static int first_gap_by_fiemap(struct emul_job *j, int64_t *gap)
{
	struct extent_look l;
	int64_t at = j->offset, next;
	int unknown, err;

	do {
		if ((err = look_extents(j, &l.map, sizeof l, at, j->end, FIEMAP_EXTENTS)) != 0)
			return err;
		next = first_uncovered(&l, at, j->end, &unknown);
		if (next <= at && unknown)
			return EIO; /* no progress: let SEEK_HOLE or the size decide */
		at = next;
	} while (unknown);
	if ((err = emul_refresh_size(j)) != 0)
		return err;
	*gap = emul_min(at, emul_max(j->known_size, j->offset));
	return 0;
}
#else
static int first_gap_by_fiemap(struct emul_job *j, int64_t *gap)
{
	(void)j, (void)gap;
	return EOPNOTSUPP;
}
#endif

/* SEEK_HOLE where it is believed (one lseek finds both a hole and an end
 * of file below end); elsewhere only the size can be checked: holes on
 * ramfs, FUSE or NFS read as zeros and stay unseen.  Not on copy-on-write
 * filesystems either: zfs with compression stores zero blocks as holes,
 * which no redo could fill. */
int emul_first_gap(struct emul_job *j, int64_t *gap)
{
	int64_t hole;
	int err;

	j->data_at = -1;
	j->buf_pos = j->buf_end = 0;
	j->settled_pos = j->settled_end = 0;
	j->plan_to = 0;
	emul_wrote(j);
	if (!(j->facts & LFA_FS_COPY_ON_WRITE) &&
	    (j->rep->hole_map == LFA_MAP_FIEMAP ||
	     (j->rep->hole_map == LFA_MAP_NONE && fiemap_believed(j))) &&
	    first_gap_by_fiemap(j, gap) == 0)
		return 0;
	if (!(j->facts & LFA_FS_COPY_ON_WRITE) &&
	    (j->rep->hole_map == LFA_MAP_SEEK ||
	     (j->rep->hole_map == LFA_MAP_NONE && seek_reliable(j)))) {
		j->rep->syscalls++;
		hole = lseek64(j->priv, j->offset, SEEK_HOLE);
		if (hole < 0 && errno != ENXIO)
			return errno;
		*gap = hole < 0 ? j->offset : emul_min(emul_max(hole, j->offset), j->end);
		/* Rare: the redo starts from a size looked at afresh. */
		return *gap < j->end ? emul_refresh_size(j) : 0;
	}
	if ((err = emul_refresh_size(j)) != 0)
		return err;
	*gap = emul_min(emul_max(j->known_size, j->offset), j->end);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* What the zeros leave in the page cache.  Buffered zeros stay there, dirty,
 * until the kernel writes them back: one emulated GiB is a GiB of dirty page
 * cache, evicting everyone else's and charged to the caller's memory cgroup,
 * and the dirty throttling that follows makes the call itself slow.  A
 * window of writeback behind the write front bounds that: each batch the
 * call wrote is sent to the disk at once, the front waits while too much
 * behind it is still unwritten, and the pieces far enough behind to be
 * written are dropped from the cache.  Only the pieces the call itself
 * wrote are dropped (a caller's cached data inside the range stays), and
 * POSIX_FADV_DONTNEED drops whole pages only, so a page shared with the
 * caller's data stays too.
 *
 * Everything goes through the job's descriptor (the caller's open file: a
 * dup of its descriptor, or the descriptor itself in a process without
 * threads), and nothing waits for writeback.  A descriptor of our own would have to be
 * reopened through /proc: watchers would see IN_OPEN and IN_CLOSE_WRITE
 * (which upload and sync daemons take for "the file is complete"), and a
 * caller's lease would refuse it.  Waiting through it is no better:
 * SYNC_FILE_RANGE_WAIT_* end in file_check_and_advance_wb_err() on the
 * caller's open file, which would consume a writeback error the caller's
 * next fsync must report (so would fsync, fdatasync and RWF_DSYNC).
 * SYNC_FILE_RANGE_WRITE alone starts writeback (WB_SYNC_NONE),
 * POSIX_FADV_DONTNEED starts it and drops clean pages, RWF_DONTCACHE
 * starts it and drops each page once written, and cachestat() only reads
 * counters: none of them looks at the file's error cursor (fs/sync.c,
 * mm/fadvise.c, mm/filemap.c, mm/cachestat).  The block layer alone does
 * not hold the front back (a virtio disk's queue takes hundreds of MiB:
 * without a wait, 4 GiB in a 256 MiB memory cgroup peaked at 130 MiB with
 * RWF_DONTCACHE and filled the limit without it), so the front looks with
 * cachestat at what is still dirty or being written behind it, and sleeps
 * while that is too much. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "emul_job.h"
#include "fallocate_arch.h"

/* Ranges below CACHE_MIN cost nothing more than before.  Writeback is
 * started for every CACHE_BATCH written; the front waits while more than
 * CACHE_IN_FLIGHT behind it is dirty or being written, so the pieces
 * CACHE_DROP_BEHIND behind it are written by then, and dropped.  Measured on
 * this project's VM (bench/README.md): with 32 MiB in flight the disk
 * does not run dry during most naps, so they can be long enough to keep a
 * new GiB under 1,000 syscalls (850 to 900, 600 of them the window's) at
 * the speed of waiting in the kernel (call+sync 0.55 s min, 5 % more at
 * the median); 16 MiB in flight with fixed naps of 0.2 ms cost 2,000
 * syscalls more; first naps as long as the last wait (up to 20 ms), then
 * 2 ms, 760 syscalls but 30 % more time at the median.  When the wait is
 * given up: wait_for_disk. */
#define CACHE_MIN ((int64_t)16 << 20)
#ifndef CACHE_BATCH
#define CACHE_BATCH ((int64_t)16 << 20)
#endif
#define CACHE_IN_FLIGHT (2 * CACHE_BATCH)
#define CACHE_DROP_BEHIND CACHE_IN_FLIGHT
#ifndef CACHE_NAP_NS
#define CACHE_NAP_NS 2000000L
#endif
#define CACHE_NAP_MAX_NS 10000000L
#define CACHE_STALL_NS ((int64_t)2000000000)
#define CACHE_WAIT_MAX_NS ((int64_t)30000000000)
#define CACHE_UNCACHED_MIN ((int64_t)64 << 10)

/* Linux 6.14's uncached buffered write (include/uapi/linux/fs.h): the
 * kernel starts writeback at once and drops each page when it is written,
 * so what is left when the call returns is only what is still in flight
 * (0 MiB of a GiB here, 16 MiB without it).  Kernels without it say
 * EOPNOTSUPP, as do filesystems that do not support it; the window alone
 * then bounds the cache.  Pages already cached (a hole someone read) are
 * written as usual, and dropped behind the front like the others. */
#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

/* Never a SYNC_FILE_RANGE_WAIT_* flag (see the top).  A hint that fails
 * turns the window off for the rest of the call; it never fails the call. */
static int start_range(struct emul_job *j, int64_t a, int64_t b)
{
	j->rep->syscalls++;
	if (sync_file_range(j->fd, a, b - a, SYNC_FILE_RANGE_WRITE) == 0)
		return 0;
	j->cache_on = 0;
	return -1;
}

/* Pages still dirty or being written stay: DONTNEED drops clean ones. */
static void drop_range(struct emul_job *j, int64_t a, int64_t b)
{
	j->rep->syscalls++;
	(void)posix_fadvise64(j->fd, a, b - a, POSIX_FADV_DONTNEED);
}

static void forget_oldest(struct emul_job *j)
{
	j->cache_count--;
	memmove(&j->cache_piece[0], &j->cache_piece[1], (size_t)j->cache_count * sizeof j->cache_piece[0]);
}

/* Sends every piece not yet sent to the disk.  The submission blocks only
 * while the device's queue is full, which on most disks is far more than
 * the window. */
static void start_writeback(struct emul_job *j)
{
	int i;

	for (i = 0; i < j->cache_count && j->cache_on; i++) {
		if (j->cache_piece[i].started)
			continue;
		if (start_range(j, j->cache_piece[i].a, j->cache_piece[i].b) == 0)
			j->cache_piece[i].started = 1;
	}
	j->cache_unstarted = 0;
}

/* Pieces far enough behind the front to be written by now are dropped
 * and forgotten. */
static void drop_behind(struct emul_job *j, int64_t front)
{
	while (j->cache_count && j->cache_piece[0].started &&
	       j->cache_piece[0].b <= front - CACHE_DROP_BEHIND) {
		if (!j->cache_piece[0].mixed)
			drop_range(j, j->cache_piece[0].a, j->cache_piece[0].b);
		forget_oldest(j);
	}
}

#ifdef LFA_NR_cachestat
/* Linux 6.5's cachestat (include/uapi/linux/mman.h): what of a range is
 * cached, dirty, being written.  It only reads counters. */
struct cachestat_range {
	uint64_t off, len;
};
struct cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

int64_t emul_now_ns(void)
{
	struct timespec t;

	(void)clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void emul_nap_ns(struct emul_job *j, int64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };

	j->rep->syscalls++;
	(void)nanosleep(&t, NULL);
}

/* Nothing that waits for writeback leaves the caller's writeback errors
 * alone (see the top), so the front waits by looking: while more than
 * CACHE_IN_FLIGHT of [offset, front) is dirty or being written, it sleeps.
 * The disk completes in bursts (here nothing for 12 to 15 ms, then 40 MiB
 * at once), so a pace in bytes per second says little; the last wait's
 * length does: the first nap is three quarters of it (at most
 * CACHE_NAP_MAX_NS), then CACHE_NAP_NS at a time.  With CACHE_IN_FLIGHT
 * still queued, a nap a little too long leaves the disk busy all the same.
 * A slow disk is waited for as long as it makes progress (a shared CI disk
 * took more than 2 s for one batch); the wait is given up for the rest of
 * the call when nothing behind the front was written for CACHE_STALL_NS
 * (another writer's dirty pages in the range, which no one sends), or
 * after CACHE_WAIT_MAX_NS for one batch whatever happens.  Without
 * cachestat (older kernels, sandboxes, qemu-user) the front does not
 * wait. */
static void wait_for_disk(struct emul_job *j, int64_t front)
{
	struct cachestat_range range = { (uint64_t)j->offset, (uint64_t)(front - j->offset) };
	struct cachestat st;
	int64_t page = sysconf(_SC_PAGESIZE), t0 = -1, low_at = 0, now, nap;
	uint64_t low = UINT64_MAX;

	while (j->cache_wait) {
		j->rep->syscalls++;
		if (syscall(LFA_NR_cachestat, j->fd, &range, &st, 0) != 0) {
			j->cache_wait = 0;
			return;
		}
		if ((int64_t)(st.nr_dirty + st.nr_writeback) * page <= CACHE_IN_FLIGHT) {
			if (t0 >= 0)
				j->cache_last_wait_ns = emul_now_ns() - t0;
			return;
		}
		now = emul_now_ns();
		if (t0 < 0)
			t0 = now;
		if (st.nr_dirty + st.nr_writeback < low) {
			low = st.nr_dirty + st.nr_writeback;
			low_at = now;
		}
		if (now - low_at >= CACHE_STALL_NS || now - t0 >= CACHE_WAIT_MAX_NS) {
			j->cache_wait = 0;
			return;
		}
		nap = CACHE_NAP_NS;
		if (now == t0)
			nap = emul_max(nap, emul_min(j->cache_last_wait_ns / 4 * 3, CACHE_NAP_MAX_NS));
		emul_nap_ns(j, nap);
	}
}
#else
static void wait_for_disk(struct emul_job *j, int64_t front)
{
	(void)j;
	(void)front;
}
#endif

void emul_cache_start(struct emul_job *j)
{
	j->cache_on = 0;
	j->cache_count = 0;
	j->cache_unstarted = 0;
	/* Calls below the window cost nothing more than before. */
	if (j->end - j->offset < CACHE_MIN || (j->opt && j->opt->keep_cache) ||
	    lfa_settings(j->fd).keep_cache)
		return;
	/* Synchronous and direct writes leave nothing dirty; appends are
	 * rare and small. */
	/* Only where the page cache is the way to a disk (fs_facts.c):
	 * tmpfs's is the data, and a server decides what it caches. */
	if ((j->flags & (O_DSYNC | O_SYNC | O_DIRECT)) || j->writer == WRITE_APPEND ||
	    !(j->facts & LFA_FS_WRITEBACK))
		return;
	j->cache_on = 1;
	j->cache_dontcache = 1;
	j->cache_wait = 1;
	j->cache_last_wait_ns = 0;
}

/* The pwritev2 flag that asks the kernel to drop the pages once written
 * (Linux 6.14), where the window runs and the kernel has not refused it.
 * Not for a small piece (a hole among data): its pages are shared with the
 * caller's data or with the next hole's zeros, and each one dropped would
 * be read back from the disk for the next write into it (a file of 1 KiB
 * holes between 1 KiB data blocks took twice as long uncached); the
 * window's writeback bounds those as it does any write. */
int emul_cache_rwf(const struct emul_job *j, int64_t n)
{
	return j->cache_on && j->cache_dontcache && n >= CACHE_UNCACHED_MIN ? RWF_DONTCACHE : 0;
}

void emul_cache_rwf_refused(struct emul_job *j)
{
	j->cache_dontcache = 0;
}

/* Many small holes between data (a fragmented file): every piece its own
 * hints would cost a sync_file_range and a fadvise a hole, more than the
 * write.  Past EMUL_CACHE_PIECES the pieces become spans, so the window
 * acts per CACHE_BATCH written, whatever the number of holes: the new
 * piece joins the newest span if that is not yet sent to the disk, else
 * (all are sent: they precede the unsent) the two oldest join.  A span
 * holds the caller's data between the holes: it is never dropped (that
 * cached data stays), and a batch of spans is left to the kernel
 * (emul_cache_wrote). */
static void merge_pieces(struct emul_job *j, int64_t off, int64_t n)
{
	struct emul_cache_piece *p = &j->cache_piece[j->cache_count - 1];

	if (p->started) {
		p = &j->cache_piece[0];
		p->a = emul_min(p->a, p[1].a);
		p->b = emul_max(p->b, p[1].b);
		p->mixed = 1;
		memmove(&p[1], &p[2], (size_t)(j->cache_count - 2) * sizeof *p);
		p = &j->cache_piece[j->cache_count - 1];
		p->a = off;
		p->b = off + n;
		p->started = p->mixed = 0;
		return;
	}
	p->a = emul_min(p->a, off);
	p->b = emul_max(p->b, off + n);
	p->mixed = 1;
}

/* The unsent pieces are left to the kernel, as if sent. */
static void pass_over_unsent(struct emul_job *j)
{
	int i;

	for (i = 0; i < j->cache_count; i++)
		j->cache_piece[i].started = 1;
	j->cache_unstarted = 0;
}

/* Whether the pieces not yet sent to the disk are a fragmented file's,
 * which the window leaves to the kernel. */
static int unsent_mixed(const struct emul_job *j)
{
	return j->cache_count && j->cache_piece[j->cache_count - 1].mixed &&
	       !j->cache_piece[j->cache_count - 1].started;
}

void emul_cache_wrote(struct emul_job *j, int64_t off, int64_t n)
{
	struct emul_cache_piece *last;

	if (!j->cache_on || n <= 0)
		return;
	last = j->cache_count ? &j->cache_piece[j->cache_count - 1] : NULL;
	if (last && !last->started && last->b == off) {
		last->b += n;
	} else if (j->cache_count == EMUL_CACHE_PIECES) {
		merge_pieces(j, off, n);
	} else {
		last = &j->cache_piece[j->cache_count++];
		last->a = off;
		last->b = off + n;
		last->started = last->mixed = 0;
	}
	j->cache_unstarted += n;
	if (j->cache_unstarted < CACHE_BATCH)
		return;
	/* A batch of small holes among the caller's data dirties whole pages
	 * for each piece, the caller's blocks in them included: waiting until
	 * the disk has written them would make the call pay for writing back
	 * its caller's data (a file of 1 KiB holes between 1 KiB data blocks
	 * took 2.3 times as long as without the window), and starting their
	 * writeback alone still cost a third more.  The kernel's dirty
	 * throttling bounds those, as it does glibc's writes. */
	if (unsent_mixed(j)) {
		pass_over_unsent(j);
		return;
	}
	start_writeback(j);
	if (!j->cache_on)
		return;
	wait_for_disk(j, off + n);
	drop_behind(j, off + n);
}

/* Whether [a, b) holds a whole page, the least POSIX_FADV_DONTNEED drops. */
static int holds_a_page(int64_t a, int64_t b)
{
	int64_t page = sysconf(_SC_PAGESIZE);

	return page > 0 && ((a + page - 1) & ~(page - 1)) + page <= b;
}

/* The last pieces are sent to the disk and dropped where already written:
 * the call does not wait for them.  A fragmented file's last spans are left
 * to the kernel, as each batch of them was (emul_cache_wrote), and a piece
 * smaller than a page gets no fadvise: nothing of it could be dropped (the
 * last 16 of 100,000 holes of 1 KiB cost a sync_file_range of 1.9 ms and 8
 * fadvise calls here). */
void emul_cache_finish(struct emul_job *j)
{
	int i;

	if (!j->cache_on)
		return;
	if (unsent_mixed(j))
		pass_over_unsent(j);
	start_writeback(j);
	for (i = 0; i < j->cache_count && j->cache_on; i++)
		if (!j->cache_piece[i].mixed && holds_a_page(j->cache_piece[i].a, j->cache_piece[i].b))
			drop_range(j, j->cache_piece[i].a, j->cache_piece[i].b);
	j->cache_count = 0;
	j->cache_on = 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* What the zeros leave in the page cache.  Buffered zeros stay there, dirty,
 * until the kernel writes them back: one emulated GiB is a GiB of dirty page
 * cache, evicting everyone else's and charged to the caller's memory cgroup,
 * and the dirty throttling that follows makes the call itself slow.  A
 * window of writeback behind the write front bounds that: each batch the
 * call wrote is sent to the disk at once, and the batch one window behind is
 * waited for and dropped from the cache.  Only the pieces the call itself
 * wrote are dropped (a caller's cached data inside the range stays), and
 * POSIX_FADV_DONTNEED drops whole pages only, so a page shared with the
 * caller's data stays too. */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <string.h>

#include "emul_job.h"

/* Measured on this project's VM (bench/README.md): 16 MiB behind the front,
 * started in 8 MiB batches, kept a few MiB dirty and was the fastest to
 * reach the disk; smaller windows wait on the disk more often, larger ones
 * leave more behind. */
#ifndef CACHE_WINDOW
#define CACHE_WINDOW ((int64_t)16 << 20)
#endif
#ifndef CACHE_BATCH
#define CACHE_BATCH ((int64_t)8 << 20)
#endif

/* Filesystems whose page cache is the way to a disk, where writeback can be
 * started and waited for.  None of the others refuses the hints (tmpfs,
 * ramfs, hugetlbfs, overlayfs and sshfs all answer 0 to sync_file_range and
 * POSIX_FADV_DONTNEED on Linux 6.18), so the list is of those that gain.
 * Not tmpfs, ramfs or hugetlbfs: their page cache is the data, and no
 * writeback can make room.  Not overlayfs (sync_file_range reaches its own
 * empty mapping, not the layer below), nor FUSE and network filesystems,
 * whose writes go to a server that decides what is cached. */
static int writeback_fs(uint32_t fs_type)
{
	switch (fs_type) {
	case 0xEF53:     /* ext2, ext3, ext4 */
	case 0x58465342: /* xfs */
	case 0x9123683E: /* btrfs */
	case 0xF2F52010: /* f2fs */
		return 1;
	default:
		return 0;
	}
}

/* A hint that fails turns the window off for the rest of the call; it never
 * fails the call. */
static int hint_range(struct emul_job *j, int64_t a, int64_t b, unsigned flags)
{
	j->rep->syscalls++;
	if (sync_file_range(j->priv, a, b - a, flags) == 0)
		return 0;
	j->cache_on = 0;
	return -1;
}

static void drop_range(struct emul_job *j, int64_t a, int64_t b)
{
	j->rep->syscalls++;
	(void)posix_fadvise64(j->priv, a, b - a, POSIX_FADV_DONTNEED);
}

static void forget_oldest(struct emul_job *j)
{
	j->cache_count--;
	memmove(&j->cache_piece[0], &j->cache_piece[1], (size_t)j->cache_count * sizeof j->cache_piece[0]);
}

/* Sends every piece not yet sent to the disk. */
static void start_writeback(struct emul_job *j)
{
	int i;

	for (i = 0; i < j->cache_count && j->cache_on; i++) {
		if (j->cache_piece[i].started)
			continue;
		if (hint_range(j, j->cache_piece[i].a, j->cache_piece[i].b, SYNC_FILE_RANGE_WRITE) == 0)
			j->cache_piece[i].started = 1;
	}
	j->cache_unstarted = 0;
}

/* Waits for the oldest piece to be on disk, then drops it.  The wait goes
 * through our own open file (j->priv): a writeback error it sees is then
 * consumed there, and the caller's fsync still reports it. */
static void retire_oldest(struct emul_job *j)
{
	int64_t a = j->cache_piece[0].a, b = j->cache_piece[0].b;

	if (hint_range(j, a, b, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
		       SYNC_FILE_RANGE_WAIT_AFTER) == 0)
		drop_range(j, a, b);
	forget_oldest(j);
}

void emul_cache_start(struct emul_job *j)
{
	j->cache_on = 0;
	j->cache_count = 0;
	j->cache_unstarted = 0;
	/* Calls below the window cost nothing more than before. */
	if (j->end - j->offset < CACHE_WINDOW || (j->opt && j->opt->keep_cache) ||
	    lfa_settings(j->fd).keep_cache)
		return;
	/* Synchronous and direct writes leave nothing dirty; appends are
	 * rare and small. */
	if ((j->flags & (O_DSYNC | O_SYNC | O_DIRECT)) || j->writer == WRITE_APPEND ||
	    !writeback_fs(j->fs_type) || emul_private_fd(j) < 0)
		return;
	j->cache_on = 1;
}

void emul_cache_wrote(struct emul_job *j, int64_t off, int64_t n)
{
	struct emul_cache_piece *last;

	if (!j->cache_on || n <= 0)
		return;
	last = j->cache_count ? &j->cache_piece[j->cache_count - 1] : NULL;
	if (last && !last->started && last->b == off) {
		last->b += n;
	} else {
		if (j->cache_count == EMUL_CACHE_PIECES) {
			/* Many small holes between data: the oldest goes early. */
			start_writeback(j);
			retire_oldest(j);
			if (!j->cache_on)
				return;
		}
		last = &j->cache_piece[j->cache_count++];
		last->a = off;
		last->b = off + n;
		last->started = 0;
	}
	j->cache_unstarted += n;
	if (j->cache_unstarted < CACHE_BATCH)
		return;
	start_writeback(j);
	while (j->cache_on && j->cache_count && j->cache_piece[0].b <= off + n - CACHE_WINDOW)
		retire_oldest(j);
}

/* The last window is sent to the disk and dropped where already written:
 * the call does not wait for it. */
void emul_cache_finish(struct emul_job *j)
{
	int i;

	if (!j->cache_on)
		return;
	start_writeback(j);
	for (i = 0; i < j->cache_count; i++)
		drop_range(j, j->cache_piece[i].a, j->cache_piece[i].b);
	j->cache_count = 0;
	j->cache_on = 0;
}

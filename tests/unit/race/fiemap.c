/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race: holes found with FIEMAP, on the job's own descriptor. */
#include "harness.h"

/* --- holes found with FIEMAP, on the job's own descriptor -------------- */

/* Filling the holes of an existing sparse file through a plain O_RDWR
 * descriptor shows a watcher only modifications: the holes are found with
 * FIEMAP on the job's descriptor, not SEEK_DATA on a reopened one (whose
 * IN_OPEN and IN_CLOSE_WRITE sync daemons take for "the file is complete"). */
START_TEST(filling_holes_shows_only_modify)
{
	const char *p = fresh("inotify-holes");
	struct lfa_job_report rep;
	uint32_t seen;
	int fd, in, err;

	if (!fiemap_here("filling_holes_shows_only_modify"))
		return;
	sparse_with_data(p, 3 * MiB);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	in = watch_every_event(p);
	hook_reset();
	err = job(fd, 0, 16384 + 3 * MiB, &rep, NULL);
	seen = events_seen(in);
	close(fd);
	ck_assert_int_eq(err, 0);
	ck_assert_msg((seen & ~(uint32_t)IN_MODIFY) == 0 && (seen & IN_MODIFY),
		      "inotify events %#x for a call filling holes", seen);
	ck_assert_int_eq(rep.hole_map, LFA_MAP_FIEMAP);
	expect_sparse_filled(p, 3 * MiB, 16384 + 3 * MiB);
	ck_assert(fully_allocated(p, 0, 16384 + 3 * MiB));
}
END_TEST

/* The look moves no file offset: the caller's, which the job's dup shares,
 * is where the caller left it. */
START_TEST(fiemap_keeps_callers_offset)
{
	const char *p = fresh("fiemap-offset");
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(lseek(fd, 1234, SEEK_SET), 1234);
	hook_reset();
	ck_assert_int_eq(job(fd, 0, 16384 + MiB, NULL, NULL), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 1234);
	close(fd);
	expect_sparse_filled(p, MiB, 16384 + MiB);
}
END_TEST

/* Data written and not yet synced (a delayed allocation on ext4 and btrfs:
 * no block on disk yet) is an extent to FIEMAP, never a hole. */
START_TEST(unsynced_data_is_never_zeroed)
{
	const char *p = fresh("fiemap-delalloc");
	unsigned char *want = calloc(1, (size_t)(8 * MiB)), *d = pattern(12288, 21);
	struct lfa_job_report rep;
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	ck_assert_int_eq(ftruncate(fd, 8 * MiB), 0);
	put(fd, d, 12288, 5 * MiB + 100); /* no fsync */
	put(fd, d, 4096, 8 * MiB - 4096);
	hook_reset();
	ck_assert_int_eq(job(fd, 4096, 8 * MiB - 4096, &rep, NULL), 0);
	close(fd);
	memcpy(want + 5 * MiB + 100, d, 12288);
	memcpy(want + 8 * MiB - 4096, d, 4096);
	expect_bytes(p, want, 8 * MiB);
	if (fiemap_here("unsynced_data_is_never_zeroed")) {
		ck_assert_int_eq(rep.hole_map, LFA_MAP_FIEMAP);
		ck_assert_uint_eq(rep.bytes_written, 8 * MiB - 4096 - 16384 - 4096);
	}
	free(want), free(d);
}
END_TEST

/* More pieces than one look holds (32 extents), and a range starting and
 * ending inside extents: every hole gets zeros, every byte of data stays. */
START_TEST(many_extents_and_ranges_inside_them)
{
	const char *p = fresh("fiemap-many");
	int64_t size = 200 * 8192, i;
	unsigned char *want = calloc(1, (size_t)size), *d = pattern(4096, 22);
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	ck_assert_int_eq(ftruncate(fd, size), 0);
	for (i = 0; i < size; i += 8192) {
		put(fd, d, 4096, i);
		memcpy(want + i, d, 4096);
	}
	ck_assert_int_eq(fsync(fd), 0); /* written extents, apart */
	hook_reset();
	ck_assert_int_eq(job(fd, 1000, size - 3000, NULL, NULL), 0);
	close(fd);
	expect_bytes(p, want, size);
	ck_assert(fully_allocated(p, 4096, size - 8192));
	free(want), free(d);
}
END_TEST

/* Another writer fills a hole right after the look that found the first
 * hole: the later piece it lands in is looked at again before its write. */
START_TEST(recheck_after_the_fiemap_look)
{
	const char *p = fresh("fiemap-recheck");
	unsigned char *want, *old;
	int fd;

	/* Elsewhere no FIEMAP is asked: the script never acts. */
	if (!fiemap_here("recheck_after_the_fiemap_look"))
		return;
	want = calloc(1, (size_t)(16 * MiB));
	old = pattern(4096, 5);
	write_pattern_at(p, 0, 4096, 5);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(ftruncate(fd, 16 * MiB), 0);
	other_fd = open(p, O_WRONLY);
	marker_at = 9 * MiB;
	script("ioctl", 1, 1, mark_later_piece);
	ck_assert_int_eq(job(fd, 0, 16 * MiB, NULL, NULL), 0);
	close(fd);
	memcpy(want, old, 4096);
	memcpy(want + marker_at, "marker", 6);
	expect_bytes(p, want, 16 * MiB);
	free(want), free(old);
}
END_TEST

/* Without FIEMAP (tmpfs says EOPNOTSUPP) the engine falls back to
 * SEEK_DATA; one that stays busy or interrupted is tried a few times, then
 * left the same way; one interrupted once is tried again. */
static void fiemap_fault(int err, int fails, enum lfa_hole_map want_map)
{
	const char *p = fresh("fiemap-fault");
	struct lfa_job_report rep;
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR);
	hook_reset();
	fiemap_errno = err, fiemap_fails = fails;
	ck_assert_int_eq(job(fd, 0, 16384 + MiB, &rep, NULL), 0);
	close(fd);
	ck_assert_int_eq(rep.hole_map, want_map);
	expect_sparse_filled(p, MiB, 16384 + MiB);
	ck_assert(fully_allocated(p, 0, 16384 + MiB));
}

START_TEST(fiemap_failures_fall_back)
{
	if (!fiemap_here("fiemap_failures_fall_back"))
		return;
	fiemap_fault(EOPNOTSUPP, -1, LFA_MAP_SEEK);
	fiemap_fault(EBUSY, -1, LFA_MAP_SEEK);
	fiemap_fault(EINTR, -1, LFA_MAP_SEEK);
	fiemap_fault(EINTR, 1, LFA_MAP_FIEMAP);
	fiemap_fault(EBUSY, 2, LFA_MAP_FIEMAP);
}
END_TEST

void race_fiemap_tests(TCase *tc)
{
	tcase_add_test(tc, filling_holes_shows_only_modify);
	tcase_add_test(tc, fiemap_keeps_callers_offset);
	tcase_add_test(tc, unsynced_data_is_never_zeroed);
	tcase_add_test(tc, many_extents_and_ranges_inside_them);
	tcase_add_test(tc, recheck_after_the_fiemap_look);
	tcase_add_test(tc, fiemap_failures_fall_back);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race: no byte outside the range; each piece looked at before it is written. */
#include "harness.h"

/* --- no byte outside the range -------------------------------------- */

static int fill_around_range(void)
{
	unsigned char a[1000], b[4096 - 1100];

	memset(a, 'A', sizeof a);
	memset(b, 'B', sizeof b);
	put(other_fd, a, sizeof a, 0);
	put(other_fd, b, sizeof b, 1100);
	return 0;
}

/* A hole block that straddles the range's edges gets zeros on its
 * in-range part only: what another writer put beside it survives. */
START_TEST(zeros_only_inside_range)
{
	const char *p = fresh("edges");
	unsigned char want[8192];
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	other_fd = open(p, O_WRONLY);
	script("pwritev64", 1, 0, fill_around_range);
	ck_assert_int_eq(job(fd, 1000, 100, NULL, NULL), 0);
	writes_inside(1000, 1100);
	memset(want, 0, sizeof want);
	memset(want, 'A', 1000);
	memset(want + 1100, 'B', 4096 - 1100);
	expect_bytes(p, want, sizeof want);
	close(fd);
	close(other_fd);
}
END_TEST

/* The same past the end of file, and across a block boundary. */
START_TEST(zeros_only_inside_range_past_end)
{
	const char *p = fresh("edges-end");
	int fd = open(p, O_RDWR | O_CREAT, 0600);
	unsigned char *want = calloc(1, 4200);

	hook_reset();
	ck_assert_int_eq(job(fd, 4000, 200, NULL, NULL), 0);
	writes_inside(4000, 4200);
	expect_bytes(p, want, 4200);
	close(fd);
	free(want);
}
END_TEST

/* --- each piece is looked at right before it is written --------------- */

/* The marker lands, right before the first write, in a piece that a later
 * write would cover: data at [0, 4 KiB) and [64 KiB, 68 KiB), holes around,
 * so that one read-back piece holds two zero runs. */
static void recheck_in(const char *dir, int64_t marker)
{
	char p[4200];
	unsigned char *want = calloc(1, 16 * MiB), *old = pattern(4096, 5);
	int fd;

	snprintf(p, sizeof p, "%s/recheck", dir);
	unlink(p);
	write_pattern_at(p, 0, 4096, 5);
	write_pattern_at(p, 64 * KiB, 4096, 5);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(ftruncate(fd, 16 * MiB), 0);
	other_fd = open(p, O_WRONLY);
	marker_at = marker;
	script("pwritev64", 1, 0, mark_later_piece);
	ck_assert_int_eq(job(fd, 0, 16 * MiB, NULL, NULL), 0);
	memcpy(want, old, 4096);
	memcpy(want + 64 * KiB, old, 4096);
	memcpy(want + marker, "marker", 6);
	expect_bytes(p, want, 16 * MiB);
	close(fd);
	close(other_fd);
	unlink(p);
	free(want), free(old);
}

START_TEST(recheck_before_each_write_seek)
{
	recheck_in(test_dir(), 9 * MiB);
}
END_TEST

/* ramfs reports no holes: the engine reads back, and must read again. */
START_TEST(recheck_before_each_write_read_back)
{
	char dir[4096];

	if (scratch_ramfs(dir, sizeof dir, "read-back recheck") != 0)
		return;
	recheck_in(dir, 3 * MiB); /* a piece read back after the first write */
	recheck_in(dir, 100 * KiB); /* the second zero run of the first piece */
	unmount_scratch_ramfs(dir);
}
END_TEST

/* --- holes found where they are ---------------------------------------- */


/* A filesystem whose SEEK_HOLE finds no hole in a file with fewer blocks
 * than its size is not believed: the engine reads back instead. */
START_TEST(generic_seek_hole_is_not_believed)
{
	const char *p = fresh("generic-seek");
	struct lfa_job_report rep;
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR);
	hook_reset();
	generic_seek = 1;
	fiemap_errno = EOPNOTSUPP, fiemap_fails = -1; /* as if without FIEMAP */
	ck_assert_int_eq(job(fd, 0, 16384 + MiB, &rep, NULL), 0);
	generic_seek = 0;
	close(fd);
	ck_assert_int_eq(rep.hole_map, LFA_MAP_READ);
	expect_sparse_filled(p, MiB, 16384 + MiB);
	ck_assert(fully_allocated(p, 0, 16384 + MiB));
}
END_TEST

/* A range that starts past the end of file leaves the gap before it a
 * hole, as the kernel does: only the range is written. */
START_TEST(gap_before_range_stays_a_hole)
{
	const char *p = fresh("gap");
	int fd;

	write_pattern_at(p, 0, 1000, 14);
	fd = open(p, O_RDWR);
	hook_reset();
	ck_assert_int_eq(job(fd, MiB, 6 * MiB, NULL, NULL), 0);
	writes_inside(MiB, 7 * MiB);
	ck_assert_int_eq(file_size(fd), 7 * MiB);
	close(fd);
	ck_assert(fully_allocated(p, MiB, 7 * MiB));
	ck_assert(first_mismatch(p, 1000, 7 * MiB, 0, 0, 0) < 0);
	fd = open(p, O_RDONLY);
	ck_assert_int_lt(lseek(fd, 1000, SEEK_HOLE), MiB);
	close(fd);
}
END_TEST

void race_range_tests(TCase *tc)
{
	tcase_add_test(tc, zeros_only_inside_range);
	tcase_add_test(tc, zeros_only_inside_range_past_end);
	tcase_add_test(tc, recheck_before_each_write_seek);
	tcase_add_test(tc, recheck_before_each_write_read_back);
	tcase_add_test(tc, generic_seek_hole_is_not_believed);
	tcase_add_test(tc, gap_before_range_stays_a_hole);
}

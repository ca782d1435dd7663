/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race: odd files and a syscall that fails at each point of a call. */
#include "harness.h"

/* A write answered EINTR every time (a FUSE server): EINTR after a few
 * tries, glibc's answer, with nothing written. */
START_TEST(endless_eintr_ends)
{
	const char *p = fresh("eintr");
	unsigned char *old = pattern(1000, 17);
	int fd, err;

	write_pattern_at(p, 0, 1000, 17);
	fd = open(p, O_RDWR);
	hook_reset();
	writes_interrupted = 1;
	err = job(fd, 0, 3 * MiB, NULL, NULL);
	ck_assert_msg(write_attempts <= 10, "%d writes tried", write_attempts);
	ck_assert_int_eq(err, EINTR);
	close(fd);
	expect_bytes(p, old, 1000);
	free(old);
}
END_TEST

/* Reads that end before the size fstat gives (a FUSE file whose server
 * returns fewer bytes than its size): EINVAL after a few tries, nothing
 * written, instead of pread and fstat for ever. */
START_TEST(reads_ending_before_the_size_end)
{
	const char *p = fresh("short-reads");
	unsigned char *old = pattern(8192, 18);
	int fd, err;

	write_pattern_at(p, 0, 8192, 18);
	fd = open(p, O_RDWR);
	hook_reset();
	fake_fs_type = 0x65735546; /* FUSE: holes found by reading back */
	reads_end_early = 1;
	err = job(fd, 0, 16384, NULL, NULL);
	ck_assert_msg(read_attempts <= 10, "%d reads tried", read_attempts);
	ck_assert_int_eq(err, EINVAL);
	ck_assert_int_eq(hk.writes, 0);
	close(fd);
	expect_bytes(p, old, 8192);
	free(old);
}
END_TEST

/* An NFS server that no longer has the file (renamed over there): a
 * reopen answers ESTALE, and no other access mode or table is tried for
 * it (each descriptor the job wants is asked for once); nothing is
 * written. */
START_TEST(stale_handle_not_reopened_again)
{
	const char *p = fresh("stale");
	unsigned char *old = pattern(8192, 20);
	int fd;

	write_pattern_at(p, 0, 8192, 20);
	fd = open(p, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	hook_reset();
	fake_fs_type = FS_NFS;
	reopen_estale = 1;
	(void)job(fd, 0, 16384, NULL, NULL);
	reopen_estale = 0;
	ck_assert_int_ge(reopens_tried, 1);
	ck_assert_int_le(reopens_tried, 3); /* its own, the server-read and the append descriptors */
	ck_assert_int_eq(hk.writes, 0);
	close(fd);
	expect_bytes(p, old, 8192);
	free(old);
}
END_TEST

/* The same on a filesystem other machines write, while another client's
 * appends move the size at every read (ceph-fuse publishes a size before
 * the data): not a lie but writes in flight.  The call gives way (0,
 * gave_way) within a few tries, never EINVAL, and writes nothing below
 * the size it saw: the other client's bytes and the old ones stay. */
START_TEST(reads_ending_before_a_moving_size_give_way)
{
	const char *p = fresh("short-reads-moving");
	unsigned char *old = pattern(8192, 19);
	struct lfa_job_report rep;
	int fd, err;

	write_pattern_at(p, 0, 8192, 19);
	fd = open(p, O_RDWR);
	hook_reset();
	job_path = p;
	fake_fs_type = 0x65735546; /* FUSE (GlusterFS, by default here) */
	reads_end_early = 2;
	err = job(fd, 0, 16384, &rep, NULL);
	ck_assert_msg(read_attempts <= 10, "%d reads tried", read_attempts);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(rep.gave_way, 1);
	ck_assert_int_eq(hk.writes, 0);
	close(fd);
	{
		/* the old bytes, then the other client's 16-byte appends */
		unsigned char got[8192 + 16 * 16];
		int64_t n, i;

		fd = open(p, O_RDONLY);
		ck_assert_int_ge(fd, 0);
		n = file_size(fd);
		ck_assert(n > 8192 && n <= (int64_t)sizeof got && (n - 8192) % 16 == 0);
		ck_assert_int_eq(pread(fd, got, (size_t)n, 0), n);
		close(fd);
		ck_assert(memcmp(got, old, 8192) == 0);
		for (i = 8192; i < n; i++)
			ck_assert_int_eq(got[i], 'X');
	}
	free(old);
}
END_TEST


/* --- a syscall that fails, at each point of a call --------------------- */

static int fault_errno;

static int fail_now(void)
{
	return fault_errno;
}

/* Data at [0, 8 KiB) and [72 KiB, 80 KiB), a hole between. */
#define SWEEP_HOLE (64 * KiB)
#define SWEEP_SIZE (16 * KiB + SWEEP_HOLE)

/* The nth call of fn fails with err, for every n the call reaches: the
 * answer is err or, where the engine had another way (a reopen refused, a
 * hole map given up), success; either way every write lay inside the range,
 * no old byte changed, the file never got shorter and grew only with zeros,
 * and a success left the range whole.  fs_type: the filesystem fstatfs
 * names (0: the real one), which decides how holes are found: FS_FUSE by
 * reading back, FS_F2FS with SEEK_DATA (xfs reads back). */
static void fault_sweep(const char *fn, int err, long fs_type, int flags, int64_t offset,
			int64_t len)
{
	int64_t end = offset + len, full = end > SWEEP_SIZE ? end : SWEEP_SIZE, size;
	unsigned char *want = calloc(1, (size_t)full), *a = pattern(8192, 6), *b = pattern(8192, 7);
	int nth, r, failed = 0, reached;

	ck_assert(want != NULL);
	memcpy(want, a, 8192);
	memcpy(want + 8192 + SWEEP_HOLE, b, 8192);
	for (nth = 1;; nth++) {
		const char *p = fresh("fault-sweep");
		int fd;

		ck_assert_msg(nth < 1000, "%s: more than 1000 calls", fn);
		sparse_with_data(p, SWEEP_HOLE);
		fd = open(p, flags);
		ck_assert_int_ge(fd, 0);
		script(fn, nth, 0, fail_now);
		fault_errno = err;
		fake_fs_type = fs_type;
		r = job(fd, offset, len, NULL, NULL);
		reached = hk.calls >= nth;
		writes_inside(offset, end);
		size = file_size(fd);
		close(fd);
		ck_assert_msg(size >= SWEEP_SIZE && size <= full, "%s #%d: size %lld", fn, nth,
			      (long long)size);
		expect_bytes(p, want, size);
		if (!reached) {
			ck_assert_msg(r == 0, "%s, no fault: %s", fn, strerror(r));
			ck_assert_int_eq(size, full);
			break;
		}
		ck_assert_msg(r == 0 || r == err, "%s #%d failing with %s: the call said %s", fn,
			      nth, strerror(err), strerror(r));
		if (r == 0)
			ck_assert_int_eq(size, full);
		failed += r != 0;
	}
	ck_assert_msg(nth > 1, "%s: never called", fn);
	fprintf(stderr, "%s (%s): %d calls, %d faults the answer\n", fn, strerror(err), nth - 1,
		failed);
	free(want), free(a), free(b);
}

/* fstat gives the size each piece starts from, and checks a reopened
 * descriptor is the caller's file. */
START_TEST(failing_fstat_at_each_point)
{
	fault_sweep("fstat64", EIO, 0, O_RDWR, 4 * KiB, 128 * KiB);
	/* Where the range is read back (not local), a write-only caller's
	 * reads need the reopen whose check failed: EBADF, glibc's answer. */
	if (local_here("failing_fstat_at_each_point, O_WRONLY"))
		fault_sweep("fstat64", EIO, 0, O_WRONLY, 4 * KiB, 128 * KiB);
	fault_sweep("fstat64", EIO, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("fstat64", EIO, FS_F2FS, O_WRONLY, 4 * KiB, 128 * KiB);
	/* From the end of file: the quick step's check of what it wrote. */
	fault_sweep("fstat64", EIO, 0, O_RDWR, SWEEP_SIZE, 8 * KiB);
}
END_TEST

/* Read-back (FUSE): a read that fails, on the caller's descriptor or on
 * one reopened for reading. */
START_TEST(failing_read_back_at_each_point)
{
	fault_sweep("pread64", EIO, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pread64", EIO, FS_FUSE, O_WRONLY, 4 * KiB, 128 * KiB);
	fault_sweep("pread64", EINTR, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
}
END_TEST

/* NFS (played on this filesystem, with pieces aligned for O_DIRECT): the
 * read-back, the writes into holes and the growth go through descriptors
 * opened with O_DIRECT, and the size is asked with AT_STATX_FORCE_SYNC;
 * a read or a write failing at each point leaves the file as the sweep
 * wants. */
START_TEST(nfs_server_paths_at_each_point)
{
	fault_sweep("pread64", EIO, FS_NFS, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pread64", EIO, FS_NFS, O_WRONLY, 4 * KiB, 128 * KiB);
	fault_sweep("pwritev64", EIO, FS_NFS, O_RDWR, 4 * KiB, 128 * KiB);
}
END_TEST

/* A FUSE server that finds files by name (sshfs, bindfs): the size comes
 * through the caller's own descriptor (a read of nothing past the end),
 * every byte through it; each read and write failing at each point of the
 * call leaves the file as the sweep wants.  A write-only descriptor learns
 * nothing there: EBADF, before any write. */
START_TEST(found_by_name_at_each_point)
{
	const char *p;
	int fd;

	fake_by_name = 1;
	fault_sweep("pread64", EIO, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pwritev64", ENOSPC, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pwritev64", EIO, FS_FUSE, O_RDWR, SWEEP_SIZE, 8 * KiB);
	p = fresh("by-name-wronly"); /* its buffer is the sweeps' too */
	sparse_with_data(p, SWEEP_HOLE);
	fd = open(p, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	script("pwritev64", 1, 0, fail_now);
	fault_errno = EIO;
	fake_fs_type = FS_FUSE;
	ck_assert_int_eq(job(fd, 4 * KiB, 128 * KiB, NULL, NULL), EBADF);
	ck_assert_int_eq(hk.calls, 0); /* not one write tried */
	ck_assert_int_eq(file_size(fd), SWEEP_SIZE);
	close(fd);
	fake_by_name = 0;
}
END_TEST

/* SEEK_DATA and SEEK_HOLE (f2fs), and FIEMAP (the real ext2/3/4 or btrfs),
 * failing with an error of their own. */
START_TEST(failing_hole_map_at_each_point)
{
	fault_sweep("lseek64", EIO, FS_F2FS, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("lseek64", EIO, FS_F2FS, O_WRONLY, 4 * KiB, 128 * KiB);
	if (fiemap_here("failing_hole_map_at_each_point"))
		fault_sweep("ioctl", EIO, 0, O_RDWR, 4 * KiB, 128 * KiB);
}
END_TEST

/* The writes themselves. */
START_TEST(failing_write_at_each_point)
{
	fault_sweep("pwritev64", ENOSPC, 0, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pwritev64", ENOSPC, FS_FUSE, O_RDWR | O_APPEND, 4 * KiB, 128 * KiB);
}
END_TEST

void race_faults_tests(TCase *tc)
{
	tcase_add_test(tc, endless_eintr_ends);
	tcase_add_test(tc, reads_ending_before_the_size_end);
	tcase_add_test(tc, reads_ending_before_a_moving_size_give_way);
	tcase_add_test(tc, stale_handle_not_reopened_again);
	tcase_add_test(tc, failing_fstat_at_each_point);
	tcase_add_test(tc, failing_read_back_at_each_point);
	tcase_add_test(tc, nfs_server_paths_at_each_point);
	tcase_add_test(tc, found_by_name_at_each_point);
	tcase_add_test(tc, failing_hole_map_at_each_point);
	tcase_add_test(tc, failing_write_at_each_point);
}

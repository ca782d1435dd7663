/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race: the file never gets shorter, and a cut gives way. */
#include "harness.h"

/* --- the file never gets shorter ----------------------------------- */

static int append_64k(void)
{
	unsigned char *b = pattern(64 * KiB, 2);

	ck_assert_int_eq(write(other_fd, b, 64 * KiB), 64 * KiB);
	free(b);
	return 0;
}

/* Bytes appended right after the engine read the size are data, never cut
 * off by a size computed from the stale one. */
START_TEST(stale_size_never_shrinks)
{
	const char *p = fresh("stale");
	unsigned char *want = calloc(1, MiB + 64 * KiB);
	unsigned char *old = pattern(MiB, 1), *app = pattern(64 * KiB, 2);
	int fd;

	write_pattern_at(p, 0, MiB, 1);
	fd = open(p, O_RDWR);
	other_fd = open(p, O_WRONLY | O_APPEND);
	script("statx", 1, 1, append_64k);
	ck_assert_int_eq(job(fd, 0, MiB + 100, NULL, NULL), 0);
	memcpy(want, old, MiB);
	memcpy(want + MiB, app, 64 * KiB);
	expect_bytes(p, want, MiB + 64 * KiB);
	close(fd);
	close(other_fd);
	free(want), free(old), free(app);
}
END_TEST

static int append_100_then_enospc(void)
{
	unsigned char *b = pattern(100, 3);

	ck_assert_int_eq(write(other_fd, b, 100), 100);
	free(b);
	return ENOSPC;
}

/* A failure part way undoes nothing: no truncation can take another
 * writer's bytes with it.  The zeros written stay, as ext4's blocks do. */
START_TEST(failure_keeps_other_writers_bytes)
{
	const char *p = fresh("enospc");
	unsigned char *want = calloc(1, 4 * MiB + 100), *app = pattern(100, 3);
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	other_fd = open(p, O_WRONLY | O_APPEND);
	script("pwritev64", 2, 0, append_100_then_enospc);
	ck_assert_int_eq(job(fd, 0, 16 * MiB, NULL, NULL), ENOSPC);
	memcpy(want + 4 * MiB, app, 100);
	expect_bytes(p, want, 4 * MiB + 100);
	ck_assert(fully_allocated(p, 0, 4 * MiB));
	close(fd);
	close(other_fd);
	free(want), free(app);
}
END_TEST

static int append_then_cancel(void *arg, uint64_t done, uint64_t total)
{
	(void)arg, (void)total;
	if (done < 4 * MiB)
		return 0;
	append_100_then_enospc();
	return 1;
}

START_TEST(cancel_keeps_other_writers_bytes)
{
	const char *p = fresh("cancel");
	unsigned char *want = calloc(1, 4 * MiB + 100), *app = pattern(100, 3);
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	other_fd = open(p, O_WRONLY | O_APPEND);
	hook_reset();
	ck_assert_int_eq(job(fd, 0, 16 * MiB, NULL, append_then_cancel), ECANCELED);
	memcpy(want + 4 * MiB, app, 100);
	expect_bytes(p, want, 4 * MiB + 100);
	close(fd);
	close(other_fd);
	free(want), free(app);
}
END_TEST

static int die_now(void)
{
	_exit(0);
}

/* Stopped at any instant, the file is the old bytes and a prefix of the
 * range without holes: the job writes from low offsets to high and never
 * sets a size ahead of its writes. */
START_TEST(killed_midway_leaves_a_prefix)
{
	const char *p = fresh("killed");
	unsigned char *want = calloc(1, 3000 + 8 * MiB), *old = pattern(3000, 4);
	pid_t pid;
	int status;

	write_pattern_at(p, 0, 3000, 4);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(p, O_RDWR);

		free(want), free(old); /* the parent's to compare; this child dies */
		script("pwritev64", 3, 0, die_now);
		job(fd, 0, 64 * MiB, NULL, NULL);
		_exit(1); /* never here: the third write kills it */
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	memcpy(want, old, 3000);
	expect_bytes(p, want, 3000 + 8 * MiB);
	ck_assert(fully_allocated(p, 0, 3000 + 8 * MiB));
	free(want), free(old);
}
END_TEST


static int cut_to_1m(void)
{
	ck_assert_int_eq(ftruncate(other_fd, MiB), 0);
	return 0;
}

/* Cut to 1 MiB by another writer at the third write of [0, 32 MiB) over an
 * 8 MiB file: success means the range is whole, no hole where the cut
 * was.  Appends go back to the new end by themselves; positional writes
 * (a kernel without RWF_APPEND) leave a hole that the check before
 * success finds and fills. */
static void cut_shorter_mid_call(int without_append)
{
	const char *p = fresh("cut");
	unsigned char *want = calloc(1, 32 * MiB), *old = pattern(MiB, 15);
	int fd;

	write_pattern_at(p, 0, 8 * MiB, 15);
	fd = open(p, O_RDWR);
	other_fd = open(p, O_RDWR);
	script("pwritev64", 3, 0, cut_to_1m);
	kernel_without_rwf_append = without_append;
	ck_assert_int_eq(job(fd, 0, 32 * MiB, NULL, NULL), 0);
	memcpy(want, old, MiB);
	expect_bytes(p, want, 32 * MiB);
	ck_assert(fully_allocated(p, 0, 32 * MiB));
	close(fd);
	free(want), free(old);
}

START_TEST(cut_shorter_mid_call_by_appends)
{
	cut_shorter_mid_call(0);
}
END_TEST

START_TEST(cut_shorter_mid_call_positional)
{
	cut_shorter_mid_call(1);
}
END_TEST

static int cut_to_zero_every_time(void)
{
	ck_assert_int_eq(ftruncate(other_fd, 0), 0);
	hk.nth = hk.calls + 1; /* and after the next write again */
	return 0;
}

/* Cut to nothing after every write (a log rotator's copytruncate in a
 * loop): the call ends instead of going back for ever, and answers 0, as
 * the kernel's fallocate would with the cuts ordered after it; never
 * EAGAIN, which no fallocate answers.  Nothing is written past the range. */
static void cut_again_and_again(int without_append, int before_each_write)
{
	const char *p = fresh("cut-always");
	int fd;

	write_pattern_at(p, 0, 8 * MiB, 16);
	fd = open(p, O_RDWR);
	other_fd = open(p, O_RDWR);
	/* Before each write, the cut falls between the engine's look and its
	 * positional write, which then leaves a hole below it and the size
	 * where the write ended: no setback is seen, only the hole (EIO before
	 * that was read as another writer's: qemu-user, which refuses
	 * RWF_APPEND, met it). */
	script("pwritev64", 1, !before_each_write, cut_to_zero_every_time);
	kernel_without_rwf_append = without_append;
	ck_assert_int_eq(job(fd, 0, 32 * MiB, NULL, NULL), 0);
	/* Bounded: four passes at most, each ended by the cuts. */
	ck_assert_msg(hk.writes <= 40, "%d writes", hk.writes);
	ck_assert_int_le(file_size(fd), 32 * MiB);
	close(fd);
	close(other_fd);
	other_fd = -1;
}

START_TEST(cut_again_and_again_gives_way)
{
	cut_again_and_again(0, 0);
	cut_again_and_again(1, 0);
	cut_again_and_again(0, 1);
	cut_again_and_again(1, 1);
}
END_TEST

void race_shorter_tests(TCase *tc)
{
	tcase_add_test(tc, stale_size_never_shrinks);
	tcase_add_test(tc, failure_keeps_other_writers_bytes);
	tcase_add_test(tc, cancel_keeps_other_writers_bytes);
	tcase_add_test(tc, killed_midway_leaves_a_prefix);
	tcase_add_test(tc, cut_shorter_mid_call_by_appends);
	tcase_add_test(tc, cut_shorter_mid_call_positional);
	tcase_add_test(tc, cut_again_and_again_gives_way);
}

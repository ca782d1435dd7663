/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race: the quick path: a small step at the end of a file on a local disk. */
#include "harness.h"

/* --- the quick path: a small step at the end of a file on a local disk -- */

/* Where the quick path runs (ext2/3/4, xfs, btrfs); elsewhere these tests
 * would only prove the engine's rules again. */
static int quick_here(const char *why)
{
	struct statfs sf;
	uint32_t t;

	if (statfs(test_dir(), &sf) == 0) {
		t = (uint32_t)sf.f_type;
		if (t == 0xEF53 || t == 0x58465342u || t == 0x9123683Eu)
			return 1;
	}
	fprintf(stderr, "%s: %s is not ext2/3/4, xfs or btrfs, skipped\n", why, test_dir());
	return 0;
}

/* Whether statx names mounts by a never-reused id here (Linux 6.8): only
 * then is a mount's filesystem remembered between calls. */
static int unique_mount_ids(int fd)
{
	struct statx sx;

	return REAL(statx)(fd, "", AT_EMPTY_PATH, 0x4000, &sx) == 0 && (sx.stx_mask & 0x4000);
}

/* A 4 KiB step at the end of file: a look, RLIMIT_FSIZE, the append and
 * the look after it, as glibc's fcntl, fstat, fstatfs and write; no dup in
 * a process that never started a thread, and fstatfs once per mount. */
START_TEST(quick_step_makes_glibcs_syscalls)
{
	const char *p = fresh("quick-count");
	struct lfa_job_report rep;
	unsigned char *old = pattern(1000, 21), want[1000 + 3 * 4096];
	int fd, remembered, dup;

	if (!quick_here("quick_step_makes_glibcs_syscalls") || real_refuses(0x10)) {
		free(old);
		return;
	}
	/* Two more for the dup where a thread ever ran (an earlier test's,
	 * when the tests share one process). */
	dup = process_single_threaded() ? 0 : 2;
	write_pattern_at(p, 0, 1000, 21);
	fd = open(p, O_RDWR);
	remembered = unique_mount_ids(fd);
	hook_reset();
	ck_assert_int_eq(job(fd, 1000, 4096, &rep, NULL), 0);
	ck_assert_int_le(fstatfs_calls, 1); /* 0: an earlier test's call remembered it */
	ck_assert_int_eq(rep.syscalls, 4 + fstatfs_calls + dup);
	hook_reset();
	ck_assert_int_eq(job(fd, 5096, 4096, &rep, NULL), 0);
	ck_assert_int_eq(rep.syscalls, (remembered ? 4 : 5) + dup);
	ck_assert_int_eq(fstatfs_calls, remembered ? 0 : 1);
	ck_assert_int_eq(hk.writes, 1);
	ck_assert_int_eq((int)rep.bytes_written, 4096);
	ck_assert_int_eq(rep.hole_map, LFA_MAP_NONE);
	writes_inside(5096, 9192);
	/* With a thread started, the job works on a dup: two more. */
	become_multithreaded();
	hook_reset();
	ck_assert_int_eq(job(fd, 9192, 4096, &rep, NULL), 0);
	ck_assert_int_eq(rep.syscalls, remembered ? 6 : 7);
	close(fd);
	memset(want, 0, sizeof want);
	memcpy(want, old, 1000);
	expect_bytes(p, want, sizeof want);
	ck_assert(fully_allocated(p, 0, sizeof want));
	free(old);
}
END_TEST

/* Before Linux 6.8 a mount id is taken again by the next mount, a device
 * number too (loop, device-mapper, USB), and the attributes a filesystem
 * supports do not tell f2fs from ext4 or hfsplus from xfs: nothing is
 * remembered there, and each quick step asks fstatfs, one syscall more
 * than glibc's. */
START_TEST(nothing_remembered_without_unique_mount_ids)
{
	const char *p = fresh("quick-reusable");
	struct lfa_job_report rep;
	int fd, dup, i;

	if (!quick_here("nothing_remembered_without_unique_mount_ids") || real_refuses(0x10))
		return;
	dup = process_single_threaded() ? 0 : 2;
	write_pattern_at(p, 0, 1000, 27);
	fd = open(p, O_RDWR);
	for (i = 0; i < 3; i++) {
		hook_reset();
		reusable_mount_ids = 1;
		ck_assert_int_eq(job(fd, 1000 + i * 4096, 4096, &rep, NULL), 0);
		ck_assert_int_eq(fstatfs_calls, 1);
		ck_assert_int_eq(rep.syscalls, 5 + dup);
	}
	close(fd);
}
END_TEST

static int write_far_past_the_end(void)
{
	ck_assert_int_eq(pwrite(other_fd, "WWWWWWWWWW", 10, 64 * KiB), 10);
	return 0;
}

static int cut_to_500(void)
{
	ck_assert_int_eq(ftruncate(other_fd, 500), 0);
	return 0;
}

/* Another writer acts between the quick path's look and its append, or
 * right after the append: the look after it sees the size it did not aim
 * at, and the engine takes the call over from a look of its own. */
static void quick_raced(int (*act)(void), const char *at, int after)
{
	const char *p = fresh("quick-race");
	unsigned char *old = pattern(1000, 22), *got;
	int64_t size;
	int fd, i;

	write_pattern_at(p, 0, 1000, 22);
	fd = open(p, O_RDWR);
	other_fd = open(p, act == append_record ? O_WRONLY | O_APPEND : O_RDWR);
	script(at, 1, after, act);
	ck_assert_int_eq(job(fd, 1000, 4096, NULL, NULL), 0);
	size = file_size(fd);
	close(fd);
	ck_assert(fully_allocated(p, 1000, 5096));
	got = malloc((size_t)size);
	fd = open(p, O_RDONLY);
	ck_assert_int_eq(pread(fd, got, (size_t)size, 0), size);
	close(fd);
	if (act == append_record) {
		/* the record whole right after the old end, zeros after it */
		ck_assert_int_eq(size, 1000 + 64 + 4096);
		ck_assert(!memcmp(got, old, 1000));
		for (i = 0; i < 64; i++)
			ck_assert_int_eq(got[1000 + i], 'R');
		for (i = 1064; i < size; i++)
			ck_assert_int_eq(got[i], 0);
	} else if (act == write_far_past_the_end) {
		/* the hole it left below our zeros filled in the range; its
		 * bytes intact; the zeros appended after them */
		ck_assert_int_eq(size, 64 * KiB + 10 + 4096);
		ck_assert(!memcmp(got, old, 1000));
		ck_assert(!memcmp(got + 64 * KiB, "WWWWWWWWWW", 10));
		for (i = 1000; i < 64 * KiB; i++)
			ck_assert_int_eq(got[i], 0);
	} else {
		/* cut below the old end after our append: the range again,
		 * the gap before it left a hole */
		ck_assert_int_eq(size, 5096);
		ck_assert(!memcmp(got, old, 500));
		for (i = 500; i < size; i++)
			ck_assert_int_eq(got[i], 0);
	}
	free(got);
	free(old);
}

START_TEST(quick_step_raced_by_another_writer)
{
	if (!quick_here("quick_step_raced_by_another_writer") || real_refuses(0x10))
		return;
	quick_raced(append_record, "statx", 1);
	quick_raced(write_far_past_the_end, "statx", 1);
	quick_raced(cut_to_500, "pwritev64", 1);
}
END_TEST

/* Past RLIMIT_FSIZE the quick path writes nothing, and the engine refuses
 * with EFBIG and the kernel's SIGXFSZ, once, to the calling thread (caught
 * here: it kills by default); at the limit exactly it succeeds, with no
 * signal.  In a child, since the limit is per process. */
static void quick_under_limit(rlim_t limit, int want)
{
	const char *p = fresh("quick-fsize");
	int status, fd, err;
	pid_t pid;

	write_pattern_at(p, 0, 1000, 23);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit lim = { limit, limit };

		fd = open(p, O_RDWR);
		if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
			_exit(100);
		catch_xfsz();
		hook_reset();
		err = job(fd, 1000, 4096, NULL, NULL);
		if (err != want || (want && hk.writes) || xfsz_count != !!want ||
		    xfsz_in_caller != xfsz_count) {
			fprintf(stderr, "limit %lld: %s, %d writes, SIGXFSZ %d times (%d in the caller)\n",
				(long long)limit, strerror(err), hk.writes, (int)xfsz_count,
				(int)xfsz_in_caller);
			_exit(101);
		}
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "killed by signal %d", WTERMSIG(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	fd = open(p, O_RDONLY);
	ck_assert_int_eq(file_size(fd), want ? 1000 : 5096);
	close(fd);
}

START_TEST(quick_step_past_rlimit_writes_nothing)
{
	quick_under_limit(5095, EFBIG);
	quick_under_limit(3000, EFBIG);
	quick_under_limit(1000, EFBIG); /* the kernel's write would raise SIGXFSZ */
	quick_under_limit(5096, 0);
}
END_TEST

/* The quick path asks no status flags: a descriptor that cannot write
 * fails its append with nothing written, and the engine answers as the
 * kernel does; an O_APPEND one grows the file as any other. */
START_TEST(quick_step_without_write_access)
{
	const char *p = fresh("quick-access");
	unsigned char *old = pattern(1000, 24), want[5096];
	int fd;

	write_pattern_at(p, 0, 1000, 24);
	fd = open(p, O_RDONLY);
	ck_assert_int_eq(job(fd, 1000, 4096, NULL, NULL), EBADF);
	close(fd);
	fd = open(p, O_PATH);
	ck_assert_int_eq(job(fd, 1000, 4096, NULL, NULL), EBADF);
	close(fd);
	expect_bytes(p, old, 1000);
	fd = open(p, O_WRONLY | O_APPEND);
	ck_assert_int_eq(job(fd, 1000, 4096, NULL, NULL), 0);
	close(fd);
	memset(want, 0, sizeof want);
	memcpy(want, old, 1000);
	expect_bytes(p, want, sizeof want);
	/* Under the caller's lease nothing can be reopened; where the quick
	 * path runs, an append needs nothing reopened. */
	fd = open(p, O_RDWR | O_APPEND);
	if (quick_here("quick_step_without_write_access, under a lease") && !real_refuses(0x10) &&
	    take_write_lease(fd)) {
		ck_assert_int_eq(job(fd, 5096, 4096, NULL, NULL), 0);
		ck_assert_int_eq(sigio_count, 0);
		ck_assert_int_eq(file_size(fd), 5096 + 4096);
	}
	close(fd);
	free(old);
}
END_TEST

/* The quick path asks no status flags.  On an O_APPEND descriptor that
 * cannot be reopened (no descriptor left), an append by another writer
 * between its look and its append sends the call to the engine, which
 * would refuse such a descriptor (EBADF, glibc's answer) before writing:
 * here the zeros are written already, and the range is whole, so the call
 * succeeds instead of failing after a write. */
START_TEST(quick_step_raced_then_nothing_to_aim)
{
	const char *p = fresh("quick-append-race");
	struct rlimit old_lim, lim;
	int fd, err;

	if (!quick_here("quick_step_raced_then_nothing_to_aim") || real_refuses(0x10))
		return;
	write_pattern_at(p, 0, 1000, 26);
	fd = open(p, O_RDWR | O_APPEND);
	other_fd = open(p, O_WRONLY | O_APPEND);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old_lim), 0);
	lim = old_lim;
	lim.rlim_cur = (rlim_t)emul_max(fd, other_fd) + 1;
	script("statx", 1, 1, append_record);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	err = job(fd, 1000, 4096, NULL, NULL);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old_lim), 0);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(file_size(fd), 1000 + 64 + 4096);
	close(fd);
	ck_assert(fully_allocated(p, 1000, 5096));
}
END_TEST


/* The quick step takes only filesystems whose appends land at their size
 * (ext2/3/4, xfs, btrfs); elsewhere it leaves the file to the engine,
 * untouched.  Which filesystem: fstatfs's answer, asked at each call
 * (mount ids that the next mount takes again are never remembered). */
static void quick_step_on(long fs_type, int quick)
{
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, NULL, NULL, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;
	struct lfa_target t;
	const char *p = fresh("quick-fs");
	unsigned char *want = calloc(1, 8192), *old = pattern(4096, 21);
	int fd, looked = 0, r;

	/* The step is one append (RWF_APPEND): where pwritev2 refuses it
	 * (qemu-user), the engine does the work everywhere. */
	if (quick && real_refuses(0x10))
		quick = 0;
	write_pattern_at(p, 0, 4096, 21);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	hook_reset();
	reusable_mount_ids = 1;
	fake_fs_type = fs_type;
	memset(&rep, 0, sizeof rep);
	hk.active = 1;
	r = lfa_extend_quickly(fd, 4096, 4096, &opt, &rep, &t, &looked);
	hk.active = 0;
	ck_assert_msg(r == (quick ? 0 : -1), "fs 0x%lx: %d", fs_type, r);
	ck_assert_int_eq(fstatfs_calls, 1);
	close(fd);
	memcpy(want, old, 4096);
	expect_bytes(p, want, quick ? 8192 : 4096);
	if (quick)
		ck_assert_int_eq(rep.copy_on_write, (uint32_t)fs_type == FS_BTRFS);
	free(want), free(old);
}

/* A layer that drops RWF_APPEND (overlayfs on Debian 12's 6.1) under a
 * file that passes for ext4: the quick step's append lands at the offset
 * it gives, the size it looked at, so inside the range and never over the
 * file's first bytes. */
START_TEST(quick_step_dropped_append_stays_in_the_range)
{
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, NULL, NULL, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;
	struct lfa_target t;
	const char *p = fresh("quick-dropped");
	unsigned char *want = calloc(1, 8192), *old = pattern(4096, 22);
	int fd, looked = 0, r;

	if (real_refuses(0x10)) {
		fprintf(stderr, "skipping: pwritev2 refuses RWF_APPEND here (qemu-user?)\n");
		free(want), free(old);
		return;
	}
	write_pattern_at(p, 0, 4096, 22);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	hook_reset();
	layer_drops_append = 1;
	fake_fs_type = FS_EXT;
	memset(&rep, 0, sizeof rep);
	hk.active = 1;
	r = lfa_extend_quickly(fd, 4096, 4096, &opt, &rep, &t, &looked);
	hk.active = 0;
	ck_assert_int_eq(r, 0);
	writes_inside(4096, 8192);
	close(fd);
	memcpy(want, old, 4096);
	expect_bytes(p, want, 8192);
	free(want), free(old);
}
END_TEST

START_TEST(quick_step_only_where_appends_land_at_the_size)
{
	quick_step_on(FS_EXT, 1);
	quick_step_on(FS_XFS, 1);
	quick_step_on(FS_BTRFS, 1);
	quick_step_on(FS_FUSE, 0);
	quick_step_on(0x01021994, 0); /* tmpfs */
}
END_TEST

void race_quick_tests(TCase *tc)
{
	tcase_add_test(tc, quick_step_makes_glibcs_syscalls);
	tcase_add_test(tc, quick_step_raced_by_another_writer);
	tcase_add_test(tc, nothing_remembered_without_unique_mount_ids);
	tcase_add_test(tc, quick_step_past_rlimit_writes_nothing);
	tcase_add_test(tc, quick_step_without_write_access);
	tcase_add_test(tc, quick_step_raced_then_nothing_to_aim);
	tcase_add_test(tc, quick_step_only_where_appends_land_at_the_size);
	tcase_add_test(tc, quick_step_dropped_append_stays_in_the_range);
}

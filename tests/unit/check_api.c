/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The public lfa_ API through the shared library, as programs use it: paths
 * and reasons in the report, options and report structures of other sizes,
 * progress and cancellation, errno left alone. */
#include "../lib/testutil.h"

#include <check.h>
#include <sys/mman.h>

#include "check-run.h"
#include <stddef.h>

#include <libfallocate.h>

#define MiB ((int64_t)1 << 20)

static int open_fresh(const char *name)
{
	const char *p = scratch_path(name);
	int fd;

	unlink(p);
	fd = open(p, O_RDWR | O_CREAT, 0600);
	ck_assert_msg(fd >= 0, "open %s: %s", p, strerror(errno));
	return fd;
}

/* Calls lfa_allocate and checks that errno survived it. */
static int allocate(int fd, int64_t offset, int64_t len, const struct lfa_options *opt,
		    struct lfa_report *rep)
{
	int err;

	errno = 4242;
	err = lfa_allocate(fd, offset, len, opt, rep);
	ck_assert_int_eq(errno, 4242);
	return err;
}

static struct lfa_options forced(void)
{
	struct lfa_options opt = LFA_OPTIONS_INIT;

	opt.emulation = LFA_EMULATION_ALWAYS;
	return opt;
}

START_TEST(native_path)
{
	struct lfa_options opt = LFA_OPTIONS_INIT;
	struct lfa_report rep = LFA_REPORT_INIT;
	int fd = open_fresh("native");
	int err;

	opt.emulation = LFA_EMULATION_AUTO;
	err = allocate(fd, 0, 8 * MiB, &opt, &rep);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(file_size(fd), 8 * MiB);
	ck_assert_uint_eq(rep.size, sizeof rep);
	if (rep.native_error == EOPNOTSUPP) { /* a test directory without fallocate */
		ck_assert_int_eq(rep.path, LFA_PATH_EMULATED);
		ck_assert_int_eq(rep.reason, LFA_REASON_KERNEL);
	} else {
		ck_assert_int_eq(rep.native_error, 0);
		ck_assert_int_eq(rep.path, LFA_PATH_NATIVE);
		ck_assert_int_eq(rep.reason, LFA_REASON_NONE);
		ck_assert_int_eq(rep.holes, LFA_HOLES_NONE);
		ck_assert_uint_eq(rep.bytes_written, 0);
		/* the call, and one look at the blocks it reserved (statx;
		 * fstat, and fstatfs on an anonymous device, without it) */
		ck_assert_uint_ge(rep.syscalls, 2);
		ck_assert_uint_le(rep.syscalls, 3);
	}
	close(fd);
}
END_TEST

START_TEST(forced_emulation_new_file)
{
	struct lfa_options opt = forced();
	struct lfa_report rep = LFA_REPORT_INIT;
	int fd = open_fresh("forced");

	ck_assert_int_eq(allocate(fd, 4096, 8 * MiB, &opt, &rep), 0);
	ck_assert_int_eq(file_size(fd), 4096 + 8 * MiB);
	ck_assert_int_eq(rep.path, LFA_PATH_EMULATED);
	ck_assert_int_eq(rep.reason, LFA_REASON_FORCED);
	ck_assert_int_eq(rep.native_error, 0); /* the kernel was not asked */
	ck_assert_int_eq(rep.holes, LFA_HOLES_NONE);
	ck_assert_uint_eq(rep.bytes_written, 8 * MiB); /* the range, not the gap before it */
	/* fcntl, fstat, fstatfs, a first block where aimed (the gap before
	 * it stays a hole), then a few 4 MiB appends, each after a look */
	ck_assert_uint_ge(rep.syscalls, 6);
	ck_assert_uint_le(rep.syscalls, 18);
	close(fd);
}
END_TEST

START_TEST(forced_emulation_finds_holes)
{
	struct lfa_options opt = forced();
	struct lfa_report rep = LFA_REPORT_INIT;
	const char *p = scratch_path("holes");
	int fd;

	unlink(p);
	write_pattern_at(p, 1 * MiB, 4096, 3); /* a hole, data, a hole */
	write_pattern_at(p, 3 * MiB - 4096, 4096, 4);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(allocate(fd, 0, 3 * MiB, &opt, &rep), 0);
	ck_assert_int_eq(rep.path, LFA_PATH_EMULATED);
	ck_assert(rep.holes == LFA_HOLES_FIEMAP || rep.holes == LFA_HOLES_SEEK ||
		  rep.holes == LFA_HOLES_READ);
	ck_assert_uint_eq(rep.bytes_written, 3 * MiB - 2 * 4096); /* the data stays */
	ck_assert(fully_allocated(p, 0, 3 * MiB));
	close(fd);
}
END_TEST

START_TEST(null_options_and_report)
{
	int fd = open_fresh("null");

	ck_assert_int_eq(allocate(fd, 0, 1 * MiB, NULL, NULL), 0);
	ck_assert_int_eq(file_size(fd), 1 * MiB);
	close(fd);
}
END_TEST

START_TEST(kernel_errors_pass_through)
{
	struct lfa_options opt = LFA_OPTIONS_INIT;
	struct lfa_report rep = LFA_REPORT_INIT;
	int fd = open_fresh("errors");

	opt.emulation = LFA_EMULATION_AUTO;
	ck_assert_int_eq(allocate(fd, 0, 0, &opt, &rep), EINVAL);
	ck_assert_int_eq(rep.path, LFA_PATH_NATIVE);
	ck_assert_int_eq(rep.native_error, EINVAL);
	ck_assert_int_eq(allocate(fd, -1, 10, &opt, &rep), EINVAL);
	ck_assert_int_eq(allocate(-1, 0, 10, &opt, &rep), EBADF);
	ck_assert_int_eq(rep.path, LFA_PATH_NATIVE);
	opt = forced(); /* the emulation refuses the same calls, in the kernel's order */
	ck_assert_int_eq(allocate(-1, 0, 10, &opt, &rep), EBADF);
	ck_assert_int_eq(rep.path, LFA_PATH_EMULATED);
	ck_assert_int_eq(rep.reason, LFA_REASON_FORCED);
	ck_assert_int_eq(allocate(fd, 0, 0, &opt, &rep), EINVAL);
	ck_assert_int_eq(file_size(fd), 0);
	close(fd);
}
END_TEST

static int cancel_at_once(uint64_t done, uint64_t total, void *user)
{
	int *calls = user;

	ck_assert_uint_le(done, total);
	++*calls;
	return 1;
}

START_TEST(cancel_keeps_size)
{
	struct lfa_options opt = forced();
	struct lfa_report rep = LFA_REPORT_INIT;
	int fd = open_fresh("cancel");
	int calls = 0;

	ck_assert_int_eq(pwrite(fd, "data", 4, 0), 4);
	opt.progress = cancel_at_once;
	opt.user = &calls;
	ck_assert_int_eq(allocate(fd, 0, 64 * MiB, &opt, &rep), ECANCELED);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(file_size(fd), 4);
	ck_assert_int_eq(rep.path, LFA_PATH_EMULATED);
	ck_assert_uint_le(rep.bytes_written, 4 * MiB); /* stopped after the first write */
	close(fd);
}
END_TEST

struct progress_log {
	int calls;
	uint64_t done, total;
};

static int log_progress(uint64_t done, uint64_t total, void *user)
{
	struct progress_log *log = user;

	ck_assert_uint_ge(done, log->done);
	ck_assert_uint_le(done, total);
	log->calls++;
	log->done = done;
	log->total = total;
	return 0;
}

START_TEST(progress_reaches_total)
{
	struct progress_log log = { 0, 0, 0 };
	struct lfa_options opt = forced();
	int fd = open_fresh("progress");

	opt.progress = log_progress;
	opt.user = &log;
	ck_assert_int_eq(allocate(fd, 100, 16 * MiB, &opt, NULL), 0);
	ck_assert_int_ge(log.calls, 4); /* a call per 4 MiB write at least */
	ck_assert_uint_eq(log.total, 16 * MiB);
	ck_assert_uint_eq(log.done, 16 * MiB);
	close(fd);
}
END_TEST

/* What a program built against an older or newer header passes. */
struct options_v2 {
	struct lfa_options v1;
	uint64_t future;
};

struct report_v2 {
	struct lfa_report v1;
	uint64_t future;
};

START_TEST(structure_sizes)
{
	struct options_v2 big;
	struct report_v2 rep;
	struct lfa_options opt = LFA_OPTIONS_INIT;
	int fd = open_fresh("sizes");

	memset(&big, 0, sizeof big);
	big.v1.size = sizeof big;
	memset(&rep, 0xa5, sizeof rep);
	rep.v1.size = sizeof rep;
	ck_assert_int_eq(allocate(fd, 0, 4096, &big.v1, &rep.v1), 0); /* zero tail: fine */
	ck_assert_uint_eq(rep.v1.size, sizeof rep);
	ck_assert_uint_eq(rep.future, 0); /* unknown members are cleared */
	big.future = 1;
	ck_assert_int_eq(allocate(fd, 0, 8192, &big.v1, NULL), E2BIG);
	ck_assert_int_eq(file_size(fd), 4096); /* refused before anything was done */

	opt.size = offsetof(struct lfa_options, progress);
	ck_assert_int_eq(allocate(fd, 0, 8192, &opt, NULL), EINVAL);
	opt.size = 0;
	ck_assert_int_eq(allocate(fd, 0, 8192, &opt, NULL), EINVAL);
	opt.size = sizeof opt;
	opt.flags = LFA_KEEP_CACHE << 1; /* the first flag not defined */
	ck_assert_int_eq(allocate(fd, 0, 8192, &opt, NULL), EINVAL);
	opt.flags = LFA_KEEP_CACHE;
	ck_assert_int_eq(allocate(fd, 0, 4096, &opt, NULL), 0);
	opt.flags = 0;
	opt.emulation = 4;
	ck_assert_int_eq(allocate(fd, 0, 8192, &opt, &rep.v1), EINVAL);
	ck_assert_int_eq(rep.v1.path, LFA_PATH_NONE);
	opt.emulation = -1;
	ck_assert_int_eq(allocate(fd, 0, 8192, &opt, NULL), EINVAL);

	memset(&rep, 0xa5, sizeof rep);
	rep.v1.size = sizeof rep.v1 - 1; /* too small: refused, and left alone */
	ck_assert_int_eq(allocate(fd, 0, 8192, NULL, &rep.v1), EINVAL);
	ck_assert_int_eq(rep.v1.path, (int)0xa5a5a5a5);
	ck_assert_int_eq(file_size(fd), 4096);
	close(fd);
}
END_TEST

/* A size past what the library can check (a page, as openat2 and clone3):
 * E2BIG, without reading or writing past the caller's structure, which here
 * ends right before a page that cannot be touched. */
START_TEST(huge_structure_size_is_e2big)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct lfa_options *opt;
	struct lfa_report *rep;
	int fd = open_fresh("huge-size");

	ck_assert(map != MAP_FAILED);
	ck_assert_int_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
	opt = (struct lfa_options *)(map + page - sizeof *opt);
	rep = (struct lfa_report *)(map + page - sizeof *rep);
	memset(map, 0, (size_t)page);
	*opt = forced();
	opt->size = 1 << 20;
	ck_assert_int_eq(allocate(fd, 0, 8192, opt, NULL), E2BIG);
	memset(map, 0, (size_t)page);
	rep->size = 1 << 20;
	ck_assert_int_eq(allocate(fd, 0, 8192, NULL, rep), E2BIG);
	ck_assert_int_eq(file_size(fd), 0);
	close(fd);
	munmap(map, (size_t)page * 2);
}
END_TEST

START_TEST(names_and_version)
{
	const char *v = lfa_version();
	unsigned a, b, c;

	ck_assert_str_eq(lfa_strpath(LFA_PATH_NATIVE), "native");
	ck_assert_str_eq(lfa_strpath(LFA_PATH_EMULATED), "emulated");
	ck_assert_str_eq(lfa_strpath(LFA_PATH_NONE), "none");
	ck_assert_str_eq(lfa_strpath(99), "none");
	ck_assert_str_eq(lfa_strholes(LFA_HOLES_SEEK), "SEEK_HOLE");
	ck_assert_str_eq(lfa_strholes(LFA_HOLES_READ), "read-back");
	ck_assert_str_eq(lfa_strholes(-5), "none");
	ck_assert_str_eq(lfa_strreason(LFA_REASON_KERNEL), "kernel");
	ck_assert_str_eq(lfa_strreason(LFA_REASON_FORCED), "forced");
	ck_assert_str_eq(lfa_strreason(LFA_REASON_NONE), "none");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(sscanf(v, "%u.%u.%u", &a, &b, &c), 3);
	ck_assert_int_ge(LFA_API_VERSION, 1);
}
END_TEST

/* The ABI must not depend on _FILE_OFFSET_BITS: this file is built both ways,
 * and the structures are made of fixed-width members and pointers only. */
START_TEST(layout_is_fixed)
{
	size_t words = sizeof(size_t) + 4 * sizeof(int);

	ck_assert_uint_eq(sizeof(int), 4);
	ck_assert_uint_eq(sizeof(struct lfa_options), sizeof(size_t) + 8 + 2 * sizeof(void *));
	ck_assert_uint_ge(offsetof(struct lfa_report, bytes_written), words);
	ck_assert_uint_le(offsetof(struct lfa_report, bytes_written), words + 4);
	ck_assert_uint_eq(offsetof(struct lfa_report, notes),
			  offsetof(struct lfa_report, bytes_written) + 2 * sizeof(uint64_t));
	ck_assert_uint_ge(sizeof(struct lfa_report), offsetof(struct lfa_report, notes) + 4);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("lfa_allocate");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, native_path);
	tcase_add_test(tc, forced_emulation_new_file);
	tcase_add_test(tc, forced_emulation_finds_holes);
	tcase_add_test(tc, null_options_and_report);
	tcase_add_test(tc, kernel_errors_pass_through);
	tcase_add_test(tc, cancel_keeps_size);
	tcase_add_test(tc, progress_reaches_total);
	tcase_add_test(tc, structure_sizes);
	tcase_add_test(tc, names_and_version);
	tcase_add_test(tc, layout_is_fixed);
	tcase_add_test(tc, huge_structure_size_is_e2big);
	suite_add_tcase(s, tc);
	return run_suite(s);
}

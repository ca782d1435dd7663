/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Every invalid call fails with the kernel's error, in the kernel's order, on
 * every entry point and on both paths (the syscall, and the emulation
 * forced), and changes neither the errno of posix_fallocate's caller nor a
 * byte or the size of the file. */
#include "../lib/testutil.h"

#include <check.h>

#include "check-run.h"
#include <limits.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "emulate.h"

#define DATA_LEN 10000
#define SEED 7u

enum fd_kind { REGULAR_RW, CLOSED, READ_ONLY, O_PATH_FD, PIPE_READ, PIPE_WRITE,
	       SOCKET, DIRECTORY, DEV_NULL };

struct error_case {
	const char *name;
	enum fd_kind kind;
	int64_t offset, len;
	int expected;        /* -1: success on 64-bit off_t, EFBIG on 32-bit */
	int plain_only;      /* through the off_t entry points only */
};

static const struct error_case cases[] = {
	{ "negative offset",            REGULAR_RW, -1, 4096, EINVAL, 0 },
	{ "negative len",               REGULAR_RW, 0, -1, EINVAL, 0 },
	{ "zero len",                   REGULAR_RW, 0, 0, EINVAL, 0 },
	{ "offset+len overflows",       REGULAR_RW, INT64_MAX - 10, 100, EFBIG, 0 },
	{ "closed fd",                  CLOSED, 0, 4096, EBADF, 0 },
	{ "closed fd, zero len",        CLOSED, 0, 0, EBADF, 0 },
	{ "O_RDONLY",                   READ_ONLY, 0, 4096, EBADF, 0 },
	{ "O_RDONLY, negative offset",  READ_ONLY, -1, 1, EINVAL, 0 },
	{ "O_PATH",                     O_PATH_FD, 0, 4096, EBADF, 0 },
	{ "O_PATH, zero len",           O_PATH_FD, 0, 0, EBADF, 0 },
	{ "pipe, read end",             PIPE_READ, 0, 4096, EBADF, 0 },
	{ "pipe, write end",            PIPE_WRITE, 0, 4096, ESPIPE, 0 },
	{ "pipe, overflow",             PIPE_WRITE, INT64_MAX, 2, ESPIPE, 0 },
	{ "socket",                     SOCKET, 0, 4096, ENODEV, 0 },
	{ "directory",                  DIRECTORY, 0, 4096, EBADF, 0 },
	{ "/dev/null",                  DEV_NULL, 0, 4096, ENODEV, 0 },
	{ "/dev/null, overflow",        DEV_NULL, INT64_MAX, 2, ENODEV, 0 },
	{ "end past 2 GiB via off_t",   REGULAR_RW, INT32_MAX - 50, 100, -1, 1 },
};

static int open_kind(enum fd_kind kind, const char *path, int *extra)
{
	int p[2], fd = -1;

	*extra = -1;
	switch (kind) {
	case REGULAR_RW: return open(path, O_RDWR);
	case CLOSED:     fd = open(path, O_RDWR); close(fd); return fd;
	case READ_ONLY:  return open(path, O_RDONLY);
	case O_PATH_FD:  return open(path, O_PATH);
	case PIPE_READ:  if (pipe(p)) abort(); *extra = p[1]; return p[0];
	case PIPE_WRITE: if (pipe(p)) abort(); *extra = p[0]; return p[1];
	case SOCKET:     return socket(AF_UNIX, SOCK_STREAM, 0);
	case DIRECTORY:  return open(test_dir(), O_RDONLY | O_DIRECTORY);
	case DEV_NULL:   return open("/dev/null", O_WRONLY);
	}
	return -1;
}

static int expected_error(const struct error_case *c, int narrow)
{
	if (c->expected == -1)
		return narrow ? EFBIG : 0;
	return c->expected;
}

enum entry { POSIX_FALLOCATE, POSIX_FALLOCATE64, FALLOCATE, FALLOCATE64, EMULATED };

/* Returns the error the entry point reports, checking its errno rules. */
static int call_entry(enum entry e, int fd, int64_t offset, int64_t len)
{
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, 0, 0, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;
	int r, err;

	errno = 12345;
	switch (e) {
	case POSIX_FALLOCATE:
		r = posix_fallocate(fd, (off_t)offset, (off_t)len);
		ck_assert_int_eq(errno, 12345);
		return r;
	case POSIX_FALLOCATE64:
		r = posix_fallocate64(fd, offset, len);
		ck_assert_int_eq(errno, 12345);
		return r;
	case FALLOCATE:
		r = fallocate(fd, 0, (off_t)offset, (off_t)len);
		break;
	case FALLOCATE64:
		r = fallocate64(fd, 0, offset, len);
		break;
	case EMULATED:
		r = lfa_run_job("test", fd, offset, len, INT64_MAX, &opt, &rep);
		ck_assert_int_eq(errno, 12345);
		return r;
	}
	err = errno;
	ck_assert_msg(r == 0 || r == -1, "fallocate returned %d", r);
	if (r == 0) {
		ck_assert_int_eq(err, 12345);
		return 0;
	}
	return err;
}

static const char *entry_name(enum entry e)
{
	static const char *names[] = { "posix_fallocate", "posix_fallocate64", "fallocate",
				       "fallocate64", "emulation" };
	return names[e];
}

START_TEST(test_error_case)
{
	const struct error_case *c = &cases[_i];
	int narrow_off_t = sizeof(off_t) < sizeof(int64_t);
	enum entry e;

	for (e = POSIX_FALLOCATE; e <= EMULATED; e++) {
		const char *path = scratch_path("errors");
		int plain = e == POSIX_FALLOCATE || e == FALLOCATE;
		int want, got, fd, extra;

		if (c->plain_only && !plain)
			continue;
		if (plain && narrow_off_t && ((off_t)c->offset != c->offset || (off_t)c->len != c->len))
			continue; /* not expressible in this off_t */
		/* glibc's fallocate() hands a 32-bit off_t to the kernel as is. */
		want = e == FALLOCATE ? expected_error(c, 0) : expected_error(c, narrow_off_t && plain);
		unlink(path);
		write_pattern_at(path, 0, DATA_LEN, SEED);
		fd = open_kind(c->kind, path, &extra);
		got = call_entry(e, fd, c->offset, c->len);
		ck_assert_msg(got == want, "%s, %s: got %s, want %s", c->name, entry_name(e),
			      strerror(got), strerror(want));
		if (want == 0) {
			ck_assert_int_eq(ftruncate(fd, DATA_LEN), 0);
		} else {
			int check = open(path, O_RDONLY);

			ck_assert_int_eq(file_size(check), DATA_LEN);
			close(check);
		}
		ck_assert_int_eq(first_mismatch(path, 0, DATA_LEN, 0, DATA_LEN, SEED), -1);
		if (fd >= 0)
			close(fd);
		if (extra >= 0)
			close(extra);
	}
}
END_TEST

/* The table is the kernel's own answer, not our idea of it. */
START_TEST(test_table_matches_kernel)
{
	const struct error_case *c = &cases[_i];
	const char *path = scratch_path("kernel");
	int fd, extra, err;
	long r;

	if (c->expected <= 0)
		return;
	unlink(path);
	write_pattern_at(path, 0, DATA_LEN, SEED);
	fd = open_kind(c->kind, path, &extra);
	r = syscall(SYS_fallocate, fd, 0, (off64_t)c->offset, (off64_t)c->len);
	err = r == 0 ? 0 : errno;
	ck_assert_msg(err == c->expected, "%s: kernel says %s, table %s", c->name,
		      strerror(err), strerror(c->expected));
	if (fd >= 0)
		close(fd);
	if (extra >= 0)
		close(extra);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("table");
	int n = (int)(sizeof cases / sizeof cases[0]);

	tcase_add_loop_test(tc, test_error_case, 0, n);
	if (sizeof(long) == 8) /* syscall()'s varargs are long: 64-bit only */
		tcase_add_loop_test(tc, test_table_matches_kernel, 0, n);
	suite_add_tcase(s, tc);
	return run_suite(s);
}

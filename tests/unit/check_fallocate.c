/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* fallocate()'s decisions (src/fallocate.c), the environment settings
 * (src/settings.c) and the look at a file without statx
 * (src/look_at_target.c), on a kernel whose answers this program chooses:
 * it defines syscall() and statx(), which the library calls, and makes
 * the fallocate syscall fail with the errno a test sets, as an old kernel
 * (ENOSYS), a filesystem without fallocate (EOPNOTSUPP) or a sandbox
 * (EPERM) would, and statx ENOSYS as before Linux 4.11. */
#include "../lib/testutil.h"

#include <check.h>

#include "check-run.h"
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/falloc.h>

#include "emulate.h"
#include "libfallocate.h"
#include "shim.h"

#define SEED 23u
#define OLD_LEN 100
#define MiB ((int64_t)1 << 20)

static int fallocate_errno; /* what the fallocate syscall answers; 0: the kernel */
static int fallocate_calls;
static int fallocate_lies;  /* the syscall answers 0 and does nothing */
static int statx_errno;     /* what statx answers; 0: the kernel */
static int statx_immutable; /* statx adds the immutable attribute */
static int statx_errno_after_call; /* what statx answers once fallocate was called */
static int looks_after_call;       /* statx and fstat64 calls after it */
/* The filesystem played (fstatfs64's f_type; 0: the real one), and what
 * statx says of it: SMB's attribute mask and an anonymous device.  statx
 * then names no mount, so that nothing the library remembers of the real
 * mount answers instead. */
static long played_fs_type;
static int played_smb_statx;

long syscall(long nr, ...)
{
	long a[6];

	SHIM_SYSCALL_ARGS(a, nr);
	if (nr == SYS_fallocate) {
		fallocate_calls++;
		if (fallocate_lies)
			return 0;
		if (fallocate_errno) {
			errno = fallocate_errno;
			return -1;
		}
	}
	return real_syscall(nr, a);
}

int statx(int fd, const char *path, int flags, unsigned mask, struct statx *sx)
{
	looks_after_call += fallocate_calls > 0;
	if (statx_errno_after_call && fallocate_calls > 0) {
		errno = statx_errno_after_call;
		return -1;
	}
	if (statx_errno) {
		errno = statx_errno;
		return -1;
	}
	if (REAL(statx)(fd, path, flags, mask, sx) != 0)
		return -1;
	if (statx_immutable) {
		sx->stx_attributes |= STATX_ATTR_IMMUTABLE;
		sx->stx_attributes_mask |= STATX_ATTR_IMMUTABLE;
	}
	if (played_fs_type)
		sx->stx_mask &= ~0x4000u; /* STATX_MNT_ID_UNIQUE */
	if (played_smb_statx) { /* 2: an anonymous device of another kind */
		sx->stx_attributes_mask = played_smb_statx == 1 ?
			STATX_ATTR_COMPRESSED | STATX_ATTR_ENCRYPTED : 0;
		sx->stx_dev_major = 0;
	}
	if (statx_immutable && played_smb_statx) /* after the mask above */
		sx->stx_attributes_mask |= STATX_ATTR_IMMUTABLE;
	return 0;
}

int fstatfs64(int fd, struct statfs64 *sf)
{
	int r = REAL(fstatfs64)(fd, sf);

	if (r == 0 && played_fs_type)
		sf->f_type = played_fs_type;
	return r;
}

static const char *const variables[] = {
	"LIBFALLOCATE_EMULATION", "LIBFALLOCATE_DEBUG", "LIBFALLOCATE_EMULATE_FALLOCATE",
	"LIBFALLOCATE_COPY_ON_WRITE", "LIBFALLOCATE_CACHE",
};

/* The environment of a test: NULL-terminated name, value pairs. */
static void environment(const char *name, ...)
{
	va_list ap;
	size_t i;

	for (i = 0; i < sizeof variables / sizeof variables[0]; i++)
		unsetenv(variables[i]);
	va_start(ap, name);
	while (name) {
		ck_assert_int_eq(setenv(name, va_arg(ap, const char *), 1), 0);
		name = va_arg(ap, const char *);
	}
	va_end(ap);
	lfa_settings_reload();
}

int fstat64(int fd, struct stat64 *st)
{
	looks_after_call += fallocate_calls > 0;
	return REAL(fstat64)(fd, st);
}

/* The tests share one process under CK_FORK=no (valgrind). */
static void teardown(void)
{
	fallocate_errno = statx_errno = statx_immutable = fallocate_lies = 0;
	statx_errno_after_call = looks_after_call = 0;
	played_fs_type = played_smb_statx = 0;
	environment(NULL);
}

/* A file holding OLD_LEN pattern bytes, opened O_RDWR. */
static int old_file(const char *name, const char **path)
{
	const char *p = scratch_path(name);
	int fd;

	unlink(p);
	write_pattern_at(p, 0, OLD_LEN, SEED);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	*path = p;
	return fd;
}

static void unchanged(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, OLD_LEN);
	ck_assert_int_eq(first_mismatch(path, 0, OLD_LEN, 0, OLD_LEN, SEED), -1);
}

/* stderr into a file while a test runs; what was written comes back. */
static char captured[4096];
static int saved_stderr = -1;

static void capture_stderr(void)
{
	int fd = open(scratch_path("stderr"), O_RDWR | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	saved_stderr = dup(2);
	ck_assert_int_ge(saved_stderr, 0);
	ck_assert_int_eq(dup2(fd, 2), 2);
	close(fd);
}

static const char *release_stderr(void)
{
	ssize_t n = pread(2, captured, sizeof captured - 1, 0);

	ck_assert_int_ge(n, 0);
	captured[n] = '\0';
	ck_assert_int_eq(dup2(saved_stderr, 2), 2);
	close(saved_stderr);
	saved_stderr = -1;
	return captured;
}

static int call(int lfs, int fd, int mode, int64_t offset, int64_t len)
{
	return lfs ? fallocate64(fd, mode, offset, len) : fallocate(fd, mode, (off_t)offset, (off_t)len);
}

/* fallocate() is glibc's thin wrapper: the kernel's ENOSYS or EOPNOTSUPP
 * comes back with nothing written, unless LIBFALLOCATE_EMULATE_FALLOCATE=1,
 * and LIBFALLOCATE_EMULATION=never still wins over that.  _i: the error,
 * and fallocate or fallocate64. */
START_TEST(mode_0_emulated_only_when_asked)
{
	static const int errors[] = { ENOSYS, EOPNOTSUPP };
	int lfs = _i & 1;
	const char *p;
	int fd = old_file("mode0", &p);

	fallocate_errno = errors[_i >> 1];
	environment(NULL);
	fallocate_calls = 0;
	errno = 0;
	ck_assert_int_eq(call(lfs, fd, 0, 0, 16384), -1);
	ck_assert_int_eq(errno, fallocate_errno);
	ck_assert_int_eq(fallocate_calls, 1);
	unchanged(p);

	environment("LIBFALLOCATE_EMULATE_FALLOCATE", "1", "LIBFALLOCATE_EMULATION", "never", NULL);
	errno = 0;
	ck_assert_int_eq(call(lfs, fd, 0, 0, 16384), -1);
	ck_assert_int_eq(errno, fallocate_errno);
	unchanged(p);

	environment("LIBFALLOCATE_EMULATE_FALLOCATE", "1", NULL);
	errno = 12345;
	ck_assert_int_eq(call(lfs, fd, 0, 0, 16384), 0);
	ck_assert_int_eq(errno, 12345);
	ck_assert_int_eq(file_size(fd), 16384);
	ck_assert_int_eq(first_mismatch(p, 0, 16384, 0, OLD_LEN, SEED), -1);
	close(fd);
}
END_TEST

/* Only mode 0 is emulated.  Any other mode gets the kernel's answer, but
 * once mode 0 works, fallocate exists: ENOSYS for another mode becomes
 * EOPNOTSUPP, what a filesystem without that mode says.  An error other
 * than ENOSYS and EOPNOTSUPP is never emulated over, for any mode. */
START_TEST(other_modes_keep_the_kernels_answer)
{
	static const struct {
		int kernel, mode, emulate_fallocate, expected;
	} cases[] = {
		{ ENOSYS, FALLOC_FL_KEEP_SIZE, 0, ENOSYS },
		{ ENOSYS, FALLOC_FL_KEEP_SIZE, 1, EOPNOTSUPP },
		{ ENOSYS, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 1, EOPNOTSUPP },
		{ ENOSYS, FALLOC_FL_ZERO_RANGE, 1, EOPNOTSUPP },
		{ EOPNOTSUPP, FALLOC_FL_KEEP_SIZE, 0, EOPNOTSUPP },
		{ EOPNOTSUPP, FALLOC_FL_KEEP_SIZE, 1, EOPNOTSUPP },
		{ EPERM, FALLOC_FL_KEEP_SIZE, 1, EPERM },
		{ EPERM, 0, 0, EPERM },
		{ EPERM, 0, 1, EPERM },
		{ EIO, 0, 1, EIO },
		{ ENOSPC, 0, 1, ENOSPC },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *p;
		int fd = old_file("modes", &p), lfs;

		if (cases[i].emulate_fallocate)
			environment("LIBFALLOCATE_EMULATE_FALLOCATE", "1", NULL);
		else
			environment(NULL);
		fallocate_errno = cases[i].kernel;
		for (lfs = 0; lfs <= 1; lfs++) {
			errno = 0;
			ck_assert_int_eq(call(lfs, fd, cases[i].mode, 0, 8192), -1);
			ck_assert_msg(errno == cases[i].expected,
				      "case %zu: mode %#x, kernel %s: %s, expected %s", i,
				      (unsigned)cases[i].mode, strerror(cases[i].kernel),
				      strerror(errno), strerror(cases[i].expected));
		}
		unchanged(p);
		close(fd);
	}
}
END_TEST

/* Where the kernel allocates, fallocate() is the syscall and nothing else:
 * one call with the caller's mode, 0, and errno untouched. */
START_TEST(kernel_success_passes_through)
{
	const char *p;
	int fd = old_file("native", &p);

	environment("LIBFALLOCATE_EMULATE_FALLOCATE", "1", NULL);
	fallocate_calls = 0;
	errno = 12345;
	if (call(0, fd, FALLOC_FL_KEEP_SIZE, 0, 65536) != 0) {
		ck_assert_msg(errno == EOPNOTSUPP, "fallocate KEEP_SIZE: %s", strerror(errno));
		fprintf(stderr, "skipping kernel_success_passes_through: $TMPDIR has no fallocate\n");
		close(fd);
		return;
	}
	ck_assert_int_eq(errno, 12345);
	ck_assert_int_eq(fallocate_calls, 1);
	unchanged(p); /* KEEP_SIZE: the size stays */
	ck_assert_int_eq(call(1, fd, 0, 0, 65536), 0);
	ck_assert_int_eq(errno, 12345);
	ck_assert_int_eq(fallocate_calls, 2);
	ck_assert_int_eq(file_size(fd), 65536);
	ck_assert_int_eq(first_mismatch(p, 0, 65536, 0, OLD_LEN, SEED), -1);
	close(fd);
}
END_TEST

/* The emulation refused before its first write after a 0 that reserved
 * nothing: the 0 stands, reported, nothing written, the size as it was. */
static void zero_stands(int fd, int64_t len, int64_t size)
{
	struct lfa_report rep = LFA_REPORT_INIT;

	ck_assert_int_eq(lfa_allocate(fd, 0, len, NULL, &rep), 0);
	ck_assert_int_eq(rep.path, LFA_PATH_NATIVE);
	ck_assert_int_eq(rep.reason, LFA_REASON_NONE);
	ck_assert_uint_eq(rep.notes, LFA_NOTE_UNRESERVED);
	ck_assert_uint_eq(rep.bytes_written, 0);
	ck_assert_int_eq(file_size(fd), size);
}

/* LIBFALLOCATE_EMULATION=never takes the kernel's word: a 0 that grew
 * nothing stands, the kernel asked once; fd (MiB of which the first
 * OLD_LEN bytes are the pattern, at p) is closed. */
static void never_asks_only_the_kernel(int fd, const char *p)
{
	environment("LIBFALLOCATE_EMULATION", "never", NULL);
	fallocate_lies = 1;
	fallocate_calls = 0;
	ck_assert_int_eq(posix_fallocate(fd, 0, 4 * MiB), 0);
	ck_assert_int_eq(fallocate_calls, 1);
	ck_assert_int_eq(file_size(fd), MiB);
	ck_assert_int_eq(first_mismatch(p, 0, MiB, 0, OLD_LEN, SEED), -1);
	close(fd);
}

/* A layer that answers 0 and reserves nothing, as Linux 6.1's SMB3 client
 * holding a lease does over Samba: the file's blocks cannot hold the
 * range, so the emulation does the work, reported (LFA_REASON_UNRESERVED
 * and the debug line).  Over a range the blocks can hold, the answer
 * stands at the cost of one look; where the emulation refuses before its
 * first write, the kernel's 0 stands, reported as LFA_NOTE_UNRESERVED;
 * LIBFALLOCATE_EMULATION=never takes the kernel's word.  _i: with statx,
 * or with fstat as before Linux 4.11. */
START_TEST(kernel_that_reserved_nothing)
{
	struct lfa_report rep = LFA_REPORT_INIT;
	struct stat st;
	const char *p;
	int fd = old_file("unreserved", &p);

	statx_errno = _i ? ENOSYS : 0;
	fallocate_lies = 1;
	environment("LIBFALLOCATE_DEBUG", "1", NULL);
	capture_stderr();
	ck_assert_int_eq(lfa_allocate(fd, 0, MiB, NULL, &rep), 0);
	ck_assert_msg(strstr(release_stderr(), "emulated (kernel said ok, but reserved nothing it "
				 "can show;") != NULL, "debug line: %s", captured);
	ck_assert_int_eq(rep.path, LFA_PATH_EMULATED);
	ck_assert_int_eq(rep.reason, LFA_REASON_UNRESERVED);
	ck_assert_int_eq(rep.native_error, 0);
	ck_assert_uint_eq(rep.notes & LFA_NOTE_UNRESERVED, LFA_NOTE_UNRESERVED);
	ck_assert_uint_ge(rep.bytes_written, MiB - 4096);
	ck_assert_int_eq(file_size(fd), MiB);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_ge((int64_t)st.st_blocks * 512, MiB);
	ck_assert_int_eq(first_mismatch(p, 0, MiB, 0, OLD_LEN, SEED), -1);

	environment(NULL);
	rep = (struct lfa_report)LFA_REPORT_INIT;
	ck_assert_int_eq(lfa_allocate(fd, 0, MiB, NULL, &rep), 0);
	ck_assert_int_eq(rep.path, LFA_PATH_NATIVE);
	ck_assert_uint_eq(rep.notes, 0);
	ck_assert_uint_eq(rep.syscalls, _i ? 3 : 2); /* the call, the look (statx, then fstat) */

	/* refused (EPERM, immutable) before any write: the 0 stands */
	statx_immutable = !_i;
	if (statx_immutable) {
		zero_stands(fd, 4 * MiB, MiB);
		statx_immutable = 0;
	}

	never_asks_only_the_kernel(fd, p);
}
END_TEST

/* After the kernel's 0, a look at the blocks that fails (statx refused
 * from then on, as a sandbox or a layer may) lets the 0 stand, and no
 * other look is tried: fstat, through FUSE, may ask the server, which
 * finds files by name and would answer for whatever has the name now. */
START_TEST(failed_look_after_zero_lets_it_stand)
{
	struct lfa_report rep = LFA_REPORT_INIT;
	const char *p;
	int fd;

	fallocate_calls = 0;
	fd = old_file("failed-look", &p);
	fallocate_lies = 1;
	statx_errno_after_call = EPERM;
	ck_assert_int_eq(lfa_allocate(fd, 0, MiB, NULL, &rep), 0);
	ck_assert_int_eq(fallocate_calls, 1);
	ck_assert_int_eq(rep.path, LFA_PATH_NATIVE);
	ck_assert_uint_eq(rep.notes, 0);
	ck_assert_int_eq(looks_after_call, 1);
	ck_assert_int_eq(file_size(fd), OLD_LEN);
	ck_assert_int_eq(first_mismatch(p, 0, OLD_LEN, 0, OLD_LEN, SEED), -1);
}
END_TEST

/* Where the 0 is never taken (SMB, ceph-fuse, a FUSE server not known)
 * and the range passes the end of file, the kernel's 0 would only grow
 * the file, and the emulation would then read back what it could have
 * appended: the kernel is not asked.  Within the file it is, as before.
 * Where the emulation refuses before its first write, the kernel is asked
 * then, and its answer is the call's: a 0 stands (reported), an error is
 * returned, and EOPNOTSUPP leaves the refusal's error. */
START_TEST(kernel_not_asked_where_its_zero_only_grows)
{
	struct lfa_report rep = LFA_REPORT_INIT;
	const char *p;
	int fd = old_file("not-asked", &p);

	played_fs_type = 0xFE534D42; /* SMB2 */
	played_smb_statx = 2;
	fallocate_lies = 1;
	fallocate_calls = 0;
	environment("LIBFALLOCATE_DEBUG", "1", NULL);
	capture_stderr();
	ck_assert_int_eq(lfa_allocate(fd, 0, MiB, NULL, &rep), 0);
	ck_assert_msg(strstr(release_stderr(), "emulated (kernel not asked: this filesystem's 0 "
				 "reserves nothing; holes by") != NULL, "debug line: %s", captured);
	ck_assert_int_eq(fallocate_calls, 0);
	ck_assert_int_eq(rep.path, LFA_PATH_EMULATED);
	ck_assert_int_eq(rep.reason, LFA_REASON_UNRESERVED);
	ck_assert_int_eq(rep.native_error, 0);
	ck_assert_uint_eq(rep.notes & LFA_NOTE_UNRESERVED, LFA_NOTE_UNRESERVED);
	ck_assert_int_eq(file_size(fd), MiB);
	ck_assert_int_eq(first_mismatch(p, 0, MiB, 0, OLD_LEN, SEED), -1);

	/* within the file: asked, and its 0 not taken */
	environment(NULL);
	rep = (struct lfa_report)LFA_REPORT_INIT;
	ck_assert_int_eq(lfa_allocate(fd, 0, MiB, NULL, &rep), 0);
	ck_assert_int_eq(fallocate_calls, 1);
	ck_assert_int_eq(rep.path, LFA_PATH_EMULATED);
	ck_assert_int_eq(rep.reason, LFA_REASON_UNRESERVED);

	/* refused (EPERM, immutable) before any write: asked now, its 0
	 * stands, reported */
	statx_immutable = 1;
	zero_stands(fd, 4 * MiB, MiB);
	ck_assert_int_eq(fallocate_calls, 2);

	/* its error is the call's; EOPNOTSUPP leaves the refusal's */
	fallocate_lies = 0;
	fallocate_errno = ENOSPC;
	rep = (struct lfa_report)LFA_REPORT_INIT;
	ck_assert_int_eq(lfa_allocate(fd, 0, 4 * MiB, NULL, &rep), ENOSPC);
	ck_assert_int_eq(rep.native_error, ENOSPC);
	ck_assert_uint_eq(rep.notes, 0);
	fallocate_errno = EOPNOTSUPP;
	rep = (struct lfa_report)LFA_REPORT_INIT;
	ck_assert_int_eq(lfa_allocate(fd, 0, 4 * MiB, NULL, &rep), EPERM);
	ck_assert_int_eq(rep.native_error, EOPNOTSUPP);
	ck_assert_int_eq(rep.reason, LFA_REASON_KERNEL);
	ck_assert_uint_eq(rep.notes, 0);
	ck_assert_int_eq(fallocate_calls, 4);
	ck_assert_int_eq(file_size(fd), MiB);
	statx_immutable = 0;

	fallocate_errno = 0;
	never_asks_only_the_kernel(fd, p);
}
END_TEST

/* The kernel's 0 on SMB is never taken, even where the file's blocks
 * could hold the range (SMB's client counts them from the size): one
 * fstatfs after statx's attribute mask names SMB, and the emulation does
 * the work.  On a copy-on-write filesystem whose blocks show nothing
 * (OpenZFS answers 0 and leaves the file sparse) the 0 stands: zeros
 * would promise no more. */
START_TEST(unreserved_on_smb_and_copy_on_write)
{
	struct lfa_report rep = LFA_REPORT_INIT;
	const char *p;
	int fd = old_file("smb", &p);

	ck_assert_int_eq(posix_fallocate(fd, 0, 64 * 1024), 0); /* blocks enough */
	fallocate_lies = 1;
	played_fs_type = 0xFE534D42; /* SMB2 */
	played_smb_statx = 1;
	ck_assert_int_eq(lfa_allocate(fd, 0, 64 * 1024, NULL, &rep), 0);
	ck_assert_int_eq(rep.path, LFA_PATH_EMULATED);
	ck_assert_int_eq(rep.reason, LFA_REASON_UNRESERVED);
	ck_assert_uint_eq(rep.notes & LFA_NOTE_UNRESERVED, LFA_NOTE_UNRESERVED);
	ck_assert_int_eq(first_mismatch(p, 0, 64 * 1024, 0, OLD_LEN, SEED), -1);

	/* On an anonymous device the table decides (src/fs_facts.c), by
	 * fstatfs where no mount id names a remembered one: SMB's 0 is never
	 * taken, whatever statx's attributes say; a known local filesystem's
	 * is, at the call, the look and the fstatfs; an unknown FUSE server's
	 * may be empty, and the emulation, which cannot learn the held file's
	 * size there, refuses before writing: the 0 stands, reported. */
	{
		static const struct {
			int statx_kind, immutable;
			long fs_type;
			int emulated;
			unsigned notes;
		} played[] = {
			{ 2, 0, 0xFE534D42, 1, LFA_NOTE_UNRESERVED }, /* SMB2, no SMB mask */
			/* SMB2, the file immutable: the emulation refuses (EPERM) */
			{ 1, 1, 0xFE534D42, 0, LFA_NOTE_UNRESERVED },
			{ 2, 0, 0x01021994, 0, 0 },                   /* tmpfs */
			{ 1, 0, 0x65735546, 0, LFA_NOTE_UNRESERVED }, /* FUSE, no known server */
		};
		size_t i;

		for (i = 0; i < sizeof played / sizeof played[0]; i++) {
			played_smb_statx = played[i].statx_kind;
			statx_immutable = played[i].immutable;
			played_fs_type = played[i].fs_type;
			rep = (struct lfa_report)LFA_REPORT_INIT;
			ck_assert_int_eq(lfa_allocate(fd, 0, 64 * 1024, NULL, &rep), 0);
			ck_assert_int_eq(rep.path, (played[i].emulated ? LFA_PATH_EMULATED : LFA_PATH_NATIVE));
			ck_assert_uint_eq(rep.notes & LFA_NOTE_UNRESERVED, played[i].notes);
			if (played[i].fs_type == 0x01021994)
				ck_assert_uint_eq(rep.syscalls, 3);
			ck_assert_int_eq(first_mismatch(p, 0, 64 * 1024, 0, OLD_LEN, SEED), -1);
		}
		statx_immutable = 0;
	}
	close(fd);

	fd = old_file("zfs", &p);
	played_smb_statx = 0;
	played_fs_type = 0x2FC12FC1; /* zfs */
	rep = (struct lfa_report)LFA_REPORT_INIT;
	ck_assert_int_eq(lfa_allocate(fd, 0, MiB, NULL, &rep), 0);
	ck_assert_int_eq(rep.path, LFA_PATH_NATIVE);
	ck_assert_int_eq(rep.reason, LFA_REASON_NONE);
	ck_assert_int_eq(rep.holes, LFA_HOLES_NONE);
	ck_assert_uint_eq(rep.notes, LFA_NOTE_UNRESERVED | LFA_NOTE_COPY_ON_WRITE);
	ck_assert_uint_eq(rep.bytes_written, 0);
	unchanged(p); /* the lie grew nothing, and nothing was written */
	close(fd);
}
END_TEST

/* LIBFALLOCATE_DEBUG=1: the line of a call the kernel answered names it
 * with its arguments and the answer, and a mode-0 call that failed only
 * for want of the emulation says how to switch it on; never where the
 * switch would change nothing (another mode, another error, or
 * LIBFALLOCATE_EMULATION=never). */
START_TEST(debug_line_of_the_kernels_answer)
{
	static const struct {
		int kernel, mode, never, hint;
	} cases[] = {
		{ EOPNOTSUPP, 0, 0, 1 },
		{ ENOSYS, 0, 0, 1 },
		{ EOPNOTSUPP, FALLOC_FL_KEEP_SIZE, 0, 0 },
		{ ENOSYS, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 0 },
		{ EPERM, 0, 0, 0 },
		{ EOPNOTSUPP, 0, 1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char want[256];
		const char *p, *out;
		int fd = old_file("debug", &p);

		if (cases[i].never)
			environment("LIBFALLOCATE_DEBUG", "1", "LIBFALLOCATE_EMULATION", "never", NULL);
		else
			environment("LIBFALLOCATE_DEBUG", "1", NULL);
		fallocate_errno = cases[i].kernel;
		capture_stderr();
		errno = 0;
		ck_assert_int_eq(fallocate(fd, cases[i].mode, 4096, 8192), -1);
		ck_assert_int_eq(errno, cases[i].kernel);
		out = release_stderr();
		snprintf(want, sizeof want, "(fd=%d, mode=%#x, offset=4096, len=8192): native: %s%s\n",
			 fd, (unsigned)cases[i].mode, strerror(cases[i].kernel),
			 cases[i].hint ? " (not emulated: set LIBFALLOCATE_EMULATE_FALLOCATE=1, "
					 "or drop fallocate-preload's --no-emulate-fallocate)" : "");
		ck_assert_msg(!strncmp(out, "libfallocate: fallocate", 23) && strstr(out, want),
			      "case %zu: got \"%s\", expected a line with \"%s\"", i, out, want);
		unchanged(p);
		close(fd);
	}
	fallocate_errno = 0;
	{
		const char *p, *out;
		int fd = old_file("debug-ok", &p);
		char want[128];

		capture_stderr();
		ck_assert_int_eq(fallocate(fd, 0, 0, 4096), 0);
		out = release_stderr();
		snprintf(want, sizeof want, "(fd=%d, mode=0, offset=0, len=4096): native: ok\n", fd);
		ck_assert_msg(strstr(out, want), "got \"%s\", expected \"%s\"", out, want);
		close(fd);
	}
}
END_TEST

/* posix_fallocate's debug line says whether the kernel answered or the
 * emulation ran, and why it ran. */
START_TEST(debug_line_of_posix_fallocate)
{
	char want[256];
	const char *p, *out;
	int fd = old_file("debug-posix", &p);

	environment("LIBFALLOCATE_DEBUG", "1", NULL);
	fallocate_errno = EPERM;
	capture_stderr();
	ck_assert_int_eq(posix_fallocate(fd, 0, 4096), EPERM);
	out = release_stderr();
	snprintf(want, sizeof want, "(fd=%d, offset=0, len=4096): native: %s\n", fd, strerror(EPERM));
	ck_assert_msg(strstr(out, want), "got \"%s\", expected \"%s\"", out, want);
	unchanged(p);

	fallocate_errno = ENOSYS;
	capture_stderr();
	ck_assert_int_eq(posix_fallocate(fd, 0, 4096), 0);
	out = release_stderr();
	snprintf(want, sizeof want, "(fd=%d, offset=0, len=4096): emulated (kernel said %s; holes by ",
		 fd, strerror(ENOSYS));
	ck_assert_msg(strstr(out, want), "got \"%s\", expected \"%s\"", out, want);
	ck_assert_msg(strstr(out, "): ok, 3996 bytes written, "), "got \"%s\"", out);
	ck_assert_int_eq(first_mismatch(p, 0, 4096, 0, OLD_LEN, SEED), -1);
	close(fd);
}
END_TEST

/* Each variable's values, and what a value it does not know leaves:
 * the default, with one complaint on stderr (the value cut at 64 bytes). */
START_TEST(settings_from_the_environment)
{
	static const struct {
		const char *name, *value;
		struct lfa_settings want;
		const char *complaint; /* the expected values, or NULL */
	} cases[] = {
		{ NULL, NULL, { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_EMULATION", "never", { LFA_EMULATE_NEVER, 0, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_EMULATION", "always", { LFA_EMULATE_ALWAYS, 0, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_EMULATION", "auto", { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_EMULATION", "", { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_EMULATION", "Never", { LFA_EMULATE_AUTO, 0, 0, 0, 0 },
		  "auto, never or always" },
		{ "LIBFALLOCATE_DEBUG", "1", { LFA_EMULATE_AUTO, 1, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_DEBUG", "0", { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_DEBUG", "", { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_DEBUG", "yes", { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, "0 or 1" },
		{ "LIBFALLOCATE_EMULATE_FALLOCATE", "1", { LFA_EMULATE_AUTO, 0, 1, 0, 0 }, NULL },
		{ "LIBFALLOCATE_EMULATE_FALLOCATE", "2", { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, "0 or 1" },
		{ "LIBFALLOCATE_COPY_ON_WRITE", "refuse", { LFA_EMULATE_AUTO, 0, 0, 1, 0 }, NULL },
		{ "LIBFALLOCATE_COPY_ON_WRITE", "emulate", { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_COPY_ON_WRITE", "refused", { LFA_EMULATE_AUTO, 0, 0, 0, 0 },
		  "emulate or refuse" },
		{ "LIBFALLOCATE_CACHE", "keep", { LFA_EMULATE_AUTO, 0, 0, 0, 1 }, NULL },
		{ "LIBFALLOCATE_CACHE", "drop", { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, NULL },
		{ "LIBFALLOCATE_CACHE", "none", { LFA_EMULATE_AUTO, 0, 0, 0, 0 }, "keep or drop" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct lfa_settings s;
		const char *out;
		char want[256];

		environment(cases[i].name, cases[i].value, NULL);
		capture_stderr();
		errno = 12345;
		s = lfa_settings(-1);
		ck_assert_int_eq(errno, 12345);
		out = release_stderr();
		ck_assert_msg(s.emulation == cases[i].want.emulation && s.debug == cases[i].want.debug &&
			      s.emulate_fallocate == cases[i].want.emulate_fallocate &&
			      s.refuse_copy_on_write == cases[i].want.refuse_copy_on_write &&
			      s.keep_cache == cases[i].want.keep_cache,
			      "case %zu: %s=%s: {%d %d %d %d %d}", i, cases[i].name, cases[i].value,
			      s.emulation, s.debug, s.emulate_fallocate, s.refuse_copy_on_write,
			      s.keep_cache);
		if (cases[i].complaint)
			snprintf(want, sizeof want, "libfallocate: ignoring %s=%s (expected %s)\n",
				 cases[i].name, cases[i].value, cases[i].complaint);
		else
			want[0] = '\0';
		ck_assert_msg(!strcmp(out, want), "case %zu: stderr \"%s\", expected \"%s\"", i, out, want);
	}
	{
		/* All at once: each variable is its own bit. */
		struct lfa_settings s;

		environment("LIBFALLOCATE_EMULATION", "always", "LIBFALLOCATE_DEBUG", "1",
			    "LIBFALLOCATE_EMULATE_FALLOCATE", "1", "LIBFALLOCATE_COPY_ON_WRITE",
			    "refuse", "LIBFALLOCATE_CACHE", "keep", NULL);
		capture_stderr();
		s = lfa_settings(-1);
		ck_assert_str_eq(release_stderr(), "");
		ck_assert_int_eq(s.emulation, LFA_EMULATE_ALWAYS);
		ck_assert(s.debug && s.emulate_fallocate && s.refuse_copy_on_write && s.keep_cache);
	}
}
END_TEST

/* Read once: a change of the environment after the first call changes
 * nothing until a reload; a long unknown value is cut in the complaint. */
START_TEST(settings_read_once_and_complaint_cut)
{
	char value[201], want[256];
	struct lfa_settings s;
	const char *out;

	environment("LIBFALLOCATE_EMULATION", "never", NULL);
	ck_assert_int_eq(lfa_settings(-1).emulation, LFA_EMULATE_NEVER);
	setenv("LIBFALLOCATE_EMULATION", "always", 1);
	ck_assert_int_eq(lfa_settings(-1).emulation, LFA_EMULATE_NEVER);
	lfa_settings_reload();
	ck_assert_int_eq(lfa_settings(-1).emulation, LFA_EMULATE_ALWAYS);

	memset(value, 'x', 200);
	value[200] = '\0';
	environment("LIBFALLOCATE_CACHE", value, NULL);
	capture_stderr();
	s = lfa_settings(-1);
	out = release_stderr();
	ck_assert_int_eq(s.keep_cache, 0);
	snprintf(want, sizeof want, "libfallocate: ignoring LIBFALLOCATE_CACHE=%.64s (expected keep or drop)\n",
		 value);
	ck_assert_str_eq(out, want);
}
END_TEST

/* Where the call's descriptor cannot be looked at (closed), or stderr is
 * another file, the complaint goes to stderr; with stderr closed it goes
 * nowhere and nothing takes descriptor 2. */
START_TEST(complaints_where_stderr_is_usable)
{
	const char *p;
	int fd = old_file("complain", &p), closed = dup(fd), saved;
	const char *out;

	close(closed);
	environment("LIBFALLOCATE_DEBUG", "maybe", NULL);
	capture_stderr();
	(void)lfa_settings(closed);
	out = release_stderr();
	ck_assert_str_eq(out, "libfallocate: ignoring LIBFALLOCATE_DEBUG=maybe (expected 0 or 1)\n");

	lfa_settings_reload();
	capture_stderr();
	(void)lfa_settings(fd);
	out = release_stderr();
	ck_assert_str_eq(out, "libfallocate: ignoring LIBFALLOCATE_DEBUG=maybe (expected 0 or 1)\n");

	lfa_settings_reload();
	saved = dup(2);
	close(2);
	errno = 12345;
	(void)lfa_settings(fd);
	lfa_debug(fd, "nowhere");
	ck_assert_int_eq(errno, 12345);
	ck_assert_int_eq(fcntl(2, F_GETFD), -1);
	dup2(saved, 2);
	close(saved);
	unchanged(p);
	close(fd);
}
END_TEST

/* Without statx (Linux before 4.11, or a sandbox answering ENOSYS), the
 * look at the file is fstat's: the same type, size, blocks and identity,
 * no mount id, no attributes.  Another statx error is the answer. */
START_TEST(look_without_statx)
{
	struct lfa_target t;
	struct stat64 st;
	const char *p;
	int fd = old_file("look", &p), closed = dup(fd);

	close(closed);
	ck_assert_int_eq(fstat64(fd, &st), 0);
	statx_errno = ENOSYS;
	memset(&t, 0xa5, sizeof t);
	ck_assert_int_eq(lfa_look_at_target(fd, &t, NULL), 0);
	ck_assert_uint_eq(t.mode, st.st_mode);
	ck_assert_int_eq(t.size, st.st_size);
	ck_assert_int_eq(t.blocks, st.st_blocks);
	ck_assert_uint_eq(t.dev, st.st_dev);
	ck_assert_uint_eq(t.ino, st.st_ino);
	ck_assert_int_eq(t.immutable, 0);
	ck_assert_int_eq(t.append_only, 0);
	ck_assert_uint_eq(t.mount, 0);
	ck_assert_int_eq(lfa_look_at_target(closed, &t, NULL), EBADF);
	statx_errno = EACCES;
	ck_assert_int_eq(lfa_look_at_target(fd, &t, NULL), EACCES);
	statx_errno = 0;
	close(fd);
}
END_TEST

/* The whole emulation on such a kernel: neither fallocate nor statx. */
START_TEST(emulation_without_statx)
{
	const char *p;
	int fd = old_file("old-kernel", &p);

	environment(NULL);
	fallocate_errno = ENOSYS;
	statx_errno = ENOSYS;
	ck_assert_int_eq(posix_fallocate(fd, 0, 300000), 0);
	ck_assert_int_eq(file_size(fd), 300000);
	ck_assert_int_eq(first_mismatch(p, 0, 300000, 0, OLD_LEN, SEED), -1);
	ck_assert(fully_allocated(p, 0, 300000));
	/* a hole inside the old size is filled, the data kept */
	ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
	ck_assert_int_eq(posix_fallocate(fd, 0, 1 << 20), 0);
	ck_assert_int_eq(file_size(fd), 1 << 20);
	ck_assert_int_eq(first_mismatch(p, 0, 1 << 20, 0, OLD_LEN, SEED), -1);
	ck_assert(fully_allocated(p, 0, 1 << 20));
	/* bad input: the kernel's order, nothing written */
	ck_assert_int_eq(posix_fallocate(fd, -1, 4096), EINVAL);
	ck_assert_int_eq(posix_fallocate(fd, 0, 0), EINVAL);
	ck_assert_int_eq(file_size(fd), 1 << 20);
	close(fd);
}
END_TEST

/* A caller whose off_t is 32 bits (the plain names of a 32-bit build) can
 * express no end past 2 GiB: such a range is EFBIG before the kernel is
 * asked and before anything is written, on both paths; a range that ends
 * just below goes to the kernel, and bad input keeps the kernel's EINVAL. */
START_TEST(narrow_off_t_caller)
{
	struct lfa_job_options opt = { LFA_EMULATE_AUTO, 0, 0, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;
	const char *p;
	int fd = old_file("narrow", &p);

	environment(NULL);
	fallocate_calls = 0;
	ck_assert_int_eq(lfa_run_job("test", fd, INT32_MAX - 50, 100, INT32_MAX, &opt, &rep), EFBIG);
	ck_assert_int_eq(lfa_run_job("test", fd, INT32_MAX, 1, INT32_MAX, &opt, &rep), EFBIG);
	ck_assert_int_eq(fallocate_calls, 0);
	ck_assert_int_eq(rep.bytes_written, 0);
	unchanged(p);

	fallocate_errno = EPERM; /* the kernel asked, and its answer kept */
	ck_assert_int_eq(lfa_run_job("test", fd, INT32_MAX - 50, 50, INT32_MAX, &opt, &rep), EPERM);
	ck_assert_int_eq(fallocate_calls, 1);
	fallocate_errno = 0;
	ck_assert_int_eq(lfa_run_job("test", fd, -1, 100, INT32_MAX, &opt, &rep), EINVAL);
	ck_assert_int_eq(lfa_run_job("test", fd, 0, 0, INT32_MAX, &opt, &rep), EINVAL);
	ck_assert_int_eq(lfa_run_job("test", fd, 0, -1, INT32_MAX, &opt, &rep), EINVAL);
	ck_assert_int_eq(fallocate_calls, 4);

	opt.emulation = LFA_EMULATE_ALWAYS;
	ck_assert_int_eq(lfa_run_job("test", fd, INT32_MAX - 50, 100, INT32_MAX, &opt, &rep), EFBIG);
	ck_assert_int_eq(lfa_run_job("test", fd, -1, 100, INT32_MAX, &opt, &rep), EINVAL);
	ck_assert_int_eq(fallocate_calls, 4);
	ck_assert_int_eq(rep.bytes_written, 0);
	unchanged(p);
	close(fd);
}
END_TEST

/* Where the look at the file fails, its error is the answer, and where it
 * says immutable, EPERM, as the kernel's: before anything is written. */
START_TEST(look_decides_before_writing)
{
	const char *p;
	int fd = old_file("immutable", &p);

	environment("LIBFALLOCATE_EMULATE_FALLOCATE", "1", NULL);
	fallocate_errno = ENOSYS;
	statx_errno = EIO;
	ck_assert_int_eq(posix_fallocate(fd, 0, 8192), EIO);
	ck_assert_int_eq(posix_fallocate(fd, OLD_LEN, 8192), EIO);
	unchanged(p);
	statx_errno = 0;
	statx_immutable = 1;
	ck_assert_int_eq(posix_fallocate(fd, 0, 8192), EPERM);
	ck_assert_int_eq(posix_fallocate(fd, OLD_LEN, 8192), EPERM);
	errno = 0;
	ck_assert_int_eq(fallocate(fd, 0, 0, 8192), -1);
	ck_assert_int_eq(errno, EPERM);
	unchanged(p);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fallocate");
	TCase *tc = tcase_create("decisions");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, mode_0_emulated_only_when_asked, 0, 4);
	tcase_add_test(tc, other_modes_keep_the_kernels_answer);
	tcase_add_test(tc, kernel_success_passes_through);
	tcase_add_loop_test(tc, kernel_that_reserved_nothing, 0, 2);
	tcase_add_test(tc, failed_look_after_zero_lets_it_stand);
	tcase_add_test(tc, unreserved_on_smb_and_copy_on_write);
	tcase_add_test(tc, kernel_not_asked_where_its_zero_only_grows);
	tcase_add_test(tc, debug_line_of_the_kernels_answer);
	tcase_add_test(tc, debug_line_of_posix_fallocate);
	tcase_add_test(tc, settings_from_the_environment);
	tcase_add_test(tc, settings_read_once_and_complaint_cut);
	tcase_add_test(tc, complaints_where_stderr_is_usable);
	tcase_add_test(tc, look_without_statx);
	tcase_add_test(tc, emulation_without_statx);
	tcase_add_test(tc, narrow_off_t_caller);
	tcase_add_test(tc, look_decides_before_writing);
	suite_add_tcase(s, tc);
	return run_suite(s);
}

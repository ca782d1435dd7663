/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The cross-ABI test: runs libfallocate's four libc entry points and the
 * lfa_ API on whatever ABI it was built for (natively, under qemu-user, or
 * against musl) and checks on the real filesystem that the kernel received
 * exactly the range asked for.  Plain C, no test framework, so it builds with any cross toolchain.
 *
 *   abi-test [native|emulated] DIR   the full test in DIR; "emulated" sets
 *                                    LIBFALLOCATE_EMULATION=always
 *
 * The offsets are chosen so that a wrong 64-bit argument passing (words
 * swapped, a pair misaligned, a value truncated to 32 bits) either fails or
 * allocates another range: 2^32 + 2^20 has both words nonzero and differing,
 * 2^32 - 2^19 straddles the word boundary.  Nothing big is ever written:
 * ranges above 4 GiB are sparse, KEEP_SIZE, or holes punched between two
 * small written blocks.  Where each range landed is read back three ways
 * that do not go through libfallocate: st_size and st_blocks (fstat),
 * FIEMAP (extents, allocated or not), and SEEK_DATA/SEEK_HOLE (written data).
 *
 * Exits 0 when every check passed, 1 when any failed, 77 when DIR cannot
 * do what the test needs (no fallocate or no SEEK_HOLE there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libfallocate.h>

#include "../lib/errname.h"

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)
/* The offsets tested; below 2 GiB in the reduced run (see wide_syscalls). */
static int64_t above_4g = ((int64_t)1 << 32) + MiB;      /* both words nonzero */
static int64_t straddle_4g = ((int64_t)1 << 32) - MiB / 2;
static int64_t long_len = ((int64_t)1 << 32) + 2 * MiB;  /* a length above 4 GiB */
static int64_t sparse_size = 8 * GiB;
static int reduced;
/* st_blocks may count a filesystem's own metadata (an extent tree block). */
#define BLOCKS_SLACK (64 * KiB)

/* FIEMAP, declared here: musl-gcc sees no kernel headers.  The layout is the
 * same on every ABI (all members naturally aligned). */
struct lfa_fiemap_extent {
	uint64_t fe_logical, fe_physical, fe_length, fe_reserved64[2];
	uint32_t fe_flags, fe_reserved[3];
};
struct lfa_fiemap {
	uint64_t fm_start, fm_length;
	uint32_t fm_flags, fm_mapped_extents, fm_extent_count, fm_reserved;
	struct lfa_fiemap_extent fm_extents[64];
};
#define LFA_FS_IOC_FIEMAP _IOWR('f', 11, struct lfa_fiemap_head)
struct lfa_fiemap_head {
	uint64_t fm_start, fm_length;
	uint32_t fm_flags, fm_mapped_extents, fm_extent_count, fm_reserved;
};
#define LFA_FIEMAP_FLAG_SYNC 0x1

static const char *dir;
static int emulated;       /* LIBFALLOCATE_EMULATION=always */
static int debug_fd = -1;  /* the library's debug lines, read back */
static int fiemap_works = -1;
static unsigned passed, failed, files;

static int check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
	return ok;
}

/* A new empty file, unlinked at once: nothing to clean up. */
static int new_file(int flags)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof path, "%s/abi-test.%ld.%u", dir, (long)getpid(), files++);
	fd = open64(path, flags | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		printf("FAIL: open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	unlink(path);
	return fd;
}

/* ---- what the library said: its debug line for the last call ---- */

static void last_debug_line(char *line, size_t size)
{
	char buf[4096];
	ssize_t n;
	char *start, *end;

	line[0] = 0;
	n = read(debug_fd, buf, sizeof buf - 1);
	if (n <= 0)
		return;
	buf[n] = 0;
	end = buf + n;
	while (end > buf && end[-1] == '\n')
		*--end = 0;
	start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	n = end - start < (ssize_t)size ? end - start : (ssize_t)size - 1;
	memcpy(line, start, (size_t)n);
	line[n] = 0;
}

/* The library's own report of the call proves two things: that the program
 * is bound to libfallocate and not to libc, and that the caller's 64-bit
 * values reached the library intact. */
static void check_debug(const char *what, int64_t off, int64_t len, int err, int via_emulation)
{
	char line[1024], want[160];

	last_debug_line(line, sizeof line);
	snprintf(want, sizeof want, "offset=%" PRId64 ", len=%" PRId64 ")", off, len);
	check(strstr(line, want) != NULL, "%s: the library saw %s", what, want);
	if (!err)
		check(strstr(line, via_emulation ? "emulated (LIBFALLOCATE_EMULATION=always" :
			      "native: ok") != NULL,
		      "%s: %s path [%s]", what, via_emulation ? "emulated" : "native", line);
}

/* ---- where the data is, by means that do not involve libfallocate ---- */

static int64_t seek(int fd, int64_t off, int whence)
{
	int64_t r = lseek64(fd, off, whence);

	return r < 0 ? -errno : r;
}

/* FIEMAP: the extents the file has, allocated or not; adjacent ones merged.
 * Returns the number of ranges, or -1 where FIEMAP does not work. */
static int extents(int fd, int64_t *start, int64_t *end, int max)
{
	struct lfa_fiemap fm;
	uint32_t i;
	int n = 0;

	memset(&fm, 0, sizeof fm);
	fm.fm_length = ~(uint64_t)0;
	fm.fm_flags = LFA_FIEMAP_FLAG_SYNC;
	fm.fm_extent_count = 64;
	if (ioctl(fd, LFA_FS_IOC_FIEMAP, &fm) != 0) {
		if (fiemap_works < 0)
			printf("note: FIEMAP unavailable here (%s): extents located by size, "
			       "blocks and SEEK_DATA only\n", err_name(errno));
		fiemap_works = 0;
		return -1;
	}
	fiemap_works = 1;
	for (i = 0; i < fm.fm_mapped_extents; i++) {
		int64_t s = (int64_t)fm.fm_extents[i].fe_logical;
		int64_t e = s + (int64_t)fm.fm_extents[i].fe_length;

		if (n > 0 && end[n - 1] == s)
			end[n - 1] = e;
		else if (n < max) {
			start[n] = s;
			end[n++] = e;
		}
	}
	return n;
}

/* Exactly [off, off+len) is allocated, nothing else, and the size is right. */
static void check_layout(const char *what, int fd, int64_t size, int64_t off, int64_t len)
{
	struct stat64 st;
	int64_t s[4], e[4], bytes;
	int n;

	if (fstat64(fd, &st) != 0) {
		check(0, "%s: fstat64: %s", what, strerror(errno));
		return;
	}
	bytes = (int64_t)st.st_blocks * 512;
	check(st.st_size == size, "%s: size %" PRId64 " (want %" PRId64 ")", what,
	      (int64_t)st.st_size, size);
	check(bytes >= len && bytes <= len + BLOCKS_SLACK,
	      "%s: %" PRId64 " bytes allocated (want %" PRId64 ")", what, bytes, len);
	n = extents(fd, s, e, 4);
	if (n >= 0)
		check(n == 1 && s[0] == off && e[0] == off + len,
		      "%s: FIEMAP: %d extent(s), first [%" PRId64 ", %" PRId64 ") "
		      "(want [%" PRId64 ", %" PRId64 "))", what, n, n ? s[0] : -1,
		      n ? e[0] : -1, off, off + len);
}

/* Written data (the emulation's zeros) is visible to SEEK_DATA as well. */
static void check_data_at(const char *what, int fd, int64_t off, int64_t len)
{
	int64_t d = seek(fd, 0, SEEK_DATA), h = seek(fd, off, SEEK_HOLE);

	check(d == off && h == off + len,
	      "%s: SEEK_DATA from 0 -> %" PRId64 ", SEEK_HOLE -> %" PRId64
	      " (want %" PRId64 ", %" PRId64 ")", what, d, h, off, off + len);
}

/* ---- the entry points, each returning 0 or an error number ---- */

typedef int (*call_fn)(int fd, int mode, int64_t off, int64_t len);

static int call_posix_fallocate(int fd, int mode, int64_t off, int64_t len)
{
	(void)mode;
	return posix_fallocate(fd, (off_t)off, (off_t)len);
}

static int call_posix_fallocate64(int fd, int mode, int64_t off, int64_t len)
{
	(void)mode;
	return posix_fallocate64(fd, off, len);
}

static int call_fallocate(int fd, int mode, int64_t off, int64_t len)
{
	return fallocate(fd, mode, (off_t)off, (off_t)len) == 0 ? 0 : errno;
}

static int call_fallocate64(int fd, int mode, int64_t off, int64_t len)
{
	return fallocate64(fd, mode, off, len) == 0 ? 0 : errno;
}

/* lfa_allocate: posix_fallocate's contract plus a report, which must name
 * the path the debug line names. */
static int call_lfa_allocate(int fd, int mode, int64_t off, int64_t len)
{
	struct lfa_report rep = LFA_REPORT_INIT;
	int err;

	(void)mode;
	err = lfa_allocate(fd, off, len, NULL, &rep);
	if (!err)
		check(rep.path == (emulated ? LFA_PATH_EMULATED : LFA_PATH_NATIVE) &&
		      rep.bytes_written == (emulated ? (uint64_t)len : 0),
		      "lfa_allocate(%" PRId64 ", %" PRId64 "): report: path %s, %" PRIu64
		      " bytes written", off, len, lfa_strpath(rep.path), rep.bytes_written);
	return err;
}

struct entry {
	const char *name;
	call_fn fn;
	int wide;       /* takes 64-bit offsets on this build */
	int is_posix;   /* returns the error; errno untouched */
};

static struct entry entries[] = {
	{ "posix_fallocate", call_posix_fallocate, sizeof(off_t) == 8, 1 },
	{ "posix_fallocate64", call_posix_fallocate64, 1, 1 },
	{ "fallocate", call_fallocate, sizeof(off_t) == 8, 0 },
	{ "fallocate64", call_fallocate64, 1, 0 },
	{ "lfa_allocate", call_lfa_allocate, 1, 1 },
};
#define N_ENTRIES (sizeof entries / sizeof entries[0])

/* Calls one entry point and checks its return convention: posix_* return the
 * error and leave errno alone; fallocate* return -1 and set errno. */
static int call(const struct entry *en, int fd, int mode, int64_t off, int64_t len)
{
	int err;

	errno = ENOTTY;
	err = en->fn(fd, mode, off, len);
	if (en->is_posix && errno != ENOTTY)
		check(0, "%s: errno changed to %s", en->name, err_name(errno));
	return err;
}

/* ---- the tests ---- */

/* mode 0 on a new empty file: the size becomes off+len and exactly that
 * range is allocated. */
static void test_allocate(const struct entry *en, int64_t off, int64_t len)
{
	char what[128];
	int fd = new_file(O_RDWR), err;

	snprintf(what, sizeof what, "%s(mode 0, %" PRId64 ", %" PRId64 ")", en->name, off, len);
	err = call(en, fd, 0, off, len);
	check(err == 0, "%s: %s", what, err_name(err));
	check_debug(what, off, len, err, emulated && en->is_posix);
	if (!err) {
		check_layout(what, fd, off + len, off, len);
		if (emulated && en->is_posix)
			check_data_at(what, fd, off, len);
	}
	close(fd);
}

/* KEEP_SIZE, inside a sparse file's size and past its end: the size stays,
 * exactly the range is allocated.  Never emulated. */
static void test_keep_size(const struct entry *en, int64_t size, int64_t off, int64_t len)
{
	char what[160];
	int fd = new_file(O_RDWR), err;

	snprintf(what, sizeof what, "%s(KEEP_SIZE, %" PRId64 ", %" PRId64 ") in a %" PRId64
		 "-byte file", en->name, off, len, size);
	if (ftruncate64(fd, size) != 0) {
		check(0, "%s: ftruncate64: %s", what, strerror(errno));
		close(fd);
		return;
	}
	err = call(en, fd, FALLOC_FL_KEEP_SIZE, off, len);
	if (err == ENOSPC) {
		printf("note: %s: ENOSPC, the filesystem is too full for this check\n", what);
	} else if (check(err == 0, "%s: %s", what, err_name(err))) {
		check_debug(what, off, len, err, 0);
		check_layout(what, fd, size, off, len);
	}
	close(fd);
}

static int write_pattern(int fd, int64_t off, int64_t len)
{
	static char buf[64 * 1024];
	int64_t done;

	memset(buf, 0xa5, sizeof buf);
	for (done = 0; done < len; done += (int64_t)sizeof buf)
		if (pwrite64(fd, buf, sizeof buf, off + done) != (ssize_t)sizeof buf)
			return errno ? errno : EIO;
	return 0;
}

static int byte_at(int fd, int64_t off)
{
	unsigned char c;

	return pread64(fd, &c, 1, off) == 1 ? c : -1;
}

/* PUNCH_HOLE between written data: the one hole must be exactly [off,
 * off+len), seen by SEEK_DATA/SEEK_HOLE and by reading the bytes at its
 * edges.  pwrite64 sets the data up, so the oracle is libc's own path. */
static void test_punch(const struct entry *en, int64_t off, int64_t len, int64_t margin)
{
	char what[128];
	int fd = new_file(O_RDWR), err;
	int64_t d0, h0, d1, h1;

	snprintf(what, sizeof what, "%s(PUNCH_HOLE, %" PRId64 ", %" PRId64 ")", en->name, off, len);
	if (len <= 4 * MiB) {
		err = write_pattern(fd, off - margin, margin + len + margin);
	} else { /* only the edges: the hole in between costs nothing */
		err = write_pattern(fd, off - margin, margin);
		if (!err)
			err = write_pattern(fd, off + len, margin);
	}
	if (!check(err == 0, "%s: writing the data around it: %s", what, err_name(err)))
		goto out;
	err = call(en, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len);
	if (!check(err == 0, "%s: %s", what, err_name(err)))
		goto out;
	check_debug(what, off, len, err, 0);
	d0 = seek(fd, 0, SEEK_DATA);
	h0 = seek(fd, d0 < 0 ? 0 : d0, SEEK_HOLE);
	d1 = seek(fd, h0 < 0 ? 0 : h0, SEEK_DATA);
	h1 = seek(fd, d1 < 0 ? 0 : d1, SEEK_HOLE);
	check(d0 == off - margin && h0 == off && d1 == off + len && h1 == off + len + margin,
	      "%s: data [%" PRId64 ", %" PRId64 ") hole then data [%" PRId64 ", %" PRId64
	      ") (want [%" PRId64 ", %" PRId64 ") and [%" PRId64 ", %" PRId64 "))", what,
	      d0, h0, d1, h1, off - margin, off, off + len, off + len + margin);
	check(byte_at(fd, off - 1) == 0xa5 && byte_at(fd, off) == 0 &&
	      byte_at(fd, off + len - 1) == 0 && byte_at(fd, off + len) == 0xa5,
	      "%s: bytes at the hole's edges", what);
out:
	close(fd);
}

/* Every entry point's error cases, in the kernel's order: a bad descriptor
 * wins over bad values; a range past what any off_t can hold is EFBIG. */
static void test_errors(const struct entry *en)
{
	struct { const char *what; int fd_kind; int64_t off, len; int want; } cases[] = {
		{ "negative offset", 0, -1, 4096, EINVAL },
		{ "zero length", 0, 0, 0, EINVAL },
		{ "negative length", 0, 0, -4096, EINVAL },
		{ "fd -1", 1, 0, 4096, EBADF },
		{ "fd -1 and a negative offset", 1, -1, 0, EBADF },
		{ "read-only fd", 2, 0, 4096, EBADF },
		{ "a pipe", 3, 0, 4096, ESPIPE },
		{ "offset+len past INT64_MAX", 0, INT64_MAX - 4095, 8192, EFBIG },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int fd = -1, pipefd[2] = { -1, -1 }, err;

		if (cases[i].want == EFBIG && (!en->wide || reduced))
			continue; /* its off_t (or the emulator) cannot say it */
		if (cases[i].fd_kind == 0)
			fd = new_file(O_RDWR);
		else if (cases[i].fd_kind == 2)
			fd = new_file(O_RDONLY);
		else if (cases[i].fd_kind == 3 && pipe(pipefd) == 0)
			fd = pipefd[1];
		err = call(en, fd, 0, cases[i].off, cases[i].len);
		check(err == cases[i].want, "%s: %s: %s (want %s)", en->name, cases[i].what,
		      err_name(err), err_name(cases[i].want));
		if (pipefd[0] >= 0)
			close(pipefd[0]);
		if (fd >= 0)
			close(fd);
	}
}

/* A 32-bit off_t: posix_fallocate refuses an end past 2 GiB with EFBIG (the
 * caller could not address it), as the kernel refuses a file past its
 * maximum; fallocate passes the widened values on, as glibc's does. */
static void test_narrow_off_t(void)
{
	const int64_t off = 2 * GiB - MiB;
	int fd = new_file(O_RDWR), err;
	struct stat64 st;

	err = posix_fallocate(fd, (off_t)off, (off_t)(2 * MiB));
	check(err == EFBIG, "posix_fallocate(%" PRId64 ", 2 MiB), 32-bit off_t: %s (want EFBIG)",
	      off, err_name(err));
	check(fstat64(fd, &st) == 0 && st.st_size == 0 && st.st_blocks == 0,
	      "posix_fallocate past 2 GiB: file left untouched");
	close(fd);

	test_allocate(&entries[0], off, MiB - 4096);
	test_allocate(&entries[2], off, 2 * MiB);
}

/* The options structure crosses the ABI too: LFA_EMULATION_ALWAYS in it
 * must reach the library whatever the environment says. */
static void test_lfa_options(void)
{
	struct lfa_options opt = LFA_OPTIONS_INIT;
	struct lfa_report rep = LFA_REPORT_INIT;
	const char *what = "lfa_allocate(LFA_EMULATION_ALWAYS)";
	int fd = new_file(O_RDWR), err;

	opt.emulation = LFA_EMULATION_ALWAYS;
	err = lfa_allocate(fd, above_4g, MiB, &opt, &rep);
	check(err == 0, "%s at %" PRId64 ": %s", what, above_4g, err_name(err));
	check_debug(what, above_4g, MiB, err, 1);
	check(rep.path == LFA_PATH_EMULATED && rep.reason == LFA_REASON_FORCED &&
	      rep.bytes_written == (uint64_t)MiB && rep.native_error == 0,
	      "%s: report: path %s, reason %s, %" PRIu64 " bytes written, native error %d", what,
	      lfa_strpath(rep.path), lfa_strreason(rep.reason), rep.bytes_written,
	      rep.native_error);
	if (!err) {
		check_layout(what, fd, above_4g + MiB, above_4g, MiB);
		check_data_at(what, fd, above_4g, MiB);
	}
	close(fd);
	check(!strcmp(lfa_strpath(LFA_PATH_NATIVE), "native") &&
	      !strcmp(lfa_strholes(LFA_HOLES_SEEK), "SEEK_HOLE") &&
	      !strcmp(lfa_strreason(LFA_REASON_KERNEL), "kernel") &&
	      lfa_version()[0] >= '0' && lfa_version()[0] <= '9',
	      "lfa_strpath, lfa_strholes, lfa_strreason, lfa_version (%s)", lfa_version());
}

static void run_tests(void)
{
	size_t i;

	for (i = 0; i < N_ENTRIES; i++) {
		const struct entry *en = &entries[i];

		test_errors(en);
		if (!en->wide)
			continue;
		test_allocate(en, above_4g, MiB);
		test_allocate(en, straddle_4g, MiB);
		if (en->is_posix)
			continue;
		test_keep_size(en, sparse_size, above_4g, MiB);
		test_keep_size(en, 0, above_4g, MiB);
		test_punch(en, above_4g, MiB, 64 * KiB);
		test_punch(en, straddle_4g, MiB, 64 * KiB);
		test_punch(en, MiB, long_len, 64 * KiB);
	}
	test_lfa_options();
	if (sizeof(off_t) == 4)
		test_narrow_off_t();
}

/* The directory must report holes, or the checks would measure the
 * filesystem instead of the library.  (Whether it has fallocate the caller
 * checks beforehand with a tool of its own: asking libfallocate would make a
 * broken build skip instead of fail.) */
static int usable_dir(void)
{
	int fd = new_file(O_RDWR), ok;

	ok = write_pattern(fd, 4 * MiB, 64 * KiB) == 0 && seek(fd, 0, SEEK_DATA) == 4 * MiB;
	if (!ok)
		printf("SKIP: %s does not report holes through SEEK_DATA\n", dir);
	close(fd);
	return ok;
}

/* The oracle itself must work: libc's own ftruncate64 and pwrite64 past
 * 4 GiB.  Under qemu-user for mips n32 (7.2) they do not: the emulator
 * truncates 64-bit syscall arguments to 32 bits, so nothing above 2 GiB can
 * be judged there, and the run is reduced to values below 2 GiB. */
static void wide_syscalls(void)
{
	int fd = new_file(O_RDWR);
	struct stat64 st;
	int64_t size = -1, data = -1;

	if (ftruncate64(fd, sparse_size) == 0 && fstat64(fd, &st) == 0)
		size = st.st_size;
	if (ftruncate64(fd, 0) == 0 && write_pattern(fd, above_4g, 64 * KiB) == 0)
		data = seek(fd, 0, SEEK_DATA);
	close(fd);
	if (size == sparse_size && data == above_4g)
		return;
	printf("note: REDUCED RUN: libc's own ftruncate64(%" PRId64 ") gave size %" PRId64
	       " and pwrite64 at %" PRId64 " landed at %" PRId64 ": 64-bit syscall arguments"
	       " do not reach this kernel intact (an emulator's limitation), so only values"
	       " below 2 GiB are tested\n", sparse_size, size, above_4g, data);
	reduced = 1;
	above_4g = GiB + MiB;
	straddle_4g = GiB - MiB / 2;
	long_len = GiB + 2 * MiB;
	sparse_size = GiB + 8 * MiB;
}

/* The library prints its debug lines on stderr: send them to a file this
 * program reads back after each call. */
static void capture_debug_lines(void)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof path, "%s/abi-test.%ld.debug", dir, (long)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	debug_fd = open(path, O_RDONLY | O_CLOEXEC);
	unlink(path);
	if (fd < 0 || debug_fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
		printf("FAIL: cannot capture the debug lines in %s\n", path);
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	const char *mode = argc == 3 ? argv[1] : "native";
	const char *policy;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || argc > 3 || (strcmp(mode, "native") && strcmp(mode, "emulated"))) {
		fprintf(stderr, "usage: abi-test [native|emulated] DIR\n");
		return 2;
	}
	dir = argv[argc - 1];
	if (!strcmp(mode, "emulated"))
		setenv("LIBFALLOCATE_EMULATION", "always", 1);
	policy = getenv("LIBFALLOCATE_EMULATION");
	emulated = policy && !strcmp(policy, "always");
	setenv("LIBFALLOCATE_DEBUG", "1", 1);
	printf("abi-test: long %u bits, off_t %u bits, %s-endian, emulation %s\n",
	       (unsigned)sizeof(long) * 8, (unsigned)sizeof(off_t) * 8,
	       *(const char *)&(int){ 1 } ? "little" : "big", emulated ? "forced" : "auto");
	capture_debug_lines();
	if (!usable_dir())
		return 77;
	wide_syscalls();
	run_tests();
	printf("abi-test: %u passed, %u failed%s\n", passed, failed,
	       reduced ? " (REDUCED RUN: values below 2 GiB only)" : "");
	return failed ? 1 : 0;
}

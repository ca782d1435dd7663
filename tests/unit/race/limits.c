/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race: limits and the kernel's answers: RLIMIT_FSIZE, seals, swapfiles, pseudo-files. */
#include "harness.h"

/* --- limits and the kernel's answers ------------------------------------ */

/* Past RLIMIT_FSIZE the kernel says EFBIG, after SIGXFSZ to the calling
 * thread (which kills by default), and so does the engine.  Nothing may
 * change. */
START_TEST(fsize_limit_fails_before_any_write)
{
	const char *p = fresh("fsize");
	unsigned char *want;
	struct rlimit old, lim;
	int fd, err;

	write_pattern_at(p, 0, 100, 10);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = MiB;
	catch_xfsz();
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	hook_reset();
	err = job(fd, 0, 2 * MiB, NULL, NULL);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	ck_assert_int_eq(err, EFBIG);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(xfsz_count, 1);
	ck_assert_int_eq(xfsz_in_caller, 1);
	close(fd);
	want = pattern(100, 10);
	expect_bytes(p, want, 100);
	free(want);
}
END_TEST

/* A daemon that closed stderr has its data file as descriptor 2: neither
 * the debug line nor a complaint about the settings may land in it. */
START_TEST(diagnostics_never_into_the_file)
{
	const char *p = fresh("stderr");
	unsigned char *want = calloc(1, 8192), *old = pattern(100, 11);
	int saved = dup(2), fd, err;

	write_pattern_at(p, 0, 100, 11);
	close(2);
	fd = open(p, O_RDWR);
	setenv("LIBFALLOCATE_DEBUG", "1", 1);
	setenv("LIBFALLOCATE_EMULATION", "sometimes", 1);
	lfa_settings_reload();
	hook_reset();
	err = job(fd, 0, 8192, NULL, NULL);
	dup2(saved, 2);
	close(saved);
	unsetenv("LIBFALLOCATE_DEBUG");
	unsetenv("LIBFALLOCATE_EMULATION");
	lfa_settings_reload();
	ck_assert_int_eq(fd, 2);
	ck_assert_int_eq(err, 0);
	memcpy(want, old, 100);
	expect_bytes(p, want, 8192);
	free(want), free(old);
}
END_TEST

/* memfd seals: the kernel allocates under F_SEAL_WRITE (allocation changes
 * no byte) and grows the size; F_SEAL_GROW refuses growth with EPERM. */
static int sealed_memfd(unsigned seals)
{
	int fd = memfd_create("lfa-seal", MFD_ALLOW_SEALING);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	ck_assert_int_eq(pwrite(fd, "data", 4, 0), 4);
	ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

static void seal_case(unsigned seals, int64_t len)
{
	int kfd = sealed_memfd(seals), efd = sealed_memfd(seals);
	int kernel = lfa_sys_fallocate(kfd, 0, 0, len);
	char buf[4];

	hook_reset();
	ck_assert_int_eq(job(efd, 0, len, NULL, NULL), kernel);
	ck_assert_int_eq(file_size(efd), file_size(kfd));
	ck_assert_int_eq(pread(efd, buf, 4, 0), 4);
	ck_assert(!memcmp(buf, "data", 4));
	close(kfd);
	close(efd);
}

START_TEST(memfd_seals_as_the_kernel)
{
	seal_case(F_SEAL_WRITE, 4096);
	seal_case(F_SEAL_WRITE, 16384);
	seal_case(F_SEAL_GROW, 4096);
	seal_case(F_SEAL_GROW, 16384);
	seal_case(F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK, 16384);
	seal_case(F_SEAL_WRITE | F_SEAL_SHRINK, 16384);
#ifdef F_SEAL_FUTURE_WRITE
	seal_case(F_SEAL_FUTURE_WRITE, 16384);
#endif
}
END_TEST

/* Under F_SEAL_WRITE and F_SEAL_SHRINK the size grows by ftruncate, which
 * the seal keeps from cutting back a producer that grew the file further
 * right before it: the kernel's EPERM then means "already long enough". */
static int sealed_fd = -1;

static int producer_grows_to_32k(void)
{
	ck_assert_int_eq(REAL(ftruncate64)(sealed_fd, 32 * KiB), 0);
	return 0;
}

static int ftruncate_fails(void)
{
	return EIO;
}

START_TEST(sealed_memfd_grown_before_the_ftruncate)
{
	char buf[4];
	int fd = sealed_memfd(F_SEAL_WRITE | F_SEAL_SHRINK);

	sealed_fd = fd;
	script("ftruncate64", 1, 0, producer_grows_to_32k);
	ck_assert_int_eq(job(fd, 0, 16 * KiB, NULL, NULL), 0);
	ck_assert_int_eq(hk.calls, 1);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(file_size(fd), 32 * KiB);
	ck_assert_int_eq(pread(fd, buf, 4, 0), 4);
	ck_assert(!memcmp(buf, "data", 4));
	close(fd);

	/* The ftruncate's own failure is the answer, and nothing changed. */
	fd = sealed_memfd(F_SEAL_WRITE | F_SEAL_SHRINK);
	script("ftruncate64", 1, 0, ftruncate_fails);
	ck_assert_int_eq(job(fd, 0, 16 * KiB, NULL, NULL), EIO);
	ck_assert_int_eq(hk.calls, 1);
	ck_assert_int_eq(file_size(fd), 8 * KiB);
	ck_assert_int_eq(pread(fd, buf, 4, 0), 4);
	ck_assert(!memcmp(buf, "data", 4));
	close(fd);
	sealed_fd = -1;
}
END_TEST

/* An active swapfile: the kernel says ETXTBSY and changes nothing.  Needs
 * root and a filesystem that takes swapfiles. */
START_TEST(active_swapfile)
{
	const char *p = fresh("swap");
	char cmd[4300];
	int64_t size;
	int fd, grow, inside;

	write_pattern_at(p, 0, 16 * MiB, 12);
	chmod(p, 0600);
	snprintf(cmd, sizeof cmd, "mkswap -q '%s' >/dev/null 2>&1", p);
	if (getuid() != 0 || system(cmd) != 0 || swapon(p, 0) != 0) {
		fprintf(stderr, "skipping swapfile: needs root, mkswap and swapon (%s)\n",
			strerror(errno));
		return;
	}
	fd = open(p, O_RDWR);
	hook_reset();
	grow = job(fd, 0, 20000000, NULL, NULL);
	size = file_size(fd);
	inside = job(fd, 0, 4096, NULL, NULL);
	close(fd);
	/* Off before any assertion: a swapfile left on would outlive the test. */
	ck_assert_int_eq(swapoff(p), 0);
	ck_assert_int_eq(grow, ETXTBSY);
	ck_assert_int_eq(size, 16 * MiB);
	ck_assert_int_eq(inside, ETXTBSY);
}
END_TEST



/* A file of a pseudo-filesystem (sysfs here, by its f_type): EOPNOTSUPP,
 * the kernel's answer, and nothing written. */
START_TEST(pseudo_filesystem_refused)
{
	static const long types[] = { 0x62656572, 0x9FA0, 0x64626720, 0x63677270, 0x74726163 };
	const char *p = fresh("pseudo");
	unsigned char *old = pattern(100, 19);
	size_t i;
	int fd;

	write_pattern_at(p, 0, 100, 19);
	fd = open(p, O_RDWR);
	for (i = 0; i < sizeof types / sizeof types[0]; i++) {
		hook_reset();
		fake_fs_type = types[i];
		ck_assert_int_eq(job(fd, 0, 8192, NULL, NULL), EOPNOTSUPP);
		ck_assert_int_eq(hk.writes, 0);
	}
	close(fd);
	expect_bytes(p, old, 100);
	free(old);
}
END_TEST

/* A real procfs file: /proc/self/comm is a regular file of size 0, and a
 * zero written there renames the thread. */
START_TEST(procfs_file_refused)
{
	char before[17] = "", after[17] = "";
	int fd = open("/proc/thread-self/comm", O_RDWR);

	if (fd < 0) {
		fprintf(stderr, "skipping procfs: /proc/thread-self/comm: %s\n", strerror(errno));
		return;
	}
	ck_assert_int_eq(prctl(PR_SET_NAME, "lfa-comm", 0, 0, 0), 0);
	ck_assert_int_eq(prctl(PR_GET_NAME, before, 0, 0, 0), 0);
	hook_reset();
	ck_assert_int_eq(job(fd, 0, 16, NULL, NULL), EOPNOTSUPP);
	ck_assert_int_eq(prctl(PR_GET_NAME, after, 0, 0, 0), 0);
	ck_assert_str_eq(after, before);
	close(fd);
}
END_TEST

/* The producer of a memfd sealed with F_SEAL_FUTURE_WRITE grows it and
 * writes through its old mapping right after the engine looked at the
 * size: no ftruncate from that stale size may cut its bytes off. */
static unsigned char *producer_map;
static int producer_fd = -1;

static int producer_grows(void)
{
	/* Not the check of a descriptor reopened through /proc (opened
	 * O_NONBLOCK): the look at the size, on the job's own descriptor. */
	if (fcntl(fstat_fd, F_GETFL) & O_NONBLOCK) {
		hk.nth = hk.calls + 1;
		return 0;
	}
	ck_assert_int_eq(ftruncate(producer_fd, MiB), 0);
	memset(producer_map + 512 * KiB, 'P', 512 * KiB);
	return 0;
}

START_TEST(sealed_memfd_grown_mid_call_keeps_its_bytes)
{
#ifdef F_SEAL_FUTURE_WRITE
	unsigned char buf[4096];
	int fd = memfd_create("lfa-producer", MFD_ALLOW_SEALING);
	int64_t off;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	producer_map = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert(producer_map != MAP_FAILED);
	ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), 0);
	producer_fd = fd;
	script("fstat64", 1, 1, producer_grows);
	ck_assert_int_eq(job(fd, 0, 16384, NULL, NULL), 0);
	ck_assert_int_eq(file_size(fd), MiB);
	for (off = 512 * KiB; off < MiB; off += sizeof buf) {
		ck_assert_int_eq(pread(fd, buf, sizeof buf, off), sizeof buf);
		ck_assert(buf[0] == 'P' && !memcmp(buf, buf + 1, sizeof buf - 1));
	}
	munmap(producer_map, MiB);
	close(fd);
#else
	fprintf(stderr, "skipping: no F_SEAL_FUTURE_WRITE in these headers\n");
#endif
}
END_TEST

void race_limits_tests(TCase *tc)
{
	tcase_add_test(tc, fsize_limit_fails_before_any_write);
	tcase_add_test(tc, diagnostics_never_into_the_file);
	tcase_add_test(tc, memfd_seals_as_the_kernel);
	tcase_add_test(tc, active_swapfile);
	tcase_add_test(tc, pseudo_filesystem_refused);
	tcase_add_test(tc, procfs_file_refused);
	tcase_add_test(tc, sealed_memfd_grown_mid_call_keeps_its_bytes);
	tcase_add_test(tc, sealed_memfd_grown_before_the_ftruncate);
}

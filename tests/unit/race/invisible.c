/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race: nothing outside the range can tell the call happened (issue 18). */
#include "harness.h"

/* --- nothing outside the range can tell the call happened (issue 18) --- */

static int low_descriptors_seen;

static int note_low_descriptors(void)
{
	int i;

	for (i = 0; i < 3; i++)
		if (fcntl(i, F_GETFD) >= 0)
			low_descriptors_seen |= 1 << i;
	return 0;
}

/* In a program that closed stdin, stdout and stderr, the job's dup and its
 * reopened descriptor stay above 2: whatever other code writes to fd 1 or 2
 * meanwhile (a callback's printf, a logging thread) cannot reach the file. */
void low_descriptors_case(int flags)
{
	const char *p = fresh("low-fds");
	int saved[3], fd, i, err;

	write_pattern_at(p, 0, 100, 13);
	fd = open(p, flags);
	ck_assert_int_ge(fd, 3);
	for (i = 0; i < 3; i++)
		saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 10);
	low_descriptors_seen = 0;
	script("pwritev64", 1, 0, note_low_descriptors);
	for (i = 0; i < 3; i++)
		close(i);
	err = job(fd, 0, 8192, NULL, NULL);
	for (i = 0; i < 3; i++) {
		dup2(saved[i], i);
		close(saved[i]);
	}
	close(fd);
	ck_assert_int_eq(err, 0);
	ck_assert_msg(low_descriptors_seen == 0, "the job used descriptors %#x of 0-2 (flags %#x)",
		      low_descriptors_seen, flags);
}

START_TEST(job_descriptors_never_below_3)
{
	low_descriptors_case(O_RDWR);
	low_descriptors_case(O_WRONLY | O_APPEND); /* reopened through /proc */
}
END_TEST

static pid_t forked_child = -1;
static int child_report[2], child_go[2];

/* The child: gives up its copy of the caller's descriptor, as a worker
 * would, then counts those left on the job's file. */
static void *fork_worker(void *arg)
{
	struct stat64 want, st;
	pid_t pid;
	int i, n = 0;
	char c;

	(void)arg;
	ck_assert_int_eq(stat64(job_path, &want), 0);
	pid = fork();
	if (pid == 0) {
		close(job_fd);
		for (i = 0; i < 1024; i++)
			if (fstat64(i, &st) == 0 && st.st_dev == want.st_dev &&
			    st.st_ino == want.st_ino)
				n++;
		if (write(child_report[1], &n, sizeof n) != sizeof n)
			_exit(2);
		if (read(child_go[0], &c, 1) < 0)
			_exit(3);
		_exit(0);
	}
	forked_child = pid;
	return NULL;
}

static int fork_from_another_thread(void)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, fork_worker, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	return 0;
}

/* A thread forks while the job is between two syscalls: the child holds no
 * descriptor of the job's, so the caller's flock ends with its close. */
void fork_mid_call_case(int flags)
{
	const char *p = fresh("fork");
	int fd, fd2, n = -1, status, err;

	write_pattern_at(p, 0, 100, 14);
	ck_assert_int_eq(pipe(child_report), 0);
	ck_assert_int_eq(pipe(child_go), 0);
	fd = open(p, flags | O_CLOEXEC);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	forked_child = -1;
	script("pwritev64", 1, 0, fork_from_another_thread);
	err = job(fd, 0, 8192, NULL, NULL);
	ck_assert_int_gt(forked_child, 0);
	ck_assert_int_eq(read(child_report[0], &n, sizeof n), sizeof n);
	close(fd);
	fd2 = open(p, O_RDONLY);
	ck_assert_int_ge(fd2, 0);
	status = flock(fd2, LOCK_EX | LOCK_NB);
	close(fd2);
	ck_assert_int_eq(write(child_go[1], "x", 1), 1);
	ck_assert_int_eq(waitpid(forked_child, NULL, 0), forked_child);
	close(child_report[0]), close(child_report[1]);
	close(child_go[0]), close(child_go[1]);
	ck_assert_int_eq(err, 0);
	ck_assert_msg(n == 0, "a child forked mid-call held %d descriptors of the file (flags %#x)",
		      n, flags);
	ck_assert_msg(status == 0, "the caller's flock outlived its close (flags %#x)", flags);
}

START_TEST(child_forked_mid_call_holds_nothing)
{
	fork_mid_call_case(O_RDWR);
	fork_mid_call_case(O_WRONLY | O_APPEND); /* a dup and a reopened descriptor */
}
END_TEST

/* A watcher sees only modifications of a file that an emulated call
 * extends: no reopen on the common path, so no IN_OPEN, and above all no
 * IN_CLOSE_WRITE, which sync daemons take for "the file is complete". */
void only_modify_events(int flags)
{
	const char *p = fresh("inotify");
	uint32_t seen;
	int fd, in, err;

	if (!local_here("an extending call's inotify events"))
		return;
	write_pattern_at(p, 0, 100, 15);
	fd = open(p, flags);
	ck_assert_int_ge(fd, 0);
	in = watch_every_event(p);
	hook_reset();
	err = job(fd, 100, 4096, NULL, NULL);
	seen = events_seen(in);
	close(fd);
	ck_assert_int_eq(err, 0);
	ck_assert_msg((seen & ~(uint32_t)IN_MODIFY) == 0 && (seen & IN_MODIFY),
		      "inotify events %#x for an extending call (flags %#x)", seen, flags);
}

START_TEST(extending_call_shows_only_modify)
{
	only_modify_events(O_RDWR);
	only_modify_events(O_WRONLY);
}
END_TEST

/* O_DIRECT where no descriptor of our own can write the unaligned tail (the
 * caller's lease): EINVAL, glibc's answer, before anything is written. */
START_TEST(direct_without_a_reopen_fails_before_writing)
{
	const char *p = fresh("direct-lease");
	int fd, err;

	fd = open(p, O_RDWR | O_CREAT | O_DIRECT, 0600);
	if (fd < 0) {
		fprintf(stderr, "skipping: O_DIRECT: %s\n", strerror(errno));
		return;
	}
	if (!take_write_lease(fd)) {
		close(fd);
		return;
	}
	hook_reset();
	err = job(fd, 0, 5000001, NULL, NULL);
	ck_assert_int_eq(fcntl(fd, F_SETLEASE, F_UNLCK), 0);
	ck_assert_int_eq(err, EINVAL);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(file_size(fd), 0);
	close(fd);
}
END_TEST

/* Past the filesystem's maximum with no descriptor of our own (a lease; no
 * descriptor left): EFBIG, the kernel's answer, before anything is written,
 * where the kernel's own fallocate says EFBIG for the range. */
static void efbig_without_reopen(int64_t offset, int64_t len, int how)
{
	const char *p = fresh("efbig-noreopen");
	struct rlimit old, lim;
	int fd = open(p, O_RDWR | O_CREAT, 0600), err;

	ck_assert_int_ge(fd, 0);
	if (how == 0 && !take_write_lease(fd)) {
		close(fd);
		return;
	}
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	if (how == 1) {
		lim = old;
		lim.rlim_cur = (rlim_t)fd + 1;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	}
	hook_reset();
	err = job(fd, offset, len, NULL, NULL);
	setrlimit(RLIMIT_NOFILE, &old);
	if (how == 0)
		fcntl(fd, F_SETLEASE, F_UNLCK);
	ck_assert_int_eq(err, EFBIG);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(file_size(fd), 0);
	close(fd);
}

START_TEST(efbig_before_writing_without_a_reopen)
{
	const char *p = fresh("efbig-kernel");
	int64_t offset = INT64_MAX / 2, len = 8 * MiB;
	int fd, kernel;

	if (!local_here("efbig_before_writing_without_a_reopen"))
		return;
	fd = open(p, O_RDWR | O_CREAT, 0600);

	/* A range that crosses the maximum (ext4 16 TiB, xfs and tmpfs 8 EiB),
	 * found by ftruncate, which allocates nothing; the kernel's own
	 * fallocate must refuse it too. */
	for (offset = 16 * MiB * MiB - 4 * MiB; offset < INT64_MAX / 4; offset = offset * 2 + 4 * MiB)
		if (ftruncate64(fd, offset + len) != 0 && errno == EFBIG)
			break;
	if (offset >= INT64_MAX / 4)
		offset = 0;
	ck_assert_int_eq(ftruncate64(fd, 0), 0);
	kernel = offset > 0 ? lfa_sys_fallocate(fd, 0, offset, len) : 0;
	close(fd);
	unlink(p);
	if (kernel != EFBIG) {
		fprintf(stderr, "skipping: no range crossing the maximum found (%s)\n",
			strerror(kernel));
		return;
	}
	efbig_without_reopen(offset, len, 0);
	efbig_without_reopen(offset, len, 1);
	/* Not ext2/3/4 as far as the engine can tell (xfs): no block-mapped
	 * maximum to compute, copy_file_range of nothing must say it. */
	case_fs_type = 0x58465342;
	efbig_without_reopen(offset, len, 0);
	efbig_without_reopen(offset, len, 1);
	case_fs_type = 0;
}
END_TEST


static int descriptors_before, descriptors_during;

static int note_descriptors(void)
{
	descriptors_during = count_descriptors();
	return 0;
}

/* In a process that never started a thread, nobody can replace or fork the
 * caller's descriptor mid-call: the job makes no descriptor at all, on the
 * quick path or the engine's.  With a thread, it works on a dup. */
static void descriptors_of_a_call(int64_t offset, int64_t len, int want_extra)
{
	const char *p = fresh("alone");
	int fd;

	write_pattern_at(p, 0, 1000, 25);
	fd = open(p, O_RDWR);
	script("pwritev64", 1, 0, note_descriptors);
	descriptors_before = count_descriptors();
	descriptors_during = -1;
	ck_assert_int_eq(job(fd, offset, len, NULL, NULL), 0);
	close(fd);
	ck_assert_int_eq(descriptors_during - descriptors_before, want_extra);
}

START_TEST(alone_the_call_makes_no_descriptor)
{
	/* Elsewhere holes are found with SEEK_DATA on a descriptor of our
	 * own, and a layer's maximum size through one. */
	if (!fiemap_here("alone_the_call_makes_no_descriptor"))
		return;
	if (process_single_threaded()) {
		descriptors_of_a_call(1000, 4096, 0); /* the quick path, where it runs */
		descriptors_of_a_call(0, 8 * MiB, 0); /* the engine */
	} else {
		fprintf(stderr, "alone_the_call_makes_no_descriptor: a thread ran before "
			"(CK_FORK=no, or no __libc_single_threaded): only the dup is checked\n");
	}
	become_multithreaded();
	descriptors_of_a_call(1000, 4096, 1);
	descriptors_of_a_call(0, 8 * MiB, 1);
}
END_TEST

void race_invisible_tests(TCase *tc)
{
	tcase_add_test(tc, job_descriptors_never_below_3);
	tcase_add_test(tc, child_forked_mid_call_holds_nothing);
	tcase_add_test(tc, extending_call_shows_only_modify);
	tcase_add_test(tc, direct_without_a_reopen_fails_before_writing);
	tcase_add_test(tc, efbig_before_writing_without_a_reopen);
	tcase_add_test(tc, alone_the_call_makes_no_descriptor);
}

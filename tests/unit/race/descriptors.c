/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race: O_APPEND descriptors, leases, dup2 and O_NOATIME: the caller's descriptor stays the caller's. */
#include "harness.h"

/* On an O_APPEND descriptor the engine never trusts RWF_NOAPPEND where it
 * can reopen the file: overlayfs and FUSE accept the flag and append. */
START_TEST(append_descriptor_on_a_layer_that_appends)
{
	const char *p = fresh("append-layer");
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR | O_APPEND);
	hook_reset();
	layer_ignores_noappend = 1;
	ck_assert_int_eq(job(fd, 0, 16384 + 2 * MiB, NULL, NULL), 0);
	ck_assert_int_eq(hk.v2_calls, 0);
	close(fd);
	expect_sparse_filled(p, MiB, 16384 + 2 * MiB);
	ck_assert(fully_allocated(p, 0, 16384 + 2 * MiB));
}
END_TEST

/* Where it cannot reopen (the caller holds a lease), an O_APPEND
 * descriptor takes no positional write at all: EBADF, glibc's answer, and
 * nothing written.  RWF_NOAPPEND could be ignored below, and a size check
 * afterwards could not tell a misplaced write from another writer's append. */
START_TEST(append_descriptor_without_a_reopen_is_ebadf)
{
	const char *p = fresh("append-lease");
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR | O_APPEND);
	if (!take_write_lease(fd)) {
		close(fd);
		return;
	}
	hook_reset();
	layer_ignores_noappend = 1;
	ck_assert_int_eq(job(fd, 0, 16384 + 2 * MiB, NULL, NULL), EBADF);
	ck_assert_int_eq(hk.v2_calls, 0);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(sigio_count, 0);
	close(fd);
	expect_sparse_filled(p, MiB, 16384 + MiB);
}
END_TEST

/* The caller's own write lease stays: no reopen breaks it (a reopen
 * would signal the caller and wait up to lease-break-time), no SIGIO.  A
 * sparse file, where finding holes needs a file offset of our own. */
START_TEST(callers_lease_is_kept)
{
	const char *p = fresh("lease");
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR);
	if (!take_write_lease(fd)) {
		close(fd);
		return;
	}
	hook_reset();
	ck_assert_int_eq(job(fd, 0, 16384 + 2 * MiB, NULL, NULL), 0);
	ck_assert_int_eq(fcntl(fd, F_GETLEASE), F_WRLCK);
	ck_assert_int_eq(sigio_count, 0);
	close(fd);
	expect_sparse_filled(p, MiB, 16384 + 2 * MiB);
	ck_assert(fully_allocated(p, 0, 16384 + 2 * MiB));
}
END_TEST

static const char *other_path;

static int redirect_callers_fd(void)
{
	int o = open(other_path, O_RDWR);

	ck_assert_int_eq(dup2(o, job_fd), job_fd);
	close(o);
	return 0;
}

/* Another thread dup2()s over the caller's descriptor mid-call: the zeros
 * still go to the file the call was about. */
START_TEST(dup2_mid_call_cannot_redirect)
{
	const char *p = fresh("dup2-target");
	unsigned char *old = pattern(MiB, 8);
	int fd;

	become_multithreaded();
	ck_assert(!process_single_threaded());
	other_path = scratch_path("dup2-other");
	unlink(other_path);
	write_pattern_at(other_path, 0, MiB, 8);
	fd = open(p, O_RDWR | O_CREAT, 0600);
	script("pwritev64", 1, 0, redirect_callers_fd);
	ck_assert_int_eq(job(fd, 0, 8 * MiB, NULL, NULL), 0);
	close(fd);
	expect_bytes(other_path, old, MiB);
	expect_bytes(p, NULL, 8 * MiB);
	free(old);
}
END_TEST

static void nap_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000 };

	nanosleep(&t, NULL);
}

/* The forker of fork_between_dup_and_record, and what its child saw. */
static int forker_started, child_held = -1;

static void *fork_now(void *arg)
{
	int status;
	pid_t pid;

	(void)arg;
	__atomic_store_n(&forker_started, 1, __ATOMIC_SEQ_CST);
	pid = fork();
	if (pid == 0) {
		struct stat job;
		int held = stat(job_path, &job) == 0 ?
			   holds_other_descriptor(job.st_dev, job.st_ino, job_fd) : -1;

		_exit(held < 0 ? 2 : held);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		child_held = WEXITSTATUS(status);
	return NULL;
}

static pthread_t forker;

/* The thread that made the job's descriptor is held (preempted, or by
 * qemu-user) between the dup and the store that records it, while
 * another thread forks. */
static int fork_while_held(void)
{
	ck_assert_int_eq(pthread_create(&forker, NULL, fork_now, NULL), 0);
	while (!__atomic_load_n(&forker_started, __ATOMIC_SEQ_CST))
		sched_yield();
	nap_ms(20);
	return 0;
}

/* A child forked between the syscall that made a call's descriptor and
 * the store that records it holds none of the call's descriptors: the
 * fork waits for the record (job_fds.c).  Before, the child kept it. */
START_TEST(fork_between_dup_and_record)
{
	const char *p = fresh("fork-held");
	int fd;

	become_multithreaded();
	fd = open(p, O_RDWR | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	forker_started = 0;
	child_held = -1;
	script("fcntl_dupfd", 1, 1, fork_while_held);
	ck_assert_int_eq(job(fd, 0, MiB, NULL, NULL), 0);
	ck_assert_int_eq(pthread_join(forker, NULL), 0);
	ck_assert_msg(child_held == 0, "the child forked before the record %s",
		      child_held == 1 ? "held the call's descriptor" : "could not look");
	close(fd);
	expect_bytes(p, NULL, MiB);
}
END_TEST

/* fork_while_a_slot_changes_hands: a second thread that has claimed a
 * slot and not yet named itself its maker, then made its descriptor. */
static int second_claimed, fork_started, second_duped, second_result = -1, hold_fork_for_dup;
static pthread_t second;

/* Until *flag is set, at most a second. */
static void wait_for(const int *flag)
{
	int i;

	for (i = 0; i < 1000 && !__atomic_load_n(flag, __ATOMIC_SEQ_CST); i++)
		nap_ms(1);
}

/* Its descriptor made, not yet recorded: while the fork copies the table. */
static int hold_after_dup(void)
{
	__atomic_store_n(&second_duped, 1, __ATOMIC_SEQ_CST);
	nap_ms(20);
	return 0;
}

/* The slot claimed, its maker not yet named: until the fork has begun and
 * job_fds.c's prepare handler has looked at the slot (5 ms: it looks at
 * once); then on to the dup. */
static int hold_before_naming(void)
{
	__atomic_store_n(&second_claimed, 1, __ATOMIC_SEQ_CST);
	wait_for(&fork_started);
	nap_ms(5);
	script_next("fcntl_dupfd", 1, 1, hold_after_dup);
	return 0;
}

static void *second_call(void *arg)
{
	script("pthread_self", 1, 0, hold_before_naming);
	second_result = job(*(int *)arg, 0, MiB, NULL, NULL);
	return NULL;
}

/* pthread_atfork runs prepare handlers registered later first: this one,
 * registered by the test, before job_fds.c's ... */
static void prepare_before_the_library(void)
{
	if (__atomic_load_n(&hold_fork_for_dup, __ATOMIC_SEQ_CST))
		__atomic_store_n(&fork_started, 1, __ATOMIC_SEQ_CST);
}

static void register_after_the_library(void)
{
	pthread_atfork(prepare_before_the_library, NULL, NULL);
}

/* ... and this one, registered by a constructor that runs before the
 * library's, after it: the copy of the descriptor table comes after the
 * second thread's dup, as where the forking thread is preempted there. */
static void prepare_after_the_library(void)
{
	if (__atomic_load_n(&hold_fork_for_dup, __ATOMIC_SEQ_CST))
		wait_for(&second_duped);
}

__attribute__((constructor(101))) static void register_before_the_library(void)
{
	pthread_atfork(prepare_after_the_library, NULL, NULL);
}

/* The thread that made a slot's last descriptor forks while another thread
 * has claimed that slot and not yet named itself: the fork still waits for
 * that thread's descriptor to be recorded (job_fds.c, record).  Before, it
 * took the slot's old maker, itself, for the new one and did not wait: the
 * child held the descriptor. */
START_TEST(fork_while_a_slot_changes_hands)
{
	static pthread_once_t registered = PTHREAD_ONCE_INIT;
	const char *p = fresh("fork-handed");
	struct stat file;
	int fd, status, held = -1;
	pid_t pid;

	pthread_once(&registered, register_after_the_library);
	become_multithreaded();
	fd = open(p, O_RDWR | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(job(fd, 0, MiB, NULL, NULL), 0); /* this thread made the slot's last */
	ck_assert_int_eq(stat(p, &file), 0);
	second_claimed = fork_started = second_duped = 0;
	ck_assert_int_eq(pthread_create(&second, NULL, second_call, &fd), 0);
	while (!__atomic_load_n(&second_claimed, __ATOMIC_SEQ_CST))
		sched_yield();
	__atomic_store_n(&hold_fork_for_dup, 1, __ATOMIC_SEQ_CST);
	pid = fork();
	if (pid == 0)
		_exit(holds_other_descriptor(file.st_dev, file.st_ino, fd) ? 1 : 0);
	__atomic_store_n(&hold_fork_for_dup, 0, __ATOMIC_SEQ_CST);
	ck_assert_int_gt(pid, 0);
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		held = WEXITSTATUS(status);
	ck_assert_int_eq(pthread_join(second, NULL), 0);
	ck_assert_int_eq(second_result, 0);
	ck_assert_int_eq(__atomic_load_n(&second_duped, __ATOMIC_SEQ_CST), 1);
	ck_assert_msg(held == 0, "the child %s", held == 1 ? "held the second call's descriptor" :
						      "could not look");
	close(fd);
	expect_bytes(p, NULL, MiB);
}
END_TEST

static int noatime_seen = -1;

/* Every descriptor of this process for the job's file carries O_NOATIME. */
static int check_noatime(void)
{
	char link[300], target[4096], info[300], line[256];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");

	noatime_seen = 1;
	while (dir && (d = readdir(dir))) {
		ssize_t n;
		FILE *f;

		snprintf(link, sizeof link, "/proc/self/fd/%s", d->d_name);
		n = readlink(link, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strcmp(target, job_path))
			continue;
		snprintf(info, sizeof info, "/proc/self/fdinfo/%s", d->d_name);
		if (!(f = fopen(info, "r")))
			continue;
		while (fgets(line, sizeof line, f)) {
			unsigned long flags;

			if (sscanf(line, "flags: %lo", &flags) == 1 && !(flags & O_NOATIME))
				noatime_seen = 0;
		}
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return 0;
}

START_TEST(reopened_descriptor_keeps_noatime)
{
	const char *p = fresh("noatime");
	int fd;

	write_pattern_at(p, 0, 100, 9);
	fd = open(p, O_WRONLY | O_APPEND | O_NOATIME);
	ck_assert_int_ge(fd, 0);
	script("pwritev64", 1, 0, check_noatime);
	ck_assert_int_eq(job(fd, 0, MiB, NULL, NULL), 0);
	ck_assert_int_eq(noatime_seen, 1);
	close(fd);
}
END_TEST

void race_descriptors_tests(TCase *tc)
{
	tcase_add_test(tc, append_descriptor_on_a_layer_that_appends);
	tcase_add_test(tc, append_descriptor_without_a_reopen_is_ebadf);
	tcase_add_test(tc, callers_lease_is_kept);
	tcase_add_test(tc, dup2_mid_call_cannot_redirect);
	tcase_add_test(tc, fork_between_dup_and_record);
	tcase_add_test(tc, fork_while_a_slot_changes_hands);
	tcase_add_test(tc, reopened_descriptor_keeps_noatime);
}

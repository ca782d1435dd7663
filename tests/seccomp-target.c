/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* A program for tests/preload-seccomp.sh, built there statically (glibc and
 * musl), so LD_PRELOAD never reaches it:
 *   seccomp-target posix FILE LEN [rdwr|wronly|append]   posix_fallocate
 *   seccomp-target fallocate FILE LEN                     fallocate, mode 0
 *   seccomp-target threads DIR N LEN     N threads at once, one file each
 *   seccomp-target interrupt FILE LEN    SIGALRM (no SA_RESTART) mid-call
 *   seccomp-target wait-int              counts SIGINTs, exits 5
 *   seccomp-target undumpable FILE LEN   fallocate after PR_SET_DUMPABLE 0
 *   seccomp-target at FILE OFFSET LEN    fallocate, mode 0, at OFFSET (this
 *                                        program's off_t: 32 bits in an i386
 *                                        build without _FILE_OFFSET_BITS)
 *   seccomp-target holes FILE N          N pieces of data 1 KiB long, 1 KiB apart
 *   seccomp-target parallel LONG SHORT   fallocate over all of LONG (a file
 *       of holes) on one thread; once it has begun filling them, 4 KiB of
 *       SHORT on another, timed; then when each ended
 *   seccomp-target two-ids FILE_A FILE_B LEN   at once: one thread that took
 *       fsuid and fsgid 65534 (raw syscalls: that thread alone, which drops
 *       its filesystem capabilities) grows FILE_A; another, as the process
 *       is, grows FILE_B
 * Each prints its result; exit status 0 when the call succeeded. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int open_file(const char *path, const char *how)
{
	int flags = O_RDWR;

	if (how && !strcmp(how, "wronly"))
		flags = O_WRONLY;
	else if (how && !strcmp(how, "append"))
		flags = O_WRONLY | O_APPEND;
	return open(path, flags | O_CREAT, 0644);
}

/* Size exactly len and zeros throughout (the file starts empty). */
static const char *check_file(int fd, off_t len)
{
	static char buf[65536];
	struct stat st;
	off_t pos = 0;
	ssize_t n, i;
	int rfd;
	char path[64];

	if (fstat(fd, &st) != 0 || st.st_size != len)
		return "wrong size";
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if ((rfd = open(path, O_RDONLY)) < 0)
		return "cannot reopen to read";
	while ((n = pread(rfd, buf, sizeof buf, pos)) > 0) {
		for (i = 0; i < n; i++)
			if (buf[i]) {
				close(rfd);
				return "a nonzero byte";
			}
		pos += n;
	}
	close(rfd);
	return pos == len ? NULL : "short read";
}

struct job {
	char path[4096];
	off_t len;
	int err;
	const char *bad;
};
static pthread_barrier_t start;

static void *thread_main(void *arg)
{
	struct job *j = arg;
	int fd = open_file(j->path, NULL);

	pthread_barrier_wait(&start);
	if (fd < 0) {
		j->err = errno;
		return NULL;
	}
	j->err = fallocate(fd, 0, 0, j->len) ? errno : 0;
	if (!j->err)
		j->bad = check_file(fd, j->len);
	close(fd);
	return NULL;
}

static int threads(const char *dir, int n, off_t len)
{
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	pthread_t *t = calloc((size_t)n, sizeof *t);
	int i, ok = 0;

	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (i = 0; i < n; i++) {
		snprintf(jobs[i].path, sizeof jobs[i].path, "%s/t%d", dir, i);
		/* Each file its own length: a mixed-up answer shows. */
		jobs[i].len = len + (off_t)i * 4096;
		pthread_create(&t[i], NULL, thread_main, &jobs[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (jobs[i].err)
			printf("thread %d: fallocate: %s\n", i, strerror(jobs[i].err));
		else if (jobs[i].bad)
			printf("thread %d: %s\n", i, jobs[i].bad);
		else
			ok++;
	}
	printf("threads: %d of %d right\n", ok, n);
	return ok == n ? 0 : 1;
}

static volatile sig_atomic_t signals;

static void count(int sig)
{
	(void)sig;
	signals++;
}

static int interrupt(const char *path, off_t len)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } }; /* every 2 ms */
	const char *bad = NULL;
	int fd = open_file(path, NULL), err;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = count; /* no SA_RESTART: an interrupted call says EINTR */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	err = fallocate(fd, 0, 0, len) ? errno : 0;
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	if (!err)
		bad = check_file(fd, len);
	printf("interrupt: %s, %d signals, file %s\n", err ? strerror(err) : "0", (int)signals,
	       bad ? bad : "right");
	/* Done only when wholly done; EINTR is "not done", never success. */
	return bad || (err && err != EINTR) ? 1 : 0;
}

static int wait_int(void)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = count;
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < 1000 && !signals; i++)
		usleep(10000);
	usleep(300000); /* a second copy of the signal would arrive meanwhile */
	printf("sigint: %d\n", (int)signals);
	return 5;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int holes(const char *path, long n)
{
	static char data[1024];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	long i;

	memset(data, 'x', sizeof data);
	for (i = 0; fd >= 0 && i < n; i++)
		if (pwrite(fd, data, sizeof data, (off_t)i * 2048) != (ssize_t)sizeof data)
			return 1;
	/* The last piece a hole too: the file's size is n * 2 KiB. */
	return fd < 0 || ftruncate(fd, (off_t)n * 2048) != 0 || close(fd) != 0;
}

struct long_call {
	int fd, err;
	off_t len;
	double end;
};

static void *long_main(void *arg)
{
	struct long_call *l = arg;

	l->err = fallocate(l->fd, 0, 0, l->len) ? errno : 0;
	l->end = now_ms();
	return NULL;
}

/* The long call has begun when the holes start to fill: the supervisor is
 * writing for it.  The short call is then timed, and the long one's end
 * compared with the short one's: a short call served only after the long
 * one ends after it. */
static int parallel(const char *long_path, const char *short_path)
{
	struct long_call l;
	struct stat st;
	pthread_t t;
	blkcnt_t before;
	double t0, t1;
	int fd, err, i;

	if ((l.fd = open(long_path, O_RDWR)) < 0 || fstat(l.fd, &st) != 0 ||
	    (fd = open(short_path, O_RDWR | O_CREAT, 0644)) < 0) {
		perror("open");
		return 2;
	}
	l.len = st.st_size;
	before = st.st_blocks;
	pthread_create(&t, NULL, long_main, &l);
	for (i = 0; i < 60000; i++) {
		if (fstat(l.fd, &st) == 0 && st.st_blocks > before)
			break;
		usleep(1000);
	}
	printf("long: begun\n");
	fflush(stdout);
	t0 = now_ms();
	err = fallocate(fd, 0, 0, 4096) ? errno : 0;
	t1 = now_ms();
	printf("short: %s in %.1f ms\n", err ? strerror(err) : "0", t1 - t0);
	fflush(stdout);
	pthread_join(t, NULL);
	printf("long: %s, ended %.0f ms after the short one\n", l.err ? strerror(l.err) : "0", l.end - t1);
	return err || l.err;
}

struct id_job {
	const char *path;
	off_t len;
	int nobody, err;
};

static void *id_main(void *arg)
{
	struct id_job *j = arg;
	int fd = open(j->path, O_RDWR);

	if (j->nobody) {
		syscall(SYS_setfsgid, 65534);
		syscall(SYS_setfsuid, 65534);
	}
	pthread_barrier_wait(&start);
	j->err = fd < 0 || fallocate(fd, 0, 0, j->len) ? errno : 0;
	return NULL;
}

static int two_ids(const char *a, const char *b, off_t len)
{
	struct id_job jobs[2] = { { a, len, 1, 0 }, { b, len, 0, 0 } };
	pthread_t t[2];
	int i;

	pthread_barrier_init(&start, NULL, 2);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, id_main, &jobs[i]);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("fsuid 65534: %s; as the process: %s\n", jobs[0].err ? strerror(jobs[0].err) : "0",
	       jobs[1].err ? strerror(jobs[1].err) : "0");
	return jobs[0].err || jobs[1].err;
}

int main(int argc, char **argv)
{
	int fd, err;

	if (argc >= 4 && !strcmp(argv[1], "posix")) {
		fd = open_file(argv[2], argc > 4 ? argv[4] : NULL);
		err = fd < 0 ? errno : posix_fallocate(fd, 0, atoll(argv[3]));
		printf("posix_fallocate: %s\n", err ? strerror(err) : "0");
		return !!err;
	}
	if (argc == 4 && (!strcmp(argv[1], "fallocate") || !strcmp(argv[1], "undumpable"))) {
		if (argv[1][0] == 'u')
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		fd = open_file(argv[2], NULL);
		err = fd < 0 || fallocate(fd, 0, 0, atoll(argv[3])) ? errno : 0;
		printf("fallocate: %s\n", err ? strerror(err) : "0");
		return !!err;
	}
	if (argc == 5 && !strcmp(argv[1], "threads"))
		return threads(argv[2], atoi(argv[3]), atoll(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "interrupt"))
		return interrupt(argv[2], atoll(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "at")) {
		fd = open_file(argv[2], NULL);
		err = fd < 0 || fallocate(fd, 0, (off_t)atoll(argv[3]), (off_t)atoll(argv[4])) ? errno : 0;
		printf("fallocate: %s\n", err ? strerror(err) : "0");
		return !!err;
	}
	if (argc == 4 && !strcmp(argv[1], "holes"))
		return holes(argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "two-ids"))
		return two_ids(argv[2], argv[3], atoll(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "parallel"))
		return parallel(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "wait-int"))
		return wait_int();
	fprintf(stderr, "usage: see the comment in seccomp-target.c\n");
	return 2;
}

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
#include <sys/time.h>
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
	if (argc == 2 && !strcmp(argv[1], "wait-int"))
		return wait_int();
	fprintf(stderr, "usage: see the comment in seccomp-target.c\n");
	return 2;
}

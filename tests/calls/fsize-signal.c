/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* A call past RLIMIT_FSIZE, for tests/calls/fsize-signal.sh (issue 31) and
 * tests/seccomp/seccomp-limits.sh (issue 40):
 *   fsize-signal HOW FUNC FILE OFFSET LEN [LIMIT [MODE [USER]]]
 * sets RLIMIT_FSIZE to LIMIT (20000), SIGXFSZ as HOW says (default,
 * ignore, handler, blocked), and calls FUNC (posix_fallocate or fallocate
 * with MODE: 0, insert, unshare, zero or write-zeroes, each without
 * KEEP_SIZE) on FILE, opened O_RDWR, as USER (root, the default; nobody:
 * the process takes uid and gid 65534 after the open, as a daemon drops
 * its privileges), from a thread of its own while the main thread
 * waits with SIGXFSZ unblocked: a signal sent to the process rather than
 * to the calling thread would be the main thread's to take.  Built three
 * ways: linked with the library, without it (the kernel's or glibc's
 * answer), and statically (for fallocate-preload --seccomp).  Prints
 *   FUNC -> ERRNO handler=N in-caller=N pending-in-caller=N
 * (handler: times the handler ran; in-caller: each time in the calling
 * thread; pending: SIGXFSZ pending on that thread, its SigPnd in /proc,
 * not the process's ShdPnd).  Killed by SIGXFSZ, it prints nothing more.
 * Exit 0 when it printed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libfallocate.h> /* FALLOC_FL_*, which musl's <fcntl.h> and older headers lack */

#include "../lib/errname.h"

static const char *how, *func, *path, *user = "root";
static long long offset, len;
static int mode;
static volatile pid_t caller_tid;
static volatile sig_atomic_t handled, handled_in_caller;

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void handler(int sig)
{
	(void)sig;
	handled++;
	if (tid() == caller_tid)
		handled_in_caller++;
}

/* SIGXFSZ in this thread's own pending set (SigPnd of /proc/thread-self). */
static int pending_here(void)
{
	char p[64], line[256];
	unsigned long long mask = 0;
	int found = 0;
	FILE *f;

	snprintf(p, sizeof p, "/proc/self/task/%ld/status", (long)tid());
	if (!(f = fopen(p, "re")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "SigPnd: %llx", &mask) == 1) {
			found = 1;
			break;
		}
	fclose(f);
	return found ? !!(mask & (1ULL << (SIGXFSZ - 1))) : -1;
}

static void *caller(void *arg)
{
	sigset_t s;
	int fd, r;

	(void)arg;
	caller_tid = tid();
	if (!strcmp(how, "blocked")) {
		sigemptyset(&s);
		sigaddset(&s, SIGXFSZ);
		pthread_sigmask(SIG_BLOCK, &s, NULL);
	}
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	/* glibc's setresgid and setresuid change every thread's. */
	if (!strcmp(user, "nobody") && (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
					setresuid(65534, 65534, 65534) != 0)) {
		perror("nobody");
		exit(2);
	}
	errno = 0;
	if (!strcmp(func, "posix_fallocate"))
		r = posix_fallocate(fd, (off_t)offset, (off_t)len);
	else
		r = fallocate(fd, mode, (off_t)offset, (off_t)len) ? errno : 0;
	printf("%s -> %s handler=%d in-caller=%d pending-in-caller=%d\n", func, err_name(r),
	       (int)handled, (int)handled_in_caller, pending_here());
	fflush(stdout);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct rlimit lim = { 20000, RLIM_INFINITY }, no_core = { 0, 0 };
	struct sigaction sa;
	pthread_t t;
	sigset_t none;

	static const struct { const char *name; int mode; } modes[] = {
		{ "0", 0 }, { "zero", FALLOC_FL_ZERO_RANGE }, { "insert", FALLOC_FL_INSERT_RANGE },
		{ "unshare", FALLOC_FL_UNSHARE_RANGE }, { "write-zeroes", FALLOC_FL_WRITE_ZEROES },
	};
	rlim_t limit = 20000;
	size_t i;

	if (argc < 6 || argc > 9 || (strcmp(argv[2], "posix_fallocate") && strcmp(argv[2], "fallocate")))
		goto usage;
	how = argv[1];
	func = argv[2];
	path = argv[3];
	offset = strtoll(argv[4], NULL, 0);
	len = strtoll(argv[5], NULL, 0);
	if (argc > 6)
		limit = (rlim_t)strtoull(argv[6], NULL, 0);
	if (argc > 7) {
		for (i = 0; i < sizeof modes / sizeof modes[0] && strcmp(argv[7], modes[i].name); i++)
			;
		if (i == sizeof modes / sizeof modes[0])
			goto usage;
		mode = modes[i].mode;
	}
	if (argc > 8) {
		user = argv[8];
		if (strcmp(user, "root") && strcmp(user, "nobody"))
			goto usage;
	}
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	if (!strcmp(how, "ignore"))
		sa.sa_handler = SIG_IGN;
	else if (!strcmp(how, "handler"))
		sa.sa_handler = handler;
	else
		sa.sa_handler = SIG_DFL;
	if (sigaction(SIGXFSZ, &sa, NULL) != 0) {
		perror("sigaction");
		return 2;
	}
	/* The deaths the test asks for leave no core file behind. */
	setrlimit(RLIMIT_CORE, &no_core);
	/* The main thread takes a signal sent to the process, if any. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (getrlimit(RLIMIT_FSIZE, &lim) == 0)
		lim.rlim_cur = limit;
	if (setrlimit(RLIMIT_FSIZE, &lim) != 0) {
		perror("setrlimit");
		return 2;
	}
	if (pthread_create(&t, NULL, caller, NULL) != 0)
		return 2;
	pthread_join(t, NULL);
	return 0;
usage:
	fprintf(stderr, "usage: fsize-signal default|ignore|handler|blocked posix_fallocate|fallocate"
		" FILE OFFSET LEN [LIMIT [0|zero|insert|unshare|write-zeroes [root|nobody]]]\n");
	return 2;
}

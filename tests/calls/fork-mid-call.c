/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* A child forked while a call runs (issue 31, item 6), for
 * tests/calls/fork-mid-call.sh:
 *   fork-mid-call HOW DIR CALLS LEN [MIB]
 * One thread calls posix_fallocate CALLS times, LEN bytes each, on a fresh
 * file of DIR each time (the emulation: LIBFALLOCATE_EMULATION=always);
 * another forks in a loop meanwhile, by HOW: "fork" (fork(3), which runs
 * the atfork handlers) or "_Fork" (glibc 2.34's _Fork(3), which runs none,
 * as a raw clone or vfork).  Each child looks at every descriptor it holds
 * (/proc/self/fd) for one of the file other than the caller's own number,
 * which it knows, and exits 1 when it finds one.  Prints
 *   HOW: CALLS calls, N children, K held the file
 * MIB: mebibytes of memory touched first, which each fork copies the page
 * tables of: the longer a fork takes, the more of the call it overlaps.
 * Exit 0 when none held it, 1 otherwise, 77 when HOW cannot be done here. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/testutil.h"

static pid_t (*fork_fn)(void);
static volatile int caller_fd = -1, done;
static volatile dev_t file_dev;
static volatile ino_t file_ino;
static long children, held;

static void *forker(void *arg)
{
	pid_t pid;
	int status;

	(void)arg;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		pid = fork_fn();
		if (pid == 0)
			_exit(holds_other_descriptor(file_dev, file_ino, caller_fd) == 1);
		if (pid < 0)
			continue;
		children++;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 1)
			held++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct stat st;
	pthread_t t;
	long calls, i;
	long long len;
	int fd, err;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: fork-mid-call fork|_Fork DIR CALLS LEN [MIB]\n");
		return 2;
	}
	if (!strcmp(argv[1], "fork")) {
		fork_fn = fork;
	} else {
		fork_fn = (pid_t (*)(void))dlsym(RTLD_DEFAULT, "_Fork");
		if (!fork_fn) {
			printf("no _Fork in this C library (glibc 2.34)\n");
			return 77;
		}
	}
	if (argc == 6) {
		size_t n = (size_t)atol(argv[5]) << 20;
		char *mem = malloc(n);

		if (!mem)
			return 2;
		memset(mem, 1, n);
	}
	calls = atol(argv[3]);
	len = atoll(argv[4]);
	for (i = 0; i < calls; i++) {
		snprintf(path, sizeof path, "%s/f%ld", argv[2], i % 2);
		unlink(path);
		fd = open(path, O_RDWR | O_CREAT, 0600);
		if (fd < 0 || fstat(fd, &st) != 0) {
			perror(path);
			return 2;
		}
		file_dev = st.st_dev;
		file_ino = st.st_ino;
		caller_fd = fd;
		__atomic_store_n(&done, 0, __ATOMIC_RELEASE);
		if (pthread_create(&t, NULL, forker, NULL) != 0)
			return 2;
		err = posix_fallocate(fd, 0, (off_t)len);
		__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		close(fd);
		if (err) {
			fprintf(stderr, "posix_fallocate: %s\n", strerror(err));
			return 2;
		}
	}
	printf("%s: %ld calls, %ld children, %ld held the file\n", argv[1], calls, children, held);
	return held ? 1 : 0;
}

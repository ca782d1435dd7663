/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Calls the public entry points as a program would, for the shell tests:
 *   lfa-call [-o FLAG,...] FILE CALL...
 * where CALL is NAME:MODE:OFFSET:LEN with NAME one of posix_fallocate,
 * posix_fallocate64, fallocate, fallocate64.  FILE "@pidfd" is a pidfd of
 * the program itself, a file the kernel types in its own way.  Prints one
 * line per call and the final size; exits 0 when every call succeeded, 1
 * otherwise.  The
 * flags "lease" (a write lease on the file) and "nofile" (RLIMIT_NOFILE
 * right above the file's descriptor) leave the library no descriptor of
 * its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libfallocate.h>

#include "errname.h"


static int want_lease, want_nofile;

static int open_flags(char *spec)
{
	int flags = O_RDWR | O_CREAT;
	char *tok;

	for (tok = strtok(spec, ","); tok; tok = strtok(NULL, ",")) {
		if (!strcmp(tok, "rdwr")) flags = (flags & ~O_ACCMODE) | O_RDWR;
		else if (!strcmp(tok, "wronly")) flags = (flags & ~O_ACCMODE) | O_WRONLY;
		else if (!strcmp(tok, "rdonly")) flags = (flags & ~O_ACCMODE) | O_RDONLY;
		else if (!strcmp(tok, "append")) flags |= O_APPEND;
		else if (!strcmp(tok, "direct")) flags |= O_DIRECT;
		else if (!strcmp(tok, "dsync")) flags |= O_DSYNC;
		else if (!strcmp(tok, "trunc")) flags |= O_TRUNC;
		else if (!strcmp(tok, "lease")) want_lease = 1;
		else if (!strcmp(tok, "nofile")) want_nofile = 1;
		else {
			fprintf(stderr, "lfa-call: unknown open flag %s\n", tok);
			exit(2);
		}
	}
	return flags;
}

static int call(int fd, const char *spec)
{
	char name[32];
	int mode, r;
	long long offset, len;

	if (sscanf(spec, "%31[a-z_0-9]:%i:%lli:%lli", name, &mode, &offset, &len) != 4) {
		fprintf(stderr, "lfa-call: bad call %s\n", spec);
		exit(2);
	}
	errno = 0;
	if (!strcmp(name, "posix_fallocate")) {
		r = posix_fallocate(fd, (off_t)offset, (off_t)len);
	} else if (!strcmp(name, "posix_fallocate64")) {
		r = posix_fallocate64(fd, offset, len);
	} else if (!strcmp(name, "fallocate")) {
		r = fallocate(fd, mode, (off_t)offset, (off_t)len) ? errno : 0;
	} else if (!strcmp(name, "fallocate64")) {
		r = fallocate64(fd, mode, offset, len) ? errno : 0;
	} else {
		fprintf(stderr, "lfa-call: unknown function %s\n", name);
		exit(2);
	}
	printf("%s fd=%d mode=%d offset=%lld len=%lld -> %s\n", name, fd, mode, offset, len,
	       err_name(r));
	return r;
}

int main(int argc, char **argv)
{
	int flags = O_RDWR | O_CREAT, fd, i, failed = 0;
	struct stat st;

	if (argc > 2 && !strcmp(argv[1], "-o")) {
		flags = open_flags(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: lfa-call [-o FLAG,...] FILE NAME:MODE:OFFSET:LEN...\n");
		return 2;
	}
#ifdef SYS_pidfd_open
	if (!strcmp(argv[1], "@pidfd"))
		fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	else
#endif
		fd = open(argv[1], flags, 0600);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	if (want_lease && fcntl(fd, F_SETLEASE, F_WRLCK) != 0) {
		perror("F_SETLEASE");
		return 77;
	}
	if (want_nofile) {
		struct rlimit lim;

		getrlimit(RLIMIT_NOFILE, &lim);
		lim.rlim_cur = (rlim_t)fd + 1;
		if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
			perror("RLIMIT_NOFILE");
			return 2;
		}
	}
	for (i = 2; i < argc; i++)
		failed |= call(fd, argv[i]) != 0;
	if (fstat(fd, &st) == 0)
		printf("size=%lld blocks=%lld\n", (long long)st.st_size, (long long)st.st_blocks);
	return failed;
}

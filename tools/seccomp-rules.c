/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The rules the library applies in the caller's process, applied by the
 * supervisor for it: its ABI's (a 32-bit program's descriptor opened
 * without O_LARGEFILE writes nothing past 2 GiB: the engine then writes
 * through a descriptor of its own, or refuses with EFBIG before the first
 * write) and its process's (RLIMIT_FSIZE).  The descriptor's status flags
 * need no asking: the supervisor's copy (pidfd_getfd) shares the caller's
 * open file description, so fcntl(F_GETFL) on it tells them. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libfallocate.h>

#include "seccomp-serve.h"

/* One limit of /proc/TID/limits ("unlimited" or a number), at p, moved
 * past; 0, or -1 for a value that is neither. */
static int limit_value(char **p, uint64_t *value)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	if (!strncmp(*p, "unlimited", 9)) {
		*value = UINT64_MAX;
		*p += 9;
		return 0;
	}
	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*value = strtoull(*p, &end, 10);
	if (errno)
		return -1;
	*p = end;
	return 0;
}

/* The caller's RLIMIT_FSIZE soft limit, from /proc/TID/limits: readable by
 * anyone, where prlimit(2) needs the caller's uids or CAP_SYS_RESOURCE
 * (which a container's supervisor often lacks), and a caller that dropped
 * to another user would otherwise be served without its limit.  Read anew
 * for every call (a caller may change it between two); through a kept
 * descriptor as /proc/TID/status (seccomp-identity.c): it names the
 * thread, and fails with ESRCH once the thread is gone. */
static int fsize_read(pid_t tid, int *limits_fd, uint64_t *soft)
{
	static const char row[] = "\nMax file size ";
	char path[64], buf[4096], *p;
	uint64_t hard;
	ssize_t n = -1;
	int fd = *limits_fd;

	if (fd >= 0 && (n = pread(fd, buf, sizeof buf - 1, 0)) <= 0) {
		close(fd);
		fd = *limits_fd = -1;
	}
	if (fd < 0) {
		snprintf(path, sizeof path, "/proc/%ld/limits", (long)tid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return errno;
		n = pread(fd, buf, sizeof buf - 1, 0);
		if (n > 0)
			*limits_fd = fd;
		else
			close(fd);
	}
	if (n < 0)
		return errno;
	buf[n] = 0;
	/* Empty once the process is exiting; a row of the kernel's format
	 * otherwise ("Max file size  SOFT  HARD  bytes"). */
	if (!(p = strstr(buf, row)))
		return ESRCH;
	p += sizeof row - 1;
	if (limit_value(&p, soft) != 0 || limit_value(&p, &hard) != 0)
		return EPROTO;
	return 0;
}

int sc_rules_read(pid_t tid, int *limits_fd, const struct sc_call *c, uint64_t fsize_max,
		  struct sc_rules *r)
{
	int err;

	r->largefile = c->largefile;
	/* Process-wide, so asked of the caller's process through its thread. */
	if ((err = fsize_read(tid, limits_fd, &r->fsize)) != 0)
		return err;
	/* Above our hard limit only if the caller had the privilege to
	 * raise it: then ours is as far as we go.  Ours is read once, at
	 * start (sc_server_init): it is nobody's identity, and the
	 * supervisor never changes it. */
	if (r->fsize > fsize_max)
		r->fsize = fsize_max;
	return 0;
}

/* The kernel's fallocate checks RLIMIT_FSIZE where mode 0 makes the file
 * larger, after its other checks: those it makes itself, with nothing
 * written, when the call goes on. */
/* The file's type and size as the kernel keeps them: asking the server
 * would, where a filesystem finds files by name, keep the attributes of
 * whatever has the name now as the caller's file's (src/names_files.c). */
static int kept_attributes(int fd, mode_t *mode, int64_t *size)
{
#ifdef HAVE_STATX
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_SIZE, &sx) == 0) {
		*mode = sx.stx_mode;
		*size = (int64_t)sx.stx_size;
		return 0;
	}
	if (errno != ENOSYS)
		return -1;
#endif
	{
		struct stat st;

		if (fstat(fd, &st) != 0)
			return -1;
		*mode = st.st_mode;
		*size = st.st_size;
		return 0;
	}
}

int sc_rules_refusal(int fd, const struct sc_call *c, const struct sc_rules *r)
{
	int64_t size;
	mode_t mode;
	int flags;

	if (r->fsize == UINT64_MAX || c->mode != 0 || c->offset < 0 ||
	    c->len <= 0 || c->offset > INT64_MAX - c->len || (uint64_t)(c->offset + c->len) <= r->fsize)
		return 0;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY || kept_attributes(fd, &mode, &size) != 0 ||
	    !S_ISREG(mode) || c->offset + c->len <= size)
		return 0;
	return EFBIG;
}

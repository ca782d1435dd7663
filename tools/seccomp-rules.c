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
#include <sys/resource.h>
#include <sys/stat.h>

#include <libfallocate.h>

#include "seccomp-serve.h"

void sc_rules_read(pid_t pid, const struct sc_call *c, uint64_t fsize_max, struct sc_rules *r)
{
	struct rlimit theirs;

	r->largefile = c->largefile;
	r->fsize = UINT64_MAX;
	/* Process-wide, so asked of the caller's process through its thread. */
	if (prlimit(pid, RLIMIT_FSIZE, NULL, &theirs) == 0 && theirs.rlim_cur != RLIM_INFINITY)
		r->fsize = theirs.rlim_cur;
	/* Above our hard limit only if the caller had the privilege to
	 * raise it: then ours is as far as we go.  Ours is read once, at
	 * start (sc_server_init): it is nobody's identity, and the
	 * supervisor never changes it. */
	if (r->fsize > fsize_max)
		r->fsize = fsize_max;
}

/* The kernel's fallocate checks RLIMIT_FSIZE where it makes the file
 * larger (modes without KEEP_SIZE that allocate), after its other checks:
 * those it makes itself, with nothing written, when the call goes on. */
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

	if (r->fsize == UINT64_MAX || (c->mode & ~FALLOC_FL_ZERO_RANGE) != 0 || c->offset < 0 ||
	    c->len <= 0 || c->offset > INT64_MAX - c->len || (uint64_t)(c->offset + c->len) <= r->fsize)
		return 0;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY || kept_attributes(fd, &mode, &size) != 0 ||
	    !S_ISREG(mode) || c->offset + c->len <= size)
		return 0;
	return EFBIG;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <stdint.h>

#include "emulate.h"

#undef posix_fallocate64 /* a macro on musl */
/* musl declares no *64 functions (only the macros undone above); glibc's
 * declaration is the same, so repeating it is harmless there. */
int posix_fallocate64(int fd, off64_t offset, off64_t len);

#define LFA_EXPORT __attribute__((visibility("default")))

static int allocate(const char *caller, int fd, int64_t offset, int64_t len, int64_t max_end)
{
	struct lfa_job_options opt = { lfa_settings(fd).emulation, 0, 0, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;

	return lfa_run_job(caller, fd, offset, len, max_end, &opt, &rep);
}

LFA_EXPORT int posix_fallocate64(int fd, off64_t offset, off64_t len)
{
	return allocate(SIZEOF_OFF_T == 8 ? "posix_fallocate" : "posix_fallocate64", fd, offset,
			len, INT64_MAX);
}

#if SIZEOF_OFF_T == 8
extern __typeof(posix_fallocate64) posix_fallocate
	__attribute__((alias("posix_fallocate64"))) LFA_EXPORT;
#else
LFA_EXPORT int posix_fallocate(int fd, off_t offset, off_t len)
{
	return allocate("posix_fallocate", fd, offset, len, INT32_MAX);
}
#endif

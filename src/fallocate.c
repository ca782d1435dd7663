/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "emulate.h"
#include "sys_fallocate.h"

#undef fallocate64 /* a macro on musl */
/* musl declares no *64 functions (only the macros undone above); glibc's
 * declaration is the same, so repeating it is harmless there. */
int fallocate64(int fd, int mode, off64_t offset, off64_t len);

#define LFA_EXPORT __attribute__((visibility("default")))

/* The user reading the debug line of a failed mode-0 call wants to know
 * that it could have worked, and how. */
static const char *switch_hint(int mode, int err, struct lfa_settings s)
{
	if (mode != 0 || (err != EOPNOTSUPP && err != ENOSYS) || s.emulation == LFA_EMULATE_NEVER)
		return "";
	return " (not emulated: set LIBFALLOCATE_EMULATE_FALLOCATE=1, or drop"
	       " fallocate-preload's --no-emulate-fallocate)";
}

/* A thin syscall wrapper, as glibc's: callers use fallocate() to learn what
 * the filesystem supports, so it emulates only when asked to
 * (LIBFALLOCATE_EMULATE_FALLOCATE=1), and only mode 0, the one mode whose
 * result zero-writing can reproduce. */
static int fallocate_any(const char *caller, int fd, int mode, int64_t offset, int64_t len)
{
	struct lfa_settings s = lfa_settings(fd);
	int err;

	if (mode == 0 && s.emulate_fallocate) {
		struct lfa_job_options opt = { s.emulation, 0, 0, 0, 1, 0, 0, 0 };
		struct lfa_job_report rep;

		err = lfa_run_job(caller, fd, offset, len, INT64_MAX, &opt, &rep);
	} else {
		err = lfa_other_mode_answer(lfa_sys_fallocate(fd, mode, offset, len),
					    s.emulate_fallocate);
		if (s.debug)
			lfa_debug(fd, "%s(fd=%d, mode=%#x, offset=%" PRId64 ", len=%" PRId64 "): native: %s%s",
				  caller, fd, (unsigned)mode, offset, len, err ? strerror(err) : "ok",
				  switch_hint(mode, err, s));
	}
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

LFA_EXPORT int fallocate64(int fd, int mode, off64_t offset, off64_t len)
{
	return fallocate_any(SIZEOF_OFF_T == 8 ? "fallocate" : "fallocate64", fd, mode, offset, len);
}

#if SIZEOF_OFF_T == 8
extern __typeof(fallocate64) fallocate __attribute__((alias("fallocate64"))) LFA_EXPORT;
#else
/* As glibc's: the 32-bit values are widened and the kernel judges them. */
LFA_EXPORT int fallocate(int fd, int mode, off_t offset, off_t len)
{
	return fallocate_any("fallocate", fd, mode, offset, len);
}
#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings.h"

/* The parsed settings live in one word so that threads racing on the first
 * call each compute the same value and publish it with one atomic store: no
 * lock, nothing to go wrong after fork. */
#define LOADED      0x100u
#define DEBUG       0x200u
#define EMULATE_FA  0x400u
#define REFUSE_COW  0x800u
#define KEEP_CACHE  0x1000u
#define POLICY_MASK 0x0ffu

static unsigned packed_settings;

static const char *get_env(const char *name)
{
#ifdef HAVE_SECURE_GETENV
	return secure_getenv(name);
#else
	return getuid() == geteuid() && getgid() == getegid() ? getenv(name) : NULL;
#endif
}

/* Whether stderr is open and is not the file the call is about. */
static int stderr_usable(int fd)
{
	struct stat64 err, target;

	if (fstat64(STDERR_FILENO, &err) != 0)
		return 0;
	if (fd < 0 || fstat64(fd, &target) != 0)
		return fd != STDERR_FILENO;
	return err.st_dev != target.st_dev || err.st_ino != target.st_ino;
}

static void complain(int fd, const char *name, const char *value, const char *expected)
{
	char line[256];
	int n = snprintf(line, sizeof line,
			 "libfallocate: ignoring %s=%.64s (expected %s)\n",
			 name, value, expected);

	if (n > 0 && stderr_usable(fd))
		(void)!write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static int parse_bool(int fd, const char *name)
{
	const char *v = get_env(name);

	if (!v || !*v || !strcmp(v, "0"))
		return 0;
	if (!strcmp(v, "1"))
		return 1;
	complain(fd, name, v, "0 or 1");
	return 0;
}

static unsigned parse(int fd)
{
	const char *v = get_env("LIBFALLOCATE_EMULATION");
	unsigned s = LOADED | LFA_EMULATE_AUTO;

	if (v && *v) {
		if (!strcmp(v, "never"))
			s = LOADED | LFA_EMULATE_NEVER;
		else if (!strcmp(v, "always"))
			s = LOADED | LFA_EMULATE_ALWAYS;
		else if (strcmp(v, "auto"))
			complain(fd, "LIBFALLOCATE_EMULATION", v, "auto, never or always");
	}
	if (parse_bool(fd, "LIBFALLOCATE_DEBUG"))
		s |= DEBUG;
	if (parse_bool(fd, "LIBFALLOCATE_EMULATE_FALLOCATE"))
		s |= EMULATE_FA;
	v = get_env("LIBFALLOCATE_COPY_ON_WRITE");
	if (v && *v && !strcmp(v, "refuse"))
		s |= REFUSE_COW;
	else if (v && *v && strcmp(v, "emulate"))
		complain(fd, "LIBFALLOCATE_COPY_ON_WRITE", v, "emulate or refuse");
	v = get_env("LIBFALLOCATE_CACHE");
	if (v && *v && !strcmp(v, "keep"))
		s |= KEEP_CACHE;
	else if (v && *v && strcmp(v, "drop"))
		complain(fd, "LIBFALLOCATE_CACHE", v, "keep or drop");
	return s;
}

struct lfa_settings lfa_settings(int fd)
{
	unsigned s = __atomic_load_n(&packed_settings, __ATOMIC_RELAXED);
	struct lfa_settings out;

	if (!(s & LOADED)) {
		int saved_errno = errno;

		s = parse(fd);
		__atomic_store_n(&packed_settings, s, __ATOMIC_RELAXED);
		errno = saved_errno;
	}
	out.emulation = (enum lfa_emulation_policy)(s & POLICY_MASK);
	out.debug = !!(s & DEBUG);
	out.emulate_fallocate = !!(s & EMULATE_FA);
	out.refuse_copy_on_write = !!(s & REFUSE_COW);
	out.keep_cache = !!(s & KEEP_CACHE);
	return out;
}

void lfa_settings_reload(void)
{
	__atomic_store_n(&packed_settings, 0, __ATOMIC_RELAXED);
}

void lfa_debug(int fd, const char *fmt, ...)
{
	char line[512];
	int saved_errno = errno;
	va_list ap;
	int n;

	memcpy(line, "libfallocate: ", 14);
	va_start(ap, fmt);
	n = vsnprintf(line + 14, sizeof line - 15, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		size_t len = 14 + ((size_t)n < sizeof line - 15 ? (size_t)n : sizeof line - 16);

		line[len++] = '\n';
		if (stderr_usable(fd))
			(void)!write(STDERR_FILENO, line, len);
	}
	errno = saved_errno;
}

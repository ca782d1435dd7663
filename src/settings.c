/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings.h"

/* The parsed settings live in one word so that threads racing on the first
 * call each compute the same value and publish it with one atomic store: no
 * lock, nothing to go wrong after fork. */
#define LOADED      0x100u
#define DEBUG       0x200u
#define EMULATE_FA  0x400u
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

static void complain(const char *name, const char *value, const char *expected)
{
	char line[256];
	int n = snprintf(line, sizeof line,
			 "libfallocate: ignoring %s=%.64s (expected %s)\n",
			 name, value, expected);

	if (n > 0)
		(void)!write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static int parse_bool(const char *name)
{
	const char *v = get_env(name);

	if (!v || !*v || !strcmp(v, "0"))
		return 0;
	if (!strcmp(v, "1"))
		return 1;
	complain(name, v, "0 or 1");
	return 0;
}

static unsigned parse(void)
{
	const char *v = get_env("LIBFALLOCATE_EMULATION");
	unsigned s = LOADED | LFA_EMULATE_AUTO;

	if (v && *v) {
		if (!strcmp(v, "never"))
			s = LOADED | LFA_EMULATE_NEVER;
		else if (!strcmp(v, "always"))
			s = LOADED | LFA_EMULATE_ALWAYS;
		else if (strcmp(v, "auto"))
			complain("LIBFALLOCATE_EMULATION", v, "auto, never or always");
	}
	if (parse_bool("LIBFALLOCATE_DEBUG"))
		s |= DEBUG;
	if (parse_bool("LIBFALLOCATE_EMULATE_FALLOCATE"))
		s |= EMULATE_FA;
	return s;
}

struct lfa_settings lfa_settings(void)
{
	unsigned s = __atomic_load_n(&packed_settings, __ATOMIC_RELAXED);
	struct lfa_settings out;

	if (!(s & LOADED)) {
		int saved_errno = errno;

		s = parse();
		__atomic_store_n(&packed_settings, s, __ATOMIC_RELAXED);
		errno = saved_errno;
	}
	out.emulation = (enum lfa_emulation_policy)(s & POLICY_MASK);
	out.debug = !!(s & DEBUG);
	out.emulate_fallocate = !!(s & EMULATE_FA);
	return out;
}

void lfa_settings_reload(void)
{
	__atomic_store_n(&packed_settings, 0, __ATOMIC_RELAXED);
}

void lfa_debug(const char *fmt, ...)
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
		(void)!write(STDERR_FILENO, line, len);
	}
	errno = saved_errno;
}

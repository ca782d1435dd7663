/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* For unit tests that define libc functions the engine calls: the real
 * function, found past the test's own definition. */
#ifndef LFA_TESTS_SHIM_H
#define LFA_TESTS_SHIM_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>

static inline void *real_fn(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		abort();
	return f;
}
#define REAL(name) ((__typeof__(&name))real_fn(#name))

/* In a test's own syscall(long nr, ...): its arguments into the array
 * args, six of them, as the ABI passes them (in registers, so reading more
 * than the caller gave reads what is there, as libc's syscall does). */
#define SHIM_SYSCALL_ARGS(args, nr)                         \
	do {                                                \
		va_list shim_ap_;                           \
		int shim_i_;                                \
		va_start(shim_ap_, nr);                     \
		for (shim_i_ = 0; shim_i_ < 6; shim_i_++)   \
			(args)[shim_i_] = va_arg(shim_ap_, long); \
		va_end(shim_ap_);                           \
	} while (0)

/* The real syscall, past the test's own. */
static inline long real_syscall(long nr, const long args[6])
{
	return REAL(syscall)(nr, args[0], args[1], args[2], args[3], args[4], args[5]);
}

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* For unit tests that define libc functions the engine calls: the real
 * function, found past the test's own definition. */
#ifndef LFA_TESTS_SHIM_H
#define LFA_TESTS_SHIM_H

#include <dlfcn.h>
#include <stdlib.h>

static inline void *real_fn(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		abort();
	return f;
}
#define REAL(name) ((__typeof__(&name))real_fn(#name))

#endif

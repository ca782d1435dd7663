/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* main() of every Check unit test: runs the suite, exits 0 when all passed. */
#ifndef LFA_CHECK_RUN_H
#define LFA_CHECK_RUN_H

#include <check.h>
#include "testutil.h"

static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	scratch_root_begin();
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (scratch_root_end() != 0)
		failed = 1;
	return failed ? 1 : 0;
}

#endif

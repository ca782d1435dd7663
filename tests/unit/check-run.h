/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* main() of every Check unit test: runs the suite, exits 0 when all passed. */
#ifndef LFA_CHECK_RUN_H
#define LFA_CHECK_RUN_H

#include <check.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <unistd.h>
#include "../lib/testutil.h"

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

/* A non-blocking inotify descriptor watching every event of path. */
static inline int watch_every_event(const char *path)
{
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(inotify_add_watch(in, path, IN_ALL_EVENTS), 0);
	return in;
}

/* The union of the event masks queued on in, which it closes. */
static inline uint32_t events_seen(int in)
{
	unsigned char buf[4096] __attribute__((aligned(8)));
	uint32_t seen = 0;
	ssize_t n, i;

	while ((n = read(in, buf, sizeof buf)) > 0)
		for (i = 0; i < n; i += (ssize_t)sizeof(struct inotify_event) +
					((struct inotify_event *)(buf + i))->len)
			seen |= ((struct inotify_event *)(buf + i))->mask;
	close(in);
	return seen;
}

#endif

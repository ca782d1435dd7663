/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emulate.h"

/* RLIMIT_FSIZE is the writer's process's: for a call served for another
 * process, that process's limit, which the server read for it (its own is
 * shared by all the calls it serves at once, so it cannot stand in). */
uint64_t lfa_fsize_limit(const struct lfa_job_options *opt)
{
	struct rlimit64 lim;

	if (opt && opt->foreign_caller)
		return opt->caller_fsize;
	if (getrlimit64(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM64_INFINITY)
		return UINT64_MAX;
	return lim.rlim_cur;
}

/* The kernel's inode_newsize_ok sends SIGXFSZ to the task making the call,
 * a thread, not its process: a handler runs in that thread, a mask or
 * SIG_IGN there decides as for the kernel's own signal (blocked: pending
 * on that thread; ignored: discarded; the default: the process dies, with
 * nothing written).  tgkill, since raise() is pthread_kill, which needs
 * libpthread on old glibc, and glibc before 2.30 has no gettid(). */
void lfa_send_sigxfsz(void)
{
	syscall(SYS_tgkill, (long)getpid(), (long)syscall(SYS_gettid), SIGXFSZ);
}

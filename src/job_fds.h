/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Descriptors of a call's own: numbered 3 or above, close-on-exec, and
 * closed in children forked while the call runs (job_fds.c). */
#ifndef LFA_JOB_FDS_H
#define LFA_JOB_FDS_H

#include <stdint.h>

#include "settings.h"

/* A dup of fd (F_DUPFD_CLOEXEC, minimum 3), or -1 with errno; *slot is
 * what lfa_job_close takes back. */
int lfa_job_dup(int fd, int *slot) LFA_HIDDEN;
/* open(path, flags | O_CLOEXEC), moved to 3 or above, of the file dev and
 * ino name (what a child checks before closing it); counts its syscalls. */
int lfa_job_open(const char *path, int flags, uint64_t dev, uint64_t ino, int *slot,
		 unsigned *syscalls) LFA_HIDDEN;
void lfa_job_close(int fd, int slot) LFA_HIDDEN;
/* Changes in a child forked since it was last read. */
unsigned lfa_fork_generation(void) LFA_HIDDEN;

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>

#include "emulate.h"

/* A descriptor opened by a 32-bit ABI's open() without O_LARGEFILE writes
 * nothing past 2 GiB.  This build's O_LARGEFILE says so for its own
 * callers (0 on 64-bit ABIs, where the kernel forces the flag); a caller
 * served for another process brings its ABI's value (the kernel's flag,
 * which the 64-bit headers call 0). */
int lfa_largefile_flag(const struct lfa_job_options *opt)
{
	return opt && opt->foreign_caller ? opt->caller_largefile : O_LARGEFILE;
}

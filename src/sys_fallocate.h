/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#ifndef LFA_SYS_FALLOCATE_H
#define LFA_SYS_FALLOCATE_H

#include <stdint.h>

/* Issues the fallocate syscall of the running ABI.  Returns 0 or a positive
 * error number; errno is left as it was. */
int lfa_sys_fallocate(int fd, int mode, int64_t offset, int64_t len)
	__attribute__((visibility("hidden")));

#endif

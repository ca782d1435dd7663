/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys_fallocate.h"

/* What the per-ABI header uses to split a 64-bit value into 32-bit words. */
#define LFA_LO32(v) ((long)(uint32_t)(uint64_t)(v))
#define LFA_HI32(v) ((long)(uint32_t)((uint64_t)(v) >> 32))
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LFA_PAIR_IN_MEMORY_ORDER(v) LFA_HI32(v), LFA_LO32(v)
#else
#define LFA_PAIR_IN_MEMORY_ORDER(v) LFA_LO32(v), LFA_HI32(v)
#endif

#include "fallocate_arch.h"

#ifdef SYS_fallocate
_Static_assert(SYS_fallocate == LFA_NR_fallocate,
	       "src/arch/" LFA_ARCH "/fallocate_arch.h disagrees with the system's SYS_fallocate");
#endif

int lfa_sys_fallocate(int fd, int mode, int64_t offset, int64_t len)
{
	int saved_errno = errno;
	int err = 0;

	if (syscall(LFA_NR_fallocate, fd, mode, LFA_ARG64(offset), LFA_ARG64(len)) != 0)
		err = errno;
	errno = saved_errno;
	return err;
}

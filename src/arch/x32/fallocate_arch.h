/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* x32: the x86_64 call with the x32 bit set; registers are 64 bits wide even
 * though long is 32, so the value is passed as long long (libc's syscall()
 * takes it in one register). */
#define LFA_NR_fallocate (0x40000000 + 285)
#define LFA_ARG64(v) (long long)(v)
#define LFA_NR_cachestat (0x40000000 + 451)
/* pwritev2's x32 entry takes the offset in one register, not as two longs. */
#define LFA_PWRITEV2_POS(v) (long long)(v)

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* 32-bit powerpc: each 64-bit value as two words, high first; fd and mode
 * fill r3/r4, so the pairs already start on the odd register the ABI wants. */
#define LFA_NR_fallocate 309
#define LFA_ARG64(v) LFA_HI32(v), LFA_LO32(v)
#define LFA_NR_cachestat 451

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* arm EABI: each 64-bit value as a register pair in memory order (low word
 * first on little-endian, high first on armeb); fd and mode fill r0/r1, so
 * the pairs are already even-aligned. */
#define LFA_NR_fallocate 352
#define LFA_ARG64(v) LFA_PAIR_IN_MEMORY_ORDER(v)
#define LFA_NR_cachestat 451

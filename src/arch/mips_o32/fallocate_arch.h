/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* mips o32: each 64-bit value as a register pair in memory order; fd and
 * mode fill a0/a1, so the pairs are already even-aligned. */
#define LFA_NR_fallocate 4320
#define LFA_ARG64(v) LFA_PAIR_IN_MEMORY_ORDER(v)
#define LFA_NR_cachestat 4451

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* 31-bit s390: each 64-bit value as two words, high first. */
#define LFA_NR_fallocate 314
#define LFA_ARG64(v) LFA_HI32(v), LFA_LO32(v)
#define LFA_NR_cachestat 451

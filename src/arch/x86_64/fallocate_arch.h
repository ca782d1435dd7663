/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* x86_64: 64-bit values travel in whole registers. */
#define LFA_NR_fallocate 285
#define LFA_ARG64(v) (long)(v)
#define LFA_NR_cachestat 451

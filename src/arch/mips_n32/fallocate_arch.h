/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* mips n32: registers are 64 bits wide even though long is 32. */
#define LFA_NR_fallocate 6283
#define LFA_ARG64(v) (long long)(v)
#define LFA_NR_cachestat 6451

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* sparc64: whole registers. */
#define LFA_NR_fallocate 314
#define LFA_ARG64(v) (long)(v)
#define LFA_NR_cachestat 451

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#include <libfallocate.h>

#define LFA_EXPORT __attribute__((visibility("default")))

LFA_EXPORT const char *lfa_strreason(int reason)
{
	switch (reason) {
	case LFA_REASON_KERNEL: return "kernel";
	case LFA_REASON_FORCED: return "forced";
	case LFA_REASON_UNRESERVED: return "unreserved";
	default: return "none";
	}
}

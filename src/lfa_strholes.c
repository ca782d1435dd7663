/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#include <libfallocate.h>

#define LFA_EXPORT __attribute__((visibility("default")))

LFA_EXPORT const char *lfa_strholes(int holes)
{
	switch (holes) {
	case LFA_HOLES_SEEK: return "SEEK_HOLE";
	case LFA_HOLES_READ: return "read-back";
	case LFA_HOLES_FIEMAP: return "FIEMAP";
	default: return "none";
	}
}

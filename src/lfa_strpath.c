/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#include <libfallocate.h>

#define LFA_EXPORT __attribute__((visibility("default")))

LFA_EXPORT const char *lfa_strpath(int path)
{
	switch (path) {
	case LFA_PATH_NATIVE: return "native";
	case LFA_PATH_EMULATED: return "emulated";
	default: return "none";
	}
}

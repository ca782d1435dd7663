/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#include "config.h"

#include <libfallocate.h>

#define LFA_EXPORT __attribute__((visibility("default")))

LFA_EXPORT const char *lfa_version(void)
{
	return PACKAGE_VERSION;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* A mount's filesystem type and block size, remembered by its never-reused
 * id (mount_facts.c). */
#ifndef LFA_MOUNT_FACTS_H
#define LFA_MOUNT_FACTS_H

#include <stdint.h>

#include "settings.h"

/* statx's mask bit for that id (Linux 6.8), which older headers lack. */
#define LFA_STATX_MNT_ID_UNIQUE 0x4000u

/* fstatfs's f_type and f_bsize for fd, whose mount statx named unique_mount
 * (0: no such id, nothing remembered).  Returns 0, or -1 with errno when
 * fstatfs failed; counts the syscalls it made. */
int lfa_mount_facts(int fd, uint64_t unique_mount, uint32_t *fs_type, int64_t *fs_block,
		    unsigned *syscalls) LFA_HIDDEN;

#endif

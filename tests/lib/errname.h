/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#ifndef LFA_ERRNAME_H
#define LFA_ERRNAME_H

#include <errno.h>
#include <stdio.h>

/* Error names as the tests print them (strerrorname_np is glibc 2.32+). */
static inline const char *err_name(int e)
{
	static char num[16];

	switch (e) {
	case 0: return "ok";
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	case EFBIG: return "EFBIG";
	case ENOSYS: return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case ENOSPC: return "ENOSPC";
	case EDQUOT: return "EDQUOT";
	case ESPIPE: return "ESPIPE";
	case ENODEV: return "ENODEV";
	case EISDIR: return "EISDIR";
	case EIO: return "EIO";
	case ECANCELED: return "ECANCELED";
	case ENXIO: return "ENXIO";
	case ENOTTY: return "ENOTTY";
	case EINTR: return "EINTR";
	case EAGAIN: return "EAGAIN";
	}
	snprintf(num, sizeof num, "%d", e);
	return num;
}

#endif

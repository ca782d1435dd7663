/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "emulate.h"
#include "mount_facts.h"

/* The file's type, size, identity and mount, and whether it is immutable:
 * statx tells all in one call where the C library has it.  As the kernel
 * keeps them (AT_STATX_DONT_SYNC), asking no server: local filesystems keep
 * them exact, and where a server finds files by name, asking it would give
 * the attributes of whatever has the name now and keep them as the held
 * file's, which its own handle could then not correct (emul_fd.c).  The
 * engine looks at the size again before it writes. */
int lfa_look_at_target(int fd, struct lfa_target *t, unsigned *syscalls)
{
	unsigned none = 0;
#ifdef HAVE_STATX
	struct statx sx;
#endif

	if (!syscalls)
		syscalls = &none;
#ifdef HAVE_STATX
	++*syscalls;
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_SIZE | STATX_INO | STATX_BLOCKS |
		  LFA_STATX_MNT_ID_UNIQUE, &sx) == 0) {
		uint64_t attr = sx.stx_attributes_mask & sx.stx_attributes;

		t->mode = sx.stx_mode;
		t->size = (int64_t)sx.stx_size;
		t->blocks = (int64_t)sx.stx_blocks;
		t->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
		t->ino = sx.stx_ino;
		t->immutable = !!(attr & STATX_ATTR_IMMUTABLE);
		t->append_only = !!(attr & STATX_ATTR_APPEND);
#ifdef HAVE_STRUCT_STATX_STX_MNT_ID
		t->mount = (sx.stx_mask & LFA_STATX_MNT_ID_UNIQUE) ? sx.stx_mnt_id : 0;
#else
		t->mount = 0;
#endif
		return 0;
	}
	if (errno != ENOSYS)
		return errno;
#endif
	{
		struct stat64 st;

		++*syscalls;
		if (fstat64(fd, &st) != 0)
			return errno;
		t->mode = st.st_mode;
		t->size = st.st_size;
		t->blocks = st.st_blocks;
		t->dev = st.st_dev;
		t->ino = st.st_ino;
		t->immutable = 0; /* the writes will meet it */
		/* An append-only file opened for writing has O_APPEND, which the
		 * writer honours; what it cannot do is fill a hole inside. */
		t->append_only = 0;
		t->mount = 0;
		return 0;
	}
}

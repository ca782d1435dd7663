/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* statfs f_type values the unit tests play (linux/magic.h, which not every
 * libc's headers have); the library's own are in src/fs_facts.c. */
#ifndef LFA_TESTS_FS_MAGIC_H
#define LFA_TESTS_FS_MAGIC_H

#define FS_EXT        0xEF53u
#define FS_XFS        0x58465342u
#define FS_BTRFS      0x9123683Eu
#define FS_TMPFS      0x01021994u
#define FS_RAMFS      0x858458F6u
#define FS_HUGETLBFS  0x958458F6u
#define FS_F2FS       0xF2F52010u
#define FS_ZFS        0x2FC12FC1u
#define FS_FUSE       0x65735546u
#define FS_NFS        0x6969u
#define FS_CIFS       0xFF534D42u
#define FS_SMB2       0xFE534D42u
#define FS_9P         0x01021997u
#define FS_OVERLAY    0x794C7630u

#endif

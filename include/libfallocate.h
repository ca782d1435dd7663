/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/*
 * libfallocate: posix_fallocate() that works everywhere.
 *
 * fallocate(), fallocate64(), posix_fallocate() and posix_fallocate64() are
 * declared by <fcntl.h> with glibc's prototypes; this header adds the mode
 * flags some systems' <linux/falloc.h> lack, the names of the 2007 RFC as
 * aliases of the modes that shipped, and libfallocate's own lfa_ API.
 * See libfallocate(7).
 */
#ifndef LIBFALLOCATE_H
#define LIBFALLOCATE_H

/* The mainline mode flags (<linux/falloc.h>), for systems that lack some. */
#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif
#ifndef FALLOC_FL_NO_HIDE_STALE
#define FALLOC_FL_NO_HIDE_STALE 0x04
#endif
#ifndef FALLOC_FL_COLLAPSE_RANGE
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#endif
#ifndef FALLOC_FL_ZERO_RANGE
#define FALLOC_FL_ZERO_RANGE 0x10
#endif
#ifndef FALLOC_FL_INSERT_RANGE
#define FALLOC_FL_INSERT_RANGE 0x20
#endif
#ifndef FALLOC_FL_UNSHARE_RANGE
#define FALLOC_FL_UNSHARE_RANGE 0x40
#endif
#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif

/* The 2007 RFC's names, kept for source compatibility.  Its values (1 and 2)
 * never shipped, and mean KEEP_SIZE and PUNCH_HOLE today: these are the
 * mainline modes that do what the RFC's names said. */
#define FA_ALLOCATE 0
#define FA_DEALLOCATE (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)

/*
 * The lfa_ API: posix_fallocate with options and a report.  See
 * lfa_allocate(3lfa).  Fixed-width types keep the ABI the same with and
 * without _FILE_OFFSET_BITS=64.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this API: 1 is the first (libfallocate 0.1.0). */
#define LFA_API_VERSION 1

/* Whether the zero-writing emulation may run (lfa_options.emulation). */
enum lfa_emulation {
	LFA_EMULATION_DEFAULT = 0, /* as posix_fallocate: LIBFALLOCATE_EMULATION, else auto */
	LFA_EMULATION_AUTO = 1,    /* when the kernel says ENOSYS or EOPNOTSUPP */
	LFA_EMULATION_NEVER = 2,   /* never: the kernel's answer is the result */
	LFA_EMULATION_ALWAYS = 3   /* skip the syscall (tests, benchmarks) */
};

/* Called as the emulation proceeds, with the bytes of the range done so far
 * (never less than before) and the range's length, and exactly once with
 * done == total; a nonzero return cancels the allocation, which then fails
 * with ECANCELED.  The zeros written so far stay: the old bytes, then a
 * prefix of the range without holes. */
typedef int (*lfa_progress_fn)(uint64_t done, uint64_t total, void *user);

/* Set size to sizeof(struct lfa_options) and every other member to zero (or
 * use LFA_OPTIONS_INIT): later versions append members, and the library
 * reads only the first `size` bytes. */
struct lfa_options {
	size_t size;
	int emulation;            /* enum lfa_emulation */
	int flags;                /* LFA_KEEP_CACHE, or 0 */
	lfa_progress_fn progress; /* or null */
	void *user;               /* passed to progress */
};
/* lfa_options.flags: leave the zeros the emulation writes in the page cache
 * (dirty, until the kernel writes them back), as LIBFALLOCATE_CACHE=keep
 * does.  By default a large emulation keeps only a window of them. */
#define LFA_KEEP_CACHE 0x1
#define LFA_OPTIONS_INIT { sizeof(struct lfa_options), LFA_EMULATION_DEFAULT, 0, 0, 0 }

/* Which path did the work (lfa_report.path). */
enum lfa_path {
	LFA_PATH_NONE = 0,    /* neither: the arguments were refused first */
	LFA_PATH_NATIVE = 1,  /* the kernel's fallocate */
	LFA_PATH_EMULATED = 2 /* the zero-writing emulation */
};

/* Why the emulation ran (lfa_report.reason). */
enum lfa_reason {
	LFA_REASON_NONE = 0,   /* it did not */
	LFA_REASON_KERNEL = 1, /* the kernel said native_error (ENOSYS or EOPNOTSUPP) */
	LFA_REASON_FORCED = 2, /* LFA_EMULATION_ALWAYS, or LIBFALLOCATE_EMULATION=always */
	LFA_REASON_UNRESERVED = 3 /* the kernel said 0, but the file's blocks
				     cannot hold the range, or the filesystem's
				     0 is never taken (LFA_NOTE_UNRESERVED);
				     past the end of file there the kernel is
				     not asked (native_error 0) */
};

/* How the emulation found the holes of the old file (lfa_report.holes). */
enum lfa_holes {
	LFA_HOLES_NONE = 0,  /* no need: the range lay beyond the old end of file */
	LFA_HOLES_SEEK = 1,  /* SEEK_DATA and SEEK_HOLE */
	LFA_HOLES_READ = 2,  /* read back: blocks that read as zero were rewritten */
	LFA_HOLES_FIEMAP = 3 /* the FS_IOC_FIEMAP ioctl: extents of any kind are data */
};

/* Notes on what the emulation could promise (lfa_report.notes). */
#define LFA_NOTE_COPY_ON_WRITE 0x1u /* btrfs, zfs, bcachefs: the zeros written
				       reserve no space for later overwrites */
#define LFA_NOTE_GAVE_WAY 0x2u      /* another writer cut the file again and
				       again: 0 was answered, as if the cuts
				       came after the call */
#define LFA_NOTE_UNRESERVED 0x4u    /* the kernel said 0, but the file's blocks
				       cannot hold the range (a layer that
				       ignored the call, such as SMB3 with a
				       lease): emulated, or, where the
				       emulation refused, the 0 was returned */

/* Set size to sizeof(struct lfa_report) (or use LFA_REPORT_INIT); the
 * library writes only the first `size` bytes. */
struct lfa_report {
	size_t size;
	int path;               /* enum lfa_path */
	int reason;             /* enum lfa_reason */
	int native_error;       /* the kernel's answer; 0 if it was not asked */
	int holes;              /* enum lfa_holes */
	uint64_t bytes_written; /* zeros the emulation wrote */
	uint64_t syscalls;      /* system calls issued, the kernel's fallocate included */
	uint32_t notes;         /* LFA_NOTE_* */
};
#define LFA_REPORT_INIT { sizeof(struct lfa_report), 0, 0, 0, 0, 0, 0, 0 }

/* Allocates [offset, offset + len) of fd as posix_fallocate does.  opt and
 * rep may be null.  Returns 0 or an error number; never changes errno. */
int lfa_allocate(int fd, int64_t offset, int64_t len, const struct lfa_options *opt,
		 struct lfa_report *rep);

/* Names for report values ("native", "emulated", "none"; "SEEK_HOLE",
 * "read-back", "none"; "kernel", "forced", "unreserved", "none"), never null. */
const char *lfa_strpath(int path);
const char *lfa_strholes(int holes);
const char *lfa_strreason(int reason);

/* The library's version, such as "0.1.0". */
const char *lfa_version(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBFALLOCATE_H */

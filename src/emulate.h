/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#ifndef LFA_EMULATE_H
#define LFA_EMULATE_H

#include <stdint.h>

#include "settings.h"

/* How the emulation learned which blocks of the old file are allocated. */
enum lfa_hole_map {
	LFA_MAP_NONE,  /* the range lay wholly beyond the old end of file */
	LFA_MAP_SEEK,  /* SEEK_DATA/SEEK_HOLE, on a filesystem that reports holes */
	LFA_MAP_READ,  /* read back: only pieces that read as zero are written */
	LFA_MAP_FIEMAP, /* FS_IOC_FIEMAP on the job's descriptor: no reopen, no offset moved */
};

struct lfa_job_options {
	enum lfa_emulation_policy emulation;
	/* Called as the work proceeds, with the bytes of the range done, which
	 * never go back, and once with the whole range at the end; a nonzero
	 * return cancels the job, which then fails with ECANCELED.  The zeros
	 * written so far stay (a prefix of the range, without holes). */
	int (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	int keep_cache;            /* leave the zeros in the page cache */
	/* fallocate(2)'s entry: where nothing can be emulated, the answer
	 * the kernel gives, not glibc's posix_fallocate's (refusals.c). */
	int kernel_answers;
	/* For a call made by another process, maybe of another ABI (the
	 * seccomp supervisor serves them): its rules, not this process's.
	 * Zero: this process's (O_LARGEFILE of this build, getrlimit). */
	int foreign_caller;
	int caller_largefile;      /* the status flag a descriptor of the caller's
				      ABI needs to write past 2 GiB; 0: none */
	uint64_t caller_fsize;     /* the caller's RLIMIT_FSIZE (UINT64_MAX: none) */
};

/* The status flag fd needs to write past 2 GiB for the caller (0: none),
 * and the caller's RLIMIT_FSIZE soft limit (UINT64_MAX: none). */
int lfa_largefile_flag(const struct lfa_job_options *opt) LFA_HIDDEN;
uint64_t lfa_fsize_limit(const struct lfa_job_options *opt) LFA_HIDDEN;
/* SIGXFSZ to the calling thread, as the kernel's send_sig(SIGXFSZ,
 * current, 0) where a file may not grow past RLIMIT_FSIZE. */
void lfa_send_sigxfsz(void) LFA_HIDDEN;

struct lfa_job_report {
	int native_error;          /* the kernel's answer; 0 when it was not asked */
	int emulated;              /* the emulation ran */
	int copy_on_write;         /* on a filesystem where zeros reserve no space */
	enum lfa_hole_map hole_map;
	uint64_t bytes_written;    /* zeros the emulation wrote */
	int gave_way;              /* another writer cut the file again and again */
	/* The kernel said 0 for a range the file's blocks cannot hold (a
	 * layer that ignored the call: lfa_native_unreserved); the emulation
	 * then ran, unless it refused before writing, and the 0 stood. */
	int unreserved;
	/* Where the filesystem's 0 may reserve nothing and the range passes
	 * the end of file (lfa_look_before), the kernel was not asked: it is
	 * asked only where the emulation refuses before writing. */
	int not_asked;
	int native_stood;          /* the emulation's refusal, when the 0 stood */
	/* What that look learned of the filesystem, for the emulation that
	 * may follow, which then reads no mount table again: statfs's f_type
	 * and f_bsize and the table's facts (fs_facts.c) for device fs_dev;
	 * fs_known: set. */
	int fs_known;
	uint64_t fs_dev;
	uint32_t fs_type;
	int64_t fs_block;
	unsigned fs_facts;
	unsigned syscalls;         /* syscalls issued, the kernel's fallocate included */
	/* Refused (EFBIG) for the caller's RLIMIT_FSIZE where the kernel's
	 * inode_newsize_ok sends SIGXFSZ: to the calling thread as the call
	 * returns (lfa_run_job), or to the foreign caller's by its server. */
	int fsize_signal;
};

/* Whether offset+len passes what the caller's off_t can express (a 32-bit
 * off_t's entry points), for a range the kernel would otherwise accept. */
static inline int lfa_past_max_end(int64_t offset, int64_t len, int64_t max_end)
{
	return max_end < INT64_MAX && offset >= 0 && len > 0 && len > max_end - offset;
}

/* The facts about a descriptor that the kernel checks, in its order. */
struct lfa_target {
	int flags;         /* fcntl(F_GETFL) */
	unsigned mode;     /* the file's type and permissions */
	int immutable;     /* chattr +i (where statx tells) */
	int append_only;   /* chattr +a: only appends can change it */
	int64_t size;      /* when checked: stale as soon as it is read */
	int64_t blocks;    /* st_blocks, in 512-byte units */
	uint64_t dev, ino; /* which file: a reopened descriptor must match */
	uint64_t mount;    /* statx's unique mount id (Linux 6.8), or 0 */
};

/* One look at the file (statx, or fstat without it) filling all but
 * flags.  Returns 0 or an error number; counts its syscalls in *syscalls
 * (NULL: not counted). */
int lfa_look_at_target(int fd, struct lfa_target *t, unsigned *syscalls) LFA_HIDDEN;

/* refusals.c: returns 0 or the error fallocate(2) would give; max_end is
 * the largest offset+len the caller's off_t can express.  looked: t already
 * holds lfa_look_at_target's answer, taken before anything was written.
 * native_error: the kernel's answer, 0 where it was not asked. */
int lfa_check_target(int fd, int64_t offset, int64_t len, int64_t max_end,
		     struct lfa_target *t, int looked, const struct lfa_job_options *opt,
		     int native_error) LFA_HIDDEN;

/* fallocate(2)'s answer for a mode the library does not emulate: ENOSYS
 * becomes EOPNOTSUPP once mode 0 is emulated. */
int lfa_other_mode_answer(int err, int emulating_mode_0) LFA_HIDDEN;

/* The zero-writing engine: allocates [offset, offset+len) of fd, a
 * descriptor of the library's own for the caller's file, without the
 * kernel's help.  Returns 0 or an error number, and may change errno. */
int lfa_emulate(int fd, int64_t offset, int64_t len, const struct lfa_target *t,
		const struct lfa_job_options *opt, struct lfa_job_report *rep) LFA_HIDDEN;

/* A range starting at the end of a regular file on a local disk, small
 * enough for one write, allocated in glibc's number of syscalls.  *looked:
 * on entry, whether t holds a look taken with nothing written since (the
 * one before the kernel's failed call), which then serves.  Returns 0 when
 * done, -1 when the call is the engine's; *looked then says whether t
 * still holds such a look, for lfa_check_target. */
int lfa_extend_quickly(int fd, int64_t offset, int64_t len, const struct lfa_job_options *opt,
		       struct lfa_job_report *rep, struct lfa_target *t, int *looked) LFA_HIDDEN;

/* One look at the file before the kernel is asked (lfa_look_at_target,
 * into t: what the kernel keeps, no server asked), which serves
 * lfa_native_unreserved and, where the kernel then changes nothing, the
 * emulation.  Returns -1 where the look failed, 1 where the kernel's 0
 * would not be taken (the filesystem's 0 may reserve nothing) and would
 * only grow the file past its end: the kernel is then not asked; else 0.
 * Keeps errno; counts its syscalls in rep, and leaves there what it
 * learned of the filesystem. */
int lfa_look_before(int fd, int64_t offset, int64_t len, struct lfa_target *t,
		    struct lfa_job_report *rep) LFA_HIDDEN;

/* Whether the kernel's 0 for fallocate(fd, 0, offset, len) cannot be
 * taken: the file's blocks, as a look that reaches the held file shows
 * them, hold fewer than len bytes, or the filesystem's 0 may reserve
 * nothing (SMB, ceph-fuse, one not known).  before: lfa_look_before's
 * look, which succeeded.  Keeps errno; counts its syscalls in rep, and
 * leaves there what it learned of the filesystem. */
int lfa_native_unreserved(int fd, int64_t len, const struct lfa_target *before,
			  struct lfa_job_report *rep) LFA_HIDDEN;

/* The whole job of posix_fallocate and of the public lfa_allocate: the
 * syscall, then the emulation where the policy allows it.  `caller` names the
 * entry point in debug output.
 * Returns 0 or an error number; errno is left as it was. */
int lfa_run_job(const char *caller, int fd, int64_t offset, int64_t len, int64_t max_end,
		const struct lfa_job_options *opt, struct lfa_job_report *rep) LFA_HIDDEN;

#endif

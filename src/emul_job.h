/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The emulation's state, shared by its three parts: which descriptors reach
 * the file (emul_fd.c), how zeros are written (emul_write.c) and how the
 * pieces that need them are found (emul_holes.c); emulate.c runs the job. */
#ifndef LFA_EMUL_JOB_H
#define LFA_EMUL_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "emulate.h"
#include "fs_facts.h"

/* One pwritev carries up to WRITE_CHUNK bytes: under O_DSYNC that is what
 * each sync costs. */
#define WRITE_CHUNK ((int64_t)4 << 20)

enum writer {
	WRITE_BOUND,    /* pwritev on the job's descriptor (no O_APPEND) */
	WRITE_PRIVATE,  /* pwritev on a descriptor reopened without O_APPEND/O_DIRECT */
	WRITE_APPEND,   /* appends, for append-only files: the only writes they take */
};

/* Extents one look at the file's map keeps (emul_holes.c). */
#define EMUL_PLAN_EXTENTS 32

/* Pieces of the page-cache window remembered at once (emul_cache.c). */
#define EMUL_CACHE_PIECES 16

struct emul_job {
	int64_t offset, end;
	const struct lfa_target *target;
	const struct lfa_job_options *opt;
	struct lfa_job_report *rep;

	int fd;                 /* bound to the file for the whole call */
	int flags;              /* its status flags */
	int priv, priv_mode;    /* ours, reopened through /proc, and its access mode */
	int priv_tried;
	int priv_slot;          /* priv's in the table of job descriptors (job_fds.c) */
	/* Where other machines share the file: the descriptor with O_APPEND
	 * that grows it (the caller's, or reopened), valid once app_tried. */
	int app, app_slot, app_tried;
	int app_wrote;          /* zeros went through app: its pages dropped at the end */
	/* On NFS: a descriptor with O_DIRECT that reads the server's bytes,
	 * never this client's cached pages (emul_server_read_fd), valid once
	 * dio_tried. */
	int dio, dio_slot, dio_tried, dio_mode;
	enum writer writer;
	int direct;             /* fd is O_DIRECT: only aligned pieces go through it */
	int64_t block;          /* the filesystem's block, at most 4096 */
	uint32_t fs_type;
	int64_t fs_block;       /* statfs's f_bsize */
	/* What is known of the filesystem (fs_facts.c), once per call.
	 * LFA_FS_BY_NAME: no second descriptor is known to be the caller's
	 * file, and its size is asked through the caller's own open file
	 * (emul_refresh_size). */
	unsigned facts;

	int64_t known_size;     /* the size last seen; anything may have changed it since */

	/* read-back: what buf holds, and which part of it was read after the
	 * last write (only that part may justify a write) */
	unsigned char *buf;     /* READ_CHUNK bytes */
	int64_t buf_pos, buf_end, fresh_pos, fresh_end;
	/* On a shared filesystem, the part read again after a pause (zeros
	 * there are no other client's write in flight), and how long the
	 * last read took */
	int64_t settled_pos, settled_end, read_ns;
	/* SEEK_DATA: where the last hole found ended in data */
	int64_t data_at;
	/* FIEMAP: the extents of [plan_from, plan_to) as one look found
	 * them, oldest look's order (emul_holes.c).  They say where to look,
	 * never what to write: each hole is looked at again on its own right
	 * before its write.  plan_to == 0: no plan. */
	int64_t plan_from, plan_to;
	int plan_count;
	int plan_fresh;         /* taken after the last write: a look for its first hole */
	struct emul_extent {
		int64_t a, b;
	} plan[EMUL_PLAN_EXTENTS];

	uint64_t progress_done;
	unsigned fork_generation; /* lfa_fork_generation() when the job began */

	/* emul_cache.c: the pieces written in the window of writeback behind
	 * the write front, oldest first */
	int cache_on;
	int cache_dontcache;    /* writes still try RWF_DONTCACHE */
	int cache_wait;         /* the front still waits for the disk */
	int64_t cache_last_wait_ns; /* how long the front last waited */
	int cache_count;
	int64_t cache_unstarted;
	struct emul_cache_piece {
		int64_t a, b;
		int started;
		int mixed;      /* a span that holds the caller's data too */
	} cache_piece[EMUL_CACHE_PIECES];

	/* Loops end: consecutive EINTRs from writes, and reads that ended
	 * before the size fstat gave, each allowed only EMUL_RETRIES times. */
	int eintr_streak, early_eofs;
	/* The size those reads ended below, and whether it moved between
	 * them (another client writing: emulate.c). */
	int64_t eof_size;
	int eof_size_moved;
	/* Times another writer cut the file below what was done. */
	int setbacks;
	int no_append;          /* RWF_APPEND refused: positional writes only */
	/* Why no write can be aimed (emul_choose_writer), where the call had
	 * already appended before the engine ran: that refusal then waits for
	 * a write that needs aiming, which may never come. */
	int aiming_refused;
	int size_fresh;         /* known_size was looked at right before, nothing since */
	/* Something the engine did not write may have changed the file's
	 * shape since its last look (a positional write, a size that went
	 * down): the range is checked for holes before success. */
	int reshaped;
};

#define EMUL_RETRIES 3
/* Another writer cut the file below what was done more than EMUL_RETRIES
 * times: the job stops, and the call answers 0 (emulate.c). */
#define EMUL_GAVE_WAY (-3)

/* refusals.c: the refusals that need the filesystem, in the kernel's
 * order, before any write.  Returns 0 or an error; *decided says whether
 * that is the call's answer (a sealed file grown without writes). */
int emul_refusal(struct emul_job *j, int *decided) LFA_HIDDEN;

/* emul_fd.c */
int emul_private_fd(struct emul_job *j) LFA_HIDDEN;
int emul_readable_fd(struct emul_job *j) LFA_HIDDEN;
int emul_server_read_fd(struct emul_job *j) LFA_HIDDEN;
int emul_append_fd(struct emul_job *j) LFA_HIDDEN;
int emul_refresh_size(struct emul_job *j) LFA_HIDDEN;
void emul_close_private(struct emul_job *j) LFA_HIDDEN;

/* emul_write.c: zeros over [off, end), which the caller has just seen read
 * as zero; one syscall at most.  Returns 0 with *done set, or an error. */
int emul_choose_writer(struct emul_job *j) LFA_HIDDEN;
int emul_write(struct emul_job *j, int64_t off, int64_t end, int64_t *done) LFA_HIDDEN;
/* n zeros appended at the end of file, wherever it is now (pwritev2 with
 * RWF_APPEND): another writer's appends in the meantime stay before them.
 * Returns EMUL_NO_APPEND where the kernel or the descriptor cannot. */
#define EMUL_NO_APPEND (-2)
int emul_append(struct emul_job *j, int64_t n, int64_t *done) LFA_HIDDEN;
void emul_drop_appended(struct emul_job *j) LFA_HIDDEN;
/* The same outside a job, for the quick path: n (at most WRITE_CHUNK)
 * zeros appended to fd, whose size was looked at as size; the bytes
 * written, or -1 with errno. */
ssize_t emul_append_zeros(int fd, int64_t size, int64_t n) LFA_HIDDEN;
/* Forgets which pwritev2 flags the kernel was seen to lack: for unit tests
 * that play such kernels in one process. */
void emul_forget_kernel_answers(void) LFA_HIDDEN;

/* emul_holes.c: the next piece of [pos, limit) inside the file that needs
 * zeros, checked right before it is returned.  Returns 0 with [*a, *b)
 * (*a == *b: nothing to write below *a), EMUL_EOF with the file ending at
 * *a, or an error. */
#define EMUL_EOF (-1)
int emul_setup_map(struct emul_job *j) LFA_HIDDEN;
int emul_next_zeros(struct emul_job *j, int64_t pos, int64_t limit, int64_t *a, int64_t *b)
	LFA_HIDDEN;
void emul_wrote(struct emul_job *j) LFA_HIDDEN;
void emul_release_map(struct emul_job *j) LFA_HIDDEN;
/* Where [offset, end) stops being whole (end: it is, as far as this
 * filesystem tells), looked up afresh.  Forgets the cached looks. */
int emul_first_gap(struct emul_job *j, int64_t *gap) LFA_HIDDEN;

/* emul_cache.c: bounds what the zeros leave in the page cache.  start
 * once the writer is chosen, wrote after each write, finish at the end;
 * none of them fails the call. */
void emul_cache_start(struct emul_job *j) LFA_HIDDEN;
void emul_cache_wrote(struct emul_job *j, int64_t off, int64_t n) LFA_HIDDEN;
void emul_cache_finish(struct emul_job *j) LFA_HIDDEN;
/* RWF_DONTCACHE for a write of n bytes where the window runs and the
 * kernel can, else 0; a write that refused it says so, and is made again
 * without. */
int emul_cache_rwf(const struct emul_job *j, int64_t n) LFA_HIDDEN;
void emul_cache_rwf_refused(struct emul_job *j) LFA_HIDDEN;

/* The monotonic clock, and a sleep of ns counted as a syscall. */
int64_t emul_now_ns(void) LFA_HIDDEN;
void emul_nap_ns(struct emul_job *j, int64_t ns) LFA_HIDDEN;

static inline int64_t emul_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t emul_max(int64_t a, int64_t b) { return a > b ? a : b; }

#endif

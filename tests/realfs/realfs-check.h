/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* What realfs-check's modes share (realfs-check.c has the usage): the
 * descriptor kinds, the file shapes and ranges, the checks of a result. */
#ifndef LFA_REALFS_CHECK_H
#define LFA_REALFS_CHECK_H

#include "../lib/realfs-util.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#ifndef REALFS_PUBLIC_ONLY
#include "emulate.h"
#endif

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define HUGE_UNIT (2 * MiB)

extern int use_public;       /* -p: the public posix_fallocate */
extern int failures, passes;
extern const char *dir;      /* the directory checked */
extern const char *backing_dir; /* -b */
extern int trust_blocks;     /* -S */
extern int preset;           /* -c */
extern int by_name;          /* -N */

struct fd_kind {
	const char *name;
	int flags;
};
extern const struct fd_kind fd_kinds[];
extern const size_t n_fd_kinds;

enum shape { NEW, DATA, SPARSE, ZEROS, N_SHAPES };
extern const char *const shape_names[];

struct range {
	const char *name;
	int64_t off, len;
};

/* The last failure, for check-fs.sh's table. */
extern char fail_reason[1024];

/* A failed check: says why, and leaves the case through its out: label. */
#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			char msg_[512];                                    \
			snprintf(msg_, sizeof msg_, __VA_ARGS__);          \
			snprintf(fail_reason, sizeof fail_reason, "%s: %s", \
				 label, msg_);                             \
			printf("FAIL %s\n", fail_reason);                  \
			ok = 0;                                            \
			goto out;                                          \
		}                                                          \
	} while (0)

int allocate(int fd, int64_t off, int64_t len);
void fill_random(unsigned char *buf, size_t n, unsigned seed);
int64_t round_up(int64_t v, int64_t unit);
void put_mapped(int fd, int64_t off, const unsigned char *buf, int64_t n);
void put(const char *path, int64_t off, int64_t n, unsigned seed);
void set_size(const char *path, int64_t size);
void make_shape(const char *path, enum shape s);
int make_ranges(int64_t s, struct range *r);
unsigned char *read_all(const char *path, int64_t size);
int64_t path_size(const char *path);
int64_t first_difference(const char *path, const unsigned char *old, int64_t old_size,
			 int64_t want_size);
const char *result_broken(int fd, off_t pos, const char *path, const unsigned char *old,
			  int64_t old_size, int64_t want);
const char *append_broken(int fd, const char *path, const unsigned char *old,
			  int64_t old_size, int64_t want);
int open_kind(const char *path, const struct fd_kind *k, const char *label);
int run_case(const char *path, const struct fd_kind *k, enum shape s,
	     const struct range *r);
void tally(int r);
int native(void);

/* The modes. */
void matrix(void);
void enospc(void);
void efbig(void);
void fs_matrix(void);
void prepare(void);
void prepare_fs(void);
void parity(void);
void holes(void);

#endif

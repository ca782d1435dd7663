/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The emulation's rules under other writers and faults (check_race), each
 * proven by making "the other writer" act at an exact syscall of the
 * library: harness.c defines the libc functions the engine calls, which
 * run a scripted action before or after the real call.  One file of tests
 * per rule; this header is what they share. */
#ifndef LFA_RACE_HARNESS_H
#define LFA_RACE_HARNESS_H

#include "../../lib/testutil.h"

#include <check.h>

#include "../check-run.h"
#include <dlfcn.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/file.h>
#include <stdarg.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "emul_job.h"
#include "emulate.h"
#include "../shim.h"
#include "sys_fallocate.h"

#include <linux/fiemap.h>
#include <linux/fs.h>

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)

/* The script: act at the nth call of fn during the job (every call when
 * nth < 0), before the call (and then fail it with the errno act returns,
 * if any) or after it. */
struct race_script {
	const char *fn;
	int nth, after;
	int (*act)(void);
	int calls, active, acting;
	int64_t write_lo, write_hi; /* the span the job's positional writes covered */
	int writes, v2_calls;
};
extern struct race_script hk;

/* What the tests set and the shims play (each explained in harness.c). */
extern int other_fd, job_fd;
extern const char *job_path;
extern int layer_ignores_noappend, layer_drops_append;
extern int stale_client_size;
extern int64_t client_size;
extern long case_fs_type, fake_fs_type;
extern int kernel_without_rwf_append, kernel_without_rwf_noappend;
extern int reusable_mount_ids, generic_seek;
extern int writes_interrupted, reads_end_early, write_attempts, read_attempts;
extern int fake_by_name;
extern int reopen_estale, reopens_tried;
extern int fstatfs_calls, fstat_fd;
extern int fiemap_errno, fiemap_fails;
extern int naps;
#define FAULT_CAP 1000

int local_here(const char *why);
int real_refuses(int flag);
void hook_reset(void);
void script(const char *fn, int nth, int after, int (*act)(void));
void script_next(const char *fn, int nth, int after, int (*act)(void));
int job(int fd, int64_t offset, int64_t len, struct lfa_job_report *rep,
	int (*progress)(void *, uint64_t, uint64_t));
void writes_inside(int64_t offset, int64_t end);
const char *fresh(const char *name);
void expect_bytes(const char *path, const unsigned char *want, int64_t n);
unsigned char *pattern(int64_t n, unsigned seed);
void put(int fd, const unsigned char *b, int64_t n, int64_t off);
void sparse_with_data(const char *p, int64_t hole);
void expect_sparse_filled(const char *p, int64_t hole, int64_t size);
int take_write_lease(int fd);
extern int sigio_count;
int fiemap_here(const char *why);
int count_descriptors(void);
extern int64_t marker_at;
int mark_later_piece(void);
int append_record(void);
extern volatile sig_atomic_t xfsz_count, xfsz_in_caller;
void catch_xfsz(void);

/* invisible.c's cases, which appends.c runs on a shared filesystem too. */
void low_descriptors_case(int flags);
void fork_mid_call_case(int flags);
void only_modify_events(int flags);

/* Each rule's file adds its tests. */
void race_shorter_tests(TCase *tc);
void race_range_tests(TCase *tc);
void race_descriptors_tests(TCase *tc);
void race_limits_tests(TCase *tc);
void race_invisible_tests(TCase *tc);
void race_appends_tests(TCase *tc);
void race_faults_tests(TCase *tc);
void race_fiemap_tests(TCase *tc);
void race_quick_tests(TCase *tc);

#endif

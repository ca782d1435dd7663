/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <string.h>

#include <libfallocate.h>

#include "emulate.h"

#define LFA_EXPORT __attribute__((visibility("default")))

/* The smallest structures a caller may pass: those of API version 1.  Later
 * versions only append members, so every later size is larger. */
#define OPTIONS_SIZE_V1 sizeof(struct lfa_options)
#define REPORT_SIZE_V1 sizeof(struct lfa_report)
/* The largest size checked, as openat2 and clone3 (a page there): beyond,
 * E2BIG, and nothing past the members known is read or written. */
#define STRUCT_SIZE_MAX ((size_t)4096)

struct progress_relay {
	lfa_progress_fn fn;
	void *user;
};

/* The engine's callback takes its argument first; ours takes it last. */
static int relay_progress(void *arg, uint64_t done, uint64_t total)
{
	const struct progress_relay *r = arg;

	return r->fn(done, total, r->user);
}

/* A structure from a newer header may be larger than ours: that is fine as
 * long as what we do not know is zero, else the caller asks for something
 * this library cannot do (the convention of openat2 and clone3). */
static int tail_is_zero(const void *p, size_t known, size_t given)
{
	const unsigned char *b = p;
	size_t i;

	for (i = known; i < given; i++)
		if (b[i])
			return 0;
	return 1;
}

static int read_options(int fd, const struct lfa_options *opt, struct lfa_job_options *job,
			struct progress_relay *relay)
{
	static const enum lfa_emulation_policy policies[] = {
		[LFA_EMULATION_AUTO] = LFA_EMULATE_AUTO,
		[LFA_EMULATION_NEVER] = LFA_EMULATE_NEVER,
		[LFA_EMULATION_ALWAYS] = LFA_EMULATE_ALWAYS,
	};

	memset(job, 0, sizeof *job);
	job->emulation = lfa_settings(fd).emulation;
	if (!opt)
		return 0;
	if (opt->size < OPTIONS_SIZE_V1 || (opt->flags & ~LFA_KEEP_CACHE) ||
	    opt->emulation < LFA_EMULATION_DEFAULT || opt->emulation > LFA_EMULATION_ALWAYS)
		return EINVAL;
	if (opt->size > STRUCT_SIZE_MAX || !tail_is_zero(opt, sizeof *opt, opt->size))
		return E2BIG;
	job->keep_cache = !!(opt->flags & LFA_KEEP_CACHE);
	if (opt->emulation != LFA_EMULATION_DEFAULT)
		job->emulation = policies[opt->emulation];
	if (opt->progress) {
		relay->fn = opt->progress;
		relay->user = opt->user;
		job->progress = relay_progress;
		job->progress_arg = relay;
	}
	return 0;
}

static int fallback_error(int err)
{
	return err == ENOSYS || err == EOPNOTSUPP;
}

/* The engine reports what it did; the caller wants to know which path was
 * chosen and why, which the policy and the kernel's answer decide. */
static void fill_report(struct lfa_report *out, const struct lfa_job_options *job,
			const struct lfa_job_report *r)
{
	out->native_error = r->native_error;
	out->bytes_written = r->bytes_written;
	out->syscalls = r->syscalls;
	if (job->emulation == LFA_EMULATE_ALWAYS)
		out->reason = LFA_REASON_FORCED;
	else if (r->unreserved && !r->native_stood)
		out->reason = LFA_REASON_UNRESERVED;
	else if (r->native_stood)
		out->reason = LFA_REASON_NONE;
	else if (r->emulated || (job->emulation == LFA_EMULATE_AUTO &&
				 fallback_error(r->native_error)))
		out->reason = LFA_REASON_KERNEL;
	out->path = out->reason != LFA_REASON_NONE ? LFA_PATH_EMULATED : LFA_PATH_NATIVE;
	out->notes = (r->copy_on_write ? LFA_NOTE_COPY_ON_WRITE : 0) |
		     (r->gave_way ? LFA_NOTE_GAVE_WAY : 0) |
		     (r->unreserved ? LFA_NOTE_UNRESERVED : 0);
	out->holes = r->hole_map == LFA_MAP_FIEMAP ? LFA_HOLES_FIEMAP :
		     r->hole_map == LFA_MAP_SEEK ? LFA_HOLES_SEEK :
		     r->hole_map == LFA_MAP_READ ? LFA_HOLES_READ : LFA_HOLES_NONE;
}

LFA_EXPORT int lfa_allocate(int fd, int64_t offset, int64_t len, const struct lfa_options *opt,
			    struct lfa_report *rep)
{
	struct lfa_job_options job;
	struct lfa_job_report job_rep;
	struct progress_relay relay;
	struct lfa_report out;
	size_t rep_size;
	int err;

	if (rep && rep->size < REPORT_SIZE_V1)
		return EINVAL;
	if (rep && rep->size > STRUCT_SIZE_MAX)
		return E2BIG;
	rep_size = rep ? rep->size : 0;
	memset(&out, 0, sizeof out);
	out.size = rep_size;
	err = read_options(fd, opt, &job, &relay);
	if (!err) {
		err = lfa_run_job("lfa_allocate", fd, offset, len, INT64_MAX, &job, &job_rep);
		fill_report(&out, &job, &job_rep);
	}
	if (rep) {
		memcpy(rep, &out, sizeof out);
		memset((unsigned char *)rep + sizeof out, 0, rep_size - sizeof out);
	}
	return err;
}

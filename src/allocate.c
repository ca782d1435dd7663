/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_SYS_SINGLE_THREADED_H
#include <sys/single_threaded.h>
#endif

#include "emulate.h"
#include "job_fds.h"
#include "sys_fallocate.h"

static const char *map_name(enum lfa_hole_map m)
{
	return m == LFA_MAP_FIEMAP ? "FIEMAP" : m == LFA_MAP_SEEK ? "SEEK_HOLE" :
	       m == LFA_MAP_READ ? "read-back" : "none";
}

static void debug_line(const char *caller, int fd, int64_t offset, int64_t len,
		       const struct lfa_job_options *opt, const struct lfa_job_report *rep, int err)
{
	char why[96];

	if (rep->native_stood) {
		lfa_debug(fd, "%s(fd=%d, offset=%" PRId64 ", len=%" PRId64 "): native: ok, but the "
			  "file's blocks cannot hold the range, and the emulation refused: %s",
			  caller, fd, offset, len, strerror(rep->native_stood));
		return;
	}
	if (!rep->emulated) {
		lfa_debug(fd, "%s(fd=%d, offset=%" PRId64 ", len=%" PRId64 "): native: %s",
			  caller, fd, offset, len, err ? strerror(err) : "ok");
		return;
	}
	if (opt->emulation == LFA_EMULATE_ALWAYS)
		snprintf(why, sizeof why, "LIBFALLOCATE_EMULATION=always");
	else if (rep->unreserved && rep->not_asked)
		snprintf(why, sizeof why, "kernel not asked: this filesystem's 0 reserves nothing");
	else if (rep->unreserved)
		snprintf(why, sizeof why, "kernel said ok, but reserved nothing it can show");
	else
		snprintf(why, sizeof why, "kernel said %s", strerror(rep->native_error));
	lfa_debug(fd, "%s(fd=%d, offset=%" PRId64 ", len=%" PRId64 "): emulated (%s; holes by %s%s%s): "
		  "%s%s, %" PRIu64 " bytes written, %u syscalls",
		  caller, fd, offset, len, why, map_name(rep->hole_map),
		  rep->copy_on_write ? "; copy-on-write: zeros reserve no space" : "",
		  rep->gave_way ? "; another writer cut the file again and again: gave way" : "",
		  err ? strerror(err) : "ok",
		  rep->fsize_signal ? " (RLIMIT_FSIZE: SIGXFSZ)" : "", rep->bytes_written,
		  rep->syscalls);
}

/* Whether nothing but the caller can replace its descriptor or fork while
 * the call runs: glibc's __libc_single_threaded, true until the process
 * starts a thread, and no progress callback.  (A signal handler that
 * dup2()s over the descriptor mid-call still could, as with glibc's
 * emulation; the kernel's own call is one syscall.) */
static int caller_alone(const struct lfa_job_options *opt)
{
#ifdef HAVE_SYS_SINGLE_THREADED_H
	return __libc_single_threaded && !opt->progress;
#else
	(void)opt;
	return 0;
#endif
}

/* The emulation refused before its first write, after a 0 that may have
 * reserved nothing: that 0 stands, reported.  Where the kernel was not
 * asked, it is asked now, and its answer is the call's, as if it had been
 * asked first; only where it does not allocate is the refusal. */
static int native_stands(int fd, int64_t offset, int64_t len, int refusal,
			 struct lfa_job_report *rep)
{
	if (rep->not_asked) {
		rep->syscalls++;
		rep->native_error = lfa_sys_fallocate(fd, 0, offset, len);
		if (rep->native_error) {
			rep->unreserved = 0;
			if (rep->native_error == ENOSYS || rep->native_error == EOPNOTSUPP)
				return refusal;
			rep->emulated = 0;
			rep->hole_map = LFA_MAP_NONE;
			return rep->native_error;
		}
	}
	rep->native_stood = refusal;
	rep->emulated = 0;
	rep->hole_map = LFA_MAP_NONE;
	return 0;
}

int lfa_run_job(const char *caller, int fd, int64_t offset, int64_t len, int64_t max_end,
		const struct lfa_job_options *opt, struct lfa_job_report *rep)
{
	struct lfa_target target;
	int saved_errno, bound, bound_slot, looked = 0, before, err;

	memset(rep, 0, sizeof *rep);
	/* The common case, the kernel allocating, costs the syscall and one
	 * look (lfa_sys_fallocate keeps errno): glibc is measured against
	 * this. */
	if (opt->emulation == LFA_EMULATE_NEVER && !lfa_past_max_end(offset, len, max_end)) {
		rep->syscalls++;
		err = rep->native_error = lfa_sys_fallocate(fd, 0, offset, len);
		goto out;
	}
	if (opt->emulation == LFA_EMULATE_AUTO && !lfa_past_max_end(offset, len, max_end)) {
		/* A layer can accept the call and reserve nothing (SMB3 with a
		 * lease, ceph-fuse): a look at the file's blocks before and
		 * after tells where that cannot be true, and the emulation
		 * then does the work.  Where it would do it whatever the
		 * kernel said, and the kernel's 0 would only grow the file, the
		 * kernel is not asked.  Where the kernel changes nothing (not
		 * asked, or an error), that look serves the emulation. */
		before = lfa_look_before(fd, offset, len, &target, rep);
		if (before > 0) {
			rep->unreserved = rep->not_asked = 1;
		} else {
			rep->syscalls++;
			err = rep->native_error = lfa_sys_fallocate(fd, 0, offset, len);
			if (!err && before == 0)
				rep->unreserved = lfa_native_unreserved(fd, len, &target, rep);
			if (!rep->unreserved && (!err || (err != ENOSYS && err != EOPNOTSUPP)))
				goto out;
		}
		looked = before >= 0 && (rep->not_asked || !rep->unreserved);
	}
	/* The emulation, or an off_t narrower than the kernel's that cannot
	 * express the end: lfa_check_target then fails with EFBIG where the
	 * kernel fails for a file past its maximum size, in its order.  It
	 * works on a descriptor of its own for the caller's file, so that a
	 * dup2() over the caller's number mid-call by another thread cannot
	 * send zeros into another file; a caller alone needs none.  (Out of
	 * descriptors, or with RLIMIT_NOFILE at 3 or less, which F_DUPFD
	 * refuses with EINVAL, it works on the caller's.)  That descriptor is
	 * numbered 3 or above and closed in children forked meanwhile
	 * (job_fds.c). */
	saved_errno = errno;
	bound = -1;
	if (!caller_alone(opt)) {
		rep->syscalls++;
		bound = lfa_job_dup(fd, &bound_slot);
		if (bound < 0 && errno != EMFILE && errno != ENFILE && errno != EINVAL) {
			err = errno;
			goto restore;
		}
	}
	if (lfa_past_max_end(offset, len, max_end) ||
	    (err = lfa_extend_quickly(bound >= 0 ? bound : fd, offset, len, opt, rep, &target,
				      &looked)) != 0) {
		/* fcntl, and statx unless the quick path's look serves */
		rep->syscalls += looked ? 1 : 2;
		err = lfa_check_target(bound >= 0 ? bound : fd, offset, len, max_end, &target,
				       looked, opt, rep->native_error);
		if (!err)
			err = lfa_emulate(bound >= 0 ? bound : fd, offset, len, &target, opt, rep);
	}
	if (bound >= 0) {
		rep->syscalls++;
		lfa_job_close(bound, bound_slot);
	}
restore:
	/* After the kernel's 0, an emulation that refused before its first
	 * write (an O_WRONLY descriptor on a server's filesystem, a
	 * copy-on-write filesystem, no descriptor of its own) leaves that 0
	 * standing, reported: the kernel's answer, as glibc gives it.  Running
	 * out of space or failing I/O is the answer the call owed. */
	if (rep->unreserved && err && !rep->bytes_written && err != ENOSPC && err != EDQUOT &&
	    err != EIO && err != EINTR) {
		err = native_stands(fd, offset, len, err, rep);
	}
	errno = saved_errno;
out:
	if (lfa_settings(fd).debug)
		debug_line(caller, fd, offset, len, opt, rep, err);
	/* Past the caller's RLIMIT_FSIZE, nothing written: the kernel's
	 * SIGXFSZ, last, so that a handler runs as with the kernel's, after
	 * the call's work and with nothing of it left open.  A call served
	 * for another process leaves the signal to its server. */
	if (rep->fsize_signal && !opt->foreign_caller)
		lfa_send_sigxfsz();
	return err;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* For each notification: take the caller's descriptor (pidfd_getfd: a copy
 * of the same open file description, so the same file, flags and offset),
 * make sure the notification is still the caller's, call fallocate on the
 * copy (the library's engine when the rules let mode 0 emulate), answer.
 * The supervisor is not under the filter: its own calls reach the kernel. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libfallocate.h>

#include "seccomp-abi.h"
#include "seccomp-serve.h"
#include "sys_fallocate.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd for any thread */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

int sc_server_init(struct sc_server *s, int listener, const struct sc_policy *policy)
{
	struct seccomp_notif_sizes sizes;

	memset(s, 0, sizeof *s);
	s->listener = listener;
	s->policy = *policy;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0)
		return errno;
	/* A newer kernel may write more than our headers know. */
	s->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ?
		      sizes.seccomp_notif : sizeof(struct seccomp_notif);
	s->resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ?
		       sizes.seccomp_notif_resp : sizeof(struct seccomp_notif_resp);
	s->req = calloc(1, s->req_size);
	s->resp = calloc(1, s->resp_size);
	return s->req && s->resp ? 0 : ENOMEM;
}

static int still_valid(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* The thread that made the call may not lead its thread group: before 6.9
 * pidfd_open takes only leaders, and the group shares the descriptor table
 * unless the thread unshared it (which PIDFD_THREAD gets right). */
static int open_pidfd(pid_t tid)
{
	char path[64], line[256];
	FILE *f;
	int fd;
	long tgid = -1;

	fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (fd >= 0 || errno != EINVAL)
		return fd;
	fd = (int)syscall(SYS_pidfd_open, tid, 0);
	if (fd >= 0 || errno != EINVAL)
		return fd;
	snprintf(path, sizeof path, "/proc/%ld/status", (long)tid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	if (tgid <= 0) {
		errno = ESRCH;
		return -1;
	}
	return (int)syscall(SYS_pidfd_open, (pid_t)tgid, 0);
}

/* The engine and the kernel's fallocate test RLIMIT_FSIZE against the
 * calling process: that must be the target's limit, not ours.  Only the
 * soft limit counts (SIGXFSZ is ignored here, so a call past it fails with
 * EFBIG); the hard one is left alone, or one target's lower limit would
 * stay ours for every later call. */
static void take_fsize_limit(pid_t pid)
{
	static struct rlimit ours;
	static int known;
	struct rlimit theirs;

	if (!known)
		known = getrlimit(RLIMIT_FSIZE, &ours) == 0;
	if (!known || prlimit(pid, RLIMIT_FSIZE, NULL, &theirs) != 0)
		return;
	/* Above our hard limit only if the caller had the privilege to
	 * raise it: then ours is as far as we go. */
	if (theirs.rlim_cur > ours.rlim_max)
		theirs.rlim_cur = ours.rlim_max;
	if (theirs.rlim_cur == ours.rlim_cur)
		return;
	theirs.rlim_max = ours.rlim_max;
	if (setrlimit(RLIMIT_FSIZE, &theirs) == 0)
		ours = theirs;
}

struct cancel_check {
	int listener;
	uint64_t id;
};

/* Called by the engine after each write: a target that died, or whose wait
 * was interrupted (kernels before 5.19), no longer wants the zeros.  They
 * stop there, as if the process had been killed with the library inside
 * it: the old bytes, then a prefix of the range without holes. */
static int target_gone(uint64_t done, uint64_t total, void *arg)
{
	const struct cancel_check *c = arg;

	(void)done;
	(void)total;
	return !still_valid(c->listener, c->id);
}

struct outcome {
	int err;
	const char *path; /* "native", "emulated", "kernel (continued)" ... */
};

static struct outcome allocate(const struct sc_server *s, int fd, const struct sc_call *c,
			       uint64_t id)
{
	struct cancel_check check = { s->listener, id };
	struct lfa_options opt = LFA_OPTIONS_INIT;
	struct lfa_report rep = LFA_REPORT_INIT;
	struct outcome o = { 0, "native" };

	if (c->mode == 0 && s->policy.emulate_mode0) {
		opt.emulation = s->policy.emulation;
		opt.progress = target_gone;
		opt.user = &check;
		o.err = lfa_allocate(fd, c->offset, c->len, &opt, &rep);
		o.path = lfa_strpath(rep.path);
		return o;
	}
	/* The kernel's call, for this program's own ABI (64-bit values split
	 * where it is a 32-bit one): the target's ABI does not matter here. */
	o.err = lfa_sys_fallocate(fd, c->mode, c->offset, c->len);
	return o;
}

static int answer(const struct sc_server *s, uint64_t id, int err, uint32_t flags)
{
	struct seccomp_notif_resp *resp = s->resp;

	memset(resp, 0, s->resp_size);
	resp->id = id;
	resp->error = err ? -err : 0;
	resp->flags = flags;
	/* ENOENT: the target died or its wait was interrupted meanwhile. */
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0 ? 0 : errno;
}

static void debug_line(const struct sc_call *c, pid_t pid, const struct outcome *o, int answered)
{
	fprintf(stderr, "fallocate-preload: seccomp: pid %ld (%s) fallocate(fd=%d, mode=%#x, offset=%" PRId64
		", len=%" PRId64 "): %s: %s%s\n", (long)pid, c->abi, c->fd, (unsigned)c->mode,
		c->offset, c->len, o->path, o->err ? strerror(o->err) : "0",
		answered ? "" : " (the caller was gone: not answered)");
}

int sc_serve_one(struct sc_server *s)
{
	struct seccomp_notif *req = s->req;
	struct outcome o = { 0, "kernel (the caller's own call)" };
	struct sc_call c;
	int pidfd = -1, fd = -1, err;
	uint32_t flags = 0;

	memset(req, 0, s->req_size);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0)
		/* ENOENT: the target died between poll and here. */
		return errno == EINTR || errno == ENOENT ? 0 : errno;
	if (sc_decode(&req->data, &c) != 0) {
		/* Not ours to judge: let the kernel run it. */
		return answer(s, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
	}
	pidfd = open_pidfd((pid_t)req->pid);
	/* After the pidfd is open, a valid notification proves the pid was
	 * not reused: the caller is still waiting for us. */
	if (!still_valid(s->listener, req->id))
		goto gone;
	fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, c.fd, 0);
	if (fd < 0 && pidfd >= 0 && errno == EBADF) {
		o.err = EBADF; /* the kernel's answer for a descriptor not open */
		o.path = "no such descriptor";
	} else if (fd < 0) {
		/* Refused (the target made itself undumpable, an LSM, out of
		 * descriptors, ...): the kernel runs the call in the target,
		 * as without us.  Never left unanswered: it would wait. */
		flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		o.path = "descriptor not taken, the kernel's own call";
	} else {
		/* The descriptor may have been taken from a dying target, or
		 * from a thread interrupted meanwhile. */
		if (!still_valid(s->listener, req->id))
			goto gone;
		take_fsize_limit((pid_t)req->pid);
		o = allocate(s, fd, &c, req->id);
	}
	err = answer(s, req->id, o.err, flags);
	if (s->policy.debug)
		debug_line(&c, (pid_t)req->pid, &o, err == 0);
	if (err == ENOENT)
		err = 0; /* nobody to answer: not the listener's failure */
	goto out;
gone:
	err = 0;
	if (s->policy.debug) {
		o.path = "gone";
		debug_line(&c, (pid_t)req->pid, &o, 0);
	}
out:
	if (fd >= 0)
		close(fd);
	if (pidfd >= 0)
		close(pidfd);
	return err;
}

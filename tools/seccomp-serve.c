/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* One notification, on a worker thread.  A call that may not be emulated
 * (any mode but 0, or mode 0 where the rules say never) goes back to the
 * kernel, to run in the caller.  For the others: take the caller's
 * descriptor (pidfd_getfd: a copy of the same open file description, so
 * the same file, flags and offset), the calling thread's identity and its
 * process's RLIMIT_FSIZE, make sure the notification is still the
 * caller's, and as the caller run the library's engine on the copy with
 * the rules of the caller's ABI and process; answer.  The supervisor is
 * not under the filter: its own calls reach the kernel. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libfallocate.h>

#include "seccomp-abi.h"
#include "emulate.h"
#include "seccomp-serve.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd for any thread */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef PIDFD_SIGNAL_THREAD
#define PIDFD_SIGNAL_THREAD (1UL << 0) /* Linux 6.9 */
#endif

static int still_valid(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* The thread that made the call may not lead its thread group: before 6.9
 * pidfd_open takes only leaders, and the group shares the descriptor table
 * unless the thread unshared it (which PIDFD_THREAD gets right).  *thread
 * says whether the pidfd is the thread's own, *tgid names its group. */
static int open_pidfd(pid_t tid, int *thread, pid_t *tgid)
{
	char path[64], line[256];
	FILE *f;
	int fd;
	long group = -1;

	*thread = 0;
	*tgid = tid;
	fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (fd >= 0 || errno != EINVAL) {
		*thread = fd >= 0;
		return fd;
	}
	fd = (int)syscall(SYS_pidfd_open, tid, 0);
	if (fd >= 0 || errno != EINVAL)
		return fd;
	snprintf(path, sizeof path, "/proc/%ld/status", (long)tid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Tgid: %ld", &group) == 1)
			break;
	fclose(f);
	if (group <= 0) {
		errno = ESRCH;
		return -1;
	}
	*tgid = (pid_t)group;
	return (int)syscall(SYS_pidfd_open, (pid_t)group, 0);
}

/* What a worker keeps of the threads it served lately, for their next
 * calls: the pidfd of the thread and the descriptor of its
 * /proc/TID/status, which cost a third of a call to open anew each time
 * (pidfd_open, open and two closes).  Never anything of the thread's
 * identity: both name the thread itself, not its tid (a struct pid), and
 * its credentials are read through them at every call.  Once the thread is
 * gone, pidfd_getfd and the read through them fail with ESRCH, and its
 * tid, maybe another thread's now, is looked up anew: a live thread is
 * the only one its struct pid can name.  Only a pidfd of the thread itself
 * (PIDFD_THREAD, Linux 6.9) is kept: a thread group's, taken before, would
 * name the group of whichever thread had the tid first.  Per worker (a
 * worker serves one call at a time), so no caller waits for another's
 * lookup; closed when the worker ends. */
#define KEPT 8

struct kept {
	pid_t tid;      /* 0: a free slot */
	int pidfd;      /* a pidfd of the thread (PIDFD_THREAD) */
	int status_fd;  /* its /proc/TID/status, or -1 */
	int limits_fd;  /* its /proc/TID/limits, or -1 */
	unsigned long used;
};

static __thread struct kept kept[KEPT];
static __thread unsigned long kept_clock;

static void kept_drop(struct kept *k)
{
	if (k->pidfd >= 0)
		close(k->pidfd);
	if (k->status_fd >= 0)
		close(k->status_fd);
	if (k->limits_fd >= 0)
		close(k->limits_fd);
	k->tid = 0;
}

void sc_serve_thread_end(void)
{
	int i;

	for (i = 0; i < KEPT; i++)
		if (kept[i].tid)
			kept_drop(&kept[i]);
}

/* The slot of tid, or NULL; *slot: where to keep it if not there. */
static struct kept *kept_find(pid_t tid, struct kept **slot)
{
	struct kept *oldest = &kept[0];
	int i;

	for (i = 0; i < KEPT; i++) {
		if (kept[i].tid == tid) {
			kept[i].used = ++kept_clock;
			return &kept[i];
		}
		if (!kept[i].tid ? oldest->tid != 0 : oldest->tid != 0 && kept[i].used < oldest->used)
			oldest = &kept[i];
	}
	*slot = oldest;
	return NULL;
}

/* Where the kernel's fallocate refuses to grow a file past RLIMIT_FSIZE,
 * inode_newsize_ok sends SIGXFSZ to the calling thread before its EFBIG:
 * so does the supervisor, before answering, to the caller's thread and no
 * other.  The caller waits for the answer in a killable wait (Linux 5.19's
 * SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV): at SIGXFSZ's default action it
 * dies there, with nothing written; a handler runs, or a mask keeps it
 * pending on that thread, once the EFBIG returns; ignored, it is
 * discarded.  Sent with the supervisor's own identity (the worker gave the
 * caller's back), which may signal its tree; a caller may signal itself.
 * A pidfd of the thread (Linux 6.9), opened before the notification was
 * found still valid, names that very thread: no reused tid can be hit.
 * Before 6.9, tgkill right after the notification is found still valid:
 * the caller, waiting for our answer, can only have left by dying with
 * its whole process meanwhile.  Without the killable wait (before 5.19) a
 * caught signal would end the wait, and one caught with SA_RESTART make
 * the call again, and again: no signal then, EFBIG alone.  Returns NULL,
 * or why it was not sent. */
static const char *send_sigxfsz(const struct sc_server *s, uint64_t id, int pidfd, int thread,
				pid_t tgid, pid_t tid)
{
	if (!s->policy.killable_wait)
		return "the caller's wait is not killable-only (before Linux 5.19)";
	if (thread && pidfd >= 0) {
		if (syscall(SYS_pidfd_send_signal, pidfd, SIGXFSZ, NULL, PIDFD_SIGNAL_THREAD) == 0)
			return NULL;
	} else {
		if (!still_valid(s->listener, id))
			return "the caller was gone";
		if (syscall(SYS_tgkill, (long)tgid, (long)tid, SIGXFSZ) == 0)
			return NULL;
	}
	return errno == ESRCH ? "the caller was gone" :
	       errno == EPERM ? "not permitted to signal the caller" : "the kernel refused";
}

struct cancel_check {
	int listener;
	uint64_t id;
};

/* Called by the engine after each write: a target that died, or whose wait
 * was interrupted (kernels before 5.19), no longer wants the zeros.  They
 * stop there, as if the process had been killed with the library inside
 * it: the old bytes, then a prefix of the range without holes. */
static int target_gone(void *arg, uint64_t done, uint64_t total)
{
	const struct cancel_check *c = arg;

	(void)done;
	(void)total;
	return !still_valid(c->listener, c->id);
}

struct outcome {
	int err;
	const char *path; /* "native", "emulated", "kernel (continued)" ... */
	int fsize_signal; /* EFBIG for the caller's RLIMIT_FSIZE: SIGXFSZ is due */
};

static enum lfa_emulation_policy engine_policy(int emulation)
{
	return emulation == LFA_EMULATION_NEVER ? LFA_EMULATE_NEVER :
	       emulation == LFA_EMULATION_ALWAYS ? LFA_EMULATE_ALWAYS : LFA_EMULATE_AUTO;
}

static int fallback_error(int err)
{
	return err == ENOSYS || err == EOPNOTSUPP;
}

static struct outcome allocate(const struct sc_server *s, int fd, const struct sc_call *c,
			       const struct sc_rules *r, uint64_t id)
{
	struct cancel_check check = { s->listener, id };
	struct lfa_job_options opt;
	struct lfa_job_report rep;
	struct outcome o = { 0, "native", 0 };

	if ((o.err = sc_rules_refusal(fd, c, r)) != 0) {
		o.path = "refused (the caller's RLIMIT_FSIZE)";
		o.fsize_signal = 1;
		return o;
	}
	memset(&opt, 0, sizeof opt);
	opt.emulation = engine_policy(s->policy.emulation);
	opt.progress = target_gone;
	opt.progress_arg = &check;
	/* The caller made the fallocate syscall: where nothing can be
	 * emulated, the kernel's answer (refusals.c). */
	opt.kernel_answers = 1;
	opt.foreign_caller = 1;
	opt.caller_largefile = r->largefile;
	opt.caller_fsize = r->fsize;
	o.err = lfa_run_job("fallocate-preload --seccomp", fd, c->offset, c->len, INT64_MAX, &opt, &rep);
	if (rep.emulated || opt.emulation == LFA_EMULATE_ALWAYS ||
	    (opt.emulation == LFA_EMULATE_AUTO && fallback_error(rep.native_error)))
		o.path = "emulated";
	o.fsize_signal = rep.fsize_signal;
	return o;
}

static int answer(const struct sc_server *s, uint64_t id, int err, uint32_t flags)
{
	union {
		struct seccomp_notif_resp resp;
		unsigned char bytes[256];
	} u;
	struct seccomp_notif_resp *resp = &u.resp;

	/* A larger answer than we know of is one of a future kernel: zeros
	 * past our members are what it expects from us. */
	if (s->resp_size > sizeof u)
		return EINVAL;
	memset(&u, 0, sizeof u);
	resp->id = id;
	resp->error = err ? -err : 0;
	resp->flags = flags;
	/* ENOENT: the target died or its wait was interrupted meanwhile. */
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0 ? 0 : errno;
}

static void debug_line(const struct sc_call *c, pid_t pid, const struct outcome *o, int answered,
		       const char *unsignalled)
{
	fprintf(stderr, "fallocate-preload: seccomp: pid %ld (%s) fallocate(fd=%d, mode=%#x, offset=%" PRId64
		", len=%" PRId64 "): %s: %s%s%s%s%s\n", (long)pid, c->abi, c->fd, (unsigned)c->mode,
		c->offset, c->len, o->path, o->err ? strerror(o->err) : "0",
		!o->fsize_signal ? "" : unsignalled ? " (SIGXFSZ not sent: " : " (SIGXFSZ sent to the caller's thread",
		o->fsize_signal && unsignalled ? unsignalled : "", o->fsize_signal ? ")" : "",
		answered ? "" : " (the caller was gone: not answered)");
}

/* Once for each reason, not once per call: a tree may make thousands. */
static void warn_once(const char *why)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static const char *said[8];
	size_t i;
	int known = 0;

	pthread_mutex_lock(&lock);
	for (i = 0; i < sizeof said / sizeof said[0] && said[i]; i++)
		known |= said[i] == why;
	if (!known && i < sizeof said / sizeof said[0])
		said[i] = why;
	pthread_mutex_unlock(&lock);
	if (!known)
		fprintf(stderr, "fallocate-preload: --seccomp: warning: %s: its fallocate calls run as its own"
			" (the kernel's answer, no emulation)\n", why);
}

/* The call, as the caller: its identity for the thread, its rules for the
 * engine.  Where its identity cannot be ours for the call, nothing is
 * done for it: its own call runs in the kernel, with its own identity. */
static struct outcome serve_as_caller(const struct sc_server *s, int fd, const struct sc_call *c,
				      pid_t tid, int *status_fd, int *limits_fd, uint64_t id, int *gone,
				      uint32_t *flags)
{
	struct outcome o = { 0, "kernel (not served: the caller's identity could not be taken on)", 0 };
	struct sc_identity caller;
	struct sc_rules rules;
	const char *why = NULL;
	int taken, err, rules_err;

	err = sc_identity_read(tid, status_fd, &caller);
	rules_err = sc_rules_read(tid, limits_fd, c, s->fsize_max, &rules);
	/* Still pending: tid was the caller's while we read. */
	if (!still_valid(s->listener, id)) {
		if (!err)
			sc_identity_free(&caller);
		*gone = 1;
		return o;
	}
	if (err) {
		why = "the caller's credentials could not be read (/proc)";
		taken = -1;
	} else if (rules_err) {
		/* Never served without its limit: its own call, with it. */
		why = "the caller's RLIMIT_FSIZE could not be read (/proc/TID/limits)";
		sc_identity_free(&caller);
		taken = -1;
	} else {
		taken = sc_identity_assume(&s->self, &caller, &why);
		sc_identity_free(&caller);
	}
	if (taken < 0) {
		warn_once(why);
		*flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		return o;
	}
	o = allocate(s, fd, c, &rules, id);
	if (taken && (err = sc_identity_restore(&s->self)) != 0) {
		/* A thread left with a caller's identity serves nobody else. */
		fprintf(stderr, "fallocate-preload: --seccomp: a worker cannot take back its identity (%s);"
			" it stops\n", strerror(err));
		*gone = -1;
	}
	return o;
}

int sc_serve(const struct sc_server *s, void *buf)
{
	struct seccomp_notif *req = buf;
	struct outcome o = { 0, "kernel (the caller's own call)", 0 };
	struct sc_call c;
	const char *unsignalled = NULL;
	int pidfd = -1, fd = -1, err, gone = 0, thread_pidfd = 0, status_fd = -1, limits_fd = -1;
	struct kept *k, *slot = NULL;
	pid_t tgid, tid = (pid_t)req->pid;
	uint32_t flags = 0;

	if (sc_decode(&req->data, &c) != 0) {
		/* Not ours to judge: let the kernel run it. */
		answer(s, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return 0;
	}
	/* Only a mode-0 call may be emulated.  Every other call (a mode, or
	 * mode 0 where the rules say never emulate) is the kernel's alone:
	 * run in the caller, it has the caller's identity, limits and
	 * signals in the kernel's own order (RLIMIT_FSIZE for INSERT_RANGE,
	 * UNSHARE_RANGE, ZERO_RANGE or WRITE_ZEROES without KEEP_SIZE: the
	 * filesystem's inode_newsize_ok, after every check before it), which
	 * no call made here could have: our limit is shared by every call we
	 * serve at once. */
	if (c.mode != 0 || !s->policy.emulate_mode0) {
		err = answer(s, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		if (s->policy.debug)
			debug_line(&c, (pid_t)req->pid, &o, err == 0, NULL);
		return 0;
	}
	/* Twice at most: a kept pidfd whose thread is gone is dropped, and
	 * the tid looked up anew. */
	for (k = kept_find(tid, &slot);; k = NULL) {
		if (k) {
			pidfd = k->pidfd;
			status_fd = k->status_fd;
			limits_fd = k->limits_fd;
			thread_pidfd = 1;
			tgid = tid; /* unused with a thread's pidfd */
		} else
			pidfd = open_pidfd(tid, &thread_pidfd, &tgid);
		/* After the pidfd is open, a valid notification proves the
		 * pid was not reused: the caller is still waiting for us.  (A
		 * kept pidfd may name a thread gone since: then pidfd_getfd
		 * says ESRCH.) */
		if (!still_valid(s->listener, req->id))
			goto gone;
		fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, c.fd, 0);
		if (fd >= 0 || !k || errno != ESRCH)
			break;
		/* The thread kept under this tid is gone: the caller is
		 * another one with its tid. */
		kept_drop(k);
		slot = k;
		pidfd = status_fd = limits_fd = -1;
	}
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
		o = serve_as_caller(s, fd, &c, tid, &status_fd, &limits_fd, req->id, &gone, &flags);
		if (gone > 0)
			goto gone;
	}
	/* The kernel's order: the signal, then EFBIG. */
	if (o.fsize_signal)
		unsignalled = send_sigxfsz(s, req->id, pidfd, thread_pidfd, tgid, (pid_t)req->pid);
	err = answer(s, req->id, o.err, flags);
	if (s->policy.debug)
		debug_line(&c, (pid_t)req->pid, &o, err == 0, unsignalled);
	goto out;
gone:
	if (s->policy.debug) {
		o.path = "gone";
		debug_line(&c, (pid_t)req->pid, &o, 0, NULL);
	}
out:
	if (fd >= 0)
		close(fd);
	if (k) {
		k->status_fd = status_fd; /* maybe opened anew */
		k->limits_fd = limits_fd;
	} else if (pidfd >= 0 && thread_pidfd && !gone && slot) {
		if (slot->tid)
			kept_drop(slot);
		slot->tid = tid;
		slot->pidfd = pidfd;
		slot->status_fd = status_fd;
		slot->limits_fd = limits_fd;
		slot->used = ++kept_clock;
	} else {
		if (pidfd >= 0)
			close(pidfd);
		if (status_fd >= 0)
			close(status_fd);
		if (limits_fd >= 0)
			close(limits_fd);
	}
	return gone < 0 ? -1 : 0;
}

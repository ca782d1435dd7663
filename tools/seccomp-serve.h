/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The supervisor of fallocate-preload --seccomp, in parts:
 *   seccomp-recv.c      one thread receives the notifications and forwards
 *                       signals; it never serves a call
 *   seccomp-workers.c   threads serve them, each call on a thread of its
 *                       own at once (none queues behind another)
 *   seccomp-serve.c     one call's service: the caller's descriptor, its
 *                       identity, its ABI's rules, the call, the answer
 *   seccomp-identity.c  the calling thread's credentials, taken on by the
 *                       serving thread for the call and given back after
 *   seccomp-rules.c     the rules of the caller's ABI and process (O_LARGEFILE,
 *                       RLIMIT_FSIZE), decided before the first write
 *   seccomp-abi.c       the filter and the arguments of every ABI */
#ifndef LFA_SECCOMP_SERVE_H
#define LFA_SECCOMP_SERVE_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "seccomp-abi.h"

/* What the wrapper's rules say (LIBFALLOCATE_* in the environment). */
struct sc_policy {
	int emulate_mode0; /* mode-0 calls may emulate (not --no-emulate-fallocate) */
	int emulation;     /* enum lfa_emulation for those calls */
	int debug;         /* a line per call on stderr */
	int killable_wait; /* the filter has WAIT_KILLABLE_RECV (Linux 5.19) */
};

/* Who a thread is to the kernel's permission checks on files. */
struct sc_identity {
	uint32_t fsuid, fsgid;
	uint64_t cap_eff, cap_prm, cap_inh;
	uint64_t userns;   /* the inode of its user namespace */
	int ngroups;
	uint32_t *groups;  /* ngroups supplementary groups */
};

struct sc_server {
	int listener;
	struct sc_policy policy;
	size_t req_size, resp_size; /* as the kernel says (SECCOMP_GET_NOTIF_SIZES) */
	struct sc_identity self;    /* the supervisor's, given back after each call */
	uint64_t fsize_max;         /* our RLIMIT_FSIZE hard limit, read at start (UINT64_MAX: none) */
};

/* seccomp-recv.c: the signals the receiving thread reads (SIGCHLD and
 * those it forwards), which every thread of the supervisor blocks. */
void sc_signals(sigset_t *s);
/* Sizes the buffers, reads our identity; 0 or an error. */
int sc_server_init(struct sc_server *s, int listener, const struct sc_policy *policy);
/* Receives the notifications of listener (-1: none to receive) and the
 * signals of sigs until the tree and child are gone, then exits as the
 * child did. */
void sc_supervise(const struct sc_policy *policy, int listener, pid_t child, const sigset_t *sigs)
	__attribute__((noreturn));

/* seccomp-workers.c: hands a received notification (a malloc'd buffer of
 * req_size bytes, freed once served) to an idle worker or a new one.  0,
 * or an error number (EAGAIN: no thread to be had): then nobody serves it,
 * and it stays the caller's to free. */
int sc_workers_submit(struct sc_server *s, void *req);
/* Waits up to ms milliseconds for every call handed over to be done. */
void sc_workers_finish(int ms);

/* seccomp-serve.c: serves one received notification and answers it.
 * 0, or -1 when the calling thread could not take back its own identity
 * and must serve no more. */
int sc_serve(const struct sc_server *s, void *req);
/* Closes what the calling worker kept of the threads it served (their
 * pidfds and status files), before it ends. */
void sc_serve_thread_end(void);

/* seccomp-identity.c */
/* Reads the credentials of thread tid (/proc); 0 or an error number.
 * status_fd (or NULL): a descriptor of its /proc/TID/status kept from an
 * earlier call, or -1; the one read is left there, the caller's to close. */
int sc_identity_read(pid_t tid, int *status_fd, struct sc_identity *id);
void sc_identity_free(struct sc_identity *id);
/* Makes the calling thread, and no other, act as caller: 0, or -1 with
 * *why saying what stands in the way (nothing is changed then). */
int sc_identity_assume(const struct sc_identity *self, const struct sc_identity *caller,
		       const char **why);
/* Gives the calling thread back self's identity; 0 or an error number. */
int sc_identity_restore(const struct sc_identity *self);

/* seccomp-rules.c: what the in-process library would apply for this
 * caller, for lfa_run_job's foreign-caller options. */
struct sc_rules {
	int largefile;      /* the status flag its descriptor needs past 2 GiB */
	uint64_t fsize;     /* its RLIMIT_FSIZE soft limit (UINT64_MAX: none) */
};
/* Reads the rules for thread tid's call c: 0, or an error number (its
 * limits cannot be read: then it must not be served).  limits_fd: a kept
 * descriptor of its /proc/TID/limits, or -1; the one read is left there,
 * the caller's to close.  fsize_max: the supervisor's own RLIMIT_FSIZE
 * hard limit (UINT64_MAX: none). */
int sc_rules_read(pid_t tid, int *limits_fd, const struct sc_call *c, uint64_t fsize_max,
		  struct sc_rules *r);
/* The refusal the kernel would make, for the caller, of a mode-0 call that
 * the supervisor's own limits would let through (RLIMIT_FSIZE for a call
 * growing the file), before anything is written: 0 or EFBIG.  (No other
 * mode is served: the kernel runs it in the caller.) */
int sc_rules_refusal(int fd, const struct sc_call *c, const struct sc_rules *r);

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Answers one seccomp notification of fallocate: the supervisor's half of
 * fallocate-preload --seccomp. */
#ifndef LFA_SECCOMP_SERVE_H
#define LFA_SECCOMP_SERVE_H

/* What the wrapper's rules say (LIBFALLOCATE_* in the environment). */
struct sc_policy {
	int emulate_mode0; /* mode-0 calls may emulate (not --no-emulate-fallocate) */
	int emulation;     /* enum lfa_emulation for those calls */
	int debug;         /* a line per call on stderr */
};

struct sc_server {
	int listener;
	struct sc_policy policy;
	void *req, *resp; /* sized as the kernel says (SECCOMP_GET_NOTIF_SIZES) */
	size_t req_size, resp_size;
};

/* Sizes the buffers; 0, or an error number. */
int sc_server_init(struct sc_server *s, int listener, const struct sc_policy *policy);

/* Receives one notification and answers it.  Returns 0, also when the
 * target died or was interrupted meanwhile (nothing to answer), or an error
 * number when the listener itself fails. */
int sc_serve_one(struct sc_server *s);

#endif

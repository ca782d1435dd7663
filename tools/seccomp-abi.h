/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* fallocate's system call on every ABI a Linux kernel may run for one
 * process tree, and the seccomp filter that sends exactly those calls to the
 * supervisor (fallocate-seccomp). */
#ifndef LFA_SECCOMP_ABI_H
#define LFA_SECCOMP_ABI_H

#include <stddef.h>
#include <stdint.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

/* One fallocate call as the target made it, 64-bit values reassembled. */
struct sc_call {
	int fd;
	int mode;
	int64_t offset;
	int64_t len;
	const char *abi; /* "x86_64", "i386", ... */
	int largefile;   /* the kernel's O_LARGEFILE where the ABI's open() does
			    not force it (32-bit ABIs), else 0 */
};

/* Room for the filter: two instructions per ABI, two per audit
 * architecture, three more. */
#define SC_FILTER_MAX 96

/* Writes the filter into prog (SC_FILTER_MAX instructions); returns the
 * number of instructions. */
size_t sc_build_filter(struct sock_filter *prog);

/* Decodes a notification's system call: 0 and *out filled when it is
 * fallocate on a known ABI, -1 otherwise. */
int sc_decode(const struct seccomp_data *d, struct sc_call *out);

#endif

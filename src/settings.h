/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#ifndef LFA_SETTINGS_H
#define LFA_SETTINGS_H

#define LFA_HIDDEN __attribute__((visibility("hidden")))

enum lfa_emulation_policy {
	LFA_EMULATE_AUTO,   /* fall back on ENOSYS and EOPNOTSUPP */
	LFA_EMULATE_NEVER,  /* the kernel's answer, as musl gives it */
	LFA_EMULATE_ALWAYS, /* skip the syscall: tests and benchmarks */
};

struct lfa_settings {
	enum lfa_emulation_policy emulation;
	int debug;             /* LIBFALLOCATE_DEBUG=1 */
	int emulate_fallocate; /* LIBFALLOCATE_EMULATE_FALLOCATE=1 */
	int refuse_copy_on_write; /* LIBFALLOCATE_COPY_ON_WRITE=refuse */
	int keep_cache;        /* LIBFALLOCATE_CACHE=keep */
};

/* The environment, read once per process (ignored in setuid programs).
 * fd is the descriptor the call is about: a complaint about the settings
 * never goes into it, even when it is descriptor 2. */
struct lfa_settings lfa_settings(int fd) LFA_HIDDEN;

/* Reads the environment again; for tests that change it. */
void lfa_settings_reload(void) LFA_HIDDEN;

/* One line on stderr, prefixed "libfallocate: ", unless stderr is the file
 * that fd (the call's descriptor) names: a daemon that closed stderr may
 * have its data file as descriptor 2. */
void lfa_debug(int fd, const char *fmt, ...) LFA_HIDDEN __attribute__((format(printf, 2, 3)));

#endif

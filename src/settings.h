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
};

/* The environment, read once per process (ignored in setuid programs). */
struct lfa_settings lfa_settings(void) LFA_HIDDEN;

/* Reads the environment again; for tests that change it. */
void lfa_settings_reload(void) LFA_HIDDEN;

/* One line on stderr, prefixed "libfallocate: ", when debugging is on. */
void lfa_debug(const char *fmt, ...) LFA_HIDDEN __attribute__((format(printf, 1, 2)));

#endif

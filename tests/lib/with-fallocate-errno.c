/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Runs a command with the fallocate syscall failing with a chosen error, as
 * a seccomp sandbox or an old kernel would make it fail:
 *   with-fallocate-errno ENOSYS|EOPNOTSUPP|EPERM|NUMBER COMMAND [ARG...]
 * The filter covers every ABI this kernel runs (x86_64, i386 and x32 on an
 * x86_64 host), so 32-bit test programs are caught too. */
#define _GNU_SOURCE
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_errno(const char *s)
{
	char *end;
	long n;

	if (!strcmp(s, "ENOSYS")) return ENOSYS;
	if (!strcmp(s, "EOPNOTSUPP")) return EOPNOTSUPP;
	if (!strcmp(s, "EPERM")) return EPERM;
	if (!strcmp(s, "EIO")) return EIO;
	n = strtol(s, &end, 10);
	if (*s && !*end && n > 0 && n < 4096)
		return (int)n;
	return -1;
}

int main(int argc, char **argv)
{
	static const uint32_t x86_arches[] = { SCMP_ARCH_X86_64, SCMP_ARCH_X86, SCMP_ARCH_X32 };
	uint32_t native = seccomp_arch_native();
	scmp_filter_ctx ctx;
	int err, rc;
	size_t i;

	if (argc < 3 || (err = parse_errno(argv[1])) < 0) {
		fprintf(stderr, "usage: with-fallocate-errno ENOSYS|EOPNOTSUPP|EPERM|NUMBER COMMAND [ARG...]\n");
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, "with-fallocate-errno: seccomp_init failed\n");
		return 77;
	}
	/* The command may be of another ABI than this helper (a 64-bit shell
	 * running 32-bit tests): filter them all, and let any other ABI run. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	if (native == SCMP_ARCH_X86_64 || native == SCMP_ARCH_X86 || native == SCMP_ARCH_X32)
		for (i = 0; i < sizeof x86_arches / sizeof x86_arches[0]; i++)
			if (x86_arches[i] != native)
				(void)seccomp_arch_add(ctx, x86_arches[i]);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)err), SCMP_SYS(fallocate), 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0) {
		fprintf(stderr, "with-fallocate-errno: cannot install the filter: %s\n", strerror(-rc));
		return 77;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "with-fallocate-errno: %s: %s\n", argv[2], strerror(errno));
	return 127;
}

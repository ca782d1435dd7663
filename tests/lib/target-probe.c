/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Built like every test program of the tree and run by tests/lib/target-run.sh
 * before each test: whether it starts at all says whether this kernel runs
 * the tree's programs (an i386 tree on a kernel without IA32 emulation:
 * "Exec format error"), and, run under qemu-user, whether qemu can.
 *
 * With --emulator it prints the program the kernel really runs for it when
 * that is another one (a binfmt_misc handler such as qemu-i386, which a
 * machine may have registered before any test), and nothing when the
 * kernel runs it itself; it exits 2 where it cannot tell.  qemu-user
 * answers /proc/self/exe, and /proc/PID/exe for its own PID, with the
 * emulated program; a child asks for its parent's, which qemu-user does
 * not rewrite.  That PID names the parent only in a /proc of this
 * process's PID namespace, which /proc/self, never rewritten, tells. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { NATIVE_OR_SHOWN = 0, CANNOT_TELL = 2 };

/* Whether /proc is of this process's PID namespace: its self link is this
 * process's PID. */
static int proc_is_ours(void)
{
	char self[32], pid[32];
	ssize_t n = readlink("/proc/self", self, sizeof self - 1);

	if (n < 0)
		return 0;
	self[n] = '\0';
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	return strcmp(self, pid) == 0;
}

static int print_emulator(void)
{
	char self[PATH_MAX], real[PATH_MAX], parent_exe[64];
	ssize_t self_len, real_len;
	pid_t parent = getpid(), child;
	int status;

	self_len = readlink("/proc/self/exe", self, sizeof self);
	if (self_len < 0)
		return CANNOT_TELL;
	fflush(stdout);
	child = fork();
	if (child < 0)
		return CANNOT_TELL;
	if (child == 0) {
		if (!proc_is_ours())
			_exit(CANNOT_TELL);
		snprintf(parent_exe, sizeof parent_exe, "/proc/%ld/exe", (long)parent);
		real_len = readlink(parent_exe, real, sizeof real);
		if (real_len < 0)
			_exit(CANNOT_TELL);
		if (real_len != self_len || memcmp(real, self, (size_t)self_len) != 0)
			printf("%.*s\n", (int)real_len, real);
		fflush(stdout);
		_exit(NATIVE_OR_SHOWN);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return CANNOT_TELL;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--emulator") == 0)
		return print_emulator();
	return 0;
}

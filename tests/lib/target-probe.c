/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Built like every test program of the tree and run by tests/lib/target-run.sh
 * before each test: whether it starts at all says whether this kernel runs
 * the tree's programs (an i386 tree on a kernel without IA32 emulation:
 * "Exec format error"), and, run under qemu-user, whether qemu can. */
int main(void)
{
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* One table for every ABI, not one per build: a 64-bit kernel runs the
 * programs of its compat ABIs too (i386 and x32 on x86_64, arm on aarch64,
 * ...), and a process tree may mix them.  The seccomp filter tells them
 * apart by the audit architecture the kernel hands it; numbers and the
 * split of 64-bit arguments are those of FACTS.md's table (mainline, not
 * the 2007 RFC's). */
#include "seccomp-abi.h"

#include <linux/audit.h>

/* How a 64-bit argument reaches a 32-bit ABI's system call: two 32-bit
 * words, in arguments 2-3 (offset) and 4-5 (len), in the CPU's memory order
 * (arm and mips o32 align the pairs so the indexes are the same). */
enum sc_args { WHOLE, PAIR_LO_HI, PAIR_HI_LO };

struct sc_abi {
	uint32_t audit_arch;
	uint32_t nr;
	enum sc_args args;
	const char *name;
	/* The kernel's O_LARGEFILE for this ABI where its open() does not
	 * add it (32-bit ABIs on a 64-bit kernel take the compat open):
	 * without it, a descriptor writes nothing past 2 GiB.  0 where every
	 * descriptor has it (64-bit ABIs, x32). */
	int largefile;
};

/* The flag's value in each architecture's uapi <asm/fcntl.h>. */
#define LF_GENERIC 0100000
#define LF_ARM 0400000
#define LF_PPC 0200000
#define LF_MIPS 0x2000
#define LF_SPARC 0x40000

#define X32_SYSCALL_BIT 0x40000000u

/* The native architecture of each machine first: the filter compares in
 * this order, so the common case is decided in the first instructions. */
static const struct sc_abi abis[] = {
	{ AUDIT_ARCH_X86_64, 285, WHOLE, "x86_64", 0 },
	{ AUDIT_ARCH_X86_64, X32_SYSCALL_BIT + 285, WHOLE, "x32", 0 },
	{ AUDIT_ARCH_I386, 324, PAIR_LO_HI, "i386", LF_GENERIC },
	{ AUDIT_ARCH_AARCH64, 47, WHOLE, "aarch64", 0 },
	{ AUDIT_ARCH_ARM, 352, PAIR_LO_HI, "arm", LF_ARM },
	{ AUDIT_ARCH_ARMEB, 352, PAIR_HI_LO, "armeb", LF_ARM },
	{ AUDIT_ARCH_PPC64LE, 309, WHOLE, "ppc64le", 0 },
	{ AUDIT_ARCH_PPC64, 309, WHOLE, "powerpc64", 0 },
	{ AUDIT_ARCH_PPC, 309, PAIR_HI_LO, "powerpc", LF_PPC },
	{ AUDIT_ARCH_S390X, 314, WHOLE, "s390x", 0 },
	{ AUDIT_ARCH_S390, 314, PAIR_HI_LO, "s390", LF_GENERIC },
	{ AUDIT_ARCH_RISCV64, 47, WHOLE, "riscv64", 0 },
	{ AUDIT_ARCH_LOONGARCH64, 47, WHOLE, "loongarch64", 0 },
	{ AUDIT_ARCH_MIPSEL64, 5279, WHOLE, "mips64el n64", 0 },
	{ AUDIT_ARCH_MIPS64, 5279, WHOLE, "mips64 n64", 0 },
	{ AUDIT_ARCH_MIPSEL64N32, 6283, WHOLE, "mips64el n32", 0 },
	{ AUDIT_ARCH_MIPS64N32, 6283, WHOLE, "mips64 n32", 0 },
	{ AUDIT_ARCH_MIPSEL, 4320, PAIR_LO_HI, "mipsel o32", LF_MIPS },
	{ AUDIT_ARCH_MIPS, 4320, PAIR_HI_LO, "mips o32", LF_MIPS },
	{ AUDIT_ARCH_SPARC64, 314, WHOLE, "sparc64", 0 },
	{ AUDIT_ARCH_SPARC, 314, PAIR_HI_LO, "sparc", LF_SPARC },
};
#define N_ABIS (sizeof abis / sizeof abis[0])

static struct sock_filter stmt(uint16_t code, uint32_t k)
{
	struct sock_filter f = { code, 0, 0, k };

	return f;
}

static struct sock_filter jeq(uint32_t k, uint8_t jt, uint8_t jf)
{
	struct sock_filter f = { BPF_JMP | BPF_JEQ | BPF_K, jt, jf, k };

	return f;
}

static int first_of_arch(size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (abis[j].audit_arch == abis[i].audit_arch)
			return 0;
	return 1;
}

/* Layout: load the architecture; one comparison per architecture jumping
 * to its block; allow.  Each block: load the number, one comparison per
 * ABI of that architecture jumping to the notification, allow.  Last, the
 * notification.  Any other architecture or number is allowed untouched, so
 * the kernel's action cache can skip the filter for every other call. */
size_t sc_build_filter(struct sock_filter *prog)
{
	size_t n_arches = 0, i, j, n = 0, block, notify;
	size_t block_at[N_ABIS];

	for (i = 0; i < N_ABIS; i++)
		n_arches += first_of_arch(i);
	/* The first block starts after the load, the comparisons and the
	 * allow; the notification sits after every block. */
	block = 1 + n_arches + 1;
	for (i = 0; i < N_ABIS; i++) {
		if (!first_of_arch(i))
			continue;
		block_at[i] = block;
		block += 2; /* the load and the allow */
		for (j = i; j < N_ABIS; j++)
			block += abis[j].audit_arch == abis[i].audit_arch;
	}
	notify = block;
	prog[n++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	for (i = 0; i < N_ABIS; i++)
		if (first_of_arch(i)) {
			prog[n] = jeq(abis[i].audit_arch, (uint8_t)(block_at[i] - n - 1), 0);
			n++;
		}
	prog[n++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	for (i = 0; i < N_ABIS; i++) {
		if (!first_of_arch(i))
			continue;
		prog[n++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
		for (j = i; j < N_ABIS; j++)
			if (abis[j].audit_arch == abis[i].audit_arch) {
				prog[n] = jeq(abis[j].nr, (uint8_t)(notify - n - 1), 0);
				n++;
			}
		prog[n++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	prog[n++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	return n;
}

static int64_t pair(uint64_t first, uint64_t second, enum sc_args how)
{
	uint64_t lo = (uint32_t)first, hi = (uint32_t)second;

	if (how == PAIR_HI_LO) {
		hi = (uint32_t)first;
		lo = (uint32_t)second;
	}
	return (int64_t)(hi << 32 | lo);
}

int sc_decode(const struct seccomp_data *d, struct sc_call *out)
{
	size_t i;

	for (i = 0; i < N_ABIS; i++) {
		const struct sc_abi *a = &abis[i];

		if (a->audit_arch != d->arch || a->nr != (uint32_t)d->nr)
			continue;
		out->fd = (int)(uint32_t)d->args[0];
		out->mode = (int)(uint32_t)d->args[1];
		if (a->args == WHOLE) {
			out->offset = (int64_t)d->args[2];
			out->len = (int64_t)d->args[3];
		} else {
			out->offset = pair(d->args[2], d->args[3], a->args);
			out->len = pair(d->args[4], d->args[5], a->args);
		}
		out->abi = a->name;
		out->largefile = a->largefile;
		return 0;
	}
	return -1;
}

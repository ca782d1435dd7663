/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* fallocate-preload --seccomp's filter and argument decoding, for every
 * ABI, run here on a small classic-BPF interpreter: this machine runs no
 * 32-bit x86 program, so the i386 (and every other compat) branch of the
 * filter can be proven only this way.  The x86_64 branch also runs for
 * real in tests/seccomp/preload-seccomp.sh. */
#include "../lib/testutil.h"

#include <check.h>

#include "check-run.h"
#include <linux/audit.h>

#include "seccomp-abi.h"

/* The instructions sc_build_filter emits, and nothing else: an unknown one
 * fails the test. */
static uint32_t run_filter(const struct sock_filter *prog, size_t n, const struct seccomp_data *d)
{
	uint32_t acc = 0;
	size_t pc = 0;

	while (pc < n) {
		const struct sock_filter *f = &prog[pc];

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			ck_assert_uint_le(f->k + 4, sizeof *d);
			memcpy(&acc, (const char *)d + f->k, 4);
			pc++;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += 1 + (acc == f->k ? f->jt : f->jf);
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			ck_abort_msg("instruction %zu: unexpected code %#x", pc, f->code);
		}
	}
	ck_abort_msg("ran off the end of the filter");
	return 0;
}

static struct sock_filter prog[SC_FILTER_MAX];
static size_t prog_len;

static void build(void)
{
	size_t i;

	prog_len = sc_build_filter(prog);
	ck_assert_uint_gt(prog_len, 3);
	ck_assert_uint_le(prog_len, SC_FILTER_MAX);
	/* The kernel refuses a jump out of the program. */
	for (i = 0; i < prog_len; i++)
		if (BPF_CLASS(prog[i].code) == BPF_JMP) {
			ck_assert_uint_lt(i + 1 + prog[i].jt, prog_len);
			ck_assert_uint_lt(i + 1 + prog[i].jf, prog_len);
		}
	ck_assert_uint_eq(prog[prog_len - 1].code, BPF_RET | BPF_K);
}

static const struct {
	uint32_t arch, nr;
	const char *abi;
} fallocates[] = {
	{ AUDIT_ARCH_X86_64, 285, "x86_64" },
	{ AUDIT_ARCH_X86_64, 0x40000000 + 285, "x32" },
	{ AUDIT_ARCH_I386, 324, "i386" },
	{ AUDIT_ARCH_AARCH64, 47, "aarch64" },
	{ AUDIT_ARCH_ARM, 352, "arm" },
	{ AUDIT_ARCH_PPC64LE, 309, "ppc64le" },
	{ AUDIT_ARCH_PPC64, 309, "powerpc64" },
	{ AUDIT_ARCH_PPC, 309, "powerpc" },
	{ AUDIT_ARCH_S390X, 314, "s390x" },
	{ AUDIT_ARCH_S390, 314, "s390" },
	{ AUDIT_ARCH_RISCV64, 47, "riscv64" },
	{ AUDIT_ARCH_LOONGARCH64, 47, "loongarch64" },
	{ AUDIT_ARCH_MIPS, 4320, "mips o32" },
	{ AUDIT_ARCH_MIPSEL, 4320, "mipsel o32" },
	{ AUDIT_ARCH_MIPSEL64, 5279, "mips64el n64" },
	{ AUDIT_ARCH_MIPSEL64N32, 6283, "mips64el n32" },
	{ AUDIT_ARCH_SPARC64, 314, "sparc64" },
	{ AUDIT_ARCH_SPARC, 314, "sparc" },
};
#define N_FALLOCATES (sizeof fallocates / sizeof fallocates[0])

START_TEST(every_abis_fallocate_is_notified)
{
	struct seccomp_data d;
	size_t i;

	build();
	for (i = 0; i < N_FALLOCATES; i++) {
		memset(&d, 0, sizeof d);
		d.arch = fallocates[i].arch;
		d.nr = (int)fallocates[i].nr;
		ck_assert_msg(run_filter(prog, prog_len, &d) == SECCOMP_RET_USER_NOTIF,
			      "%s fallocate (%u) not notified", fallocates[i].abi, fallocates[i].nr);
	}
}
END_TEST

/* Every other call of every ABI passes untouched: the neighbours of each
 * number, the other ABIs' fallocate numbers (i386's 324 is not x86_64's
 * fallocate), the 2007 RFC's numbers, and unknown architectures. */
START_TEST(everything_else_is_allowed)
{
	static const uint32_t others[] = { 0, 1, 39 /* x86_64 getpid */, 280, 320, 302, 4095 };
	struct seccomp_data d;
	size_t i, j;

	build();
	for (i = 0; i < N_FALLOCATES; i++) {
		memset(&d, 0, sizeof d);
		d.arch = fallocates[i].arch;
		d.nr = (int)fallocates[i].nr - 1;
		ck_assert_uint_eq(run_filter(prog, prog_len, &d), SECCOMP_RET_ALLOW);
		d.nr = (int)fallocates[i].nr + 1;
		ck_assert_uint_eq(run_filter(prog, prog_len, &d), SECCOMP_RET_ALLOW);
		for (j = 0; j < sizeof others / sizeof others[0]; j++) {
			d.nr = (int)others[j];
			ck_assert_uint_eq(run_filter(prog, prog_len, &d), SECCOMP_RET_ALLOW);
		}
		for (j = 0; j < N_FALLOCATES; j++) {
			if (fallocates[j].nr == fallocates[i].nr ||
			    fallocates[j].arch == fallocates[i].arch)
				continue;
			d.nr = (int)fallocates[j].nr;
			ck_assert_msg(run_filter(prog, prog_len, &d) == SECCOMP_RET_ALLOW,
				      "%s: %s's number %u notified", fallocates[i].abi,
				      fallocates[j].abi, fallocates[j].nr);
		}
	}
	memset(&d, 0, sizeof d);
	d.arch = AUDIT_ARCH_IA64;
	d.nr = 285;
	ck_assert_uint_eq(run_filter(prog, prog_len, &d), SECCOMP_RET_ALLOW);
}
END_TEST

static struct seccomp_data call(uint32_t arch, uint32_t nr, uint64_t a0, uint64_t a1, uint64_t a2,
				uint64_t a3, uint64_t a4, uint64_t a5)
{
	struct seccomp_data d;

	memset(&d, 0, sizeof d);
	d.arch = arch;
	d.nr = (int)nr;
	d.args[0] = a0;
	d.args[1] = a1;
	d.args[2] = a2;
	d.args[3] = a3;
	d.args[4] = a4;
	d.args[5] = a5;
	return d;
}

#define OFF 0x123456789aLL  /* above 4 GiB: both halves matter */
#define LEN 0x2fedcba98LL

START_TEST(arguments_are_reassembled)
{
	struct sc_call c;
	struct seccomp_data d;

	d = call(AUDIT_ARCH_X86_64, 285, 7, 0x10, OFF, LEN, 0, 0);
	ck_assert_int_eq(sc_decode(&d, &c), 0);
	ck_assert_int_eq(c.fd, 7);
	ck_assert_int_eq(c.mode, 0x10);
	ck_assert_int_eq(c.offset, OFF);
	ck_assert_int_eq(c.len, LEN);
	ck_assert_str_eq(c.abi, "x86_64");
	/* i386: low word first; upper register halves are ignored. */
	d = call(AUDIT_ARCH_I386, 324, 0xffffffff00000005ULL, 1, (uint32_t)OFF, OFF >> 32,
		 (uint32_t)LEN, LEN >> 32);
	ck_assert_int_eq(sc_decode(&d, &c), 0);
	ck_assert_int_eq(c.fd, 5);
	ck_assert_int_eq(c.mode, 1);
	ck_assert_int_eq(c.offset, OFF);
	ck_assert_int_eq(c.len, LEN);
	ck_assert_str_eq(c.abi, "i386");
	d = call(AUDIT_ARCH_X86_64, 0x40000000 + 285, 3, 0, OFF, LEN, 0, 0);
	ck_assert_int_eq(sc_decode(&d, &c), 0);
	ck_assert_str_eq(c.abi, "x32");
	ck_assert_int_eq(c.offset, OFF);
	/* Big-endian 32-bit ABIs: high word first. */
	d = call(AUDIT_ARCH_PPC, 309, 3, 0, OFF >> 32, (uint32_t)OFF, LEN >> 32, (uint32_t)LEN);
	ck_assert_int_eq(sc_decode(&d, &c), 0);
	ck_assert_int_eq(c.offset, OFF);
	ck_assert_int_eq(c.len, LEN);
	d = call(AUDIT_ARCH_ARM, 352, 3, 0, (uint32_t)OFF, OFF >> 32, (uint32_t)LEN, LEN >> 32);
	ck_assert_int_eq(sc_decode(&d, &c), 0);
	ck_assert_int_eq(c.offset, OFF);
	ck_assert_int_eq(c.len, LEN);
	/* A negative offset stays negative (the kernel says EINVAL). */
	d = call(AUDIT_ARCH_I386, 324, 3, 0, 0xffffffff, 0xffffffff, 1, 0);
	ck_assert_int_eq(sc_decode(&d, &c), 0);
	ck_assert_int_eq(c.offset, -1);
	/* Not fallocate: not decoded. */
	d = call(AUDIT_ARCH_I386, 285, 3, 0, 0, 0, 0, 0);
	ck_assert_int_eq(sc_decode(&d, &c), -1);
}
END_TEST

/* A 32-bit program's descriptor opened without O_LARGEFILE writes nothing
 * past 2 GiB: the flag's value is the kernel's for that architecture (the
 * 64-bit headers call it 0); 64-bit ABIs and x32 always have it. */
START_TEST(largefile_flag_of_each_abi)
{
	static const struct {
		uint32_t arch, nr;
		int largefile;
	} abis[] = {
		{ AUDIT_ARCH_X86_64, 285, 0 },
		{ AUDIT_ARCH_X86_64, 0x40000000 + 285, 0 },
		{ AUDIT_ARCH_I386, 324, 0100000 },
		{ AUDIT_ARCH_AARCH64, 47, 0 },
		{ AUDIT_ARCH_ARM, 352, 0400000 },
		{ AUDIT_ARCH_PPC, 309, 0200000 },
		{ AUDIT_ARCH_PPC64LE, 309, 0 },
		{ AUDIT_ARCH_S390, 314, 0100000 },
		{ AUDIT_ARCH_MIPSEL, 4320, 0x2000 },
		{ AUDIT_ARCH_MIPSEL64N32, 6283, 0 },
		{ AUDIT_ARCH_SPARC, 314, 0x40000 },
	};
	struct seccomp_data d;
	struct sc_call c;
	size_t i;

	for (i = 0; i < sizeof abis / sizeof abis[0]; i++) {
		d = call(abis[i].arch, abis[i].nr, 3, 0, 0, 0, 1, 0);
		ck_assert_int_eq(sc_decode(&d, &c), 0);
		ck_assert_msg(c.largefile == abis[i].largefile, "%s: O_LARGEFILE %#o, wanted %#o",
			      c.abi, (unsigned)c.largefile, (unsigned)abis[i].largefile);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("seccomp_abi");
	TCase *tc = tcase_create("filter");

	tcase_add_test(tc, every_abis_fallocate_is_notified);
	tcase_add_test(tc, everything_else_is_allowed);
	tcase_add_test(tc, arguments_are_reassembled);
	tcase_add_test(tc, largefile_flag_of_each_abi);
	suite_add_tcase(s, tc);
	return run_suite(s);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* A mount's filesystem never changes, so what fstatfs said of it can be
 * remembered, keyed by the id statx gives it with STATX_MNT_ID_UNIQUE
 * (Linux 6.8), which no other mount ever gets in the same boot.  The older
 * id (STATX_MNT_ID) is reused by the next mount: a file on a freshly
 * formatted xfs would pass for the ext4 once mounted there, so without the
 * unique id nothing is remembered.
 *
 * A few slots, each with a sequence number that is odd while it is being
 * written: a reader that sees it odd or changed counts a miss, a writer
 * that finds it taken does not remember.  Nobody waits, nothing is
 * allocated; a child forked during a write clears that slot. */
#define _GNU_SOURCE
#include "config.h"

#include <pthread.h>
#include <sys/statfs.h>

#include "mount_facts.h"

#define SLOTS 8

/* Every field is read while another thread may write it: each is one
 * 32-bit atomic (a 64-bit one would need libatomic on some 32-bit ABIs). */
static struct slot {
	unsigned seq;
	uint32_t mount_lo, mount_hi, fs_type, fs_block;
} slots[SLOTS];

static struct slot *slot_of(uint64_t mount)
{
	return &slots[(mount * 0x9E3779B97F4A7C15ull) >> 61];
}

#define LOAD(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define STORE(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)

static int recall(uint64_t mount, uint32_t *fs_type, int64_t *fs_block)
{
	struct slot *s = slot_of(mount);
	unsigned seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	uint32_t lo, hi, type, block;

	if (seq & 1)
		return 0;
	lo = LOAD(s->mount_lo);
	hi = LOAD(s->mount_hi);
	type = LOAD(s->fs_type);
	block = LOAD(s->fs_block);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (LOAD(s->seq) != seq || seq == 0 || lo != (uint32_t)mount ||
	    hi != (uint32_t)(mount >> 32))
		return 0;
	*fs_type = type;
	*fs_block = block;
	return 1;
}

static void remember(uint64_t mount, uint32_t fs_type, int64_t fs_block)
{
	struct slot *s = slot_of(mount);
	unsigned seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);

	if ((seq & 1) || fs_block <= 0 || fs_block > UINT32_MAX ||
	    !__atomic_compare_exchange_n(&s->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	/* The odd number is seen before any field changes. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	STORE(s->mount_lo, (uint32_t)mount);
	STORE(s->mount_hi, (uint32_t)(mount >> 32));
	STORE(s->fs_type, fs_type);
	STORE(s->fs_block, (uint32_t)fs_block);
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}

static void clear_unfinished_in_child(void)
{
	int i;

	for (i = 0; i < SLOTS; i++)
		if (slots[i].seq & 1)
			slots[i].seq = 0;
}

__attribute__((constructor)) static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, clear_unfinished_in_child);
}

int lfa_mount_facts(int fd, uint64_t unique_mount, uint32_t *fs_type, int64_t *fs_block,
		    unsigned *syscalls)
{
	struct statfs64 sf;

	if (unique_mount && recall(unique_mount, fs_type, fs_block))
		return 0;
	++*syscalls;
	if (fstatfs64(fd, &sf) != 0)
		return -1;
	*fs_type = (uint32_t)sf.f_type;
	*fs_block = (int64_t)sf.f_bsize;
	if (unique_mount)
		remember(unique_mount, *fs_type, *fs_block);
	return 0;
}

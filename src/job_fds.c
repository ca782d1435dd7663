/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The descriptors a call makes for itself, invisible outside it: numbered 3
 * or above, so nothing written to stdout or stderr by other code (a program
 * that closed them, a progress callback's printf, a logging thread) lands in
 * the file; and closed in any child forked while the call runs, so that no
 * child holds the file (or the caller's flock on it) after the call.
 *
 * The fork side is a fixed table of slots, changed only by atomic operations
 * (no lock, no heap: a fork may come at any instant, from any thread), read by
 * a pthread_atfork child handler, which runs in the one thread of the child.
 *
 * What remains: a fork from another thread in the few instructions between
 * the syscall that made a descriptor and the store that records it, or
 * between the store that forgets it and the close, gives the child that one
 * descriptor (closed when the child calls exec, O_CLOEXEC).  And a call made
 * while more than JOB_FD_SLOTS descriptors are in flight keeps its extra one
 * unrecorded. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "job_fds.h"

#define JOB_FD_SLOTS 128
#define SLOT_FREE 0
#define SLOT_MAKING (-1) /* reserved: its descriptor is being made */

/* Each slot: free, reserved, or the descriptor + 1. */
static int slots[JOB_FD_SLOTS];
/* Bumped in every child: a call that was running when its thread forked
 * (a progress callback that forked) sees it and stops writing. */
static unsigned fork_generation;

static void close_in_child(void)
{
	int i, v;

	for (i = 0; i < JOB_FD_SLOTS; i++) {
		v = __atomic_load_n(&slots[i], __ATOMIC_RELAXED);
		if (v > 0)
			close(v - 1);
		__atomic_store_n(&slots[i], SLOT_FREE, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&fork_generation, 1, __ATOMIC_RELAXED);
}

/* Registered when the library is loaded; dlclose() unregisters it (glibc
 * ties the handler to this object). */
__attribute__((constructor)) static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, close_in_child);
}

static int reserve_slot(void)
{
	int i, expect;

	for (i = 0; i < JOB_FD_SLOTS; i++) {
		expect = SLOT_FREE;
		if (__atomic_load_n(&slots[i], __ATOMIC_RELAXED) == SLOT_FREE &&
		    __atomic_compare_exchange_n(&slots[i], &expect, SLOT_MAKING, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return i;
	}
	return -1;
}

static int record(int slot, int fd)
{
	if (slot >= 0)
		__atomic_store_n(&slots[slot], fd >= 0 ? fd + 1 : SLOT_FREE, __ATOMIC_RELEASE);
	return fd;
}

int lfa_job_dup(int fd, int *slot)
{
	*slot = reserve_slot();
	return record(*slot, fcntl(fd, F_DUPFD_CLOEXEC, 3));
}

/* open() takes the lowest free number: one below 3 is moved up at once,
 * and is visible to other threads only between those two syscalls. */
int lfa_job_open(const char *path, int flags, int *slot, unsigned *syscalls)
{
	int fd, high, err;

	*slot = reserve_slot();
	++*syscalls;
	fd = open(path, flags | O_CLOEXEC);
	if (fd >= 0 && fd < 3) {
		*syscalls += 2;
		high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		err = errno;
		close(fd);
		errno = err;
		fd = high;
	}
	return record(*slot, fd);
}

void lfa_job_close(int fd, int slot)
{
	/* Forgotten first: a child forked after the close must not close the
	 * number, which another thread may have reused. */
	if (slot >= 0)
		__atomic_store_n(&slots[slot], SLOT_FREE, __ATOMIC_RELEASE);
	close(fd);
}

unsigned lfa_fork_generation(void)
{
	return __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);
}

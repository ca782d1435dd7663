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
 * The kernel's fork copies the descriptor table first and the memory
 * after, page by page, which takes as long as the page tables are large
 * (a millisecond for a few hundred MiB): a child may hold a descriptor
 * whose slot another thread of the parent emptied meanwhile.  Emptying a
 * slot before its close, as 0.1 and 0.2 did, left the job's descriptor in
 * 1 child in 2 forked while a call ran (tests/calls/fork-mid-call.sh).  So a
 * slot keeps its descriptor's number through the close, and is emptied only
 * where no fork is in progress (counted by the prepare and parent
 * handlers); otherwise it stays "closed" until one is reserved while none
 * is.  The child then closes a number only where it still is the job's
 * file: the same open file description as the caller's descriptor it
 * copies (kcmp; without it the same file with the same status flags), or
 * for a reopened one the same file, since a stale or early slot may name
 * a number another thread reused.
 *
 * A descriptor being made is the other side: a fork between the syscall
 * that makes it and the store that records it would give the child a
 * number no slot names (under load a thread is often preempted there, and
 * qemu-user holds it there for the whole fork).  So the two meet as in
 * Dekker's algorithm: a call reserves its slot and then looks for a fork
 * in progress, a fork counts itself and then looks for slots being made
 * by other threads.  One of them sees the other: the call then gives its
 * slot back and lets the fork end first, or the fork waits for the
 * descriptor to be recorded (a dup, an open of the file or of
 * /proc/self/mountinfo).  Both waits are bounded (FORK_WAIT_NS, CALL_WAIT_NS):
 * past them, as for a fork from the making thread's own signal handler,
 * the child may hold that one descriptor (closed when it calls exec,
 * O_CLOEXEC).  So a fork waits only while another thread makes a call's
 * descriptor, at most 100 ms (long enough for a preempted thread to run
 * again on a loaded machine): an open() that a FUSE or network filesystem
 * holds longer is not waited for to its end
 * (tests/unit/race/descriptors.c: fork_between_dup_and_record,
 * fork_while_a_slot_changes_hands).
 * A child made without fork(3)'s handlers (_Fork, vfork, clone, a raw
 * syscall; posix_spawn, which then execs) keeps every descriptor of a call
 * in progress until it calls exec.  And a call made while more than
 * JOB_FD_SLOTS descriptors are in flight keeps its extra one unrecorded. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "job_fds.h"

#define JOB_FD_SLOTS 128
#define SLOT_FREE 0
#define SLOT_MAKING (-1) /* reserved: its descriptor is being made */
#define KCMP_FILE_TYPE 0 /* linux/kcmp.h's KCMP_FILE */
#define FORK_WAIT_NS (100 * 1000000LL) /* a fork, for descriptors being made */
#define CALL_WAIT_NS (50 * 1000000LL) /* a call, for forks in progress */

/* state: free, reserved, the descriptor + 1 (open), or -(descriptor + 2)
 * (closed while a fork was in progress).  The rest is written while the
 * slot is reserved, before its descriptor exists. */
struct job_slot {
	int state;
	uintptr_t maker;     /* the thread making its descriptor (pthread_self); 0
			      * from its record on (see record) */
	int copies;          /* the caller's descriptor it duplicates; -1: a reopen */
	uint64_t dev, ino;   /* a reopen's file */
};

static struct job_slot slots[JOB_FD_SLOTS];
/* Forks between their prepare and parent handlers. */
static unsigned forks_in_progress;
/* Bumped in every child: a call that was running when its thread forked
 * (a progress callback that forked) sees it and stops writing. */
static unsigned fork_generation;

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Whether a wait that started at *start (0: not yet) may go on. */
static int may_wait(int64_t *start, int64_t limit)
{
	if (!*start)
		*start = now_ns();
	else if (now_ns() - *start > limit)
		return 0;
	sched_yield();
	return 1;
}

/* Counted first, then the slots looked at (the call's side is in
 * reserve_slot): a descriptor another thread is making is waited for, so
 * that the copy of the descriptor table that follows has it recorded. */
static void fork_prepare(void)
{
	uintptr_t self = (uintptr_t)pthread_self();
	int64_t start = 0;
	int i;

	__atomic_add_fetch(&forks_in_progress, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < JOB_FD_SLOTS; i++)
		while (__atomic_load_n(&slots[i].state, __ATOMIC_SEQ_CST) == SLOT_MAKING &&
		       __atomic_load_n(&slots[i].maker, __ATOMIC_RELAXED) != self)
			if (!may_wait(&start, FORK_WAIT_NS))
				return;
}

static void fork_parent(void)
{
	__atomic_sub_fetch(&forks_in_progress, 1, __ATOMIC_SEQ_CST);
}

/* Whether fd, in the child, is the job's descriptor s recorded. */
static int still_the_jobs(int fd, const struct job_slot *s)
{
	struct stat64 a, b;
	long same;
	int fa, fb;

	if (s->copies < 0)
		return fstat64(fd, &a) == 0 && (uint64_t)a.st_dev == s->dev &&
		       (uint64_t)a.st_ino == s->ino;
	if (fd == s->copies)
		return 0;
#ifdef SYS_kcmp
	same = syscall(SYS_kcmp, (long)getpid(), (long)getpid(), KCMP_FILE_TYPE, (long)fd,
		       (long)s->copies);
	if (same >= 0 || errno == EBADF)
		return same == 0;
#else
	(void)same;
#endif
	/* No kcmp (CONFIG_KCMP off, a seccomp policy refusing it). */
	fa = fcntl(fd, F_GETFL);
	fb = fcntl(s->copies, F_GETFL);
	return fa >= 0 && fa == fb && fstat64(fd, &a) == 0 && fstat64(s->copies, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void close_in_child(void)
{
	int i, v, fd;

	for (i = 0; i < JOB_FD_SLOTS; i++) {
		v = __atomic_load_n(&slots[i].state, __ATOMIC_RELAXED);
		fd = v > 0 ? v - 1 : v < SLOT_MAKING ? -v - 2 : -1;
		if (fd >= 0 && still_the_jobs(fd, &slots[i]))
			close(fd);
	}
	/* The child's own calls start with an empty table. */
	for (i = 0; i < JOB_FD_SLOTS; i++) {
		__atomic_store_n(&slots[i].maker, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&slots[i].state, SLOT_FREE, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&forks_in_progress, 0, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fork_generation, 1, __ATOMIC_RELAXED);
}

/* Registered when the library is loaded; dlclose() unregisters it (glibc
 * ties the handler to this object). */
__attribute__((constructor)) static void register_fork_handler(void)
{
	pthread_atfork(fork_prepare, fork_parent, close_in_child);
}

/* A free slot, or a closed one once no fork is in progress: every fork
 * that could have copied its descriptor has then ended. */
static int claim_slot(void)
{
	int i, expect;

	for (i = 0; i < JOB_FD_SLOTS; i++) {
		expect = __atomic_load_n(&slots[i].state, __ATOMIC_RELAXED);
		if (expect != SLOT_FREE &&
		    (expect >= SLOT_MAKING ||
		     __atomic_load_n(&forks_in_progress, __ATOMIC_SEQ_CST) != 0))
			continue;
		if (__atomic_compare_exchange_n(&slots[i].state, &expect, SLOT_MAKING, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			return i;
	}
	return -1;
}

/* Reserved, then a fork in progress looked for (fork_prepare's side): one
 * that may have looked at the slot before it was reserved is let end
 * first.  Past CALL_WAIT_NS the call goes on. */
static int reserve_slot(int copies, uint64_t dev, uint64_t ino)
{
	int64_t start = 0;
	int i, waited_out = 0;

	while ((i = claim_slot()) >= 0 && !waited_out &&
	       __atomic_load_n(&forks_in_progress, __ATOMIC_SEQ_CST) != 0) {
		__atomic_store_n(&slots[i].state, SLOT_FREE, __ATOMIC_SEQ_CST);
		while (!waited_out && __atomic_load_n(&forks_in_progress, __ATOMIC_SEQ_CST) != 0)
			waited_out = !may_wait(&start, CALL_WAIT_NS);
	}
	if (i >= 0) {
		__atomic_store_n(&slots[i].maker, (uintptr_t)pthread_self(), __ATOMIC_RELAXED);
		slots[i].copies = copies;
		slots[i].dev = dev;
		slots[i].ino = ino;
	}
	return i;
}

/* The maker is forgotten before the slot leaves SLOT_MAKING: a thread that
 * claims it next names itself only after its claim, and a fork read in
 * between must not take that thread for this one (for itself, if it made
 * this one) and skip the wait. */
static int record(int slot, int fd)
{
	if (slot >= 0) {
		__atomic_store_n(&slots[slot].maker, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&slots[slot].state, fd >= 0 ? fd + 1 : SLOT_FREE, __ATOMIC_RELEASE);
	}
	return fd;
}

int lfa_job_dup(int fd, int *slot)
{
	*slot = reserve_slot(fd, 0, 0);
	return record(*slot, fcntl(fd, F_DUPFD_CLOEXEC, 3));
}

/* open() takes the lowest free number: one below 3 is moved up at once,
 * and is visible to other threads only between those two syscalls. */
int lfa_job_open(const char *path, int flags, uint64_t dev, uint64_t ino, int *slot,
		 unsigned *syscalls)
{
	int fd, high, err;

	*slot = reserve_slot(-1, dev, ino);
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
	int closed;

	close(fd);
	if (slot < 0)
		return;
	/* A fork in progress may have copied the descriptor table before the
	 * close and not yet this slot: it keeps the number for that child.
	 * A fork that copied the table before the close has run its prepare
	 * handler before that (the kernel orders the close after the copy),
	 * so the count shows it. */
	closed = __atomic_load_n(&forks_in_progress, __ATOMIC_SEQ_CST) ? -fd - 2 : SLOT_FREE;
	__atomic_store_n(&slots[slot].state, closed, __ATOMIC_RELEASE);
}

unsigned lfa_fork_generation(void)
{
	return __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);
}

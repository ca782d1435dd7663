/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The supervisor's workers: each serves one call at a time, and every call
 * received has a worker of its own at once, so that no caller waits for
 * another (issue 31).  A call goes to an idle worker if there is one, else
 * to a thread started for it; nothing ever queues behind a call in
 * progress, however long an emulation takes.  Threads stay for the next
 * calls, a few of them: a tree that calls one at a time is served by one
 * thread, and a burst's threads end as it does.
 * Every credential a worker takes on for a call is its own (the kernel
 * keeps them per thread), and given back before the next call.
 *
 * Why not answer calls the kernel allocates natively on the receiving
 * thread, or let the kernel run them in the caller (CONTINUE, which resumes
 * the syscall past the filter)?  Which calls those are is known only by
 * trying: a filesystem's type does not say (ext3 mounted as ext4 refuses),
 * and after a CONTINUE the caller would get the kernel's refusal instead of
 * the emulation.  Trying on the receiving thread would make every other
 * call and the forwarded signals wait for a kernel call that can block (a
 * FUSE server, NFS, a frozen filesystem).  A thread of its own costs tens of
 * microseconds, which a call the kernel answers natively can afford. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "seccomp-serve.h"

/* A safety limit, not a pool size: more calls in progress at once than any
 * tree we know of makes.  Each worker reserves WORKER_STACK of address
 * space (touched a few pages deep) and holds a few descriptors during its
 * call (sc_server_init raises RLIMIT_NOFILE).  Past it, or where the
 * kernel gives no more threads (RLIMIT_NPROC), a call is not queued: the
 * caller's own call runs in the kernel (sc_workers_submit's EAGAIN). */
#define WORKERS_LIMIT 1024
/* Idle workers kept past a burst; the others end after their call: a
 * thread is cheap to start again, while a thousand idle ones would stay
 * for the rest of the tree's life. */
#define IDLE_KEEP 8
/* The engine runs in any thread of the programs it is preloaded into,
 * musl's 128 KiB ones included; twice that, so that 1024 workers of a
 * 32-bit supervisor reserve 256 MiB of address space, not 8 GiB. */
#define WORKER_STACK (256 * 1024)

struct item {
	struct item *next;
	void *req;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER;
/* Calls handed to idle workers not yet awake: never more than n_idle, so
 * each has a worker waiting for it alone. */
static struct item *head, **tail = &head;
static int n_workers, n_idle, n_queued;

struct start {
	struct sc_server *s;
	void *req; /* the worker's first call */
};

/* 0 to go on serving, -1 when the thread must end (its identity could not
 * be given back, or enough workers are idle already). */
static int serve_one(struct sc_server *s, void *req)
{
	int tainted = sc_serve(s, req) != 0;

	free(req);
	return tainted ? -1 : 0;
}

static void *worker_main(void *arg)
{
	struct start st = *(struct start *)arg;
	struct item *it;
	void *req;

	free(arg);
	if (serve_one(st.s, st.req) == 0)
		for (;;) {
			pthread_mutex_lock(&lock);
			if (n_idle >= IDLE_KEEP) {
				pthread_mutex_unlock(&lock);
				break;
			}
			n_idle++;
			pthread_cond_broadcast(&idle);
			while (!head)
				pthread_cond_wait(&work, &lock);
			n_idle--;
			n_queued--;
			it = head;
			head = it->next;
			if (!head)
				tail = &head;
			pthread_mutex_unlock(&lock);
			req = it->req;
			free(it);
			if (serve_one(st.s, req) != 0)
				break;
		}
	sc_serve_thread_end();
	pthread_mutex_lock(&lock);
	n_workers--;
	pthread_cond_broadcast(&idle);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* The receiving thread blocks every signal the supervisor handles: a new
 * thread inherits that mask, so none of them is delivered to a worker. */
static int start_worker(struct sc_server *s, void *req)
{
	struct start *st = malloc(sizeof *st);
	pthread_attr_t attr;
	pthread_t t;
	int err;

	if (!st)
		return ENOMEM;
	st->s = s;
	st->req = req;
	if ((err = pthread_attr_init(&attr)) != 0) {
		free(st);
		return err;
	}
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	err = pthread_create(&t, &attr, worker_main, st);
	pthread_attr_destroy(&attr);
	if (err)
		free(st);
	return err;
}

int sc_workers_submit(struct sc_server *s, void *req)
{
	struct item *it = malloc(sizeof *it);
	int err;

	if (!it)
		return ENOMEM;
	it->next = NULL;
	it->req = req;
	pthread_mutex_lock(&lock);
	if (n_idle > n_queued) {
		/* A worker waits with nothing to do: it takes this one. */
		*tail = it;
		tail = &it->next;
		n_queued++;
		pthread_cond_signal(&work);
		pthread_mutex_unlock(&lock);
		return 0;
	}
	free(it);
	if (n_workers >= WORKERS_LIMIT) {
		pthread_mutex_unlock(&lock);
		return EAGAIN;
	}
	n_workers++;
	pthread_mutex_unlock(&lock);
	/* Started outside the lock: a worker ending meanwhile need not wait
	 * for the clone. */
	if ((err = start_worker(s, req)) != 0) {
		pthread_mutex_lock(&lock);
		n_workers--;
		pthread_cond_broadcast(&idle);
		pthread_mutex_unlock(&lock);
	}
	return err;
}

void sc_workers_finish(int ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	while ((n_idle < n_workers || head) &&
	       pthread_cond_timedwait(&idle, &lock, &until) == 0)
		;
	pthread_mutex_unlock(&lock);
}

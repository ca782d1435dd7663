/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The supervisor's workers: each serves one call at a time, so a call never
 * waits behind another, up to WORKERS_MAX calls at once; more queue, first
 * come first served.  Threads are started as calls need them and stay for
 * the next: a tree that calls one at a time is served by one thread.
 * Every credential a worker takes on for a call is its own (the kernel
 * keeps them per thread), and given back before the next call. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "seccomp-serve.h"

/* A tree rarely has more calls in progress than this; past it, the
 * supervisor's own threads would cost more than the calls wait. */
#define WORKERS_MAX 32

struct item {
	struct item *next;
	void *req;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER;
static struct item *head, **tail = &head;
static int n_workers, n_idle, n_queued;

static void *worker_main(void *arg)
{
	struct sc_server *s = arg;
	struct item *it;
	int tainted;

	for (;;) {
		pthread_mutex_lock(&lock);
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
		tainted = sc_serve(s, it->req) != 0;
		free(it->req);
		free(it);
		if (tainted)
			break;
	}
	pthread_mutex_lock(&lock);
	n_workers--;
	pthread_cond_broadcast(&idle);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* The receiving thread blocks every signal the supervisor handles: a new
 * thread inherits that mask, so none of them is delivered to a worker. */
static int start_worker(struct sc_server *s)
{
	pthread_attr_t attr;
	pthread_t t;
	int err;

	if ((err = pthread_attr_init(&attr)) != 0)
		return err;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&t, &attr, worker_main, s);
	pthread_attr_destroy(&attr);
	return err;
}

int sc_workers_submit(struct sc_server *s, void *req)
{
	struct item *it = malloc(sizeof *it);
	int err = 0, start = 0;

	if (!it)
		return ENOMEM;
	it->next = NULL;
	it->req = req;
	pthread_mutex_lock(&lock);
	*tail = it;
	tail = &it->next;
	/* An idle worker may not have taken the last call yet: only more
	 * calls queued than workers idle need a new one. */
	if (++n_queued > n_idle && n_workers < WORKERS_MAX) {
		n_workers++;
		start = 1;
	}
	pthread_cond_signal(&work);
	pthread_mutex_unlock(&lock);
	if (start && (err = start_worker(s)) != 0) {
		pthread_mutex_lock(&lock);
		n_workers--;
		if (n_workers > 0) /* it stays queued for the others */
			err = 0;
		else if (head == it) {
			head = NULL;
			tail = &head;
			n_queued--;
		}
		pthread_mutex_unlock(&lock);
		if (err) {
			free(it);
			fprintf(stderr, "fallocate-preload: --seccomp: cannot start a worker thread\n");
		}
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

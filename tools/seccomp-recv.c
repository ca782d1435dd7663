/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The supervisor's receiving thread: takes each notification off the
 * listener and hands it to a worker, forwards the signals sent to the
 * wrapper, reaps the tree's orphans, and leaves with the command's status
 * when the tree has gone.  It serves no call itself, so a signal or a new
 * call never waits for a call in progress. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seccomp-serve.h"

#define PROG "fallocate-preload"

/* Signals a wrapper passes on when they are sent to it (kill, timeout(1),
 * a service manager).  Those from the terminal reach the command directly:
 * it is in this process's group. */
static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH };

/* The RLIMIT_FSIZE of the calls served is each caller's (seccomp-rules.c),
 * checked before writing: ours is shared by every call in progress at
 * once, so it goes as high as it may, or a call would meet the limit of
 * another's caller. */
static void raise_fsize_limit(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_FSIZE, &lim);
	}
}

/* Every call in progress has a worker of its own (seccomp-workers.c), each
 * holding a few descriptors for it (the caller's pidfd, its copy of the
 * caller's, the engine's): a thousand calls at once would pass the usual
 * soft limit of 1024, and a call refused a descriptor gets the kernel's
 * own answer.  The supervisor polls, never selects, and execs nothing:
 * a higher limit changes nothing else. */
static void raise_nofile_limit(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
}

int sc_server_init(struct sc_server *s, int listener, const struct sc_policy *policy)
{
	struct seccomp_notif_sizes sizes;
	struct rlimit lim;
	int err;

	memset(s, 0, sizeof *s);
	s->listener = listener;
	s->policy = *policy;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0)
		return errno;
	/* A newer kernel may write more than our headers know. */
	s->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ?
		      sizes.seccomp_notif : sizeof(struct seccomp_notif);
	s->resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ?
		       sizes.seccomp_notif_resp : sizeof(struct seccomp_notif_resp);
	if ((err = sc_identity_read((pid_t)syscall(SYS_gettid), NULL, &s->self)) != 0)
		return err;
	raise_fsize_limit();
	raise_nofile_limit();
	/* Our hard limit is no caller's: it changes only by a setrlimit of
	 * ours (none after this) or another root process's prlimit(2) on
	 * us, so it is read once, not per call. */
	s->fsize_max = UINT64_MAX;
	if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_max != RLIM_INFINITY)
		s->fsize_max = lim.rlim_max;
	return 0;
}

/* One notification off the listener, to a worker.  0, or the listener's
 * error. */
static int receive_one(struct sc_server *s)
{
	static int warned;
	struct seccomp_notif_resp *resp;
	struct seccomp_notif *req = calloc(1, s->req_size);
	int err;

	if (!req)
		return ENOMEM;
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
		err = errno;
		free(req);
		/* ENOENT: the target died between poll and here. */
		return err == EINTR || err == ENOENT ? 0 : err;
	}
	if ((err = sc_workers_submit(s, req)) == 0)
		return 0;
	/* No thread to be had (the workers' safety limit, RLIMIT_NPROC,
	 * memory): the caller's own call runs in the kernel, with its own
	 * identity and limits, rather than wait for another's.  Said once: a
	 * tree that keeps a thousand calls in progress makes many. */
	if (!warned) {
		warned = 1;
		fprintf(stderr, "%s: --seccomp: warning: no thread to serve a call (%s): such calls get the kernel's"
			" own answer (no emulation)\n", PROG, strerror(err));
	}
	resp = calloc(1, s->resp_size);
	if (resp) {
		resp->id = req->id;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
		free(resp);
	}
	free(req);
	return 0;
}

void sc_signals(sigset_t *s)
{
	size_t i;

	sigemptyset(s);
	sigaddset(s, SIGCHLD);
	for (i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
		sigaddset(s, forwarded[i]);
}

static void die_like(int status) __attribute__((noreturn));
static void die_like(int status)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t s;
	int sig;

	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	/* As the command died, so that a shell sees the same (a script stops
	 * on an interrupted command); no core of ours. */
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);
	exit(128 + sig);
}

static void reap(pid_t child, int *child_status, int *child_done)
{
	pid_t p;
	int status;

	/* Orphans of the tree come to us (we are its subreaper). */
	while ((p = waitpid(-1, &status, WNOHANG)) > 0)
		if (p == child) {
			*child_status = status;
			*child_done = 1;
		}
}

void sc_supervise(const struct sc_policy *policy, int listener, pid_t child, const sigset_t *sigs)
{
	static struct sc_server server; /* the workers keep it until exit */
	struct pollfd pfd[2];
	struct signalfd_siginfo si;
	int sigfd, err, child_status = 0, child_done = 0, tree_done = 0, null;
	size_t i;

	signal(SIGXFSZ, SIG_IGN); /* a call past the target's limit: EFBIG */
	signal(SIGPIPE, SIG_IGN);
	/* An ignored signal is discarded even while blocked: a script's
	 * background job starts with SIGINT ignored, and `kill -INT` must
	 * still reach a command that handles it.  (They stay blocked, in the
	 * workers too: the signalfd reads them.) */
	for (i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
		signal(forwarded[i], SIG_DFL);
	/* Hold no pipe of the command open: a reader of its output sees end
	 * of file when the command's tree closes it. */
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		close(null);
	}
	sigfd = signalfd(-1, sigs, SFD_CLOEXEC);
	err = sigfd < 0 ? errno : sc_server_init(&server, listener, policy);
	if (err) {
		/* Closing the listener makes every call fail with ENOSYS:
		 * nothing waits on us. */
		fprintf(stderr, "%s: --seccomp: cannot supervise: %s\n", PROG, strerror(err));
		close(listener);
		listener = -1;
		if (sigfd < 0) { /* nothing to poll: wait for the command alone */
			waitpid(child, &child_status, 0);
			die_like(child_status);
		}
	}
	pfd[0].fd = listener;
	pfd[0].events = POLLIN;
	pfd[1].fd = sigfd;
	pfd[1].events = POLLIN;
	while (!(tree_done || listener < 0) || !child_done) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			err = receive_one(&server);
			if (err) {
				fprintf(stderr, "%s: --seccomp: the listener failed (%s): fallocate now fails with ENOSYS\n",
					PROG, strerror(err));
				close(listener);
				pfd[0].fd = listener = -1;
			}
		} else if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* No process uses the filter any more: the tree is gone. */
			tree_done = 1;
			pfd[0].fd = -1;
		}
		if (!(pfd[1].revents & POLLIN))
			continue;
		if (read(sigfd, &si, sizeof si) != (ssize_t)sizeof si)
			continue;
		if ((int)si.ssi_signo == SIGCHLD) {
			reap(child, &child_status, &child_done);
			continue;
		}
		for (i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
			if ((int)si.ssi_signo == forwarded[i] && si.ssi_code != SI_KERNEL && !child_done)
				kill(child, (int)si.ssi_signo);
	}
	if (!child_done)
		waitpid(child, &child_status, 0);
	/* The tree is gone, but a worker may still be finishing a call: one
	 * whose caller died stops at its next piece (its debug line then
	 * said); one stuck in the kernel is not waited for long. */
	if (listener >= 0)
		sc_workers_finish(1000);
	die_like(child_status);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/*
 * fallocate-seccomp: what `fallocate-preload --seccomp` runs (it is not a
 * command of its own; its options may change).  It forks; the child puts
 * itself under a seccomp filter that sends every fallocate system call to a
 * listener, hands the listener over and execs the command; this process
 * stays outside the filter (its own fallocate calls would come back to it)
 * and answers each call, as the caller: see seccomp-serve.h for its parts.  It leaves when the last
 * process of the tree has gone, with the command's exit status.
 *
 *   fallocate-seccomp [--auto] [--allow-setuid] [--] COMMAND [ARG...]
 *
 * The rules (emulate mode 0 or not, the emulation policy, debug) come from
 * the LIBFALLOCATE_* variables the wrapper exported.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <linux/capability.h>

#include <libfallocate.h>

#include "seccomp-abi.h"
#include "seccomp-serve.h"

#define PROG "fallocate-preload"
/* Set for the command's tree: a nested --seccomp finds the kernel refusing
 * a second listener (EBUSY) and knows the outer supervisor serves it. */
#define NESTED_MARK "FALLOCATE_PRELOAD_SECCOMP"
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

struct config {
	int automatic;    /* --auto: fall back to LD_PRELOAD alone */
	int allow_setuid; /* --allow-setuid */
	char **argv;
	struct sc_policy policy;
	sigset_t old_mask;
};

static int usage(void)
{
	fprintf(stderr, "usage: fallocate-seccomp [--auto] [--allow-setuid] [--] COMMAND [ARG...]\n"
		"(run by fallocate-preload --seccomp; see fallocate-preload(1))\n");
	return 1;
}

static void read_policy(struct sc_policy *p)
{
	const char *e = getenv("LIBFALLOCATE_EMULATION");
	const char *f = getenv("LIBFALLOCATE_EMULATE_FALLOCATE");
	const char *d = getenv("LIBFALLOCATE_DEBUG");

	p->emulation = LFA_EMULATION_AUTO;
	if (e && !strcmp(e, "never"))
		p->emulation = LFA_EMULATION_NEVER;
	else if (e && !strcmp(e, "always"))
		p->emulation = LFA_EMULATION_ALWAYS;
	/* The wrapper's default: mode 0 emulates unless told otherwise. */
	p->emulate_mode0 = !(f && !strcmp(f, "0")) && p->emulation != LFA_EMULATION_NEVER;
	p->debug = d && !strcmp(d, "1");
}

static int have_cap_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) != 0)
		return 0;
	return !!(data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32)));
}

/* The file execvp would run, or NULL. */
static char *find_command(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	char *full;
	size_t dir;

	if (strchr(name, '/'))
		return strdup(name);
	for (p = path && *path ? path : "/bin:/usr/bin"; ; p = colon + 1) {
		colon = strchrnul(p, ':');
		dir = (size_t)(colon - p);
		if (asprintf(&full, "%.*s%s%s", (int)dir, p, dir ? "/" : "", name) < 0)
			return NULL;
		if (access(full, X_OK) == 0)
			return full;
		free(full);
		if (!*colon)
			return NULL;
	}
}

/* Under no_new_privs, exec grants no setuid, setgid or file capabilities:
 * such a program would run without them, and fail in its own ways. */
static const char *privileged_kind(const char *file)
{
	struct stat st;

	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	if (st.st_mode & S_ISUID)
		return "setuid";
	if ((st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		return "setgid";
	if (getxattr(file, "security.capability", NULL, 0) > 0)
		return "given file capabilities";
	return NULL;
}

/* pidfd_getfd needs 5.6, the listener's POLLHUP (how the end of the tree
 * is seen) 5.8; 5.9 is the oldest kernel this is meant for. */
static int kernel_too_old(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major < 5 || (major == 5 && minor < 9);
}

static int send_fd(int sock, int fd, int err)
{
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &err, sizeof err };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		memset(control, 0, sizeof control);
		msg.msg_control = control;
		msg.msg_controllen = sizeof control;
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* The listener, or -1 with *err the child's error (0: it vanished). */
static int recv_fd(int sock, int *err)
{
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { err, sizeof *err };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control, .msg_controllen = sizeof control };
	struct cmsghdr *cm;
	int fd = -1;

	*err = 0;
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof *err)
		return -1;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	return fd;
}

static int install_filter(int *killable)
{
	struct sock_filter prog[SC_FILTER_MAX];
	struct sock_fprog fprog = { (unsigned short)sc_build_filter(prog), prog };
	unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	int fd;

	/* Without CAP_SYS_ADMIN the kernel takes a filter only from a
	 * process that can never gain privileges by exec. */
	if (!have_cap_sys_admin() && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	/* 5.19: once the supervisor holds the call, only a fatal signal ends
	 * the target's wait, as with the kernel's own fallocate. */
	*killable = 1;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  flags | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &fprog);
	if (fd < 0 && errno == EINVAL) {
		*killable = 0;
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);
	}
	return fd;
}

static void exec_command(const struct config *cfg)
{
	int err;

	sigprocmask(SIG_SETMASK, &cfg->old_mask, NULL);
	execvp(cfg->argv[0], cfg->argv);
	err = errno;
	fprintf(stderr, "%s: %s: %s\n", PROG, cfg->argv[0], strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

/* The command's process, until exec: nothing runs under the filter but the
 * exec and the command. */
static void child_main(const struct config *cfg, int sock)
{
	char verdict = 0;
	int listener, killable = 0, err = 0;

	if (read(sock, &verdict, 1) != 1 || verdict != 'F')
		_exit(0);
	listener = install_filter(&killable);
	if (listener < 0)
		err = errno;
	if (send_fd(sock, listener, err ? err : killable ? -1 : -2) != 0 || listener < 0)
		_exit(0);
	close(listener);
	close(sock);
	setenv(NESTED_MARK, "1", 1);
	exec_command(cfg);
}

static void warn_and_fall_back(const struct config *cfg, const char *why, pid_t child)
{
	int status;

	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	if (!cfg->automatic) {
		fprintf(stderr, "%s: --seccomp: %s; the command was not run"
			" (--seccomp=auto runs it with LD_PRELOAD alone)\n", PROG, why);
		exit(126);
	}
	fprintf(stderr, "%s: warning: --seccomp=auto: %s; running the command with LD_PRELOAD alone"
		" (static and Go programs are not served)\n", PROG, why);
	exec_command(cfg);
}

static const char *filter_error(int err)
{
	switch (err) {
	case EINVAL:
		return "this kernel has no seccomp user notification (Linux 5.9 or later is needed)";
	case ENOSYS:
		return "this kernel has no seccomp()";
	case EACCES:
	case EPERM:
		return "the kernel refused the seccomp filter (no_new_privs could not be set)";
	case EBUSY:
		return "this process tree already has a seccomp supervisor (a container runtime's?): the kernel allows one";
	default:
		return strerror(err);
	}
}

/* May this process take the command's descriptors?  Asked of the command's
 * own process before the filter exists, so a refusal costs nothing. */
static const char *probe_getfd(pid_t child, int child_fd)
{
	int pidfd, fd;

	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	if (pidfd < 0)
		return errno == ENOSYS ? "this kernel has no pidfd_open (Linux 5.3)" :
		       "pidfd_open failed on the command's process";
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, child_fd, 0);
	close(pidfd);
	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	return errno == ENOSYS ? "this kernel has no pidfd_getfd (Linux 5.6)" :
	       "the kernel refused pidfd_getfd (ptrace restrictions such as Yama's ptrace_scope, "
	       "or a container runtime's seccomp profile or LSM)";
}

int main(int argc, char **argv)
{
	struct config cfg;
	sigset_t sigs;
	const char *why, *kind;
	char *file;
	int sv[2], listener, err, status;
	pid_t child;
	size_t i;

	memset(&cfg, 0, sizeof cfg);
	for (i = 1; i < (size_t)argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--auto"))
			cfg.automatic = 1;
		else if (!strcmp(argv[i], "--allow-setuid"))
			cfg.allow_setuid = 1;
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else
			return usage();
	}
	if (i >= (size_t)argc)
		return usage();
	cfg.argv = argv + i;
	read_policy(&cfg.policy);
	sigprocmask(SIG_SETMASK, NULL, &cfg.old_mask);

	file = find_command(cfg.argv[0]);
	kind = file ? privileged_kind(file) : NULL;
	if (kind && !cfg.allow_setuid && !have_cap_sys_admin()) {
		fprintf(stderr, "%s: --seccomp: %s is %s, and under the seccomp filter (no_new_privs) it would run"
			" without its privileges; not run (--seccomp-allow-setuid runs it anyway)\n",
			PROG, file, kind);
		return 126;
	}
	free(file);
	if (kernel_too_old())
		warn_and_fall_back(&cfg, "this kernel is older than 5.9 (seccomp user notification with pidfd_getfd)", 0);

	/* Orphans of the tree come to us: the end of the tree is the last
	 * user of the filter going, which needs them reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	sc_signals(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		perror(PROG ": socketpair");
		return 126;
	}
	child = fork();
	if (child < 0) {
		perror(PROG ": fork");
		return 126;
	}
	if (child == 0) {
		close(sv[0]);
		child_main(&cfg, sv[1]);
	}
	close(sv[1]);
	if ((why = probe_getfd(child, sv[1])) != NULL) {
		close(sv[0]);
		warn_and_fall_back(&cfg, why, child);
	}
	if (write(sv[0], "F", 1) != 1) {
		close(sv[0]);
		warn_and_fall_back(&cfg, "the command's process vanished", child);
	}
	listener = recv_fd(sv[0], &err);
	close(sv[0]);
	if (listener < 0) {
		waitpid(child, &status, 0);
		if (err == EBUSY && getenv(NESTED_MARK)) {
			/* Inside another fallocate-preload --seccomp: its
			 * supervisor serves this tree too. */
			prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
			exec_command(&cfg);
		}
		warn_and_fall_back(&cfg, err ? filter_error(err) : "the command's process vanished", 0);
	}
	/* Without it a signal we send the caller ends its wait (SIGXFSZ:
	 * seccomp-serve.c). */
	cfg.policy.killable_wait = err != -2;
	if (err == -2 && cfg.policy.debug)
		fprintf(stderr, "%s: seccomp: no SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (Linux 5.19):"
			" a signal may interrupt a call the supervisor is serving (EINTR, never a success)\n", PROG);
	sc_supervise(&cfg.policy, listener, child, &sigs);
}

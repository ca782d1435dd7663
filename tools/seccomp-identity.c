/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* A call is served as the thread that made it: the kernel checks the
 * writer's fsuid, fsgid, supplementary groups and effective capabilities
 * for permissions, reserved blocks and quotas (CAP_SYS_RESOURCE) and for
 * keeping setuid/setgid bits on a write (CAP_FSETID).  A worker takes
 * them on for one call and gives back its own after.
 *
 * Only the raw system calls will do: the kernel keeps credentials per
 * thread, and the C library's setfsuid, setgroups and friends make every
 * thread of the process follow (they signal each), which would hand one
 * caller's identity to the calls of others. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "seccomp-serve.h"

/* 32-bit ABIs kept the 16-bit ids under the old names. */
#ifdef SYS_setgroups32
#define NR_SETGROUPS SYS_setgroups32
#define NR_SETFSUID SYS_setfsuid32
#define NR_SETFSGID SYS_setfsgid32
#else
#define NR_SETGROUPS SYS_setgroups
#define NR_SETFSUID SYS_setfsuid
#define NR_SETFSGID SYS_setfsgid
#endif

/* The fourth of "Uid:\treal\teffective\tsaved\tfs". */
static int fourth(const char *s, uint32_t *out)
{
	unsigned long v = 0;
	char *end;
	int i;

	for (i = 0; i < 4; i++, s = end) {
		v = strtoul(s, &end, 10);
		if (end == s)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int read_groups(const char *s, struct sc_identity *id)
{
	const char *p;
	char *end;
	int n = 0;

	for (p = s; *p; p++)
		n += *p >= '0' && *p <= '9' && (p == s || p[-1] == ' ' || p[-1] == '\t');
	id->groups = calloc((size_t)n + 1, sizeof *id->groups);
	if (!id->groups)
		return -1;
	for (p = s; id->ngroups < n; p = end) {
		unsigned long g = strtoul(p, &end, 10);

		if (end == p)
			break;
		id->groups[id->ngroups++] = (uint32_t)g;
	}
	return 0;
}

/* "Inh:\t0000000000000000" and the like (after "Cap"): the bit of got. */
static int capability_set(const char *s, struct sc_identity *id)
{
	static const char *const names[] = { "Inh:", "Prm:", "Eff:" };
	uint64_t *sets[] = { &id->cap_inh, &id->cap_prm, &id->cap_eff };
	char *end;
	int i;

	for (i = 0; i < 3; i++)
		if (!strncmp(s, names[i], 4)) {
			*sets[i] = strtoull(s + 4, &end, 16);
			return end == s + 4 ? 0 : 1 << (3 + i);
		}
	return 0;
}

/* One line of the status file, without its newline: the bits of got. */
static int status_line(const char *line, struct sc_identity *id)
{
	if (!strncmp(line, "Uid:", 4))
		return fourth(line + 4, &id->fsuid) == 0;
	if (!strncmp(line, "Gid:", 4))
		return (fourth(line + 4, &id->fsgid) == 0) << 1;
	if (!strncmp(line, "Groups:", 7))
		return (read_groups(line + 7, id) == 0) << 2;
	if (!strncmp(line, "Cap", 3))
		return capability_set(line + 3, id);
	return 0;
}

static uint64_t user_namespace(pid_t tid)
{
	char path[64], link[64];
	unsigned long long ino = 0;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/ns/user", (long)tid);
	n = readlink(path, link, sizeof link - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	if (sscanf(link, "user:[%llu]", &ino) != 1)
		return 0;
	return ino;
}

/* A status file too long for the buffer (a Groups line of hundreds of
 * groups): line by line, however long. */
static int status_by_lines(const char *path, struct sc_identity *id, int *got)
{
	char *big = NULL;
	size_t big_size = 0;
	int err = 0;
	FILE *f;

	if (!(f = fopen(path, "re")))
		return errno;
	while (getline(&big, &big_size, f) > 0) {
		big[strcspn(big, "\n")] = 0;
		*got |= status_line(big, id);
	}
	if (ferror(f))
		err = EIO;
	fclose(f);
	free(big);
	return err;
}

/* /proc/TID/status is the thread's own (the process's is its leader's).
 * A tid may be reused once its thread is gone: the caller checks after
 * reading that the notification is still pending, which proves the
 * thread still waits for it.  Read anew for every call (a caller may
 * change its credentials between two calls), with one pread(2): the
 * kernel formats the whole file at each read from offset 0 whatever its
 * size, and its 1.5 KiB fit the buffer unless the thread has very many
 * groups.
 * The descriptor may be kept (status_fd) for the thread's next calls: it
 * names the thread, not its tid (the proc inode holds the thread's
 * struct pid), so a read through it is of that thread's credentials as
 * they are at the read, or fails (ESRCH) once the thread is gone, and its
 * tid may be another's: then the file is opened anew by its tid. */
int sc_identity_read(pid_t tid, int *status_fd, struct sc_identity *id)
{
	char path[64], buf[4096], *line, *nl;
	ssize_t n = -1;
	int got = 0, err = 0, fd = status_fd ? *status_fd : -1;

	memset(id, 0, sizeof *id);
	snprintf(path, sizeof path, "/proc/%ld/status", (long)tid);
	if (fd >= 0 && (n = pread(fd, buf, sizeof buf, 0)) < 0) {
		close(fd);
		fd = *status_fd = -1;
	}
	if (fd < 0) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return errno;
		n = pread(fd, buf, sizeof buf, 0);
		if (status_fd && n >= 0)
			*status_fd = fd;
		else
			close(fd);
	}
	err = n < 0 ? errno : 0;
	if (n == (ssize_t)sizeof buf)
		err = status_by_lines(path, id, &got);
	else if (n >= 0) {
		buf[n] = 0;
		for (line = buf; *line; line = nl + 1) {
			if ((nl = strchr(line, '\n')) == NULL)
				nl = line + strlen(line) - 1; /* the last, cut short */
			else
				*nl = 0;
			got |= status_line(line, id);
		}
	}
	if (!err && got != 0x3f)
		err = ESRCH; /* a thread gone half way through */
	if (err) {
		sc_identity_free(id);
		return err;
	}
	/* Only capabilities depend on it: a path walk saved for callers
	 * without any. */
	id->userns = id->cap_eff ? user_namespace(tid) : 0;
	return 0;
}

void sc_identity_free(struct sc_identity *id)
{
	free(id->groups);
	id->groups = NULL;
	id->ngroups = 0;
}

static int same_groups(const struct sc_identity *a, const struct sc_identity *b)
{
	return a->ngroups == b->ngroups &&
	       (!a->ngroups || !memcmp(a->groups, b->groups, (size_t)a->ngroups * sizeof *a->groups));
}

static int set_groups(const struct sc_identity *id)
{
	gid_t none[1];

	if (sizeof(gid_t) == sizeof(uint32_t))
		return (int)syscall(NR_SETGROUPS, id->ngroups, id->ngroups ? (gid_t *)id->groups : none);
	errno = EINVAL;
	return -1;
}

/* setfsuid and setfsgid say no error: they answer the old id whatever
 * happened.  Asking again with an id that is never valid tells. */
static int set_fsuid(uint32_t uid)
{
	syscall(NR_SETFSUID, uid);
	return (uint32_t)syscall(NR_SETFSUID, (uid_t)-1) == uid ? 0 : -1;
}

static int set_fsgid(uint32_t gid)
{
	syscall(NR_SETFSGID, gid);
	return (uint32_t)syscall(NR_SETFSGID, (gid_t)-1) == gid ? 0 : -1;
}

/* The permitted and inheritable sets stay ours: then the effective set can
 * always be given back. */
static int set_effective(const struct sc_identity *self, uint64_t eff)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int i;

	for (i = 0; i < 2; i++) {
		data[i].effective = (uint32_t)(eff >> (32 * i));
		data[i].permitted = (uint32_t)(self->cap_prm >> (32 * i));
		data[i].inheritable = (uint32_t)(self->cap_inh >> (32 * i));
	}
	return (int)syscall(SYS_capset, &hdr, data);
}

/* Capabilities held in another user namespace (a tree member that ran
 * unshare -U) count there, not here: it is served with none. */
static uint64_t effective_here(const struct sc_identity *self, const struct sc_identity *caller)
{
	return caller->cap_eff && caller->userns && caller->userns == self->userns ?
	       caller->cap_eff : 0;
}

int sc_identity_assume(const struct sc_identity *self, const struct sc_identity *caller,
		       const char **why)
{
	uint64_t eff = effective_here(self, caller);
	int groups = !same_groups(self, caller);

	if (!groups && caller->fsuid == self->fsuid && caller->fsgid == self->fsgid &&
	    eff == self->cap_eff)
		return 0;
	if (eff & ~self->cap_prm) {
		*why = "the caller holds capabilities the supervisor lacks";
		return -1;
	}
	/* Ids first, while ours still has CAP_SETUID and CAP_SETGID. */
	if (groups && set_groups(caller) != 0) {
		*why = "the supervisor cannot take on the caller's supplementary groups (no CAP_SETGID)";
		return -1;
	}
	if (set_fsgid(caller->fsgid) != 0) {
		*why = "the supervisor cannot take on the caller's fsgid (no CAP_SETGID)";
		goto undo;
	}
	if (set_fsuid(caller->fsuid) != 0) {
		*why = "the supervisor cannot take on the caller's fsuid (no CAP_SETUID)";
		goto undo;
	}
	if (set_effective(self, eff) != 0) {
		*why = "the supervisor cannot take on the caller's capabilities";
		goto undo;
	}
	return 1;
undo:
	sc_identity_restore(self);
	return -1;
}

int sc_identity_restore(const struct sc_identity *self)
{
	/* Our capabilities first: they allow the ids back. */
	if (set_effective(self, self->cap_eff) != 0 || set_fsuid(self->fsuid) != 0 ||
	    set_fsgid(self->fsgid) != 0 || set_groups(self) != 0)
		return errno ? errno : EPERM;
	return 0;
}

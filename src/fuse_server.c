/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Which FUSE server serves a mount: the type /proc/self/mountinfo gives
 * it (fuse.sshfs, fuse.glusterfs; bindfs says plain "fuse"), found by the
 * device number, which the kernel, not the server, gives.  The file is
 * read here through a descriptor of the call's own (job_fds.c), into the
 * stack; nothing is remembered, since a FUSE device number is reused by
 * the next mount.  What the server is known to do: fs_facts.c. */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fs_facts.h"
#include "job_fds.h"

/* Walks /proc/self/mountinfo a byte at a time, so that a line of any
 * length (overlayfs's option lists) needs no buffer for itself: field 3 is
 * "major:minor", and the field after the lone "-" is the type. */
struct mountinfo_walk {
	char want[24];      /* "major:minor" of the file's device */
	char field[64];     /* the field being read, cut at 63 bytes */
	size_t len;
	int index;          /* fields seen on this line */
	int dev_matches, after_dash, found;
	char type[64];
};

static void end_field(struct mountinfo_walk *w)
{
	w->field[w->len] = '\0';
	if (w->index == 2)
		w->dev_matches = strcmp(w->field, w->want) == 0;
	else if (w->index > 5 && !w->after_dash && strcmp(w->field, "-") == 0)
		w->after_dash = w->index;
	else if (w->after_dash && w->index == w->after_dash + 1 && w->dev_matches) {
		memcpy(w->type, w->field, w->len + 1);
		w->found = 1;
	}
	w->index++;
	w->len = 0;
}

static void walk_byte(struct mountinfo_walk *w, char c)
{
	if (c == ' ' || c == '\n') {
		end_field(w);
		if (c == '\n')
			w->index = w->dev_matches = w->after_dash = 0;
	} else if (w->len < sizeof w->field - 1) {
		w->field[w->len++] = c;
	}
}

void lfa_mountinfo_type(int fd, uint64_t dev, char *type, size_t n, unsigned *syscalls)
{
	struct mountinfo_walk w;
	char buf[1024];
	ssize_t got, i;

	type[0] = '\0';
	memset(&w, 0, sizeof w);
	snprintf(w.want, sizeof w.want, "%u:%u", major(dev), minor(dev));
	do {
		++*syscalls;
		got = read(fd, buf, sizeof buf);
		for (i = 0; i < got && !w.found; i++)
			walk_byte(&w, buf[i]);
	} while (got > 0 && !w.found);
	if (w.found)
		snprintf(type, n, "%s", w.type);
}

void lfa_fuse_server(uint64_t dev, char *type, size_t n, unsigned *syscalls)
{
	struct stat64 st;
	int fd, slot;

	type[0] = '\0';
	/* Its identity, which a child forked meanwhile checks before it
	 * closes the number (job_fds.c). */
	++*syscalls;
	if (stat64("/proc/self/mountinfo", &st) != 0)
		return;
	fd = lfa_job_open("/proc/self/mountinfo", O_RDONLY | O_NOCTTY, (uint64_t)st.st_dev,
			  (uint64_t)st.st_ino, &slot, syscalls);
	if (fd < 0)
		return;
	lfa_mountinfo_type(fd, dev, type, n, syscalls);
	++*syscalls;
	lfa_job_close(fd, slot);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Reads a log written by Linux's dm-log-writes target and replays it
 * (make check-vm-power, tests/vm/guest-power.sh; issue 30):
 *   replay-log LOG list
 *   replay-log LOG apply DEV FROM TO
 * "list" prints one line per entry: its index, its flags (F flush, U FUA,
 * D discard, M mark, m metadata, - none), its first sector and its number
 * of sectors (in the log's sector size), and a mark's name.  "apply"
 * writes the entries FROM <= index < TO onto DEV (a device or an image
 * file), so that replaying 0..N then N..M gives the disk as it was after
 * entry M-1; a discard is written as zeros.
 *
 * The format, as the kernel writes it (drivers/md/dm-log-writes.c): block 0
 * of the log holds the super, little-endian: magic (u64), version (u64),
 * number of entries (u64), sector size (u32: the logical block size of the
 * logged device).  The entries follow from byte SECTORSIZE on: each one
 * block of SECTORSIZE bytes holding sector (u64), number of sectors (u64),
 * flags (u64) and data length (u64), then for a mark its name (data length
 * bytes) in the same block; then, unless it is a discard, the number of
 * sectors times SECTORSIZE bytes of the data written.  Sectors count in
 * SECTORSIZE units.  The super is rewritten at each FUA and mark, the last
 * time when the target is removed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_MAGIC UINT64_C(0x6a736677736872)
#define LOG_VERSION 1
#define F_FLUSH 1u
#define F_FUA 2u
#define F_DISCARD 4u
#define F_MARK 8u
#define F_META 16u

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void die(const char *what)
{
	fprintf(stderr, "replay-log: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void bad(const char *what)
{
	fprintf(stderr, "replay-log: %s\n", what);
	exit(1);
}

static void read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("read the log");
		if (r == 0)
			bad("the log ends inside an entry");
		done += (size_t)r;
	}
}

static void write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("write the device");
		done += (size_t)r;
	}
}

static void flag_letters(uint64_t flags, char *out)
{
	char *p = out;
	if (flags & F_FLUSH) *p++ = 'F';
	if (flags & F_FUA) *p++ = 'U';
	if (flags & F_DISCARD) *p++ = 'D';
	if (flags & F_MARK) *p++ = 'M';
	if (flags & F_META) *p++ = 'm';
	if (p == out) *p++ = '-';
	*p = 0;
}

int main(int argc, char **argv)
{
	int list;
	uint64_t from = 0, to = 0;
	int dev = -1;

	if (argc == 3 && !strcmp(argv[2], "list"))
		list = 1;
	else if (argc == 6 && !strcmp(argv[2], "apply"))
		list = 0;
	else {
		fprintf(stderr, "usage: replay-log LOG list\n"
				"       replay-log LOG apply DEV FROM TO\n");
		return 2;
	}
	int log = open(argv[1], O_RDONLY);
	if (log < 0)
		die(argv[1]);
	if (!list) {
		from = strtoull(argv[4], NULL, 10);
		to = strtoull(argv[5], NULL, 10);
		dev = open(argv[3], O_WRONLY);
		if (dev < 0)
			die(argv[3]);
	}

	unsigned char super[32];
	read_at(log, super, sizeof super, 0);
	if (le64(super) != LOG_MAGIC)
		bad("no dm-log-writes super (bad magic)");
	if (le64(super + 8) != LOG_VERSION)
		bad("unknown log version");
	uint64_t entries = le64(super + 16);
	uint32_t ss = le32(super + 24);
	if (ss < 512 || ss > 65536 || (ss & (ss - 1)))
		bad("bad sector size in the super");

	size_t bufsize = 1 << 20;
	unsigned char *block = malloc(ss), *buf = malloc(bufsize), *zeros = calloc(1, bufsize);
	if (!block || !buf || !zeros)
		die("malloc");
	uint64_t pos = ss;
	for (uint64_t i = 0; i < entries && (list || i < to); i++) {
		read_at(log, block, ss, pos);
		uint64_t sector = le64(block), nr = le64(block + 8);
		uint64_t flags = le64(block + 16), dlen = le64(block + 24);
		pos += ss;
		if (list) {
			char fl[8];
			flag_letters(flags, fl);
			printf("%" PRIu64 " %s %" PRIu64 " %" PRIu64, i, fl, sector, nr);
			if ((flags & F_MARK) && dlen) {
				if (dlen > ss - 32)
					bad("a mark longer than its block");
				printf(" %.*s", (int)dlen, (const char *)block + 32);
			}
			putchar('\n');
		}
		if (dlen && !(flags & F_MARK))
			bad("an entry with inline data (not written by 6.1 for a block device)");
		uint64_t bytes = nr * ss;
		if (flags & F_DISCARD) {
			if (!list && i >= from)
				for (uint64_t done = 0; done < bytes;) {
					size_t n = bytes - done < bufsize ? (size_t)(bytes - done) : bufsize;
					write_at(dev, zeros, n, sector * ss + done);
					done += n;
				}
			continue;
		}
		if (!list && i >= from)
			for (uint64_t done = 0; done < bytes;) {
				size_t n = bytes - done < bufsize ? (size_t)(bytes - done) : bufsize;
				read_at(log, buf, n, pos + done);
				write_at(dev, buf, n, sector * ss + done);
				done += n;
			}
		pos += bytes;
	}
	if (list && fflush(stdout))
		die("stdout");
	if (dev >= 0 && fsync(dev))
		die("fsync the device");
	return 0;
}

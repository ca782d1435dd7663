/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* A FUSE filesystem of odd files, for tests/realfs/fuse-odd-files.sh:
 *   fuse-oddfs MOUNTPOINT LOG [FUSE OPTIONS...]
 *   short  size 8192, but reads give five bytes ("hello") and then nothing,
 *          as a server that lies about its sizes;
 *   eintr  size 0; every write answers EINTR.
 * No fallocate: the kernel answers EOPNOTSUPP, and posix_fallocate
 * emulates.  Each write that reaches the server is logged to LOG ("write
 * NAME OFFSET LENGTH"), so that the test sees whether anything was
 * written.  Attributes are never cached and I/O is direct, so that every
 * fstat and read reaches the server. */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *log_path;

static int oddfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof *st);
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	st->st_mode = S_IFREG | 0644;
	st->st_nlink = 1;
	if (!strcmp(path, "/short")) {
		st->st_size = 8192;
		st->st_blocks = 16;
	} else if (strcmp(path, "/eintr")) {
		return -ENOENT;
	}
	return 0;
}

static int oddfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			 struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "short", NULL, 0, 0);
	fill(buf, "eintr", NULL, 0, 0);
	return 0;
}

static int oddfs_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/short") && strcmp(path, "/eintr"))
		return -ENOENT;
	fi->direct_io = 1;
	return 0;
}

static int oddfs_read(const char *path, char *buf, size_t n, off_t off, struct fuse_file_info *fi)
{
	static const char content[] = "hello";
	size_t have = sizeof content - 1;

	(void)fi;
	if (strcmp(path, "/short") || off >= (off_t)have)
		return 0;
	if (n > have - (size_t)off)
		n = have - (size_t)off;
	memcpy(buf, content + off, n);
	return (int)n;
}

static int oddfs_write(const char *path, const char *buf, size_t n, off_t off,
		       struct fuse_file_info *fi)
{
	FILE *f = fopen(log_path, "a");

	(void)buf, (void)fi;
	if (f) {
		fprintf(f, "write %s %lld %zu\n", path + 1, (long long)off, n);
		fclose(f);
	}
	return strcmp(path, "/eintr") ? (int)n : -EINTR;
}

static int oddfs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	FILE *f = fopen(log_path, "a");

	(void)fi;
	if (f) {
		fprintf(f, "truncate %s %lld\n", path + 1, (long long)size);
		fclose(f);
	}
	return 0;
}

static void *oddfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->direct_io = 1;
	return NULL;
}

static const struct fuse_operations oddfs_ops = {
	.init = oddfs_init,
	.getattr = oddfs_getattr,
	.readdir = oddfs_readdir,
	.open = oddfs_open,
	.read = oddfs_read,
	.write = oddfs_write,
	.truncate = oddfs_truncate,
};

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: fuse-oddfs MOUNTPOINT LOG [FUSE OPTIONS...]\n");
		return 2;
	}
	/* fuse_main takes: program name, mount point, options */
	log_path = argv[2];
	argv[2] = argv[1];
	argv[1] = argv[0];
	return fuse_main(argc - 1, argv + 1, &oddfs_ops, NULL);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The emulation's contract, checked on one real filesystem:
 *   realfs-check [-p] matrix DIR   descriptor kinds x file shapes x ranges
 *   realfs-check [-p] enospc DIR   ENOSPC part way (DIR on a small filesystem)
 *   realfs-check [-p] efbig DIR    RLIMIT_FSIZE below offset+len
 *   realfs-check native DIR        prints the kernel's answer to fallocate
 *   realfs-check [-b BACKING] [-S] [-c] fs DIR  check-fs: one line per descriptor kind
 *   realfs-check prepare-fs DIR    the files fs -c expects (overlayfs copy-up)
 *   realfs-check prepare DIR; realfs-check parity DIR  error parity (check-fs)
 *   realfs-check holes DIR         holes of an old file filled: data written and
 *                                  not synced kept, the caller's offset kept,
 *                                  a watcher sees only IN_MODIFY (ext2/3/4,
 *                                  btrfs: FIEMAP)
 * -k: first make pwritev2 fail with EOPNOTSUPP, as kernels before 6.9 do for
 * RWF_NOAPPEND, so O_APPEND descriptors take the reopened-descriptor path.
 * By default the emulation is forced through lfa_run_job(); with -p (and
 * always in the build linked with the shared library) the call is the public
 * posix_fallocate with the policy from the environment, so the emulation
 * runs only where the kernel says ENOSYS or EOPNOTSUPP.
 *
 * After each call: the error, the size (max of old size and offset+len), old
 * bytes unchanged, new bytes zero, every block of the range allocated, the
 * caller's file offset unchanged, an O_APPEND descriptor still appending.
 * Exits 0 when all passed, 1 otherwise. */
#include "realfs-util.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#ifndef REALFS_PUBLIC_ONLY
#include "emulate.h"
#endif

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)

static int use_public;
static int failures, passes;
static const char *dir;

static int allocate(int fd, int64_t off, int64_t len)
{
#ifndef REALFS_PUBLIC_ONLY
	if (!use_public) {
		struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, 0, 0, 0, 0, 0, 0, 0 };
		struct lfa_job_report rep;

		return lfa_run_job("realfs-check", fd, off, len, INT64_MAX, &opt, &rep);
	}
#endif
	return posix_fallocate(fd, (off_t)off, (off_t)len);
}

struct fd_kind {
	const char *name;
	int flags;
};

static const struct fd_kind fd_kinds[] = {
	{ "rdwr", O_RDWR },
	{ "wronly", O_WRONLY },
	{ "wronly-append", O_WRONLY | O_APPEND },
	{ "rdwr-append", O_RDWR | O_APPEND },
	{ "direct", O_RDWR | O_DIRECT },
	{ "wronly-direct", O_WRONLY | O_DIRECT },
	{ "dsync", O_RDWR | O_DSYNC },
	{ "wronly-append-dsync", O_WRONLY | O_APPEND | O_DSYNC },
};
#define N_KINDS (sizeof fd_kinds / sizeof fd_kinds[0])

static void fill_random(unsigned char *buf, size_t n, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (unsigned char)(x | 1); /* never zero: tells data from zeros */
	}
}

/* hugetlbfs has no write() and takes only sizes in whole huge pages: there
 * the shapes are made through a shared mapping, rounded up. */
#define HUGE_UNIT (2 * MiB)

static int64_t round_up(int64_t v, int64_t unit)
{
	return (v + unit - 1) / unit * unit;
}

static void put_mapped(int fd, int64_t off, const unsigned char *buf, int64_t n)
{
	struct stat st;
	unsigned char *map;
	int64_t end = round_up(off + n, HUGE_UNIT);

	if (fstat(fd, &st) != 0)
		abort();
	if (st.st_size < end && ftruncate(fd, (off_t)end) != 0)
		abort();
	map = mmap(NULL, (size_t)end, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		abort();
	memcpy(map + off, buf, (size_t)n);
	munmap(map, (size_t)end);
}

static void put(const char *path, int64_t off, int64_t n, unsigned seed)
{
	unsigned char *buf = malloc((size_t)n);
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	ssize_t w;

	if (!buf || fd < 0)
		abort();
	fill_random(buf, (size_t)n, seed);
	w = pwrite(fd, buf, (size_t)n, (off_t)off);
	if (w < 0 && errno == EINVAL)
		put_mapped(fd, off, buf, n);
	else if (w != (ssize_t)n)
		abort();
	close(fd);
	free(buf);
}

static void set_size(const char *path, int64_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0600);
	int r;

	if (fd < 0)
		abort();
	r = ftruncate(fd, (off_t)size);
	if (r != 0 && errno == EINVAL) /* hugetlbfs */
		r = ftruncate(fd, (off_t)round_up(size, HUGE_UNIT));
	if (r != 0)
		abort();
	close(fd);
}

/* File shapes: what is in the file before the call. */
enum shape { NEW, DATA, SPARSE, ZEROS, N_SHAPES };
static const char *const shape_names[] = { "new", "data", "sparse", "zero-data" };

static void make_shape(const char *path, enum shape s)
{
	unlink(path);
	set_size(path, 0);
	switch (s) {
	case NEW:
		break;
	case DATA:
		put(path, 0, MiB + 333, 1);
		break;
	case SPARSE: /* data, a hole, data, a hole reaching end of file */
		put(path, 0, 8 * KiB, 2);
		put(path, MiB + 100, 5000, 3);
		set_size(path, 3 * MiB + 777);
		break;
	case ZEROS: { /* written zeros: allocated, but they read as holes would */
		static unsigned char z[256 * 1024];
		int fd = open(path, O_RDWR);
		ssize_t w = fd < 0 ? -1 : pwrite(fd, z, sizeof z, 0);

		if (w < 0 && errno == EINVAL)
			put_mapped(fd, 0, z, sizeof z);
		else if (w != (ssize_t)sizeof z)
			abort();
		close(fd);
		put(path, sizeof z, 4096, 4);
		break;
	}
	default:
		abort();
	}
}

struct range {
	const char *name;
	int64_t off, len;
};

/* Ranges relative to the old size s; 0 length means not for this shape. */
static int make_ranges(int64_t s, struct range *r)
{
	int n = 0;

	if (s > 0) {
		r[n++] = (struct range){ "inside", s / 3 + 1, s / 3 };
		r[n++] = (struct range){ "inside-1-byte", s / 2 + 7, 1 };
	}
	r[n++] = (struct range){ "across-end", s > 5003 ? s - 5000 : s / 2, 2 * MiB + 17 };
	r[n++] = (struct range){ "beyond-end", s + 64 * KiB + 1, MiB + 3 };
	r[n++] = (struct range){ "whole-plus-5MiB", 0, ((s + 4095) & ~(int64_t)4095) + 5 * MiB };
	r[n++] = (struct range){ "beyond-aligned", ((s + MiB - 1) & ~(MiB - 1)) + MiB, MiB };
	return n;
}

static unsigned char *read_all(const char *path, int64_t size)
{
	unsigned char *buf = malloc((size_t)size + 1);
	int fd = open(path, O_RDONLY);
	int64_t pos = 0;

	if (!buf || fd < 0)
		abort();
	while (pos < size) {
		ssize_t got = pread(fd, buf + pos, (size_t)(size - pos), (off_t)pos);

		if (got <= 0)
			break;
		pos += got;
	}
	close(fd);
	if (pos != size)
		memset(buf + pos, 0xEE, (size_t)(size - pos)); /* short: cannot match */
	return buf;
}

static int64_t path_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* The last failure, for check-fs.sh's table. */
static char fail_reason[1024];

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			char msg_[512];                                    \
			snprintf(msg_, sizeof msg_, __VA_ARGS__);          \
			snprintf(fail_reason, sizeof fail_reason, "%s: %s", \
				 label, msg_);                             \
			printf("FAIL %s\n", fail_reason);                  \
			ok = 0;                                            \
			goto out;                                          \
		}                                                          \
	} while (0)

/* Content: [0, old_size) as before, the rest zero, up to want_size. */
static int64_t first_difference(const char *path, const unsigned char *old, int64_t old_size,
				int64_t want_size)
{
	unsigned char *now = read_all(path, want_size);
	int64_t i, bad = -1;

	for (i = 0; i < want_size && bad < 0; i++)
		if (now[i] != (i < old_size ? old[i] : 0))
			bad = i;
	free(now);
	return bad;
}

/* After a successful call: the caller's offset where it was, the size
 * wanted, the old bytes and zeros after them.  NULL, or what is wrong. */
static const char *result_broken(int fd, off_t pos, const char *path, const unsigned char *old,
				 int64_t old_size, int64_t want)
{
	static char why[160];
	int64_t bad;

	if (lseek(fd, 0, SEEK_CUR) != pos)
		snprintf(why, sizeof why, "caller's offset moved to %lld",
			 (long long)lseek(fd, 0, SEEK_CUR));
	else if (path_size(path) != want)
		snprintf(why, sizeof why, "size %lld, wanted %lld", (long long)path_size(path),
			 (long long)want);
	else if ((bad = first_difference(path, old, old_size, want)) >= 0)
		snprintf(why, sizeof why, "byte %lld is not what it should be (old size %lld)",
			 (long long)bad, (long long)old_size);
	else
		return NULL;
	return why;
}

/* After the call, the caller's O_APPEND descriptor still appends at the
 * end: NULL, or what went wrong. */
static const char *append_broken(int fd, const char *path, const unsigned char *old,
				 int64_t old_size, int64_t want)
{
	static char why[128];

	if (write(fd, "tail!", 5) != 5) {
		snprintf(why, sizeof why, "append write: %s", strerror(errno));
		return why;
	}
	if (path_size(path) != want + 5) {
		snprintf(why, sizeof why, "append landed elsewhere: size %lld",
			 (long long)path_size(path));
		return why;
	}
	return first_difference(path, old, old_size, want) < 0 ? NULL : "append overwrote data";
}

static int open_kind(const char *path, const struct fd_kind *k, const char *label)
{
	int fd = open(path, k->flags);

	if (fd < 0 && (k->flags & O_DIRECT) && errno == EINVAL) {
		static int said;

		if (!said++)
			printf("# %s: O_DIRECT cannot be opened here: direct cases skipped\n", dir);
		return -2;
	}
	if (fd < 0)
		printf("FAIL %s: open: %s\n", label, strerror(errno));
	return fd;
}

/* One call and every check on its result; 1 passed, 0 failed, -1 skipped. */
static int run_case(const char *path, const struct fd_kind *k, enum shape s,
		    const struct range *r)
{
	char label[256];
	unsigned char *old;
	int64_t old_size, want, pos;
	const char *how, *broken;
	int fd, err, ok = 1;

	snprintf(label, sizeof label, "%s/%s/%s off=%lld len=%lld", k->name, shape_names[s],
		 r->name, (long long)r->off, (long long)r->len);
	make_shape(path, s);
	old_size = path_size(path);
	old = read_all(path, old_size);
	want = old_size > r->off + r->len ? old_size : r->off + r->len;
	fd = open_kind(path, k, label);
	if (fd == -2) {
		free(old);
		return -1;
	}
	CHECK(fd >= 0, "no descriptor");
	pos = lseek(fd, 4321, SEEK_SET);
	err = allocate(fd, r->off, r->len);
	CHECK(err == 0, "posix_fallocate: %s", err_name(err));
	broken = result_broken(fd, pos, path, old, old_size, want);
	CHECK(!broken, "%s", broken);
	CHECK(range_allocated(path, r->off, r->off + r->len, &how), "a hole left in the range (by %s)",
	      how);
	if (k->flags & O_APPEND) {
		broken = append_broken(fd, path, old, old_size, want);
		CHECK(!broken, "%s", broken);
	}
out:
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(old);
	return ok;
}

static void tally(int r)
{
	if (r > 0)
		passes++;
	else if (r == 0)
		failures++;
}

static void matrix(void)
{
	char path[4096];
	size_t k;
	int s;
	const char *how;

	snprintf(path, sizeof path, "%s/matrix", dir);
	make_shape(path, DATA);
	printf("# %s: allocation checked by ", dir);
	range_allocated(path, 0, 4096, &how);
	printf("%s\n", how);
	for (k = 0; k < N_KINDS; k++)
		for (s = 0; s < N_SHAPES; s++) {
			struct range r[8];
			int n, i;

			make_shape(path, (enum shape)s);
			n = make_ranges(path_size(path), r);
			for (i = 0; i < n; i++)
				tally(run_case(path, &fd_kinds[k], (enum shape)s, &r[i]));
		}
	unlink(path);
}

static int64_t free_bytes(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 ? (int64_t)sf.f_bfree * (int64_t)sf.f_bsize : -1;
}

/* ext3 and ext4 hand the blocks of a removed file to the allocator only
 * when the journal commits, and a file another process still holds is
 * freed only when it lets go: a sync(2) anywhere on the machine holds
 * every file whose pages are being written back until they are written
 * (wait_sb_inodes).  A case started before then finds the filesystem
 * full, ENOSPC below the old end of file, and its old file's data may not
 * even be written; a free count taken then is too small.  So a file is
 * removed only once written back (nothing left for a sync to wait on),
 * and the next case waits, committing with syncfs, until the free space
 * is back to what it was before the first case (want), or holds still for
 * two looks 20 ms apart where that is not known (want < 0); at most 10 s. */
static int64_t settled_free_bytes(const char *path, int64_t want)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	int64_t last = -2, now = -1;
	int i;

	for (i = 0; i < 500; i++) {
		if (fd >= 0)
			(void)syncfs(fd);
		now = free_bytes(path);
		if (want < 0 ? now == last : now >= want)
			break;
		last = now;
		usleep(20000);
	}
	if (fd >= 0)
		close(fd);
	return now;
}

static void remove_written_back(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	unlink(path);
}

static int64_t fs_bytes(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 ? (int64_t)sf.f_blocks * (int64_t)sf.f_bsize : -1;
}

/* The old file: data, a hole, data, a hole up to its end at 1 MiB. */
#define ENOSPC_DATA1_END (64 * KiB)
#define ENOSPC_DATA2 (512 * KiB)
#define ENOSPC_DATA2_END (ENOSPC_DATA2 + 4096)

/* The request that cannot fit: [off, off+len) across the end of that
 * sparse file, 2 MiB more than the whole filesystem, so writes fail part
 * way however much is free and whenever freed blocks come back (a length
 * from the free count was met, with blocks freed during the call). */
static void enospc_request(const char *path, int64_t *off, int64_t *len)
{
	*off = 256 * KiB + 1;
	*len = fs_bytes(path) + 2 * MiB;
}

/* The free space before the first case, less what a removed file may
 * leave allocated for a while (directory and journal blocks): -1 unknown. */
static int64_t enospc_baseline = -1;

/* 0, or the errno of the write that failed (the filesystem still full). */
static int make_enospc_file(const char *path)
{
	unsigned char buf[4096];
	int64_t pos;
	int fd, err = 0;

	remove_written_back(path);
	(void)settled_free_bytes(dir, enospc_baseline);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return errno;
	for (pos = 0; pos < ENOSPC_DATA1_END && !err; pos += sizeof buf) {
		fill_random(buf, sizeof buf, 5 + (unsigned)pos);
		if (pwrite(fd, buf, sizeof buf, (off_t)pos) != (ssize_t)sizeof buf)
			err = errno ? errno : EIO;
	}
	fill_random(buf, sizeof buf, 6);
	if (!err && pwrite(fd, buf, sizeof buf, ENOSPC_DATA2) != (ssize_t)sizeof buf)
		err = errno ? errno : EIO;
	if (!err && ftruncate(fd, MiB) != 0)
		err = errno;
	close(fd);
	return err;
}

/* Where the data next to pos starts, by SEEK_DATA (real on ext2/3/4 and
 * tmpfs, where these cases run); -1 for none before end of file. */
static int64_t next_data(const char *path, int64_t pos)
{
	int fd = open(path, O_RDONLY);
	off_t d = fd < 0 ? -1 : lseek(fd, (off_t)pos, SEEK_DATA);

	if (fd >= 0)
		close(fd);
	return (int64_t)d;
}

static int64_t next_hole(const char *path, int64_t pos)
{
	int fd = open(path, O_RDONLY);
	off_t h = fd < 0 ? -1 : lseek(fd, (off_t)pos, SEEK_HOLE);

	if (fd >= 0)
		close(fd);
	return (int64_t)h;
}

/* The zeros written are a prefix of the range: the range is whole up to
 * the first hole, and from there up to the size nothing but the old
 * data is allocated (a job that went past a hole it could not fill would
 * have allocated something beyond it), and a file grown past its old end
 * has no hole left below it.  Where ENOSPC comes depends on what else
 * the filesystem is doing, so this holds wherever it comes.  NULL, or
 * what is wrong; *hole_at is the first hole (the size if none). */
static const char *enospc_not_prefix(const char *path, int64_t off, int64_t old_size,
				     int64_t after, int64_t *hole_at)
{
	static char why[200];
	const char *how;
	int64_t pos, d;

	*hole_at = after;
	if (range_allocated(path, off, after, &how))
		return NULL;
	pos = next_hole(path, off);
	if (pos < off || pos >= after) {
		snprintf(why, sizeof why,
			 "a hole below the new size %lld (by %s), which SEEK_HOLE does not find",
			 (long long)after, how);
		return why;
	}
	*hole_at = pos;
	if (after > old_size) {
		snprintf(why, sizeof why, "a hole at %lld below the new size %lld (by %s)",
			 (long long)pos, (long long)after, how);
		return why;
	}
	while ((d = next_data(path, pos)) >= 0 && d < after) {
		if (d < ENOSPC_DATA2 || d >= ENOSPC_DATA2_END) {
			snprintf(why, sizeof why, "ENOSPC left a hole at %lld, and %lld was written past it",
				 (long long)*hole_at, (long long)d);
			return why;
		}
		pos = next_hole(path, d);
		if (pos < 0)
			break;
	}
	return NULL;
}

/* What the kernel says when it can allocate here; 0 when it cannot try. */
static int kernel_enospc_answer(const char *path)
{
	int64_t off, len;
	int fd, err;

	if (make_enospc_file(path) != 0)
		return 0;
	fd = open(path, O_RDWR);
	enospc_request(path, &off, &len);
	err = native_fallocate(fd, 0, off, len);
	close(fd);
	remove_written_back(path);
	return err == EOPNOTSUPP || err == ENOSYS ? 0 : err;
}

/* A filler takes all but about FULL_LEFT of the free space: the job then
 * meets ENOSPC inside the old file's holes, below its end, as it does
 * when freed blocks are slow to come back.  NULL, or what failed. */
#define FULL_LEFT (192 * KiB)

static const char *fill_up(const char *filler)
{
	static unsigned char z[64 * 1024];
	int fd = open(filler, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int64_t size = 0;
	ssize_t w;

	if (fd < 0)
		return "cannot make the filler";
	while ((w = pwrite(fd, z, sizeof z, (off_t)size)) > 0)
		size += w;
	/* Written back before part of it is freed, so that the free count
	 * below is the allocator's. */
	if (errno != ENOSPC || fsync(fd) != 0 || size < FULL_LEFT ||
	    ftruncate(fd, (off_t)(size - FULL_LEFT)) != 0) {
		close(fd);
		return "cannot fill the filesystem";
	}
	close(fd);
	(void)settled_free_bytes(dir, -1);
	return NULL;
}

/* One call that cannot fit, and every check of what it left: 1, 0. */
static int enospc_case(const char *path, const struct fd_kind *k, int full, int kernel)
{
	char label[128], filler[4096];
	int64_t off, len, size, after, bad, hole_at, free_now;
	const char *broken;
	unsigned char *old = NULL;
	int fd = -1, err, ok = 1;
	off_t pos;

	snprintf(label, sizeof label, "enospc/%s%s", k->name, full ? "/nearly-full" : "");
	snprintf(filler, sizeof filler, "%s-filler", path);
	err = make_enospc_file(path);
	free_now = free_bytes(path);
	CHECK(!err, "the old file cannot be written: %s (%lld bytes free after 10 s)",
	      err_name(err), (long long)free_now);
	if (full) {
		broken = fill_up(filler);
		CHECK(!broken, "%s", broken);
		free_now = free_bytes(path);
	}
	size = path_size(path);
	old = read_all(path, size);
	fd = open_kind(path, k, label);
	if (fd == -2) {
		ok = -1;
		goto out;
	}
	CHECK(fd >= 0, "no descriptor");
	enospc_request(path, &off, &len);
	pos = lseek(fd, 777, SEEK_SET);
	err = allocate(fd, off, len);
	CHECK(err == ENOSPC || err == EDQUOT, "wanted ENOSPC, got %s (%lld bytes asked, %lld free)",
	      err_name(err), (long long)len, (long long)free_now);
	CHECK(!kernel || err == kernel, "kernel said %s, we said %s", err_name(kernel),
	      err_name(err));
	CHECK(lseek(fd, 0, SEEK_CUR) == pos, "caller's offset moved");
	/* Nothing is undone (a truncation could take another writer's
	 * bytes): the zeros written stay, a prefix of the range without
	 * holes, as ext4 keeps its blocks. */
	after = path_size(path);
	CHECK(after >= size && after <= off + len, "size %lld, was %lld",
	      (long long)after, (long long)size);
	bad = first_difference(path, old, size, after);
	CHECK(bad < 0, "byte %lld changed", (long long)bad);
	broken = enospc_not_prefix(path, off, size, after, &hole_at);
	CHECK(!broken, "%s (%lld bytes were free)", broken, (long long)free_now);
	/* Nearly full, the first hole must be met before the end, or the
	 * case tested nothing of the sort. */
	CHECK(!full || (hole_at > off && hole_at < size),
	      "ENOSPC at %lld, not inside the old holes (%lld bytes were free)",
	      (long long)hole_at, (long long)free_now);
	if (!full && hole_at < after)
		printf("# %s: ENOSPC at %lld, below the old end of file %lld (%lld bytes were free)\n",
		       label, (long long)hole_at, (long long)size, (long long)free_now);
out:
	if (fd >= 0)
		close(fd);
	if (full)
		remove_written_back(filler);
	remove_written_back(path);
	free(old);
	return ok;
}

static void enospc(void)
{
	char path[4096];
	int64_t before = settled_free_bytes(dir, -1);
	int kernel;
	size_t k;

	if (before > 256 * MiB || fs_bytes(dir) > 256 * MiB) {
		printf("FAIL %s: %lld bytes free: not a small filesystem\n", dir, (long long)before);
		failures++;
		return;
	}
	snprintf(path, sizeof path, "%s/enospc", dir);
	enospc_baseline = before - 64 * KiB;
	kernel = kernel_enospc_answer(path);
	printf("# %s: %lld bytes free; the kernel's fallocate says %s\n", dir, (long long)before,
	       kernel ? err_name(kernel) : "EOPNOTSUPP (it cannot allocate here)");
	for (k = 0; k < N_KINDS; k++)
		tally(enospc_case(path, &fd_kinds[k], 0, kernel));
	tally(enospc_case(path, &fd_kinds[0], 1, kernel));
}

/* In a child, since the limit is the process's: 1 pass, 0 fail, -1 skip. */
static int efbig_case(const char *path, const struct fd_kind *k, int64_t limit, int64_t off,
		      int64_t len, int want_err, const char *what)
{
	char label[160];
	pid_t pid;
	int status;

	snprintf(label, sizeof label, "efbig/%s/%s", k->name, what);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { (rlim_t)limit, (rlim_t)limit };
		unsigned char *old;
		int64_t size, bad;
		int fd, err, ok = 1;

		make_shape(path, SPARSE);
		size = path_size(path);
		old = read_all(path, size);
		fd = open_kind(path, k, label);
		if (fd == -2)
			_exit(3);
		CHECK(fd >= 0, "no descriptor");
		signal(SIGXFSZ, SIG_IGN);
		CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0, "setrlimit: %s", strerror(errno));
		err = allocate(fd, off, len);
		if (want_err >= 0)
			CHECK(err == want_err, "wanted %s, got %s", err_name(want_err), err_name(err));
		else
			printf("# %s: %s (the kernel allocates inside the size regardless)\n", label,
			       err_name(err));
		CHECK(path_size(path) == size, "size %lld, was %lld", (long long)path_size(path),
		      (long long)size);
		bad = first_difference(path, old, size, size);
		CHECK(bad < 0, "byte %lld changed", (long long)bad);
out:
		_exit(ok ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		printf("FAIL %s: child died\n", label);
		return 0;
	}
	unlink(path);
	return WEXITSTATUS(status) == 3 ? -1 : WEXITSTATUS(status) == 0;
}

static void efbig(void)
{
	char path[4096];
	size_t k;

	snprintf(path, sizeof path, "%s/efbig", dir);
	make_shape(path, SPARSE); /* size 3 MiB + 777, holes inside */
	for (k = 0; k < N_KINDS; k++) {
		int64_t s = path_size(path);
		const struct fd_kind *kind = &fd_kinds[k];

		tally(efbig_case(path, kind, s + 100 * KiB, s - 5000, MiB, EFBIG, "across-end"));
		tally(efbig_case(path, kind, s + 100 * KiB, s + MiB, 4096, EFBIG, "beyond-limit"));
		tally(efbig_case(path, kind, s - 4096, 4096, s, EFBIG, "limit-below-size"));
		tally(efbig_case(path, kind, MiB, 2 * MiB, MiB, -1, "inside-size-past-limit"));
		make_shape(path, SPARSE);
	}
	unlink(path);
}

/* ---- make check-fs: one filesystem, every descriptor kind ----------------
 * Each kind is one column of check-fs.sh's table, made of a few cases.
 * Where the kernel has fallocate, the same call on a twin file gives the
 * answer ours must match.  Where the filesystem's SEEK_HOLE and st_blocks
 * can be invented (FUSE, overlayfs), -b names the directory on a real
 * filesystem that holds the files served, and allocation is read there. */
enum fs_range { R_FROM0, R_BIG, R_WHOLE, R_INSIDE, R_ACROSS, R_ALIGNED, R_1BYTE };

struct fs_case {
	enum shape shape;
	enum fs_range range;
};

struct fs_kind {
	const char *name;
	int flags;
	struct fs_case cases[2];
};

static const struct fs_kind fs_kinds[] = {
	{ "rdwr", O_RDWR, { { NEW, R_FROM0 }, { DATA, R_WHOLE } } },
	{ "wronly", O_WRONLY, { { DATA, R_INSIDE }, { DATA, R_WHOLE } } },
	/* 8 MiB on an empty file, and holes inside a file: where RWF_NOAPPEND
	 * is accepted but a lower layer appends anyway, zeros meant for a hole
	 * land at the end of file. */
	{ "append", O_RDWR | O_APPEND, { { NEW, R_BIG }, { SPARSE, R_WHOLE } } },
	{ "wronly-append", O_WRONLY | O_APPEND, { { SPARSE, R_ACROSS }, { DATA, R_INSIDE } } },
	{ "direct-aligned", O_RDWR | O_DIRECT, { { NEW, R_ALIGNED }, { DATA, R_ALIGNED } } },
	{ "direct-unaligned", O_WRONLY | O_DIRECT, { { DATA, R_ACROSS }, { DATA, R_1BYTE } } },
	{ "dsync", O_RDWR | O_DSYNC, { { NEW, R_BIG }, { DATA, R_ACROSS } } },
	{ "sparse", O_RDWR, { { SPARSE, R_WHOLE }, { SPARSE, R_INSIDE } } },
	{ "straddle", O_RDWR, { { DATA, R_ACROSS }, { ZEROS, R_ACROSS } } },
};
#define N_FS_KINDS (sizeof fs_kinds / sizeof fs_kinds[0])

static const char *backing_dir; /* -b */
static int trust_blocks;        /* -S: st_blocks is the real allocation here */
/* -c: the files exist already, made by prepare-fs before an overlay was
 * mounted on their directory, so the first writable open copies them up. */
static int preset;
static int kernel_has_fallocate;
/* -N: the filesystem finds files by name (sshfs, bindfs: names_files.c),
 * so the library opens no descriptor of its own and learns the file only
 * through the caller's: a kind that would need one is refused with
 * glibc's answer, nothing changed. */
static int by_name;
static int refusals; /* cases refused so, in the kind being checked */

/* Whether the library must refuse this kind and range there: a descriptor
 * that cannot read the held file (write-only), or that cannot put a write
 * where aimed (O_APPEND, with the range reaching into the file), or that
 * reads and writes only aligned pieces (O_DIRECT, with the range reaching
 * into the file or an unaligned edge). */
static int refused_by_name(const struct fs_kind *k, const struct range *r, int64_t old_size)
{
	int reaches_in = r->off < old_size;

	return by_name && ((k->flags & O_ACCMODE) != O_RDWR ||
			   ((k->flags & O_APPEND) && reaches_in) ||
			   ((k->flags & O_DIRECT) && (reaches_in || ((r->off | (r->off + r->len)) & 4095))));
}

static struct range fs_range(enum fs_range r, int64_t s)
{
	switch (r) {
	case R_FROM0: return (struct range){ "from-0", 0, 2 * MiB + 17 };
	case R_BIG: return (struct range){ "8MiB-from-0", 0, 8 * MiB };
	case R_WHOLE: return (struct range){ "whole-plus-1MiB", 0, round_up(s, 4096) + MiB };
	case R_INSIDE: return (struct range){ "inside", s / 3 + 1, s / 3 };
	case R_ACROSS:
		return (struct range){ "across-end", s > 5003 ? s - 5000 : s / 2, 2 * MiB + 17 };
	case R_ALIGNED: return (struct range){ "aligned", MiB, 2 * MiB };
	case R_1BYTE: return (struct range){ "inside-1-byte", s / 2 + 7, 1 };
	}
	abort();
}

static void backing_path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", backing_dir, name);
}

/* st_blocks must cover the range: a weak check, for filesystems whose only
 * truthful allocation report it is (ntfs-3g; exFAT has no holes at all). */
static int blocks_cover(const char *path, int64_t len)
{
	struct stat st;

	return stat(path, &st) == 0 && (int64_t)st.st_blocks * 512 >= (len & ~(int64_t)4095);
}

/* The kernel's answer on a twin of the file, or -1 when it has no
 * fallocate here (then there is nothing to compare). */
static int kernel_answer(const char *twin, const struct fs_kind *k, enum shape s,
			 const struct range *r, int64_t *size_after, int *reserved)
{
	char back[4096];
	const char *how;
	int fd, err;

	*size_after = -1;
	*reserved = 0;
	if (!kernel_has_fallocate)
		return -1;
	if (!preset)
		make_shape(twin, s);
	fd = open(twin, k->flags);
	if (fd < 0)
		return -2;
	err = native_fallocate(fd, 0, r->off, r->len);
	/* whether its 0 reserved the range (SMB with a lease: not) */
	if (!err && fsync(fd) == 0) {
		if (backing_dir)
			backing_path(back, sizeof back, strrchr(twin, '/') + 1);
		*reserved = range_allocated(backing_dir ? back : twin, r->off, r->off + r->len, &how);
	}
	close(fd);
	*size_after = path_size(twin);
	unlink(twin);
	return err;
}

/* One case; 1 passed, 0 failed (the reason in why), -1 skipped. */
static int fs_case(const struct fs_kind *k, const struct fs_case *c, char *why, size_t whylen)
{
	char path[4096], twin[4096], back[4096], label[256];
	unsigned char *old = NULL;
	int64_t old_size, want, pos, kernel_size;
	struct range r;
	const char *how, *broken;
	int fd = -1, err, kernel, kernel_reserved, ok = 1;

	snprintf(path, sizeof path, "%s/fs-%s-%d", dir, k->name, (int)(c - k->cases));
	snprintf(twin, sizeof twin, "%s/fs-%s-%d.kernel", dir, k->name, (int)(c - k->cases));
	if (!preset)
		make_shape(path, c->shape);
	old_size = path_size(path);
	r = fs_range(c->range, old_size);
	snprintf(label, sizeof label, "%s/%s/%s off=%lld len=%lld", k->name,
		 shape_names[c->shape], r.name, (long long)r.off, (long long)r.len);
	snprintf(why, whylen, "%s", label);
	kernel = kernel_answer(twin, k, c->shape, &r, &kernel_size, &kernel_reserved);
	old = read_all(path, old_size);
	want = old_size > r.off + r.len ? old_size : r.off + r.len;
	fd = open(path, k->flags);
	if (fd < 0 && (k->flags & O_DIRECT) && errno == EINVAL) {
		snprintf(why, whylen, "open(O_DIRECT): EINVAL, this filesystem refuses it");
		ok = -1;
		goto out;
	}
	CHECK(fd >= 0, "open: %s", strerror(errno));
	pos = lseek(fd, 4321, SEEK_SET);
	errno = EDOM; /* posix_fallocate(3lfa): errno keeps its value on every path */
	err = allocate(fd, r.off, r.len);
	CHECK(errno == EDOM, "errno changed to %s", err_name(errno));
	/* Where the kernel said 0 too and reserved nothing (SMB with a
	 * lease), the library, unable to emulate through this descriptor,
	 * lets that 0 stand (reported: LFA_NOTE_UNRESERVED), the kernel's
	 * size with it.  The emulation meets the file as the kernel's 0 left
	 * it: grown, so that a growth became a fill.  Where the kernel said
	 * EOPNOTSUPP for this range (SMB: a large one inside a sparse file),
	 * the refusal is the emulation's, as with no fallocate at all. */
	if (refused_by_name(k, &r, kernel == 0 ? want : old_size) &&
	    (kernel < 0 || kernel == EOPNOTSUPP || kernel == ENOSYS ||
	     (kernel == 0 && !kernel_reserved && err == 0))) {
		unsigned char *now = read_all(path, old_size);
		int64_t size = path_size(path);
		int same = (size == old_size || (!err && size == kernel_size)) &&
			   !memcmp(now, old, (size_t)old_size);

		free(now);
		CHECK(err == EBADF || ((k->flags & O_DIRECT) && err == EINVAL) ||
		      (kernel == 0 && !kernel_reserved && !err),
		      "returned %s where the file is found by name (wanted glibc's EBADF%s)",
		      err_name(err), (k->flags & O_DIRECT) ? " or EINVAL" : "");
		CHECK(same, "refused (%s) after changing the file", err_name(err));
		refusals++;
		goto out;
	}
	/* The kernel's EOPNOTSUPP for this call (SMB: a large range inside a
	 * sparse file) is what the emulation is for. */
	if (kernel >= 0 && kernel != EOPNOTSUPP && kernel != ENOSYS) {
		CHECK(err == kernel, "returned %s, the kernel %s", err_name(err), err_name(kernel));
		CHECK(kernel_size == path_size(path), "size %lld, the kernel's %lld",
		      (long long)path_size(path), (long long)kernel_size);
	}
	CHECK(err == 0, "posix_fallocate: %s", err_name(err));
	broken = result_broken(fd, pos, path, old, old_size, want);
	CHECK(!broken, "%s", broken);
	if (backing_dir) {
		/* What FUSE or overlayfs passed down must have reached the
		 * backing file before it is looked at there. */
		CHECK(fsync(fd) == 0, "fsync: %s", strerror(errno));
		backing_path(back, sizeof back, strrchr(path, '/') + 1);
		CHECK(path_size(back) == want, "backing file's size %lld, wanted %lld",
		      (long long)path_size(back), (long long)want);
		CHECK(range_allocated(back, r.off, r.off + r.len, &how),
		      "a hole left in the backing file's range (by %s)", how);
	} else if (trust_blocks) {
		CHECK(blocks_cover(path, r.len), "st_blocks does not cover the range");
	} else {
		CHECK(range_allocated(path, r.off, r.off + r.len, &how),
		      "a hole left in the range (by %s)", how);
	}
	if (k->flags & O_APPEND) {
		broken = append_broken(fd, path, old, old_size, want);
		CHECK(!broken, "%s", broken);
	}
out:
	if (ok == 0)
		snprintf(why, whylen, "%s", fail_reason);
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(old);
	return ok;
}

/* Prints one line per kind for check-fs.sh:
 *   KIND name PASS|FAIL|SKIP reason */
static void fs_matrix(void)
{
	const char *how = "nothing";
	char path[4096];
	size_t k;
	int err;
	int fd;

	snprintf(path, sizeof path, "%s/fs-probe", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	err = fd < 0 ? errno : native_fallocate(fd, 0, 0, 4096);
	if (fd >= 0)
		close(fd);
	kernel_has_fallocate = err != EOPNOTSUPP && err != ENOSYS;
	make_shape(path, DATA);
	if (backing_dir) {
		char back[4096];

		backing_path(back, sizeof back, "fs-probe");
		range_allocated(back, 0, 4096, &how);
		printf("# %s: allocation read on the backing file in %s, by %s\n", dir,
		       backing_dir, how);
	} else if (trust_blocks) {
		printf("# %s: allocation checked by st_blocks\n", dir);
	} else {
		range_allocated(path, 0, 4096, &how);
		printf("# %s: allocation checked by %s\n", dir, how);
	}
	unlink(path);
	printf("# %s: the kernel's fallocate says %s%s\n", dir, err_name(err),
	       kernel_has_fallocate ? ": ours is compared with it" : "");
	for (k = 0; k < N_FS_KINDS; k++) {
		char why[1024], skipped[1024] = "";
		int c, n_pass = 0, n_fail = 0;

		refusals = 0;
		for (c = 0; c < 2; c++) {
			int r = fs_case(&fs_kinds[k], &fs_kinds[k].cases[c], why, sizeof why);

			tally(r);
			if (r > 0)
				n_pass++;
			else if (r == 0 && n_fail++ == 0)
				printf("KIND %s FAIL %s\n", fs_kinds[k].name, why);
			else if (r < 0)
				snprintf(skipped, sizeof skipped, "%s", why);
		}
		if (n_fail)
			continue;
		if (n_pass && refusals)
			printf("KIND %s PASS %d cases, %d refused before any write (found by name)\n",
			       fs_kinds[k].name, n_pass, refusals);
		else if (n_pass)
			printf("KIND %s PASS %d cases\n", fs_kinds[k].name, n_pass);
		else
			printf("KIND %s SKIP %s\n", fs_kinds[k].name, skipped);
	}
}

/* ---- error parity (hugetlbfs, read-only filesystems) ---------------------
 * prepare DIR writes each kind's file and its twin (before a read-only
 * remount, or into a squashfs/erofs source tree); parity DIR then makes the
 * kind's call with the kernel's fallocate on the twin and with ours on the
 * file: the same error, and nothing written.  Where the kernel succeeds
 * (hugetlbfs) ours must succeed too, or fail having changed nothing. */
static void prepare(void)
{
	char path[4096];
	size_t k;

	for (k = 0; k < N_FS_KINDS; k++) {
		snprintf(path, sizeof path, "%s/p-%s", dir, fs_kinds[k].name);
		make_shape(path, fs_kinds[k].cases[0].shape);
		snprintf(path, sizeof path, "%s/p-%s.kernel", dir, fs_kinds[k].name);
		make_shape(path, fs_kinds[k].cases[0].shape);
	}
}

/* The files of fs -c: every case's file and its twin, as fs_case names them. */
static void prepare_fs(void)
{
	char path[4096];
	size_t k;
	int c;

	for (k = 0; k < N_FS_KINDS; k++)
		for (c = 0; c < 2; c++) {
			snprintf(path, sizeof path, "%s/fs-%s-%d", dir, fs_kinds[k].name, c);
			make_shape(path, fs_kinds[k].cases[c].shape);
			snprintf(path, sizeof path, "%s/fs-%s-%d.kernel", dir, fs_kinds[k].name, c);
			make_shape(path, fs_kinds[k].cases[c].shape);
		}
}

/* On a read-only filesystem a descriptor open for writing cannot exist:
 * the same kind opened read-only is what a caller can have. */
static int open_parity(const char *path, int flags, int *downgraded)
{
	int fd = open(path, flags);

	*downgraded = 0;
	if (fd < 0 && errno == EROFS) {
		*downgraded = 1;
		fd = open(path, (flags & ~O_ACCMODE) | O_RDONLY);
	}
	return fd;
}

static int64_t path_blocks(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int64_t)st.st_blocks : -1;
}

/* LIBFALLOCATE_EMULATION=always, as the library reads it. */
static int forced_by_env(void)
{
	const char *e = getenv("LIBFALLOCATE_EMULATION");

	return e && !strcmp(e, "always");
}

static int parity_case(const struct fs_kind *k, char *why, size_t whylen)
{
	char path[4096], twin[4096], label[256];
	unsigned char *old = NULL;
	int64_t old_size, old_blocks, bad, want;
	struct range r;
	int fd = -1, fdk = -1, kernel, err, down, i, ok = 1;
	/* the kind's own call, then calls every kernel refuses */
	int64_t offs[3], lens[3];

	snprintf(path, sizeof path, "%s/p-%s", dir, k->name);
	snprintf(twin, sizeof twin, "%s/p-%s.kernel", dir, k->name);
	old_size = path_size(path);
	old_blocks = path_blocks(path);
	r = fs_range(k->cases[0].range, old_size);
	offs[0] = r.off, lens[0] = r.len;
	offs[1] = r.off, lens[1] = 0;   /* EINVAL */
	offs[2] = -4096, lens[2] = 4096; /* EINVAL */
	snprintf(label, sizeof label, "%s", k->name);
	old = read_all(path, old_size);
	fdk = open_parity(twin, k->flags, &down);
	fd = open_parity(path, k->flags, &down);
	if (fd < 0 && fdk < 0 && (k->flags & O_DIRECT) && errno == EINVAL) {
		snprintf(why, whylen, "open(O_DIRECT): EINVAL, this filesystem refuses it");
		ok = -1;
		goto out;
	}
	CHECK(fd >= 0 && fdk >= 0, "open: %s", strerror(errno));
	for (i = 2; i >= 0; i--) { /* the refused calls first: the file is intact */
		kernel = native_fallocate(fdk, 0, offs[i], lens[i]);
		errno = EDOM;
		err = allocate(fd, offs[i], lens[i]);
		CHECK(errno == EDOM, "off=%lld len=%lld: errno changed to %s", (long long)offs[i],
		      (long long)lens[i], err_name(errno));
		want = old_size > offs[i] + lens[i] ? old_size : offs[i] + lens[i];
		if (kernel || err) {
			/* Only the emulation may fail where the kernel
			 * allocates (it cannot write on hugetlbfs). */
			CHECK(err == kernel || (kernel == 0 && forced_by_env()),
			      "off=%lld len=%lld: %s, the kernel %s", (long long)offs[i],
			      (long long)lens[i], err_name(err), err_name(kernel));
			CHECK(path_size(path) == old_size, "off=%lld len=%lld: %s, but size %lld, was %lld",
			      (long long)offs[i], (long long)lens[i], err_name(err),
			      (long long)path_size(path), (long long)old_size);
			bad = first_difference(path, old, old_size, old_size);
			CHECK(bad < 0, "off=%lld len=%lld: %s, but byte %lld changed",
			      (long long)offs[i], (long long)lens[i], err_name(err), (long long)bad);
			CHECK(path_blocks(path) == old_blocks, "off=%lld len=%lld: %s, but st_blocks %lld, was %lld",
			      (long long)offs[i], (long long)lens[i], err_name(err),
			      (long long)path_blocks(path), (long long)old_blocks);
			if (i == 0)
				snprintf(why, whylen, "%s%s from both", down ? "opened read-only (EROFS), " : "",
					 err_name(kernel ? kernel : err));
			if (i == 0 && kernel == 0)
				snprintf(why, whylen, "the kernel allocates; ours %s, nothing changed",
					 err_name(err));
		} else {
			CHECK(path_size(path) == want, "size %lld, wanted %lld",
			      (long long)path_size(path), (long long)want);
			bad = first_difference(path, old, old_size, want);
			CHECK(bad < 0, "byte %lld is not what it should be", (long long)bad);
			snprintf(why, whylen, "0 from both");
		}
	}
out:
	if (ok == 0)
		snprintf(why, whylen, "%s", fail_reason);
	if (fd >= 0)
		close(fd);
	if (fdk >= 0)
		close(fdk);
	free(old);
	return ok;
}

static void parity(void)
{
	size_t k;

	for (k = 0; k < N_FS_KINDS; k++) {
		char why[1024];
		int r = parity_case(&fs_kinds[k], why, sizeof why);

		tally(r);
		printf("KIND %s %s %s\n", fs_kinds[k].name, r > 0 ? "PASS" : r ? "SKIP" : "FAIL",
		       why);
	}
}

static int native(void)
{
	char path[4096];
	int fd, err;

	snprintf(path, sizeof path, "%s/native-probe", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	err = native_fallocate(fd, 0, 0, 4096);
	close(fd);
	unlink(path);
	printf("%s\n", err_name(err));
	return 0;
}

/* An old kernel's pwritev2: RWF_NOAPPEND is an unknown flag there.  A raw
 * filter on this ABI's syscall number (no libseccomp needed). */
static int refuse_pwritev2(void)
{
#ifdef SYS_pwritev2
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pwritev2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EOPNOTSUPP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0)
		return 0;
#endif
	return -1;
}

/* One check of holes(): prints FAIL and counts it, or counts a pass. */
static void holes_expect(int ok, const char *what)
{
	if (ok) {
		passes++;
		return;
	}
	failures++;
	printf("FAIL holes %s: %s\n", dir, what);
}

/* What FIEMAP says of data not yet synced: FIEMAP_EXTENT_DELALLOC (0x4)
 * where it has no block on disk yet, for the log. */
static void print_unsynced_flags(int fd, int64_t off)
{
	struct {
		struct fiemap map;
		struct fiemap_extent extent[1];
	} l;

	memset(&l, 0, sizeof l);
	l.map.fm_start = (uint64_t)off;
	l.map.fm_length = 1;
	l.map.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &l.map) == 0 && l.map.fm_mapped_extents == 1)
		printf("# holes %s: data not synced yet: an extent, flags %#x\n", dir,
		       l.extent[0].fe_flags);
	else
		printf("# holes %s: data not synced yet: no extent (%s)\n", dir, strerror(errno));
}

/* Holes of an old file, with data another write left in the page cache
 * only (a delayed allocation on ext4, xfs and btrfs: no block on disk yet)
 * inside the range: that data stays, every hole is allocated, the
 * caller's offset stays where it was, and where FIEMAP is believed a
 * watcher sees only IN_MODIFY (no reopen through /proc, whose IN_OPEN and
 * IN_CLOSE_WRITE sync daemons take for "the file is complete"). */
static void holes(void)
{
	const int64_t size = 16 * MiB, unsynced = 5 * MiB + 100;
	unsigned char *want = calloc(1, (size_t)size), *got = malloc((size_t)size);
	char path[4096], buf[4096] __attribute__((aligned(8)));
	int fd, in, err;
	uint32_t seen = 0;
	ssize_t n, i;
	const char *how;
	struct statfs sf;

	snprintf(path, sizeof path, "%s/holes", dir);
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (!want || !got || fd < 0 || ftruncate(fd, size) != 0) {
		holes_expect(0, "cannot make the file");
		return;
	}
	fill_random(want, 8192, 31);
	fill_random(want + unsynced, 12288, 32);
	fill_random(want + size - 4096, 4096, 33);
	if (pwrite(fd, want, 8192, 0) != 8192 || fsync(fd) != 0 ||
	    pwrite(fd, want + unsynced, 12288, unsynced) != 12288 ||
	    pwrite(fd, want + size - 4096, 4096, size - 4096) != 4096 ||
	    lseek(fd, 777, SEEK_SET) != 777) {
		holes_expect(0, "cannot write the old data");
		return;
	}
	print_unsynced_flags(fd, unsynced);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (in < 0 || inotify_add_watch(in, path, IN_ALL_EVENTS) < 0)
		holes_expect(0, "no inotify watch");
	err = allocate(fd, 4096, size - 4096);
	holes_expect(err == 0, strerror(err));
	holes_expect(lseek(fd, 0, SEEK_CUR) == 777, "the caller's offset moved");
	while (in >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		for (i = 0; i < n; i += (ssize_t)sizeof(struct inotify_event) +
					((struct inotify_event *)(buf + i))->len)
			seen |= ((struct inotify_event *)(buf + i))->mask;
	if (in >= 0)
		close(in);
	printf("# holes %s: inotify events %#x (IN_MODIFY is %#x)\n", dir, seen, IN_MODIFY);
	/* Only where FIEMAP is believed: xfs's misses data in the
	 * copy-on-write fork, and the engine reopens there for SEEK_DATA. */
	if (statfs(path, &sf) == 0 &&
	    ((uint32_t)sf.f_type == 0xEF53 || (uint32_t)sf.f_type == 0x9123683E))
		holes_expect(!(seen & ~(uint32_t)IN_MODIFY) && (seen & IN_MODIFY),
			     "inotify events other than IN_MODIFY");
	holes_expect(pread(fd, got, (size_t)size, 0) == size && !memcmp(got, want, (size_t)size),
		     "the bytes are not the old data and zeros");
	holes_expect(range_allocated(path, 0, size, &how) == 1, "a hole is left");
	close(fd);
	unlink(path);
	free(want), free(got);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} modes[] = {
		{ "matrix", matrix }, { "enospc", enospc },     { "efbig", efbig },
		{ "fs", fs_matrix },  { "prepare", prepare },   { "prepare-fs", prepare_fs },
		{ "parity", parity }, { "holes", holes },
	};
	const char *mode;
	size_t m;
	int old_kernel = 0;

	unsetenv("LIBFALLOCATE_EMULATE_FALLOCATE"); /* fallocate() is the kernel's */
#ifdef REALFS_PUBLIC_ONLY
	use_public = 1;
#endif
	for (; argc > 1 && argv[1][0] == '-'; argv++, argc--) {
		if (!strcmp(argv[1], "-p"))
			use_public = 1;
		else if (!strcmp(argv[1], "-k"))
			old_kernel = 1;
		else if (!strcmp(argv[1], "-S"))
			trust_blocks = 1;
		else if (!strcmp(argv[1], "-c"))
			preset = 1;
		else if (!strcmp(argv[1], "-N"))
			by_name = 1;
		else if (!strcmp(argv[1], "-b") && argc > 2) {
			backing_dir = argv[2];
			argv++, argc--;
		} else
			break;
	}
	if (old_kernel && refuse_pwritev2() != 0) {
		printf("SKIP: cannot install a seccomp filter for pwritev2\n");
		return 77;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: realfs-check [-p] [-k] [-S] [-c] [-N] [-b BACKING_DIR] "
			"matrix|enospc|efbig|native|fs|prepare|prepare-fs|parity|holes DIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	mode = argv[1];
	dir = argv[2];
	if (!strcmp(mode, "native"))
		return native();
	for (m = 0; m < sizeof modes / sizeof modes[0] && strcmp(mode, modes[m].name); m++)
		;
	if (m == sizeof modes / sizeof modes[0]) {
		fprintf(stderr, "realfs-check: unknown mode %s\n", mode);
		return 2;
	}
	modes[m].run();
	if (!strncmp(mode, "prepare", 7))
		return 0;
	printf("# %s %s (%s%s): %d passed, %d failed\n", mode, dir,
	       use_public ? "public posix_fallocate" : "lfa_run_job, emulation forced",
	       old_kernel ? "; pwritev2 refused" : "", passes, failures);
	return failures ? 1 : 0;
}

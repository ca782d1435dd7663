/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* realfs-check enospc and efbig: ENOSPC part way through a call, and
 * RLIMIT_FSIZE below offset + len. */
#include "realfs-check.h"

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

void enospc(void)
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
	for (k = 0; k < n_fd_kinds; k++)
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

void efbig(void)
{
	char path[4096];
	size_t k;

	snprintf(path, sizeof path, "%s/efbig", dir);
	make_shape(path, SPARSE); /* size 3 MiB + 777, holes inside */
	for (k = 0; k < n_fd_kinds; k++) {
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


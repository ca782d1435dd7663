/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* realfs-check fs, prepare, prepare-fs, parity and holes: make check-fs's
 * table (one filesystem, every descriptor kind), error parity, and the
 * holes of an old file filled. */
#include "realfs-check.h"

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

const char *backing_dir; /* -b */
int trust_blocks;        /* -S: st_blocks is the real allocation here */
/* -c: the files exist already, made by prepare-fs before an overlay was
 * mounted on their directory, so the first writable open copies them up. */
int preset;
static int kernel_has_fallocate;
/* -N: the filesystem finds files by name (sshfs, bindfs: names_files.c),
 * so the library opens no descriptor of its own and learns the file only
 * through the caller's: a kind that would need one is refused with
 * glibc's answer, nothing changed. */
int by_name;
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
void fs_matrix(void)
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
void prepare(void)
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
void prepare_fs(void)
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

void parity(void)
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
void holes(void)
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


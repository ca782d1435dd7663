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
#include "realfs-check.h"

int use_public;
int failures, passes;
const char *dir;

int allocate(int fd, int64_t off, int64_t len)
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

const struct fd_kind fd_kinds[] = {
	{ "rdwr", O_RDWR },
	{ "wronly", O_WRONLY },
	{ "wronly-append", O_WRONLY | O_APPEND },
	{ "rdwr-append", O_RDWR | O_APPEND },
	{ "direct", O_RDWR | O_DIRECT },
	{ "wronly-direct", O_WRONLY | O_DIRECT },
	{ "dsync", O_RDWR | O_DSYNC },
	{ "wronly-append-dsync", O_WRONLY | O_APPEND | O_DSYNC },
};
const size_t n_fd_kinds = sizeof fd_kinds / sizeof fd_kinds[0];

void fill_random(unsigned char *buf, size_t n, unsigned seed)
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
int64_t round_up(int64_t v, int64_t unit)
{
	return (v + unit - 1) / unit * unit;
}

void put_mapped(int fd, int64_t off, const unsigned char *buf, int64_t n)
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

void put(const char *path, int64_t off, int64_t n, unsigned seed)
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

void set_size(const char *path, int64_t size)
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
const char *const shape_names[] = { "new", "data", "sparse", "zero-data" };

void make_shape(const char *path, enum shape s)
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

/* Ranges relative to the old size s; 0 length means not for this shape. */
int make_ranges(int64_t s, struct range *r)
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

unsigned char *read_all(const char *path, int64_t size)
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

int64_t path_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* The last failure, for check-fs.sh's table. */
char fail_reason[1024];

/* Content: [0, old_size) as before, the rest zero, up to want_size. */
int64_t first_difference(const char *path, const unsigned char *old, int64_t old_size,
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
const char *result_broken(int fd, off_t pos, const char *path, const unsigned char *old,
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
const char *append_broken(int fd, const char *path, const unsigned char *old,
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

int open_kind(const char *path, const struct fd_kind *k, const char *label)
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
int run_case(const char *path, const struct fd_kind *k, enum shape s,
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

void tally(int r)
{
	if (r > 0)
		passes++;
	else if (r == 0)
		failures++;
}

void matrix(void)
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
	for (k = 0; k < n_fd_kinds; k++)
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

int native(void)
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

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Differential fuzzer: the emulation against the kernel's own fallocate.
 *   fuzz [-n OPS] [-s SEED] [-k SEEDS] [-v] NATIVE_DIR EMUL_DIR
 *   fuzz -r OPS_FILE NATIVE_DIR EMUL_DIR
 * Each seed drives OPS random operations (writes of random data, truncates,
 * hole punches, posix_fallocate calls) on two files: one in NATIVE_DIR,
 * where the kernel allocates, the other in EMUL_DIR, allocated by the
 * emulation (forced; or, where the kernel declines, as posix_fallocate falls
 * back to it).  After every operation both files have the same size and
 * bytes, and right after an allocation the emulated range has no hole.  The
 * allocating descriptor varies: O_RDWR, O_WRONLY, O_APPEND, O_DIRECT,
 * O_DSYNC.  A divergence prints the operations so far, in the format -r
 * replays, and writes them to fuzz-SEED.ops.  Exits 0, 1 on divergence,
 * 77 when NATIVE_DIR cannot fallocate. */
#include "realfs-util.h"

#include <inttypes.h>

#include "emulate.h"

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define MAX_SIZE (6 * MiB)
#define MAX_OPS 1000000

struct op {
	char kind;     /* w write, t truncate, p punch, f allocate */
	int64_t a, b;  /* offset and length, or the new size */
	unsigned arg;  /* w: data seed; f: descriptor kind */
};

static const int alloc_flags[] = {
	O_RDWR, O_WRONLY, O_WRONLY | O_APPEND, O_RDWR | O_APPEND,
	O_RDWR | O_DIRECT, O_WRONLY | O_DIRECT, O_RDWR | O_DSYNC,
};
#define N_ALLOC_KINDS (sizeof alloc_flags / sizeof alloc_flags[0])
static const char *const alloc_names[] = {
	"rdwr", "wronly", "wronly-append", "rdwr-append", "direct", "wronly-direct", "dsync",
};

static char native_path[4096], emul_path[4096];
static int native_fd, emul_fd;
static enum lfa_emulation_policy policy;
static int verbose, direct_ok = 1;
static struct op *ops;
static unsigned char *buf_a, *buf_b, *data;
static uint64_t total_ops, total_allocs, total_emulated_bytes;

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static int64_t below(int64_t n)
{
	return n <= 0 ? 0 : (int64_t)(next() % (uint64_t)n);
}

static int64_t size_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* Offsets that matter: block and sector boundaries, the end of file, and
 * anything at all. */
static int64_t pick_offset(int64_t size)
{
	int64_t span = size + 512 * KiB;

	switch (next() % 6) {
	case 0: return below(span / 4096 + 1) * 4096;
	case 1: return below(span / 512 + 1) * 512;
	case 2: return size > 0 ? size - 1 - below(size < 9000 ? size : 9000) : 0;
	case 3: return size + below(70000);
	default: return below(span);
	}
}

static int64_t pick_length(void)
{
	switch (next() % 16) {
	case 0: case 1: return 1 + below(16);
	case 2: case 3: return 4096 * (1 + below(64));
	case 4: return 4 * MiB - 8192 + below(16384); /* the engine's 4 MiB chunks */
	case 5: return 1 + below(MAX_SIZE);
	default: return 1 + below(300 * KiB);
	}
}

static struct op random_op(void)
{
	int64_t size = size_of(native_fd);
	struct op o = { 0, 0, 0, 0 };
	unsigned r = (unsigned)(next() % 100);

	if (r < 35) {
		o.kind = 'w';
		o.a = pick_offset(size);
		o.b = 1 + below(next() % 4 ? 64 * KiB : 512 * KiB);
		o.arg = (unsigned)next();
	} else if (r < 45) {
		o.kind = 't';
		o.a = next() % 3 ? below(size + 1) : pick_offset(size);
	} else if (r < 60) {
		o.kind = 'p';
		o.a = pick_offset(size);
		o.b = pick_length();
	} else {
		o.kind = 'f';
		o.a = pick_offset(size);
		o.b = pick_length();
		/* O_DSYNC is slow on purpose: a few of them only. */
		o.arg = (unsigned)(next() % (N_ALLOC_KINDS * 4 - 3));
		if (o.arg >= N_ALLOC_KINDS)
			o.arg %= N_ALLOC_KINDS - 1;
	}
	/* Keep the files modest. */
	if (o.kind != 't' && o.a + o.b > MAX_SIZE) {
		o.a %= MAX_SIZE / 2;
		if (o.a + o.b > MAX_SIZE)
			o.b = MAX_SIZE - o.a;
	}
	if (o.kind == 't' && o.a > MAX_SIZE)
		o.a = MAX_SIZE;
	return o;
}

static void print_op(FILE *f, const struct op *o)
{
	fprintf(f, "%c %" PRId64 " %" PRId64 " %u", o->kind, o->a, o->b, o->arg);
	if (o->kind == 'f')
		fprintf(f, "  # posix_fallocate on %s", alloc_names[o->arg]);
	fprintf(f, "\n");
}

static void fill_random(unsigned char *buf, size_t n, unsigned seed)
{
	uint32_t x = seed | 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (unsigned char)x;
		if ((x >> 8) % 7 == 0)
			buf[i] = 0; /* zeros in data: they must not pass for holes */
	}
}

static int write_both(const struct op *o)
{
	fill_random(data, (size_t)o->b, o->arg);
	if (pwrite(native_fd, data, (size_t)o->b, (off_t)o->a) != (ssize_t)o->b ||
	    pwrite(emul_fd, data, (size_t)o->b, (off_t)o->a) != (ssize_t)o->b) {
		printf("pwrite: %s\n", strerror(errno));
		return 0;
	}
	return 1;
}

static int truncate_both(const struct op *o)
{
	if (ftruncate(native_fd, (off_t)o->a) != 0 || ftruncate(emul_fd, (off_t)o->a) != 0) {
		printf("ftruncate: %s\n", strerror(errno));
		return 0;
	}
	return 1;
}

/* A punched range reads as zero: where punching is unsupported (ramfs),
 * writing zeros within the size leaves the same bytes. */
static int punch(int fd, int64_t off, int64_t len)
{
	int64_t size = size_of(fd), end = off + len < size ? off + len : size;
	int err = native_fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len);

	if (err != EOPNOTSUPP)
		return err;
	memset(data, 0, (size_t)len);
	if (off < end && pwrite(fd, data, (size_t)(end - off), (off_t)off) != end - off)
		return errno;
	return 0;
}

static int punch_both(const struct op *o)
{
	int ea = punch(native_fd, o->a, o->b), eb = punch(emul_fd, o->a, o->b);

	if (ea || eb) {
		printf("punch: native %s, emulated side %s\n", err_name(ea), err_name(eb));
		return 0;
	}
	return 1;
}

static int allocate_both(const struct op *o)
{
	struct lfa_job_options opt = { policy, 0, 0 };
	struct lfa_job_report rep;
	int flags = alloc_flags[o->arg], ea, eb, fd;
	const char *how;
	off_t pos;

	ea = native_fallocate(native_fd, 0, o->a, o->b);
	if ((flags & O_DIRECT) && !direct_ok)
		flags = (flags & ~O_DIRECT);
	fd = open(emul_path, flags);
	if (fd < 0 && (flags & O_DIRECT) && errno == EINVAL) {
		direct_ok = 0;
		fd = open(emul_path, flags & ~O_DIRECT);
	}
	if (fd < 0) {
		printf("open %s: %s\n", emul_path, strerror(errno));
		return 0;
	}
	pos = lseek(fd, 1234, SEEK_SET);
	eb = lfa_run_job("fuzz", fd, o->a, o->b, INT64_MAX, &opt, &rep);
	if (lseek(fd, 0, SEEK_CUR) != pos) {
		printf("the caller's file offset moved\n");
		close(fd);
		return 0;
	}
	close(fd);
	total_allocs++;
	total_emulated_bytes += rep.bytes_written;
	if (ea != eb || !rep.emulated) {
		printf("kernel said %s, emulation %s (emulated: %d)\n", err_name(ea), err_name(eb),
		       rep.emulated);
		return 0;
	}
	if (!eb && !range_allocated(emul_path, o->a, o->a + o->b, &how)) {
		printf("the emulated range has a hole (by %s)\n", how);
		return 0;
	}
	return 1;
}

static int64_t read_whole(int fd, unsigned char *buf, int64_t size)
{
	int64_t pos = 0;

	while (pos < size) {
		ssize_t got = pread(fd, buf + pos, (size_t)(size - pos), (off_t)pos);

		if (got <= 0)
			break;
		pos += got;
	}
	return pos;
}

static int same_files(void)
{
	int64_t sa = size_of(native_fd), sb = size_of(emul_fd), i;

	if (sa != sb) {
		printf("sizes differ: native %" PRId64 ", emulated %" PRId64 "\n", sa, sb);
		return 0;
	}
	if (read_whole(native_fd, buf_a, sa) != sa || read_whole(emul_fd, buf_b, sb) != sb) {
		printf("short read\n");
		return 0;
	}
	if (memcmp(buf_a, buf_b, (size_t)sa) == 0)
		return 1;
	for (i = 0; buf_a[i] == buf_b[i]; i++)
		;
	printf("byte %" PRId64 " differs: native %u, emulated %u\n", i, buf_a[i], buf_b[i]);
	return 0;
}

static int apply(const struct op *o)
{
	switch (o->kind) {
	case 'w': return write_both(o);
	case 't': return truncate_both(o);
	case 'p': return punch_both(o);
	case 'f': return allocate_both(o);
	}
	printf("unknown operation %c\n", o->kind);
	return 0;
}

static void open_files(void)
{
	unlink(native_path);
	unlink(emul_path);
	native_fd = open(native_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	emul_fd = open(emul_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (native_fd < 0 || emul_fd < 0) {
		perror("open");
		exit(99);
	}
}

static void close_files(void)
{
	close(native_fd);
	close(emul_fd);
	unlink(native_path);
	unlink(emul_path);
}

static void report_divergence(const char *name, int n)
{
	char path[64];
	FILE *f;
	int i;

	snprintf(path, sizeof path, "fuzz-%s.ops", name);
	f = fopen(path, "w");
	printf("FAIL: %s diverged at operation %d; the operations (replay: fuzz -r %s "
	       "NATIVE_DIR EMUL_DIR):\n", name, n + 1, path);
	for (i = 0; i <= n; i++) {
		printf("  ");
		print_op(stdout, &ops[i]);
		if (f)
			print_op(f, &ops[i]);
	}
	if (f)
		fclose(f);
}

/* Applies ops[0..n) (generating them when gen); 1 when no divergence. */
static int run(const char *name, int n, int gen)
{
	int i;

	open_files();
	for (i = 0; i < n; i++) {
		if (gen)
			ops[i] = random_op();
		if (verbose)
			print_op(stdout, &ops[i]);
		total_ops++;
		if (!apply(&ops[i]) || !same_files()) {
			report_divergence(name, i);
			close_files();
			return 0;
		}
	}
	close_files();
	return 1;
}

static int load_ops(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0;

	if (!f) {
		perror(path);
		exit(2);
	}
	while (n < MAX_OPS && fgets(line, sizeof line, f)) {
		struct op o = { 0, 0, 0, 0 };

		if (sscanf(line, " %c %" SCNd64 " %" SCNd64 " %u", &o.kind, &o.a, &o.b, &o.arg) >= 3 &&
		    o.arg < N_ALLOC_KINDS)
			ops[n++] = o;
	}
	fclose(f);
	return n;
}

static void setup(const char *native_dir, const char *emul_dir)
{
	int fd, err;

	snprintf(native_path, sizeof native_path, "%s/fuzz-native", native_dir);
	snprintf(emul_path, sizeof emul_path, "%s/fuzz-emulated", emul_dir);
	fd = open(native_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	err = fd < 0 ? errno : native_fallocate(fd, 0, 0, 4096);
	if (fd >= 0)
		close(fd);
	unlink(native_path);
	if (err) {
		printf("SKIP: the kernel cannot fallocate in %s: %s\n", native_dir, err_name(err));
		exit(77);
	}
	/* Where the kernel declines, posix_fallocate's own fallback runs;
	 * elsewhere the emulation is forced. */
	fd = open(emul_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	err = fd < 0 ? errno : native_fallocate(fd, 0, 0, 4096);
	if (fd >= 0)
		close(fd);
	unlink(emul_path);
	policy = err == EOPNOTSUPP || err == ENOSYS ? LFA_EMULATE_AUTO : LFA_EMULATE_ALWAYS;
	ops = calloc(MAX_OPS, sizeof *ops);
	buf_a = malloc(MAX_SIZE + 16 * MiB);
	buf_b = malloc(MAX_SIZE + 16 * MiB);
	data = malloc(MAX_SIZE);
	if (!ops || !buf_a || !buf_b || !data)
		exit(99);
}

int main(int argc, char **argv)
{
	const char *replay = NULL;
	long n = 500, seeds = 1, i;
	uint64_t seed = 1;
	int c, ok = 1;

	unsetenv("LIBFALLOCATE_EMULATE_FALLOCATE"); /* fallocate() is the kernel's */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "n:s:k:r:v")) != -1) {
		switch (c) {
		case 'n': n = strtol(optarg, NULL, 10); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'k': seeds = strtol(optarg, NULL, 10); break;
		case 'r': replay = optarg; break;
		case 'v': verbose = 1; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2 || n < 1 || n > MAX_OPS || seeds < 1)
		goto usage;
	setup(argv[optind], argv[optind + 1]);
	printf("# native file in %s; emulated file in %s (%s)\n", argv[optind], argv[optind + 1],
	       policy == LFA_EMULATE_AUTO ? "the kernel declines: posix_fallocate's fallback"
					  : "emulation forced");
	if (replay) {
		ok = run("replay", load_ops(replay), 0);
	} else {
		for (i = 0; i < seeds && ok; i++) {
			char name[32];

			snprintf(name, sizeof name, "seed-%" PRIu64, seed + (uint64_t)i);
			rng = (seed + (uint64_t)i) * 0x9E3779B97F4A7C15ull | 1;
			ok = run(name, (int)n, 1);
		}
	}
	printf("# %" PRIu64 " operations (%" PRIu64 " posix_fallocate, %" PRIu64
	       " bytes of zeros written by the emulation): %s\n",
	       total_ops, total_allocs, total_emulated_bytes, ok ? "no divergence" : "DIVERGED");
	return ok ? 0 : 1;
usage:
	fprintf(stderr, "usage: fuzz [-n OPS] [-s SEED] [-k SEEDS] [-v] NATIVE_DIR EMUL_DIR\n"
			"       fuzz -r OPS_FILE NATIVE_DIR EMUL_DIR\n");
	return 2;
}

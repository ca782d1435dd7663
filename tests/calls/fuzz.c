/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* Differential fuzzer: the emulation against the kernel's own fallocate.
 *   fuzz [-n OPS] [-s SEED] [-k SEEDS] [-c] [-v] [-o OPS_FILE] NATIVE_DIR EMUL_DIR
 *   fuzz -r OPS_FILE [-v] [-o OPS_FILE] NATIVE_DIR EMUL_DIR
 * Each seed drives OPS random operations (writes of random data, truncates,
 * hole punches, posix_fallocate calls) on two files: one in NATIVE_DIR,
 * where the kernel allocates, the other in EMUL_DIR, allocated by the
 * emulation (forced; or, where the kernel declines, as posix_fallocate falls
 * back to it).  After every operation both files have the same size and
 * bytes, and right after an allocation the emulated range has no hole.  The
 * allocating descriptor varies: O_RDWR, O_WRONLY, O_APPEND, O_DIRECT,
 * O_DSYNC.
 * With -c, a second writer thread writes marker records into the emulated
 * file while each posix_fallocate runs: below the range, just past its
 * edges, and appended past the end of file, never inside the range.  Its
 * records ("c OFFSET LENGTH SEED" lines after the allocation) are then
 * applied to the native file, the model: any byte of the emulated file that
 * differs from the model outside the allocated range is a byte the
 * emulation destroyed, counted and reported.  Zeros the engine appended
 * after a record written past the end of file meanwhile (at the end of
 * file, past the range: README, Known limits) are taken into the model,
 * counted apart.  (Inside the range another
 * writer's bytes may be zeroed within the engine's one-syscall window: see
 * tests/calls/window.c; the writer stays out of it.)  The writer's timing decides
 * what it writes, so a seed does not repeat those; the ops file does.
 * A divergence prints the operations so far, in the format -r replays, and
 * writes them to fuzz-SEED.ops; -o writes them for the last seed anyway.  A
 * replay runs each "c" line on the writer thread during the allocation
 * before it.  Exits 0, 1 on divergence, 77 when NATIVE_DIR cannot
 * fallocate. */
#include "../lib/realfs-util.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "emulate.h"

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define MAX_SIZE (6 * MiB)
#define MAX_OPS 1000000

struct op {
	char kind;     /* w write, t truncate, p punch, f allocate,
			* c the second writer's record during the last f */
	int64_t a, b;  /* offset and length, or the new size */
	unsigned arg;  /* w, c: data seed; f: descriptor kind */
};

/* The second writer: at most CW_MAX records per allocation, each at most
 * CW_LEN bytes, never making the file larger than CW_FILE_MAX. */
#define CW_MAX 48
#define CW_LEN 4096
#define CW_FILE_MAX (MAX_SIZE + 2 * MiB)

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
static int verbose, direct_ok = 1, concurrent;
static struct op *ops;
static size_t n_ops, cap_ops;
static unsigned char *buf_a, *buf_b, *data;
static uint64_t total_ops, total_allocs, total_emulated_bytes;
static uint64_t cw_allocs, cw_records, cw_bytes, cw_during, cw_lost_bytes, cw_lost_allocs;
static uint64_t cw_overshoot_bytes, cw_overshoot_allocs;

/* The range of the allocation just made with the second writer running:
 * same_files counts differing bytes outside it as lost. */
static int64_t cw_range_a = -1, cw_range_end = -1;

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

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static void push_op(const struct op *o)
{
	if (n_ops == cap_ops) {
		cap_ops = cap_ops ? cap_ops * 2 : 4096;
		ops = realloc(ops, cap_ops * sizeof *ops);
		if (!ops)
			exit(99);
	}
	ops[n_ops++] = *o;
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
	else if (o->kind == 'c')
		fprintf(f, "  # second writer, during the allocation");
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

/* The second writer's bytes: never zero, so a zeroed one always shows. */
static void fill_marker(unsigned char *buf, size_t n, unsigned seed)
{
	uint32_t x = seed | 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (unsigned char)((x >> 8) | 1);
	}
}

/* data[0, o->b) at o->a of both files. */
static int pwrite_both(const struct op *o)
{
	if (pwrite(native_fd, data, (size_t)o->b, (off_t)o->a) != (ssize_t)o->b ||
	    pwrite(emul_fd, data, (size_t)o->b, (off_t)o->a) != (ssize_t)o->b) {
		printf("pwrite: %s\n", strerror(errno));
		return 0;
	}
	return 1;
}

static int write_both(const struct op *o)
{
	fill_random(data, (size_t)o->b, o->arg);
	return pwrite_both(o);
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

struct cwriter {
	int64_t a, end;            /* the range being allocated: stay out */
	const struct op *script;   /* replay: the records to write, in order */
	size_t n_script;
	uint64_t rng;
	atomic_int phase;          /* 0 before the call, 1 during, 2 after */
	atomic_int n;              /* records written */
	int during, err;
	struct op log[CW_MAX];
	unsigned char buf[CW_LEN];
};

static uint64_t cw_next(struct cwriter *w)
{
	w->rng ^= w->rng << 13, w->rng ^= w->rng >> 7, w->rng ^= w->rng << 17;
	return w->rng;
}

static int64_t cw_below(struct cwriter *w, int64_t n)
{
	return n <= 0 ? 0 : (int64_t)(cw_next(w) % (uint64_t)n);
}

/* A record outside [a, end): below it, right at either edge, or appended at
 * (or a little past) the end of file as it is now. */
static int cw_pick(struct cwriter *w, struct op *o)
{
	int64_t size = size_of(emul_fd), room;

	o->kind = 'c';
	o->arg = (unsigned)cw_next(w);
	switch (cw_next(w) % 4) {
	case 0: /* anywhere below the range */
		if (w->a == 0)
			return 0;
		o->a = cw_below(w, w->a);
		break;
	case 1: /* ending right at the range's start */
		if (w->a == 0)
			return 0;
		o->a = max64(0, w->a - 1 - cw_below(w, 600));
		break;
	case 2: /* starting right at its end */
		o->a = w->end + cw_below(w, 3) * cw_below(w, 600);
		break;
	default: /* appending past the end of file, below or past the range */
		if (size < w->a)
			o->a = size + cw_below(w, min64(64, w->a - size));
		else
			o->a = max64(size, w->end) + cw_below(w, 64);
		break;
	}
	room = o->a < w->a ? w->a - o->a : CW_FILE_MAX - o->a;
	if (room <= 0)
		return 0;
	o->b = 1 + cw_below(w, min64(room, cw_next(w) % 3 ? 64 : CW_LEN));
	return 1;
}

static void *cw_main(void *arg)
{
	struct cwriter *w = arg;

	for (;;) {
		int n = atomic_load(&w->n), phase = atomic_load(&w->phase);
		struct op o;

		if (w->script) {
			if ((size_t)n >= w->n_script)
				break;
			o = w->script[n];
		} else {
			if (n >= CW_MAX || (phase == 2 && n > 0))
				break;
			if (!cw_pick(w, &o))
				continue;
		}
		fill_marker(w->buf, (size_t)o.b, o.arg);
		if (pwrite(emul_fd, w->buf, (size_t)o.b, (off_t)o.a) != (ssize_t)o.b) {
			w->err = errno ? errno : EIO;
			break;
		}
		if (phase == 1 && atomic_load(&w->phase) == 1)
			w->during++;
		w->log[n] = o;
		atomic_store(&w->n, n + 1);
		if (!w->script) { /* spread the records over the call */
			volatile uint64_t spin = (uint64_t)cw_below(w, 30000);

			while (spin > 0)
				spin--;
			sched_yield();
		}
	}
	return NULL;
}

/* posix_fallocate on the emulated file with the second writer running; its
 * records are then written to the native file too, in their order. */
static int run_job_with_writer(const struct op *o, int fd, const struct lfa_job_options *opt,
			       struct lfa_job_report *rep, const struct op *script,
			       size_t n_script, size_t *n_written)
{
	struct cwriter *w = calloc(1, sizeof *w);
	pthread_t th;
	int eb, i;

	if (!w)
		exit(99);
	w->a = o->a;
	w->end = o->a + o->b;
	w->script = script;
	w->n_script = n_script;
	w->rng = next() | 1;
	if (pthread_create(&th, NULL, cw_main, w) != 0)
		exit(99);
	/* Let it start: the call must meet it. */
	while (!script && atomic_load(&w->n) == 0)
		sched_yield();
	atomic_store(&w->phase, 1);
	eb = lfa_run_job("fuzz", fd, o->a, o->b, INT64_MAX, opt, rep);
	atomic_store(&w->phase, 2);
	pthread_join(th, NULL);
	*n_written = (size_t)atomic_load(&w->n);
	if (w->err)
		printf("the second writer's pwrite: %s\n", strerror(w->err));
	for (i = 0; i < atomic_load(&w->n); i++) {
		const struct op *c = &w->log[i];

		fill_marker(w->buf, (size_t)c->b, c->arg);
		if (pwrite(native_fd, w->buf, (size_t)c->b, (off_t)c->a) != (ssize_t)c->b) {
			printf("pwrite to the model: %s\n", strerror(errno));
			exit(99);
		}
		if (!script)
			push_op(c);
		cw_bytes += (uint64_t)c->b;
	}
	cw_records += (uint64_t)atomic_load(&w->n);
	cw_during += (uint64_t)w->during;
	cw_allocs++;
	cw_range_a = o->a;
	cw_range_end = o->a + o->b;
	if (w->err) {
		free(w);
		return -1;
	}
	free(w);
	return eb;
}

static int allocate_both(const struct op *o, const struct op *script, size_t n_script)
{
	struct lfa_job_options opt = { policy, 0, 0, 0, 0, 0, 0, 0 };
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
	memset(&rep, 0, sizeof rep);
	if (concurrent || script) {
		size_t written;

		eb = run_job_with_writer(o, fd, &opt, &rep, script, n_script, &written);
		if (eb < 0) {
			close(fd);
			return 0;
		}
		if (script && written != n_script) {
			printf("the second writer wrote %zu of its %zu records\n", written, n_script);
			close(fd);
			return 0;
		}
	} else {
		eb = lfa_run_job("fuzz", fd, o->a, o->b, INT64_MAX, &opt, &rep);
	}
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

/* After an allocation with the second writer: the bytes outside its range
 * that differ from the model (a missing byte of a shorter file counts). */
static uint64_t count_lost(int64_t sa, int64_t sb)
{
	uint64_t lost = 0;
	int64_t i;

	for (i = 0; i < max64(sa, sb); i++)
		if (i < cw_range_a || i >= cw_range_end)
			lost += i >= sa || i >= sb || buf_a[i] != buf_b[i];
	return lost;
}

static int all_zero(const unsigned char *p, int64_t n)
{
	return n <= 0 || (p[0] == 0 && memcmp(p, p + 1, (size_t)n - 1) == 0);
}

/* The engine appends its zeros past the end of file (RWF_APPEND), so that
 * another writer's appends survive; a record the second writer wrote past
 * the end between the engine's look at the size and its append puts them
 * after that record, past the range: at most one piece (4 MiB) of zeros at
 * the end of file, nothing overwritten (README: Known limits).  The model
 * takes them; any other difference still counts. */
static int zeros_appended_past_the_range(int64_t *sa, int64_t sb)
{
	if (cw_range_a < 0 || sb <= *sa || sb - *sa > 4 * MiB ||
	    memcmp(buf_a, buf_b, (size_t)*sa) != 0 || !all_zero(buf_b + *sa, sb - *sa))
		return 0;
	if (ftruncate(native_fd, sb) != 0)
		exit(99);
	printf("# %" PRId64 " zeros appended past the range [%" PRId64 ", %" PRId64
	       "), after the second writer's record\n", sb - *sa, cw_range_a, cw_range_end);
	cw_overshoot_bytes += (uint64_t)(sb - *sa);
	cw_overshoot_allocs++;
	memset(buf_a + *sa, 0, (size_t)(sb - *sa));
	*sa = sb;
	return 1;
}

static int same_files(void)
{
	int64_t sa = size_of(native_fd), sb = size_of(emul_fd), i;
	int64_t ra = read_whole(native_fd, buf_a, sa), rb = read_whole(emul_fd, buf_b, sb);
	int same;

	if (ra != sa || rb != sb) {
		printf("short read\n");
		return 0;
	}
	zeros_appended_past_the_range(&sa, sb);
	same = sa == sb && memcmp(buf_a, buf_b, (size_t)sa) == 0;
	if (cw_range_a >= 0 && !same) {
		uint64_t lost = count_lost(sa, sb);

		if (lost) {
			cw_lost_bytes += lost;
			cw_lost_allocs++;
			printf("%" PRIu64 " bytes outside [%" PRId64 ", %" PRId64 ") differ from the "
			       "model: the second writer's, lost\n", lost, cw_range_a, cw_range_end);
		}
	}
	cw_range_a = cw_range_end = -1;
	if (same)
		return 1;
	if (sa != sb) {
		printf("sizes differ: native %" PRId64 ", emulated %" PRId64 "\n", sa, sb);
		return 0;
	}
	for (i = 0; buf_a[i] == buf_b[i]; i++)
		;
	printf("byte %" PRId64 " differs: native %u, emulated %u\n", i, buf_a[i], buf_b[i]);
	return 0;
}

/* A record of the second writer's with no allocation before it. */
static int marker_both(const struct op *o)
{
	fill_marker(data, (size_t)o->b, o->arg);
	return pwrite_both(o);
}

static int apply(const struct op *o, const struct op *script, size_t n_script)
{
	switch (o->kind) {
	case 'w': return write_both(o);
	case 't': return truncate_both(o);
	case 'p': return punch_both(o);
	case 'f': return allocate_both(o, script, n_script);
	case 'c': return marker_both(o);
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

static void save_ops(const char *path, size_t n)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		perror(path);
		exit(99);
	}
	for (i = 0; i < n; i++)
		print_op(f, &ops[i]);
	if (fclose(f) != 0) {
		perror(path);
		exit(99);
	}
}

static void report_divergence(const char *name, size_t n, size_t at)
{
	char path[64];
	size_t i;

	snprintf(path, sizeof path, "fuzz-%s.ops", name);
	printf("FAIL: %s diverged at operation %zu; the operations (replay: fuzz -r %s "
	       "NATIVE_DIR EMUL_DIR):\n", name, at + 1, path);
	for (i = 0; i < n; i++) {
		printf("  ");
		print_op(stdout, &ops[i]);
	}
	save_ops(path, n);
}

/* Runs n operations: new ones (gen), or the n_ops loaded, with the second
 * writer's records after each allocation run during it.  1 when no
 * divergence. */
static int run(const char *name, long n, int gen)
{
	size_t i = 0, k;
	long done;

	open_files();
	if (gen)
		n_ops = 0;
	for (done = 0; gen ? done < n : i < n_ops; done++) {
		size_t n_script = 0, first_c;
		struct op o;
		int ok;

		if (gen) {
			o = random_op();
			push_op(&o);
		}
		o = ops[i];
		for (k = i + 1; !gen && o.kind == 'f' && k < n_ops && ops[k].kind == 'c'; k++)
			n_script++;
		if (verbose)
			print_op(stdout, &o);
		total_ops++;
		ok = apply(&o, n_script ? &ops[i + 1] : NULL, n_script);
		first_c = i + 1;
		i = gen ? n_ops : i + 1 + n_script;
		for (k = first_c; verbose && k < i; k++)
			print_op(stdout, &ops[k]);
		if (!ok || !same_files()) {
			report_divergence(name, i, first_c - 1);
			close_files();
			return 0;
		}
	}
	close_files();
	return 1;
}

/* What random_op can make: the only operations a replay accepts.  The arg of
 * a write is its data seed, any unsigned value. */
static int valid_op(const struct op *o)
{
	if (o->a < 0 || o->b < 0)
		return 0;
	switch (o->kind) {
	case 'w': return o->b >= 1 && o->b <= 512 * KiB && o->a + o->b <= MAX_SIZE;
	case 't': return o->a <= MAX_SIZE;
	case 'p': return o->b >= 1 && o->a + o->b <= MAX_SIZE;
	case 'f': return o->b >= 1 && o->a + o->b <= MAX_SIZE && o->arg < N_ALLOC_KINDS;
	case 'c': return o->b >= 1 && o->b <= CW_LEN && o->a + o->b <= CW_FILE_MAX;
	}
	return 0;
}

static void load_ops(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof line, f)) {
		struct op o = { 0, 0, 0, 0 };

		if (sscanf(line, " %c %" SCNd64 " %" SCNd64 " %u", &o.kind, &o.a, &o.b, &o.arg) >= 3 &&
		    valid_op(&o))
			push_op(&o);
		else if (line[strspn(line, " \t\n")] && line[strspn(line, " \t")] != '#')
			fprintf(stderr, "%s: ignored: %s", path, line);
	}
	fclose(f);
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
	buf_a = malloc(MAX_SIZE + 16 * MiB);
	buf_b = malloc(MAX_SIZE + 16 * MiB);
	data = malloc(MAX_SIZE);
	if (!buf_a || !buf_b || !data)
		exit(99);
}

int main(int argc, char **argv)
{
	const char *replay = NULL, *save = NULL;
	long n = 500, seeds = 1, i;
	uint64_t seed = 1;
	int c, ok = 1;

	unsetenv("LIBFALLOCATE_EMULATE_FALLOCATE"); /* fallocate() is the kernel's */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "n:s:k:r:co:v")) != -1) {
		switch (c) {
		case 'n': n = strtol(optarg, NULL, 10); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'k': seeds = strtol(optarg, NULL, 10); break;
		case 'r': replay = optarg; break;
		case 'c': concurrent = 1; break;
		case 'o': save = optarg; break;
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
		concurrent = 0; /* the ops file says what the second writer does */
		load_ops(replay);
		ok = run("replay", 0, 0);
	} else {
		for (i = 0; i < seeds && ok; i++) {
			char name[32];

			snprintf(name, sizeof name, "seed-%" PRIu64, seed + (uint64_t)i);
			rng = (seed + (uint64_t)i) * 0x9E3779B97F4A7C15ull | 1;
			ok = run(name, n, 1);
		}
	}
	if (save)
		save_ops(save, n_ops);
	printf("# %" PRIu64 " operations (%" PRIu64 " posix_fallocate, %" PRIu64
	       " bytes of zeros written by the emulation): %s\n",
	       total_ops, total_allocs, total_emulated_bytes, ok ? "no divergence" : "DIVERGED");
	if (cw_allocs)
		printf("# second writer during %" PRIu64 " posix_fallocate: %" PRIu64 " records (%"
		       PRIu64 " while a call ran), %" PRIu64 " bytes; lost outside the allocated "
		       "ranges: %" PRIu64 " bytes in %" PRIu64 " calls; zeros appended past the "
		       "range after its record: %" PRIu64 " bytes in %" PRIu64 " calls\n",
		       cw_allocs, cw_records, cw_during, cw_bytes, cw_lost_bytes, cw_lost_allocs,
		       cw_overshoot_bytes, cw_overshoot_allocs);
	return ok ? 0 : 1;
usage:
	fprintf(stderr, "usage: fuzz [-n OPS] [-s SEED] [-k SEEDS] [-c] [-v] [-o OPS_FILE] "
			"NATIVE_DIR EMUL_DIR\n"
			"       fuzz -r OPS_FILE [-v] [-o OPS_FILE] NATIVE_DIR EMUL_DIR\n");
	return 2;
}

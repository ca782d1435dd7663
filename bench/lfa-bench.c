/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* lfa-bench: times posix_fallocate from libfallocate and from the C library
 * side by side, in one process, alternating the two, and prints one CSV row
 * per side (see bench/README.md).  With --previous, another build of the
 * library (a release: make bench builds 0.2.0) is a third side, opened
 * RTLD_LOCAL from its own path like ours: two copies of the library, each
 * bound to its own code and settings.
 *
 * Both functions are looked up at run time: glibc's in the already loaded
 * libc.so.6, ours in the built libfallocate.so.N opened RTLD_LOCAL, so
 * neither interposes on the other and the program links with neither.  Both
 * sides see the same kernel: a filesystem without fallocate, or a seccomp
 * filter (tests/lib/with-fallocate-errno EOPNOTSUPP) wrapped around the whole
 * process.  Ours therefore runs its default policy, one failed fallocate
 * syscall then the emulation, exactly as glibc does.
 *
 * Syscalls are counted in a separate, untimed first round of each side with
 * a perf counter on the raw_syscalls:sys_enter tracepoint for this process:
 * no ptrace, and no counter is open while time is being taken. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libfallocate.h>

#define MAX_REPS 2002
#define MIB ((int64_t)1 << 20)

typedef int (*pf_fn)(int fd, off64_t offset, off64_t len);

enum side_kind { SIDE_OURS, SIDE_GLIBC, SIDE_DD, SIDE_NONE, SIDE_PWRITE, SIDE_PREVIOUS };

struct side {
	const char *name;
	enum side_kind kind;
	/* dd: its options past bs and count (conv=fsync: its data written
	 * back before it ends), or none */
	const char *dd_opts[2];
	pf_fn pf;
	double secs[MAX_REPS];
	long maxrss_kib[MAX_REPS];
	long rss_kib[MAX_REPS];
	int n;
	long syscalls; /* per call, from the counted round; -1 when unknown */
};

struct config {
	const char *lib, *dir, *fs, *scenario, *only, *id, *previous;
	int64_t size, chunk, dd_bs;
	int reps, calls, with_dd, with_dd_fsync, with_dd_append, cold, dsync, verbose, with_pwrite, threaded, with_keep;
};

static const char *argv0 = "lfa-bench";

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", argv0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- syscall counter ---------------------------------------------------- */

static long tracepoint_id(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
	};
	size_t i;

	for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		FILE *f = fopen(paths[i], "re");
		long id;

		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
		if (id >= 0)
			return id;
	}
	return -1;
}

/* Opened only for the counted round: an open tracepoint counter slows every
 * syscall a little, which would favour the side that makes fewer. */
static int counter_open(void)
{
	struct perf_event_attr a;
	long id = tracepoint_id();

	if (id < 0)
		return -1;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof a;
	a.config = (uint64_t)id;
	a.disabled = 1;
	a.inherit = 1; /* dd's syscalls are its child's */
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void counter_start(int fd)
{
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

/* The disabling ioctl enters while the counter runs: one to take off. */
static long counter_stop(int fd)
{
	uint64_t v;

	if (fd < 0)
		return -1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &v, sizeof v) != (ssize_t)sizeof v)
		return -1;
	return (long)v - 1;
}

/* ---- files -------------------------------------------------------------- */

static char *path_in_dir(const struct config *c, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", c->dir, name) < 0)
		die("out of memory");
	return p;
}

static int create_file(const char *path, int extra_flags)
{
	int fd;

	if (unlink(path) != 0 && errno != ENOENT)
		die("unlink %s: %s", path, strerror(errno));
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | extra_flags, 0644);
	if (fd < 0)
		die("create %s: %s", path, strerror(errno));
	return fd;
}

static void write_data(int fd, int64_t off, int64_t len)
{
	static char buf[MIB];

	/* Non-zero: glibc's probe skips such blocks.  Filled once: scenario
	 * 12 writes 100,000 pieces of 1 KiB, and a MiB set for each took
	 * half a minute of CPU a round. */
	if (!buf[0])
		memset(buf, 'x', sizeof buf);
	while (len > 0) {
		size_t n = (size_t)(len < MIB ? len : MIB);
		ssize_t w = pwrite64(fd, buf, n, off);

		if (w <= 0)
			die("write: %s", w < 0 ? strerror(errno) : "short write");
		off += w;
		len -= w;
	}
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		die("cannot drop caches (root needed): %s", strerror(errno));
	close(fd);
}

/* A sanity check, not a timing: the range must really be there.  FUSE
 * filesystems invent st_blocks, so only the size is checked where blocks
 * cannot be trusted. */
static void check_allocated(int fd, int64_t size, const char *who)
{
	struct stat64 st;

	if (fstat64(fd, &st) != 0)
		die("fstat: %s", strerror(errno));
	if (st.st_size < size)
		die("%s: size %" PRId64 " after allocating %" PRId64, who, (int64_t)st.st_size, size);
	if ((int64_t)st.st_blocks * 512 < size)
		fprintf(stderr, "%s: warning: %s: only %" PRId64 " bytes allocated of %" PRId64 "\n",
			argv0, who, (int64_t)st.st_blocks * 512, size);
}

/* ---- one measurement ---------------------------------------------------- */

struct sample {
	double secs;
	long syscalls;
	long maxrss_kib;
	long rss_kib;
};

/* The side "keep": ours through lfa_allocate with LFA_KEEP_CACHE, what
 * LIBFALLOCATE_CACHE=keep gives posix_fallocate (the library reads its
 * settings once, so one process cannot run both). */
static int (*lfa_allocate_fn)(int, int64_t, int64_t, const struct lfa_options *,
			      struct lfa_report *);

static int keep_cache_pf(int fd, off64_t offset, off64_t len)
{
	struct lfa_options opt = LFA_OPTIONS_INIT;

	opt.flags = LFA_KEEP_CACHE;
	return lfa_allocate_fn(fd, offset, len, &opt, NULL);
}

static void call_pf(const struct side *s, int fd, int64_t off, int64_t len)
{
	int rc = s->pf(fd, off, len);

	if (rc != 0)
		die("%s posix_fallocate(%" PRId64 ", %" PRId64 "): %s", s->name, off, len, strerror(rc));
}

static void timed_pf(const struct side *s, int fd, int64_t len, int counter, struct sample *out)
{
	double t0;

	counter_start(counter);
	t0 = now();
	call_pf(s, fd, 0, len);
	out->secs = now() - t0;
	out->syscalls = counter_stop(counter);
}

/* dd as the limit: writing zeros to a new file, or reading a file back
 * (what any emulation that must not overwrite data has to do where the
 * filesystem cannot tell holes from data). */
static void run_dd(const struct config *c, const char *path, int reading,
		   const char *const opts[2], int counter, struct sample *out)
{
	char in[4096 + 4], of[4096 + 4], count[32], bs[40];
	const char *argv[9] = { "dd", in, of, bs, count };
	double t0;
	pid_t pid;
	int status, n = 5;

	snprintf(in, sizeof in, "if=%s", reading ? path : "/dev/zero");
	snprintf(of, sizeof of, "of=%s", reading ? "/dev/null" : path);
	snprintf(count, sizeof count, "count=%" PRId64, c->size / c->dd_bs);
	snprintf(bs, sizeof bs, "bs=%" PRId64, c->dd_bs);
	if (opts[0])
		argv[n++] = opts[0];
	if (opts[1])
		argv[n++] = opts[1];
	argv[n++] = "status=none";
	argv[n] = NULL;
	if (!reading && unlink(path) != 0 && errno != ENOENT)
		die("unlink %s: %s", path, strerror(errno));
	counter_start(counter);
	t0 = now();
	pid = fork();
	if (pid == 0) {
		execvp("dd", (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("dd failed");
	out->secs = now() - t0;
	out->syscalls = counter_stop(counter);
}

/* Scenario 1: the range is allocated already, so each call is one
 * successful syscall; a batch of calls gives the per-call cost. */
static void native_round(const struct config *c, const struct side *s, int counter,
			 struct sample *out)
{
	static int fd = -1;
	int i;

	if (fd < 0) {
		char *p = path_in_dir(c, "native.dat");

		fd = create_file(p, 0);
		if (fallocate64(fd, 0, 0, c->size) != 0)
			die("fallocate %s: %s (scenario 1 needs a filesystem with fallocate)",
			    p, strerror(errno));
		free(p);
	}
	counter_start(counter);
	out->secs = now();
	for (i = 0; i < c->calls; i++)
		call_pf(s, fd, 0, c->size);
	out->secs = (now() - out->secs) / c->calls;
	out->syscalls = counter_stop(counter);
	if (out->syscalls >= 0)
		out->syscalls = (out->syscalls + c->calls / 2) / c->calls;
}

/* Scenarios 2, 5, 6: a new file; dd writing the same size is the limit. */
static void new_round(const struct config *c, const struct side *s, int counter,
		      struct sample *out)
{
	char *p = path_in_dir(c, "new.dat");
	int fd;

	sync(); /* each round starts with no dirty data of ours to write back */
	if (s->kind == SIDE_DD) {
		run_dd(c, p, 0, s->dd_opts, counter, out);
	} else {
		fd = create_file(p, c->dsync ? O_DSYNC : 0);
		timed_pf(s, fd, c->size, counter, out);
		check_allocated(fd, c->size, s->name);
		close(fd);
	}
	unlink(p);
	free(p);
}

/* Scenarios 3, 6: a file written in full, allocated again. */
static void rewrite_round(const struct config *c, const struct side *s, int counter,
			  struct sample *out)
{
	static char *p;
	int fd;

	if (!p) {
		p = path_in_dir(c, "full.dat");
		fd = create_file(p, 0);
		write_data(fd, 0, c->size);
		if (fsync(fd) != 0)
			die("fsync: %s", strerror(errno));
		close(fd);
	}
	if (c->cold)
		drop_caches();
	else
		sync();
	if (s->kind == SIDE_DD) {
		run_dd(c, p, 1, s->dd_opts, counter, out);
		return;
	}
	fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open %s: %s", p, strerror(errno));
	timed_pf(s, fd, c->size, counter, out);
	close(fd);
}

/* Scenario 4: data and holes alternating, chunk by chunk. */
static void sparse_round(const struct config *c, const struct side *s, int counter,
			 struct sample *out)
{
	char *p = path_in_dir(c, "sparse.dat");
	int fd = create_file(p, 0);
	int64_t off;

	if (ftruncate64(fd, c->size) != 0)
		die("ftruncate: %s", strerror(errno));
	for (off = 0; off < c->size; off += 2 * c->chunk)
		write_data(fd, off, c->chunk);
	sync(); /* the data goes to disk before the clock starts, for both sides */
	timed_pf(s, fd, c->size, counter, out);
	check_allocated(fd, c->size, s->name);
	close(fd);
	unlink(p);
	free(p);
}

/* The exact resident size now: smaps_rollup walks the page tables, where
 * the counters behind ru_maxrss are per-CPU and may lag by up to 32 pages
 * per CPU. */
static long rss_now_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "re");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Rss: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* Scenario 7: a child allocates and exits; its peak RSS comes back through
 * wait4, its exact RSS after the call through a pipe.  SIDE_NONE is the
 * baseline child that allocates nothing. */
static void rss_round(const struct config *c, const struct side *s, int counter,
		      struct sample *out)
{
	char *p = path_in_dir(c, "rss.dat");
	struct rusage ru;
	int status, pipe_fd[2];
	double t0;
	pid_t pid;

	(void)counter;
	unlink(p);
	sync();
	if (pipe2(pipe_fd, O_CLOEXEC) != 0)
		die("pipe: %s", strerror(errno));
	t0 = now();
	pid = fork();
	if (pid == 0) {
		int fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		long kib;

		if (fd < 0)
			_exit(2);
		if (s->pf && s->pf(fd, 0, c->size) != 0)
			_exit(3);
		kib = rss_now_kib();
		_exit(write(pipe_fd[1], &kib, sizeof kib) == sizeof kib ? 0 : 4);
	}
	close(pipe_fd[1]);
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || read(pipe_fd[0], &out->rss_kib, sizeof out->rss_kib) !=
	    sizeof out->rss_kib)
		die("%s: child failed", s->name);
	close(pipe_fd[0]);
	out->secs = now() - t0;
	out->syscalls = -1;
	out->maxrss_kib = ru.ru_maxrss;
	unlink(p);
	free(p);
}

/* Scenario 10: a file grown by small steps, one call per step at its end
 * (a log or a download preallocating as it goes): per-call cost where the
 * emulation runs each time, against a bare pwrite of as many zeros. */
static void extend_round(const struct config *c, const struct side *s, int counter,
			 struct sample *out)
{
	static char zeros[1 << 20];
	char *p = path_in_dir(c, "extend.dat");
	int fd = create_file(p, 0), i;

	if (c->chunk > (int64_t)sizeof zeros)
		die("--chunk: at most 1M for extend");
	counter_start(counter);
	out->secs = now();
	for (i = 0; i < c->calls; i++) {
		if (s->kind != SIDE_PWRITE)
			call_pf(s, fd, i * c->chunk, c->chunk);
		else if (pwrite64(fd, zeros, (size_t)c->chunk, i * c->chunk) != (ssize_t)c->chunk)
			die("pwrite: %s", strerror(errno));
	}
	out->secs = (now() - out->secs) / c->calls;
	out->syscalls = counter_stop(counter);
	if (out->syscalls >= 0)
		out->syscalls = (out->syscalls + c->calls / 2) / c->calls;
	check_allocated(fd, c->chunk * c->calls, s->name);
	close(fd);
	unlink(p);
	free(p);
}

/* ---- driver ------------------------------------------------------------- */

typedef void (*round_fn)(const struct config *, const struct side *, int, struct sample *);

static round_fn scenario_round(const char *name)
{
	if (!strcmp(name, "native"))
		return native_round;
	if (!strcmp(name, "new"))
		return new_round;
	if (!strcmp(name, "rewrite"))
		return rewrite_round;
	if (!strcmp(name, "sparse"))
		return sparse_round;
	if (!strcmp(name, "rss"))
		return rss_round;
	if (!strcmp(name, "extend"))
		return extend_round;
	die("unknown scenario %s", name);
	return NULL;
}

static pf_fn resolve(void *handle, const char *what)
{
	pf_fn f;

	*(void **)&f = dlsym(handle, "posix_fallocate64");
	if (!f)
		die("%s: no posix_fallocate64: %s", what, dlerror());
	return f;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof v[0], cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int round_is_extend(const struct config *c)
{
	return !strcmp(c->scenario, "extend");
}

/* Besides the side's own median, the median over rounds of its time divided
 * by ours in the same round: both ran back to back, so a burst of load on
 * this shared machine moves both and mostly cancels out. */
static void print_row(const struct config *c, struct side *s, const struct side *ours)
{
	double t[MAX_REPS], paired[MAX_REPS];
	long r[MAX_REPS], now_kib[MAX_REPS];
	int i;

	memcpy(t, s->secs, sizeof t);
	memcpy(r, s->maxrss_kib, sizeof r);
	memcpy(now_kib, s->rss_kib, sizeof now_kib);
	qsort(now_kib, (size_t)s->n, sizeof now_kib[0], cmp_long);
	for (i = 0; ours && i < s->n; i++)
		paired[i] = ours->secs[i] > 0 ? s->secs[i] / ours->secs[i] : 0;
	qsort(r, (size_t)s->n, sizeof r[0], cmp_long);
	printf("%s,%s,%s,%s,%" PRId64 ",%s,%.9f,", c->id, c->scenario, c->fs, s->name,
	       round_is_extend(c) ? c->chunk : c->size,
	       !strcmp(c->scenario, "native") || round_is_extend(c) ? "s/call" : "s", median(t, s->n));
	printf("%.9f,%.9f,%d,%ld,%ld,%.4f,%ld\n", t[0], t[s->n - 1], s->n, s->syscalls, r[s->n / 2],
	       ours ? median(paired, s->n) : 0.0, now_kib[s->n / 2]);
	fflush(stdout);
}

static int64_t parse_size(const char *s)
{
	char *end;
	int64_t v = strtoll(s, &end, 10);

	switch (*end) {
	case 'G': v <<= 10; /* fall through */
	case 'M': v <<= 10; /* fall through */
	case 'K': v <<= 10; end++; break;
	default: break;
	}
	if (*end || v <= 0)
		die("bad size %s", s);
	return v;
}

static void usage(int status)
{
	printf("usage: %s --lib LIBFALLOCATE.so --dir DIR --scenario NAME [options]\n"
	       "  --scenario native|new|rewrite|sparse|rss|extend\n"
	       "  --fs LABEL       filesystem label for the output (default: dir)\n"
	       "  --size N[K|M|G]  bytes to allocate (default 1G)\n"
	       "  --reps N         timed rounds per side, after one counted round (default 5)\n"
	       "  --calls N        native, extend: calls per round (default 10000)\n"
	       "  --chunk N        sparse: size of each data and hole chunk; extend: of each\n"
	       "                   step (default 1M)\n"
	       "  --pwrite         extend: a third side, a bare pwrite of each step's zeros\n"
	       "  --previous LIB   a third side, previous: posix_fallocate of another build\n"
	       "                   of the library (an older release), opened like ours\n"
	       "  --keep           a third side, keep: ours with LFA_KEEP_CACHE, as\n"
	       "                   LIBFALLOCATE_CACHE=keep (no page-cache window)\n"
	       "  --threaded       start a thread first (and join it), as most programs that\n"
	       "                   allocate have: ours then works on a dup of the descriptor\n"
	       "  --dd             a third side, dd: new: writing as many zeros; rewrite:\n"
	       "                   reading the file back\n"
	       "  --dd-bs N[K|M]   dd's block size (default 1M); --size must be a multiple\n"
	       "  --dd-fsync       new: a side dd-fsync, dd with conv=fsync (its data written\n"
	       "                   back before it ends), where ours writes through to the\n"
	       "                   server (CephFS, NFS: O_DIRECT)\n"
	       "  --dd-append      new: a side dd-append, dd with oflag=direct,append\n"
	       "                   conv=notrunc: zeros appended through O_DIRECT and\n"
	       "                   O_APPEND, as ours grows a file on a shared filesystem\n"
	       "  --cold           rewrite: drop the page cache before each call (root)\n"
	       "  --dsync          new: open the file O_DSYNC\n"
	       "  --only SIDE,...  run these sides only (ours, glibc, previous, keep, dd, dd-fsync,\n"
	       "                   dd-append, pwrite, baseline), e.g. ours under strace -c, or\n"
	       "                   ours,dd where glibc takes minutes a round\n"
	       "  --id ID          first column of the output (default: the scenario)\n"
	       "  --verbose        each timed round's time on stderr\n"
	       "Prints CSV: id,scenario,fs,side,bytes,unit,median_s,min_s,max_s,reps,\n"
	       "            syscalls,maxrss_kib,paired_ratio_to_ours,rss_after_kib\n",
	       argv0);
	exit(status);
}

static void parse_args(int argc, char **argv, struct config *c)
{
	static const struct option opts[] = {
		{ "lib", required_argument, 0, 'l' },   { "dir", required_argument, 0, 'd' },
		{ "fs", required_argument, 0, 'f' },    { "scenario", required_argument, 0, 's' },
		{ "size", required_argument, 0, 'z' },  { "reps", required_argument, 0, 'r' },
		{ "calls", required_argument, 0, 'c' }, { "chunk", required_argument, 0, 'k' },
		{ "dd", no_argument, 0, 'D' },          { "cold", no_argument, 0, 'C' },
		{ "dsync", no_argument, 0, 'S' },       { "only", required_argument, 0, 'o' },
		{ "id", required_argument, 0, 'i' },    { "verbose", no_argument, 0, 'v' },
		{ "pwrite", no_argument, 0, 'P' },      { "help", no_argument, 0, 'h' },
		{ "threaded", no_argument, 0, 'T' },    { "keep", no_argument, 0, 'K' },
		{ "previous", required_argument, 0, 'p' }, { "dd-bs", required_argument, 0, 'B' },
		{ "dd-fsync", no_argument, 0, 'F' },   { "dd-append", no_argument, 0, 'A' },
		{ 0, 0, 0, 0 },
	};
	int o;

	memset(c, 0, sizeof *c);
	c->size = (int64_t)1 << 30;
	c->chunk = MIB;
	c->dd_bs = MIB;
	c->reps = 5;
	c->calls = 10000;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'l': c->lib = optarg; break;
		case 'd': c->dir = optarg; break;
		case 'f': c->fs = optarg; break;
		case 's': c->scenario = optarg; break;
		case 'z': c->size = parse_size(optarg); break;
		case 'r': c->reps = atoi(optarg); break;
		case 'c': c->calls = atoi(optarg); break;
		case 'k': c->chunk = parse_size(optarg); break;
		case 'D': c->with_dd = 1; break;
		case 'C': c->cold = 1; break;
		case 'S': c->dsync = 1; break;
		case 'o': c->only = optarg; break;
		case 'i': c->id = optarg; break;
		case 'v': c->verbose = 1; break;
		case 'P': c->with_pwrite = 1; break;
		case 'T': c->threaded = 1; break;
		case 'K': c->with_keep = 1; break;
		case 'p': c->previous = optarg; break;
		case 'B': c->dd_bs = parse_size(optarg); break;
		case 'F': c->with_dd_fsync = 1; break;
		case 'A': c->with_dd_append = 1; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!c->lib || !c->dir || !c->scenario || optind != argc)
		usage(2);
	if (c->reps < 1 || c->reps > MAX_REPS - 1 || c->calls < 1)
		die("--reps must be 1..%d and --calls positive", MAX_REPS - 1);
	if ((c->with_dd_fsync || c->with_dd_append) && strcmp(c->scenario, "new"))
		die("--dd-fsync and --dd-append are for --scenario new");
	if (c->dd_bs < 1 ||
	    ((c->with_dd || c->with_dd_fsync || c->with_dd_append) && c->size % c->dd_bs))
		die("--dd-bs must divide --size");
	if (!c->fs)
		c->fs = c->dir;
	if (!c->id)
		c->id = c->scenario;
}

/* Whether --only names this side (no --only: every side). */
static int wanted_side(const struct config *c, const char *name)
{
	size_t n = strlen(name);
	const char *p = c->only;

	if (!p)
		return 1;
	while (*p) {
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0))
			return 1;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return 0;
}

static void *idle_thread(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	struct side sides[8];
	struct config c;
	round_fn round;
	void *ours, *libc;
	int nsides = 0, rep, i;

	argv0 = argv[0];
	parse_args(argc, argv, &c);
	round = scenario_round(c.scenario);
	if (c.threaded) {
		pthread_t t;

		if (pthread_create(&t, NULL, idle_thread, NULL) != 0 || pthread_join(t, NULL) != 0)
			die("--threaded: no thread");
	}
	/* The library reads its settings once, at its first call: none may
	 * reach it, so that it runs as users get it. */
	unsetenv("LIBFALLOCATE_EMULATION");
	unsetenv("LIBFALLOCATE_DEBUG");
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (!libc)
		die("libc.so.6: %s", dlerror());
	ours = dlopen(c.lib, RTLD_NOW | RTLD_LOCAL);
	if (!ours)
		die("%s: %s", c.lib, dlerror());

	memset(sides, 0, sizeof sides);
	if (wanted_side(&c, "ours"))
		sides[nsides++] = (struct side){ .name = "ours", .kind = SIDE_OURS,
						 .pf = resolve(ours, c.lib) };
	if (wanted_side(&c, "glibc"))
		sides[nsides++] = (struct side){ .name = "glibc", .kind = SIDE_GLIBC,
						 .pf = resolve(libc, "libc.so.6") };
	if (c.previous && wanted_side(&c, "previous")) {
		void *prev = dlopen(c.previous, RTLD_NOW | RTLD_LOCAL);

		if (!prev)
			die("%s: %s", c.previous, dlerror());
		if (prev == ours)
			die("--previous %s is the library of --lib", c.previous);
		sides[nsides++] = (struct side){ .name = "previous", .kind = SIDE_PREVIOUS,
						 .pf = resolve(prev, c.previous) };
	}
	if (c.with_keep && wanted_side(&c, "keep")) {
		*(void **)&lfa_allocate_fn = dlsym(ours, "lfa_allocate");
		if (!lfa_allocate_fn)
			die("%s: no lfa_allocate: %s", c.lib, dlerror());
		sides[nsides++] = (struct side){ .name = "keep", .kind = SIDE_OURS,
						 .pf = keep_cache_pf };
	}
	if (c.with_dd && wanted_side(&c, "dd"))
		sides[nsides++] = (struct side){ .name = "dd", .kind = SIDE_DD };
	if (c.with_dd_fsync && wanted_side(&c, "dd-fsync"))
		sides[nsides++] = (struct side){ .name = "dd-fsync", .kind = SIDE_DD,
						 .dd_opts = { "conv=fsync", NULL } };
	if (c.with_dd_append && wanted_side(&c, "dd-append"))
		sides[nsides++] = (struct side){ .name = "dd-append", .kind = SIDE_DD,
						 .dd_opts = { "oflag=direct,append", "conv=notrunc" } };
	if (c.with_pwrite && wanted_side(&c, "pwrite"))
		sides[nsides++] = (struct side){ .name = "pwrite", .kind = SIDE_PWRITE };
	if (round == rss_round && wanted_side(&c, "baseline"))
		sides[nsides++] = (struct side){ .name = "baseline", .kind = SIDE_NONE };
	if (!nsides)
		die("--only names no side this run has (ours, glibc, previous, keep, dd, dd-fsync, dd-append, pwrite, "
		    "baseline)");
	if (sides[0].pf == sides[nsides > 1 ? 1 : 0].pf && nsides > 1)
		die("both sides resolved to one function: is libfallocate preloaded?");

	/* Round 0 counts syscalls and warms up; rounds 1..reps are timed, each
	 * starting with another side so no side always goes first. */
	for (rep = 0; rep <= c.reps; rep++) {
		for (i = 0; i < nsides; i++) {
			struct side *s = &sides[(rep + i) % nsides];
			struct sample out = { 0, -1, 0, 0 };
			int counter = rep == 0 ? counter_open() : -1;

			round(&c, s, counter, &out);
			if (counter >= 0)
				close(counter);
			if (rep == 0) {
				s->syscalls = out.syscalls;
				continue;
			}
			if (c.verbose)
				fprintf(stderr, "%s: round %d %s: %.6f s\n", c.id, rep, s->name, out.secs);
			s->secs[s->n] = out.secs;
			s->rss_kib[s->n] = out.rss_kib;
			s->maxrss_kib[s->n++] = out.maxrss_kib;
		}
	}
	for (i = 0; i < nsides; i++)
		print_row(&c, &sides[i], sides[0].kind == SIDE_OURS ? &sides[0] : NULL);
	if (round == rewrite_round) {
		char *p = path_in_dir(&c, "full.dat");

		unlink(p);
		free(p);
	}
	return 0;
}

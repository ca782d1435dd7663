/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/*
 * pfallocate: preallocates files through libfallocate's lfa_allocate(), and
 * says what it took: the kernel's fallocate or the zero-writing emulation,
 * sizes and blocks before and after, time.  See pfallocate(1).
 */
#define _GNU_SOURCE
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libfallocate.h>

#define PROGRAM "pfallocate"
#define BAR_DELAY 0.5     /* seconds before a bar appears on its own */
#define BAR_INTERVAL 0.1  /* seconds between redraws */

enum progress_mode { PROGRESS_AUTO, PROGRESS_ALWAYS, PROGRESS_NEVER };

/* How much is said on standard output besides errors. */
enum verbosity { SAY_QUIET, SAY_REPORT, SAY_VERBOSE };

struct config {
	int64_t offset, length;
	int emulation; /* enum lfa_emulation */
	enum progress_mode progress;
	enum verbosity say;
	int json, keep_size, posix;
};

/* One file's progress display. */
struct bar {
	const char *name;
	enum progress_mode mode;
	int tty, width, drawn, last_tenth, calls;
	double start, last_draw;
	uint64_t total;
};

/* One file's outcome. */
struct outcome {
	const char *name;
	const char *failed_step; /* "cannot open", ... when err != 0 */
	int err, opened;
	struct lfa_report rep;
	struct stat before, after;
	double seconds;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(void)
{
	printf("Usage:\n"
	       " %s [options] -l <length> <file>...\n\n"
	       "Preallocate space to files as posix_fallocate(3) does, with libfallocate's\n"
	       "zero-writing emulation where the kernel or filesystem has no fallocate.\n\n"
	       "Options:\n"
	       " -o, --offset <num>       offset of the range to allocate (default 0)\n"
	       " -l, --length <num>       length of the range (required)\n"
	       " -n, --keep-size          keep the file's size (the kernel's fallocate only:\n"
	       "                            the emulation cannot keep the size)\n"
	       " -x, --posix              allocate as posix_fallocate(3) does: the default\n"
	       " -v, --verbose            also say what was allocated, as fallocate(1) -v\n"
	       " -q, --quiet              print nothing but errors\n"
	       "     --emulation=<when>   auto, never or always (default: as\n"
	       "                            LIBFALLOCATE_EMULATION says, else auto)\n"
	       "     --progress           show progress even when quick or not on a terminal\n"
	       "     --no-progress        never show progress\n"
	       "     --json               one JSON object per file and line (JSON Lines)\n"
	       " -h, --help               display this help\n"
	       " -V, --version            display version\n\n"
	       "Arguments:\n"
	       " <num> is read as by fallocate(1): decimal, 0x hexadecimal or 0 octal, and\n"
	       " may be followed by the suffixes KiB (=1024), MiB, GiB, TiB, PiB and EiB\n"
	       " (the \"iB\" is optional: \"K\" means KiB) or KB (=1000), MB, GB, TB, PB, EB.\n\n"
	       "For more details see pfallocate(1).\n", PROGRAM);
}

static __attribute__((noreturn)) void try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", PROGRAM);
	exit(EXIT_FAILURE);
}

static __attribute__((noreturn)) void bad_argument(const char *what, const char *arg)
{
	fprintf(stderr, "%s: invalid %s: '%s'\n", PROGRAM, what, arg);
	exit(EXIT_FAILURE);
}

/* Multiplies *x by base, power times; on overflow stops, leaving the last
 * product that fitted, and says ERANGE (util-linux's fraction arithmetic
 * depends on that value). */
static int scale_by(uintmax_t *x, unsigned base, int power)
{
	for (; power > 0; power--) {
		if (*x > UINTMAX_MAX / base)
			return ERANGE;
		*x *= base;
	}
	return 0;
}

/* What a fraction adds to the whole part, computed as util-linux computes
 * it: digit by digit, each truncated on its own, so that "1.25KiB" is 1279
 * and not 1280.  Users compare pfallocate's sizes with fallocate(1)'s, so
 * the result must be the same, oddities included.  frac holds the digits
 * after the decimal point's leading zeros ("1.05" is zeros 1, frac 5);
 * unsigned overflow wraps, as util-linux's does. */
static uintmax_t fraction_of(uintmax_t unit, uintmax_t frac, int zeros)
{
	uintmax_t div = 10, place = 1, sum = 0;

	while (div < frac)
		div *= 10;
	for (; zeros > 0; zeros--)
		div *= 10;
	do {
		unsigned digit = (unsigned)(frac % 10);
		uintmax_t step = div / place;

		frac /= 10;
		if (digit && step / digit)
			sum += unit / (step / digit);
		place *= 10;
	} while (frac);
	return sum;
}

/* A size as util-linux's tools read it (its strtosize): a number in C
 * syntax (decimal, 0x hex, 0 octal, leading blanks and '+' allowed), then
 * optionally a fraction and one suffix: K, M, G, T, P, E, Z, Y (either
 * case) alone or with "iB" for powers of 1024, with "B" for powers of 1000.
 * A fraction needs a suffix.  Returns 0, EINVAL, or ERANGE when the value
 * passes INT64_MAX. */
static int parse_size(const char *arg, int64_t *out)
{
	static const char upper[] = "KMGTPEZY", lower[] = "kmgtpezy";
	const char *p = arg, *letter;
	char *end;
	uintmax_t x, frac = 0, unit = 1;
	unsigned base = 1024;
	int zeros = 0, power, err;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-') /* strtoumax would negate it */
		return EINVAL;
	errno = 0;
	x = strtoumax(arg, &end, 0);
	if (end == arg)
		return EINVAL;
	if (errno)
		return errno == ERANGE ? ERANGE : EINVAL;
	p = end;
	if (!*p)
		goto done;
	for (;;) {
		if (!*p)
			return EINVAL; /* a fraction with no suffix: "1.0" */
		if (p[1] == 'i' && (p[2] == 'B' || p[2] == 'b') && !p[3]) {
			base = 1024;
			break;
		}
		if ((p[1] == 'B' || p[1] == 'b') && !p[2]) {
			base = 1000;
			break;
		}
		if (!p[1])
			break;
		/* More than a suffix is left: it must be the (first) fraction.
		 * Like util-linux, dots keep being taken while every digit
		 * after them was a zero ("1..5K" is 1.5K). */
		if (frac || *p != '.')
			return EINVAL;
		for (p++; *p == '0'; p++)
			zeros++;
		if (isdigit((unsigned char)*p)) {
			errno = 0;
			frac = strtoumax(p, &end, 10);
			if (errno)
				return errno == ERANGE ? ERANGE : EINVAL;
			p = end;
			if (!*p)
				return EINVAL; /* "1.5": a fraction of a byte */
		}
	}
	letter = strchr(upper, *p);
	if (letter && *p)
		power = (int)(letter - upper) + 1;
	else if ((letter = strchr(lower, *p)) && *p)
		power = (int)(letter - lower) + 1;
	else
		return EINVAL;
	err = scale_by(&x, base, power);
	if (frac) {
		(void)scale_by(&unit, base, power);
		x += fraction_of(unit, frac, zeros);
	}
	if (err)
		return err;
done:
	if (x > (uintmax_t)INT64_MAX)
		return ERANGE;
	*out = (int64_t)x;
	return 0;
}

static void parse_size_arg(const char *what, const char *arg, int64_t *out)
{
	int err = parse_size(arg, out);

	if (err == ERANGE) {
		fprintf(stderr, "%s: %s too large: '%s'\n", PROGRAM, what, arg);
		exit(EXIT_FAILURE);
	}
	if (err)
		bad_argument(what, arg);
}

static int parse_emulation(const char *arg)
{
	if (!strcmp(arg, "auto"))
		return LFA_EMULATION_AUTO;
	if (!strcmp(arg, "never"))
		return LFA_EMULATION_NEVER;
	if (!strcmp(arg, "always"))
		return LFA_EMULATION_ALWAYS;
	fprintf(stderr, "%s: invalid emulation: '%s' (expected auto, never or always)\n",
		PROGRAM, arg);
	exit(EXIT_FAILURE);
}

/* getopt's complaints, in our name: argv[0] may be a libtool wrapper's. */
static __attribute__((noreturn)) void bad_option(int c, const char *arg)
{
	int is_long = !strncmp(arg, "--", 2);
	int name_len = (int)strcspn(arg, "=");

	if (c == ':' && is_long)
		fprintf(stderr, "%s: option '%.*s' requires an argument\n", PROGRAM, name_len, arg);
	else if (c == ':')
		fprintf(stderr, "%s: option requires an argument -- '%c'\n", PROGRAM, optopt);
	else if (is_long && optopt)
		fprintf(stderr, "%s: option '%.*s' doesn't allow an argument\n", PROGRAM,
			name_len, arg);
	else if (is_long)
		fprintf(stderr, "%s: unrecognized option '%s'\n", PROGRAM, arg);
	else
		fprintf(stderr, "%s: invalid option -- '%c'\n", PROGRAM, optopt);
	try_help();
}

/* Everything is checked here, before any file is opened: a bad argument
 * never causes a write. */
static int parse_args(int argc, char **argv, struct config *cfg)
{
	enum { OPT_EMULATION = 256, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_JSON };
	static const struct option longopts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "length", required_argument, NULL, 'l' },
		{ "keep-size", no_argument, NULL, 'n' },
		{ "posix", no_argument, NULL, 'x' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "emulation", required_argument, NULL, OPT_EMULATION },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int have_length = 0, c;

	memset(cfg, 0, sizeof *cfg);
	cfg->emulation = LFA_EMULATION_DEFAULT;
	cfg->say = SAY_REPORT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:l:nxvqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			cfg->keep_size = 1;
			break;
		case 'x':
			cfg->posix = 1;
			break;
		case 'v':
			cfg->say = SAY_VERBOSE;
			break;
		case 'q':
			cfg->say = SAY_QUIET;
			break;
		case 'o':
			parse_size_arg("offset", optarg, &cfg->offset);
			break;
		case 'l':
			parse_size_arg("length", optarg, &cfg->length);
			if (cfg->length == 0)
				bad_argument("length", optarg);
			have_length = 1;
			break;
		case OPT_EMULATION:
			cfg->emulation = parse_emulation(optarg);
			break;
		case OPT_PROGRESS:
			cfg->progress = PROGRESS_ALWAYS;
			break;
		case OPT_NO_PROGRESS:
			cfg->progress = PROGRESS_NEVER;
			break;
		case OPT_JSON:
			cfg->json = 1;
			break;
		case 'h':
			usage();
			exit(EXIT_SUCCESS);
		case 'V':
			printf("%s from libfallocate %s (library %s)\n", PROGRAM, PACKAGE_VERSION,
			       lfa_version());
			exit(EXIT_SUCCESS);
		case ':':
		default:
			bad_option(c, argv[optind - 1]);
		}
	}
	if (!have_length) {
		fprintf(stderr, "%s: no length argument specified\n", PROGRAM);
		try_help();
	}
	/* util-linux's fallocate -x -n quietly drops -n and grows the file:
	 * better to say the two disagree. */
	if (cfg->keep_size && cfg->posix) {
		fprintf(stderr, "%s: --keep-size and --posix exclude each other:"
			" posix_fallocate always extends the file\n", PROGRAM);
		exit(EXIT_FAILURE);
	}
	if (cfg->keep_size && cfg->emulation == LFA_EMULATION_ALWAYS) {
		fprintf(stderr, "%s: --keep-size cannot be emulated: writing zeros past the end"
			" of a file changes its size\n", PROGRAM);
		exit(EXIT_FAILURE);
	}
	if (cfg->say == SAY_QUIET && cfg->progress == PROGRESS_AUTO)
		cfg->progress = PROGRESS_NEVER;
	if (cfg->length > INT64_MAX - cfg->offset) {
		fprintf(stderr, "%s: offset plus length is too large\n", PROGRAM);
		exit(EXIT_FAILURE);
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no filename specified\n", PROGRAM);
		try_help();
	}
	return optind;
}

/* "4 GiB", "1.5 MiB", "100 B": for people; --json has the exact numbers. */
static const char *human(uint64_t bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;
	uint64_t div = 1;

	while (u + 1 < sizeof units / sizeof units[0] && bytes / div >= 1024) {
		div *= 1024;
		u++;
	}
	if (bytes % div == 0)
		snprintf(buf, len, "%" PRIu64 " %s", bytes / div, units[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)div, units[u]);
	return buf;
}

static int terminal_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

/* "85.3 MiB/s": always one decimal, so the line does not jump about. */
static const char *human_rate(double per_second, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;

	while (u + 1 < sizeof units / sizeof units[0] && per_second >= 1024) {
		per_second /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s/s", per_second, units[u]);
	return buf;
}

/* "0:07", "1:02:03"; "--:--" before anything can be estimated. */
static const char *clock_time(double seconds, char *buf, size_t len)
{
	uint64_t s;

	if (!(seconds >= 0) || seconds > 359999) {
		snprintf(buf, len, "--:--");
		return buf;
	}
	s = (uint64_t)(seconds + 0.5);
	if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 ":%02u:%02u", s / 3600, (unsigned)(s / 60 % 60),
			 (unsigned)(s % 60));
	else
		snprintf(buf, len, "%u:%02u", (unsigned)(s / 60), (unsigned)(s % 60));
	return buf;
}

/* One line, never wider than the terminal (a wrapped line cannot be
 * redrawn with \r): name, bar, percentage, bytes done of total, rate, and
 * time left, or at the end the time taken.  The rate is the average since
 * the start: the emulation's pace is even, and an average does not flicker. */
static void draw_bar(struct bar *b, uint64_t done, uint64_t total, int final)
{
	char stats[160], d[32], t[32], r[32], c[32];
	double elapsed = now() - b->start, rate = elapsed > 0 ? (double)done / elapsed : 0;
	int pct = total ? (int)(done * 100 / total) : 100;
	const char *name = b->name, *dots = "";
	int n, cells, full, name_len = (int)strlen(name), name_max = b->width / 3;

	if (name_len > name_max) { /* the end of a long path says more */
		name += name_len - (name_max - 3);
		while ((*name & 0xc0) == 0x80) /* not inside a UTF-8 sequence */
			name++;
		name_len = (int)strlen(name) + 3;
		dots = "...";
	}

	if (final)
		n = snprintf(stats, sizeof stats, "%3d%% %s / %s, %s, %.2f s", pct,
			     human(done, d, sizeof d), human(total, t, sizeof t),
			     human_rate(rate, r, sizeof r), elapsed);
	else
		n = snprintf(stats, sizeof stats, "%3d%% %s / %s, %s, %s left", pct,
			     human(done, d, sizeof d), human(total, t, sizeof t),
			     human_rate(rate, r, sizeof r),
			     clock_time(rate > 0 ? (double)(total - done) / rate : -1, c, sizeof c));
	if (n >= b->width) /* a narrow terminal: the rate goes first */
		n = snprintf(stats, sizeof stats, "%3d%% %s / %s, %s%s", pct,
			     human(done, d, sizeof d), human(total, t, sizeof t),
			     final ? "" : clock_time(rate > 0 ? (double)(total - done) / rate : -1,
						     c, sizeof c), final ? "done" : " left");
	if (n < 0)
		return;
	cells = b->width - 1 - n - name_len - 4;
	if (cells > 40)
		cells = 40;
	if (cells >= 10) {
		full = (int)((uint64_t)cells * (total ? done : 1) / (total ? total : 1));
		fprintf(stderr, "\r%s%s [%.*s%*s] %s\033[K", dots, name, full,
			"########################################", cells - full, "", stats);
	} else {
		fprintf(stderr, "\r%.*s\033[K", b->width - 1, stats);
	}
	if (final)
		fputc('\n', stderr);
	fflush(stderr);
	b->drawn = 1;
}

/* Called by lfa_allocate as the emulation proceeds; a signal cancels.  The
 * end (100%) is left to finish_bar, after lfa_allocate returns: the
 * library may report it more than once, or not at all. */
static int show_progress(uint64_t done, uint64_t total, void *user)
{
	struct bar *b = user;
	int tenth = total ? (int)(done * 10 / total) : 10;
	double t;

	if (interrupted)
		return 1;
	b->calls++;
	b->total = total;
	if (b->mode == PROGRESS_NEVER || done >= total)
		return 0;
	if (!b->tty) { /* a log, not a bar: a line per tenth done */
		if (b->mode == PROGRESS_ALWAYS && tenth > b->last_tenth) {
			fprintf(stderr, "%s: %s: %d%% done\n", PROGRAM, b->name, tenth * 10);
			b->last_tenth = tenth;
		}
		return 0;
	}
	t = now();
	if (b->mode == PROGRESS_AUTO && t - b->start < BAR_DELAY)
		return 0;
	if (b->drawn && t - b->last_draw < BAR_INTERVAL)
		return 0; /* at most ten redraws a second */
	b->last_draw = t;
	draw_bar(b, done, total, 0);
	return 0;
}

/* One final line for a bar that was shown (or asked for), once; a failure
 * clears the bar instead, for the error message. */
static void finish_bar(struct bar *b, int err)
{
	if (b->mode == PROGRESS_NEVER || !b->calls)
		return;
	if (err) {
		if (b->drawn)
			fputs("\r\033[K", stderr);
		return;
	}
	if (!b->tty) {
		if (b->mode == PROGRESS_ALWAYS && b->last_tenth < 10)
			fprintf(stderr, "%s: %s: 100%% done\n", PROGRAM, b->name);
		return;
	}
	if (b->drawn || b->mode == PROGRESS_ALWAYS)
		draw_bar(b, b->total, b->total, 1);
}

/* --keep-size: the kernel's fallocate or nothing.  libfallocate's
 * fallocate() passes every mode but 0 to the kernel. */
static int keep_size_allocate(int fd, const struct config *cfg, struct lfa_report *rep)
{
	int err = fallocate(fd, FALLOC_FL_KEEP_SIZE, cfg->offset, cfg->length) ? errno : 0;

	rep->path = LFA_PATH_NATIVE;
	rep->reason = LFA_REASON_NONE;
	rep->native_error = err;
	rep->syscalls = 1;
	return err;
}

static void allocate_file(const struct config *cfg, const char *name, struct outcome *o)
{
	struct lfa_options opt = LFA_OPTIONS_INIT;
	struct bar bar;
	/* As fallocate(1): -n works on existing files only. */
	int create = cfg->keep_size ? 0 : O_CREAT;
	int fd;
	double start;

	memset(o, 0, sizeof *o);
	o->name = name;
	o->rep.size = sizeof o->rep;
	fd = open(name, O_RDWR | create | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0 && errno == EACCES) /* write permission is all allocation needs */
		fd = open(name, O_WRONLY | create | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0 || fstat(fd, &o->before) != 0) {
		o->err = errno;
		o->failed_step = "cannot open";
		if (fd >= 0)
			close(fd);
		return;
	}
	o->opened = 1;
	memset(&bar, 0, sizeof bar);
	bar.name = name;
	bar.mode = cfg->progress;
	bar.tty = isatty(STDERR_FILENO);
	bar.width = bar.tty ? terminal_width() : 80;
	opt.emulation = cfg->emulation;
	opt.progress = show_progress;
	opt.user = &bar;

	bar.start = start = now();
	if (cfg->keep_size)
		o->err = keep_size_allocate(fd, cfg, &o->rep);
	else
		o->err = lfa_allocate(fd, cfg->offset, cfg->length, &opt, &o->rep);
	o->seconds = now() - start;
	finish_bar(&bar, o->err);
	if (o->err)
		o->failed_step = o->err == ECANCELED && interrupted ? "interrupted" :
				 "allocation failed";
	if (fstat(fd, &o->after) != 0)
		o->after = o->before;
	if (close(fd) != 0 && !o->err) {
		o->err = errno;
		o->failed_step = "close failed";
	}
}

/* fallocate(1) -v's sentence, for those who read it from habit. */
static void print_verbose(const struct config *cfg, const struct outcome *o)
{
	char l[32];

	if (!o->err)
		printf("%s: %s (%" PRId64 " bytes) allocated.\n", o->name,
		       human((uint64_t)cfg->length, l, sizeof l), cfg->length);
}

static void print_human(const struct outcome *o)
{
	const struct lfa_report *r = &o->rep;
	char a[32], b[32], w[32];

	if (!o->opened)
		return;
	printf("%s: %s", o->name, lfa_strpath(r->path));
	if (r->reason == LFA_REASON_KERNEL)
		printf(" (kernel said: %s", strerror(r->native_error));
	else if (r->reason == LFA_REASON_FORCED)
		printf(" (forced");
	else if (r->reason == LFA_REASON_UNRESERVED)
		printf(" (kernel said ok, but reserved nothing it can show");
	if (r->holes != LFA_HOLES_NONE)
		printf("; holes found by %s", lfa_strholes(r->holes));
	if (r->path == LFA_PATH_EMULATED)
		printf("; %s written", human(r->bytes_written, w, sizeof w));
	if (r->reason != LFA_REASON_NONE)
		printf(")");
	if (r->notes & LFA_NOTE_UNRESERVED && r->reason != LFA_REASON_UNRESERVED)
		printf(" (kernel said ok, but reserved nothing it can show, and the emulation "
		       "could not run: the range may hold holes)");
	if (r->notes & LFA_NOTE_COPY_ON_WRITE)
		printf(" (copy-on-write: zeros reserve no space)");
	if (r->notes & LFA_NOTE_GAVE_WAY)
		printf(" (another writer cut the file again and again)");
	printf("%s, size %s -> %s, blocks %" PRIu64 " -> %" PRIu64 ", %u syscall%s, %.3f s\n",
	       o->err ? " failed" : "",
	       human((uint64_t)o->before.st_size, a, sizeof a),
	       human((uint64_t)o->after.st_size, b, sizeof b),
	       (uint64_t)o->before.st_blocks, (uint64_t)o->after.st_blocks,
	       (unsigned)r->syscalls, r->syscalls == 1 ? "" : "s", o->seconds);
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0. */
static int utf8_length(const unsigned char *p)
{
	unsigned lo = 0x80, hi = 0xbf;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if (p[0] == 0xe0)
			lo = 0xa0; /* overlong below */
		else if (p[0] == 0xed)
			hi = 0x9f; /* surrogates above */
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if (p[0] == 0xf0)
			lo = 0x90; /* overlong below */
		else if (p[0] == 0xf4)
			hi = 0x8f; /* past U+10FFFF above */
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 &&
		       (p[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0; /* continuation bytes, C0, C1, F5 to FF */
}

/* A JSON string that is valid UTF-8 whatever the bytes: well-formed
 * sequences pass, control characters, '"' and '\\' are escaped, and each
 * byte that is not part of a well-formed sequence becomes \ufffd (file
 * names are bytes; JSON text must be UTF-8). */
static void json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	while (*p) {
		int n = utf8_length(p);

		if (n == 1 && (*p == '"' || *p == '\\'))
			printf("\\%c", *p);
		else if (n == 1 && (*p < 0x20 || *p == 0x7f))
			printf("\\u%04x", *p);
		else if (n >= 1)
			fwrite(p, 1, (size_t)n, stdout);
		else
			fputs("\\ufffd", stdout);
		p += n ? n : 1;
	}
	putchar('"');
}

static void json_error(int err)
{
	if (err)
		json_string(strerror(err));
	else
		fputs("null", stdout);
}

static void print_json(const struct config *cfg, const struct outcome *o)
{
	const struct lfa_report *r = &o->rep;

	fputs("{\"file\":", stdout);
	json_string(o->name);
	printf(",\"ok\":%s,\"errno\":%d,\"error\":", o->err ? "false" : "true", o->err);
	json_error(o->err);
	printf(",\"offset\":%" PRId64 ",\"length\":%" PRId64 ",\"keep_size\":%s", cfg->offset,
	       cfg->length, cfg->keep_size ? "true" : "false");
	if (o->opened) {
		printf(",\"path\":\"%s\",\"reason\":\"%s\",\"native_errno\":%d,\"native_error\":",
		       lfa_strpath(r->path), lfa_strreason(r->reason), r->native_error);
		json_error(r->native_error);
		printf(",\"holes\":\"%s\",\"bytes_written\":%" PRIu64 ",\"syscalls\":%" PRIu64
		       ",\"size_before\":%" PRIu64 ",\"size_after\":%" PRIu64
		       ",\"blocks_before\":%" PRIu64 ",\"blocks_after\":%" PRIu64
		       ",\"seconds\":%.6f,\"notes\":[%s%s%s%s%s]",
		       lfa_strholes(r->holes), r->bytes_written, r->syscalls,
		       (uint64_t)o->before.st_size, (uint64_t)o->after.st_size,
		       (uint64_t)o->before.st_blocks, (uint64_t)o->after.st_blocks, o->seconds,
		       r->notes & LFA_NOTE_COPY_ON_WRITE ? "\"copy-on-write\"" : "",
		       (r->notes & LFA_NOTE_COPY_ON_WRITE) && (r->notes & ~LFA_NOTE_COPY_ON_WRITE) ? "," : "",
		       r->notes & LFA_NOTE_GAVE_WAY ? "\"gave-way\"" : "",
		       (r->notes & LFA_NOTE_GAVE_WAY) && (r->notes & LFA_NOTE_UNRESERVED) ? "," : "",
		       r->notes & LFA_NOTE_UNRESERVED ? "\"unreserved\"" : "");
	}
	puts("}");
}

/* A signal cancels the allocation in progress cleanly (the size is put back)
 * instead of leaving a half-written file; ignored signals stay ignored, as
 * for a background job. */
static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

/* What the user can do about a failure, where there is something. */
static const char *hint(const struct config *cfg, const struct outcome *o)
{
	if (o->err == ECANCELED && o->opened)
		return " (size left as it was)";
	if (cfg->keep_size && o->opened && (o->err == EOPNOTSUPP || o->err == ENOSYS))
		return " (--keep-size needs the kernel's fallocate: the emulation writes"
		       " zeros, and cannot keep the size)";
	return "";
}

/* After a clean cancel, die of the signal as the shell expects. */
static void reraise(void)
{
	int sig = interrupted;

	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

/* A descriptor among 0, 1 and 2 left closed by whoever started us would be
 * the number of the first file opened: progress, the report and messages
 * would be written into the file being allocated.  /dev/null takes them. */
static void open_standard_descriptors(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			_exit(EXIT_FAILURE); /* nowhere to say it */
	}
}

int main(int argc, char **argv)
{
	struct config cfg;
	int i, status = EXIT_SUCCESS;

	open_standard_descriptors();
	i = parse_args(argc, argv, &cfg);
	catch_signals();
	for (; i < argc && !interrupted; i++) {
		struct outcome o;

		allocate_file(&cfg, argv[i], &o);
		if (o.err) {
			fflush(stdout);
			fprintf(stderr, "%s: %s: %s: %s%s\n", PROGRAM, o.name, o.failed_step,
				strerror(o.err), hint(&cfg, &o));
			status = EXIT_FAILURE;
		}
		if (cfg.json) {
			print_json(&cfg, &o);
		} else if (cfg.say != SAY_QUIET) {
			if (cfg.say == SAY_VERBOSE)
				print_verbose(&cfg, &o);
			print_human(&o);
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error: %s\n", PROGRAM, strerror(errno));
		status = EXIT_FAILURE;
	}
	if (interrupted)
		reraise();
	return status;
}

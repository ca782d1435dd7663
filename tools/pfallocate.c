/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/*
 * pfallocate: preallocates files through libfallocate's lfa_allocate(), and
 * says what it took: the kernel's fallocate or the zero-writing emulation,
 * sizes and blocks before and after, time.  See pfallocate(1).
 */
#define _GNU_SOURCE
#include "config.h"

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

struct config {
	int64_t offset, length;
	int emulation; /* enum lfa_emulation */
	enum progress_mode progress;
	int json;
};

/* One file's progress display. */
struct bar {
	const char *name;
	enum progress_mode mode;
	int tty, width, drawn, last_tenth;
	double start, last_draw;
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
	       "     --emulation=<when>   auto, never or always (default: as\n"
	       "                            LIBFALLOCATE_EMULATION says, else auto)\n"
	       "     --progress           show progress even when quick or not on a terminal\n"
	       "     --no-progress        never show progress\n"
	       "     --json               one JSON object per file on standard output\n"
	       " -h, --help               display this help\n"
	       " -V, --version            display version\n\n"
	       "Arguments:\n"
	       " <num> may be followed by the suffixes KiB (=1024), MiB, GiB, TiB, PiB and\n"
	       " EiB (the \"iB\" is optional: \"K\" means KiB) or KB (=1000), MB, GB, TB, PB, EB.\n\n"
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

/* The multiplier a size suffix stands for, as util-linux reads them; 0 when
 * the suffix means nothing. */
static uint64_t suffix_multiplier(const char *s)
{
	static const char units[] = "KMGTPE";
	const char *u;
	uint64_t base, m = 1;
	int i;

	if (!*s)
		return 1;
	u = strchr(units, s[0] >= 'a' && s[0] <= 'z' ? s[0] - 'a' + 'A' : s[0]);
	if (!u)
		return 0;
	if (!s[1] || !strcmp(s + 1, "iB") || !strcmp(s + 1, "ib"))
		base = 1024;
	else if (!strcmp(s + 1, "B") || !strcmp(s + 1, "b"))
		base = 1000;
	else
		return 0;
	for (i = 0; i <= u - units; i++)
		m *= base;
	return m;
}

/* A size as util-linux's tools take them: "4G", "512K", "1MiB", "1000KB",
 * "1.5GiB" (six decimal places at most count).  Returns 0 or an error. */
static int parse_size(const char *arg, int64_t *out)
{
	const char *p = arg;
	uint64_t whole = 0, frac = 0, scale = 1, m;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (scale < 1000000) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
		}
		if (scale == 1 && digits == 0)
			return EINVAL;
	}
	if (!digits)
		return EINVAL;
	m = suffix_multiplier(p);
	if (!m || (m == 1 && frac))
		return EINVAL; /* fractions of a byte */
	if (whole > (uint64_t)INT64_MAX / m)
		return ERANGE;
	whole *= m;
	/* frac/scale of m, exactly: m = q*scale + r, and frac, r < scale <= 1e6 */
	frac = frac * (m / scale) + frac * (m % scale) / scale;
	if (frac > (uint64_t)INT64_MAX - whole)
		return ERANGE;
	*out = (int64_t)(whole + frac);
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
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:l:hV", longopts, NULL)) != -1) {
		switch (c) {
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

static void draw_bar(struct bar *b, uint64_t done, uint64_t total)
{
	char line[512], d[32], t[32];
	int pct = total ? (int)(done * 100 / total) : 100;
	int n, cells, full;

	n = snprintf(line, sizeof line, "%3d%% %s / %s", pct, human(done, d, sizeof d),
		     human(total, t, sizeof t));
	cells = b->width - n - (int)strlen(b->name) - 6;
	if (cells > 50)
		cells = 50;
	if (cells >= 10) {
		full = (int)((uint64_t)cells * (total ? done : 1) / (total ? total : 1));
		fprintf(stderr, "\r%s [%.*s%*s] %s\033[K", b->name, full,
			"##################################################", cells - full, "",
			line);
	} else {
		fprintf(stderr, "\r%s\033[K", line);
	}
	b->drawn = 1;
}

/* Called by lfa_allocate as the emulation proceeds; a signal cancels. */
static int show_progress(uint64_t done, uint64_t total, void *user)
{
	struct bar *b = user;
	int tenth = total ? (int)(done * 10 / total) : 10;
	double t;

	if (interrupted)
		return 1;
	if (b->mode == PROGRESS_NEVER)
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
	if (b->drawn && t - b->last_draw < BAR_INTERVAL && done < total)
		return 0;
	b->last_draw = t;
	draw_bar(b, done, total);
	return 0;
}

static void clear_bar(const struct bar *b)
{
	if (b->drawn)
		fputs("\r\033[K", stderr);
}

static void allocate_file(const struct config *cfg, const char *name, struct outcome *o)
{
	struct lfa_options opt = LFA_OPTIONS_INIT;
	struct bar bar;
	int fd;
	double start;

	memset(o, 0, sizeof *o);
	o->name = name;
	o->rep.size = sizeof o->rep;
	fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0 && errno == EACCES) /* write permission is all allocation needs */
		fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
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
	o->err = lfa_allocate(fd, cfg->offset, cfg->length, &opt, &o->rep);
	o->seconds = now() - start;
	clear_bar(&bar);
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
	if (r->holes != LFA_HOLES_NONE)
		printf("; holes found by %s", lfa_strholes(r->holes));
	if (r->path == LFA_PATH_EMULATED)
		printf("; %s written", human(r->bytes_written, w, sizeof w));
	if (r->reason != LFA_REASON_NONE)
		printf(")");
	printf("%s, size %s -> %s, blocks %" PRIu64 " -> %" PRIu64 ", %u syscall%s, %.3f s\n",
	       o->err ? " failed" : "",
	       human((uint64_t)o->before.st_size, a, sizeof a),
	       human((uint64_t)o->after.st_size, b, sizeof b),
	       (uint64_t)o->before.st_blocks, (uint64_t)o->after.st_blocks,
	       (unsigned)r->syscalls, r->syscalls == 1 ? "" : "s", o->seconds);
}

/* A JSON string: valid UTF-8 passes, other bytes become U+FFFD. */
static void json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	while (*p) {
		int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
			(*p & 0xf8) == 0xf0 ? 4 : 0;
		int i;

		for (i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				n = 0;
		if (n == 1 && (*p < 0x20 || *p == '"' || *p == '\\')) {
			if (*p == '"' || *p == '\\')
				printf("\\%c", *p);
			else
				printf("\\u%04x", *p);
		} else if (n >= 1) {
			fwrite(p, 1, (size_t)n, stdout);
		} else {
			fputs("\\ufffd", stdout);
			n = 1;
		}
		p += n;
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
	printf(",\"offset\":%" PRId64 ",\"length\":%" PRId64, cfg->offset, cfg->length);
	if (o->opened) {
		printf(",\"path\":\"%s\",\"reason\":\"%s\",\"native_errno\":%d,\"native_error\":",
		       lfa_strpath(r->path), lfa_strreason(r->reason), r->native_error);
		json_error(r->native_error);
		printf(",\"holes\":\"%s\",\"bytes_written\":%" PRIu64 ",\"syscalls\":%" PRIu64
		       ",\"size_before\":%" PRIu64 ",\"size_after\":%" PRIu64
		       ",\"blocks_before\":%" PRIu64 ",\"blocks_after\":%" PRIu64
		       ",\"seconds\":%.6f",
		       lfa_strholes(r->holes), r->bytes_written, r->syscalls,
		       (uint64_t)o->before.st_size, (uint64_t)o->after.st_size,
		       (uint64_t)o->before.st_blocks, (uint64_t)o->after.st_blocks, o->seconds);
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

/* After a clean cancel, die of the signal as the shell expects. */
static void reraise(void)
{
	int sig = interrupted;

	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

int main(int argc, char **argv)
{
	struct config cfg;
	int i, status = EXIT_SUCCESS;

	i = parse_args(argc, argv, &cfg);
	catch_signals();
	for (; i < argc && !interrupted; i++) {
		struct outcome o;

		allocate_file(&cfg, argv[i], &o);
		if (o.err) {
			fflush(stdout);
			fprintf(stderr, "%s: %s: %s: %s%s\n", PROGRAM, o.name, o.failed_step,
				strerror(o.err),
				o.err == ECANCELED && o.opened ? " (size left as it was)" : "");
			status = EXIT_FAILURE;
		}
		if (cfg.json)
			print_json(&cfg, &o);
		else
			print_human(&o);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error: %s\n", PROGRAM, strerror(errno));
		status = EXIT_FAILURE;
	}
	if (interrupted)
		reraise();
	return status;
}

# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make bench: libfallocate against glibc's posix_fallocate, side by side
# (bench/README.md).  The driver is built with the library, so every build
# (i386, sanitizers, distcheck) proves it compiles; it runs only on make
# bench, never in make check.
# Not built where <linux/perf_event.h> is missing (a musl toolchain without
# Linux's headers): configure says so, and make bench stops.
if BUILD_BENCH
noinst_PROGRAMS += bench/lfa-bench
BENCH_TOOLS = bench/lfa-bench$(EXEEXT)
else
BENCH_TOOLS = bench-unavailable
endif
bench-unavailable:
	@echo "make bench: the driver needs <linux/perf_event.h>, which this compiler lacks" >&2; exit 1
bench_lfa_bench_SOURCES = bench/lfa-bench.c
bench_lfa_bench_LDADD = -ldl -lpthread
EXTRA_DIST += bench/cache.py bench/run.sh bench/report.sh bench/ratios.gp bench/README.md bench/cephfs.sh \
	bench/ratios-latest.png bench/results-latest.csv

if HAVE_SECCOMP
BENCH_TOOLS += tests/lib/with-fallocate-errno$(EXEEXT)
endif

# Builds what make bench runs, without running it (CI's check).
bench-programs: libfallocate.la $(BENCH_TOOLS)
bench: bench-programs
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/bench/run.sh
.PHONY: bench bench-programs bench-unavailable

# make bench-seccomp (root): the per-call cost of fallocate-preload
# --seccomp against the LD_PRELOAD path, and its cost to other syscalls.
if HAVE_LINUX_HEADERS
noinst_PROGRAMS += bench/seccomp-cost
endif
bench_seccomp_cost_SOURCES = bench/seccomp-cost.c
bench_seccomp_cost_LDADD = -lpthread
EXTRA_DIST += bench/seccomp.sh
bench-seccomp: libfallocate.la bench/seccomp-cost$(EXEEXT) tools/fallocate-seccomp$(EXEEXT) tools/fallocate-preload
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/bench/seccomp.sh
.PHONY: bench-seccomp

#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The cross-ABI matrix: for each ABI, cross-builds libfallocate with its own
# configure (--host=...), builds tests/cross/abi-test.c against it twice
# (with and without -D_FILE_OFFSET_BITS=64), and runs both, native and with
# the emulation forced, under qemu-user (or natively where the CPU runs the
# ABI).  Prints one result line per ABI and a closing count.
#
#   run-matrix.sh [options] [ABI...]     (default: every ABI below)
#     --srcdir DIR       an unconfigured source tree with ./configure
#                        (default: the tree this script is in)
#     --workdir DIR      where the builds go (default: a new temporary one)
#     --testdir DIR      where the test files go; needs fallocate and
#                        SEEK_HOLE (default: WORKDIR/files)
#     --errno-helper P   tests/lib/with-fallocate-errno, for the musl fallback proof
#     --self-check ABI   also build ABI with its 64-bit argument passing
#                        deliberately wrong, and require its test to FAIL
#                        (may be repeated)
#     --require-all      a missing toolchain or qemu is a failure, not a skip
#     --keep             keep WORKDIR
#   CROSS_JOBS=N         rows built and run at once (default: the cores)
#
# ABIs: i386 x32 powerpc powerpc64 ppc64le s390x aarch64 armhf riscv64
#       mips mipsel mips64el mipsn32el musl
# (x86_64 and i386 run the full suite elsewhere in CI; i386 is here too,
# cheaply, because it is the common 32-bit off_t ABI.)
#
# Exit status: 0 when nothing failed (skips allowed), 1 otherwise.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
workdir='' testdir='' errno_helper='' require_all=no keep=no made_workdir=no
self_checks=() abis=()

while [ $# -gt 0 ]; do
	case $1 in
	--srcdir) srcdir=$(cd "$2" && pwd); shift 2 ;;
	--workdir) workdir=$2; shift 2 ;;
	--testdir) testdir=$2; shift 2 ;;
	--errno-helper) errno_helper=$2; shift 2 ;;
	--self-check) self_checks+=("$2"); shift 2 ;;
	--require-all) require_all=yes; shift ;;
	--keep) keep=yes; shift ;;
	-h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run-matrix.sh: unknown option $1" >&2; exit 2 ;;
	*) abis+=("$1"); shift ;;
	esac
done

# name | configure --host | compiler (":" for spaces) | runner (qemu binary, "native" or
# "x32") | qemu -L sysroot | src/arch directory configure must pick
abi_table() {
	cat <<'EOF'
i386      i686-linux-gnu             gcc:-m32                             native         -                            i386
x32       x86_64-linux-gnux32        gcc:-mx32:-idirafter:/usr/include/x86_64-linux-gnu x32            -                            x32
powerpc   powerpc-linux-gnu          powerpc-linux-gnu-gcc                qemu-ppc       /usr/powerpc-linux-gnu       powerpc
powerpc64 powerpc64-linux-gnu        powerpc64-linux-gnu-gcc              qemu-ppc64     /usr/powerpc64-linux-gnu     powerpc64
ppc64le   powerpc64le-linux-gnu      powerpc64le-linux-gnu-gcc            qemu-ppc64le   /usr/powerpc64le-linux-gnu   powerpc64
s390x     s390x-linux-gnu            s390x-linux-gnu-gcc                  qemu-s390x     /usr/s390x-linux-gnu         s390x
aarch64   aarch64-linux-gnu          aarch64-linux-gnu-gcc                qemu-aarch64   /usr/aarch64-linux-gnu       aarch64
armhf     arm-linux-gnueabihf        arm-linux-gnueabihf-gcc              qemu-arm       /usr/arm-linux-gnueabihf     arm
riscv64   riscv64-linux-gnu          riscv64-linux-gnu-gcc                qemu-riscv64   /usr/riscv64-linux-gnu       riscv64
mips      mips-linux-gnu             mips-linux-gnu-gcc                   qemu-mips      /usr/mips-linux-gnu          mips_o32
mipsel    mipsel-linux-gnu           mipsel-linux-gnu-gcc                 qemu-mipsel    /usr/mipsel-linux-gnu        mips_o32
mips64el  mips64el-linux-gnuabi64    mips64el-linux-gnuabi64-gcc          qemu-mips64el  /usr/mips64el-linux-gnuabi64 mips_n64
mipsn32el mips64el-linux-gnuabin32   mips64el-linux-gnuabi64-gcc:-mabi=n32 qemu-mipsn32el /usr/mips64el-linux-gnuabi64 mips_n32
musl      x86_64-linux-musl          musl-gcc                             native         -                            x86_64
EOF
}

if [ ${#abis[@]} -eq 0 ]; then
	mapfile -t abis < <(abi_table | awk '{ print $1 }')
fi
[ -x "$srcdir/configure" ] || { echo "run-matrix.sh: no configure in $srcdir (run autogen.sh)" >&2; exit 2; }
if [ -f "$srcdir/config.status" ]; then
	echo "run-matrix.sh: $srcdir is configured in place; give an unconfigured tree" \
		"(make check-cross uses a fresh distdir)" >&2
	exit 2
fi
if [ -z "$workdir" ]; then
	workdir=$(mktemp -d "${TMPDIR:-/tmp}/lfa-cross.XXXXXX")
	made_workdir=yes
else
	mkdir -p "$workdir"
fi
workdir=$(cd "$workdir" && pwd)
testdir=${testdir:-$workdir/files}
mkdir -p "$testdir"
cleanup() { # only what this script made: a --workdir given is the caller's
	if [ "$keep" = yes ]; then
		return
	elif [ "$made_workdir" = yes ]; then
		rm -rf "$workdir"
	else
		rm -rf "$testdir/abi-test."*
	fi
}
trap cleanup EXIT

n_pass=0 n_fail=0 n_skip=0
results=()
result() { # STATUS NAME TEXT...
	local line
	line=$(printf '%-4s %-10s %s' "$1" "$2" "${*:3}")
	results+=("$line")
	echo "$line"
	case $1 in
	PASS) n_pass=$((n_pass + 1)) ;;
	SKIP) n_skip=$((n_skip + 1)) ;;
	*) n_fail=$((n_fail + 1)) ;;
	esac
}
missing() { # NAME WHY
	if [ "$require_all" = yes ]; then result FAIL "$1" "$2"; else result SKIP "$1" "$2"; fi
}
show_log() { # FILE: the failures and the end of a log
	echo "--- $1"
	{ grep -E '^(FAIL|SKIP|note)' "$1"; tail -n 5 "$1"; } | head -n 40 | sed 's/^/    /'
}

# The deliberate breakage of --self-check: the 64-bit arguments passed in
# the wrong order (words swapped: in a register pair, or inside one 64-bit
# register) or too narrow (a 32-bit long where n32 and x32 want long long).
break_arch_header() { # HEADER
	local h=$1 expr new
	expr=$(sed -n 's/^#define LFA_ARG64(v) //p' "$h")
	case $expr in
	*LFA_PAIR_IN_MEMORY_ORDER*|*LFA_HI32*) new="LFA_SWAP2($expr)" ;;
	"(long long)(v)") new="(long)(v)" ;;
	*) new="(long)((uint64_t)(v) << 32 | (uint64_t)(v) >> 32)" ;;
	esac
	cat >> "$h" <<EOF

/* Broken on purpose by run-matrix.sh --self-check: $expr -> $new */
#define LFA_SWAP2_(a, b) b, a
#define LFA_SWAP2(...) LFA_SWAP2_(__VA_ARGS__)
#undef LFA_ARG64
#define LFA_ARG64(v) $new
EOF
	echo "$expr -> $new"
}

# configure and make the library for one ABI.  Sets $lib_dir.
build_library() { # NAME HOST CC ARCH_DIR SRC BUILD STATIC
	local name=$1 host=$2 cc=$3 arch_dir=$4 src=$5 build=$6 static=$7 got
	mkdir -p "$build"
	# PKG_CONFIG_LIBDIR: no host .pc files (Check, libseccomp) leak into a
	# cross build that only needs the library.
	if ! (cd "$build" && PKG_CONFIG_LIBDIR=/nonexistent "$src/configure" \
		--host="$host" --build="$(gcc -dumpmachine)" CC="$cc" \
		--enable-werror "--${static}-static" > configure.log 2>&1); then
		echo "configure failed: see $build/config.log"; return 1
	fi
	got=$(sed -n 's/^LFA_ARCH = //p' "$build/Makefile")
	if [ "$got" != "$arch_dir" ]; then
		echo "configure picked src/arch/$got, not src/arch/$arch_dir"; return 1
	fi
	if ! make -C "$build" -j2 libfallocate.la > "$build/make.log" 2>&1; then
		echo "make failed:"; grep -E 'error|warning' "$build/make.log" | head -n 10; return 1
	fi
}

build_test() { # CC SRC PROGRAM OUT [EXTRA CFLAGS/LIBS...]
	local cc=$1 src=$2 prog=$3 out=$4
	shift 4
	# shellcheck disable=SC2086
	$cc -O2 -Wall -Wextra -Werror -I"$src/include" -o "$out" "$src/tests/cross/$prog.c" "$@" \
		> "$out.build.log" 2>&1 || { cat "$out.build.log"; return 1; }
}

# Runs the four test runs of one ABI; prints "RUNS CHECKS" or the failure.
run_tests() { # LOGDIR RUNNER... -- BINARIES...
	local logdir=$1 bin mode rc runs=0 checks=0 failed=0
	shift
	local runner=()
	while [ "$1" != -- ]; do runner+=("$1"); shift; done
	shift
	for bin in "$@"; do
		for mode in native emulated; do
			local log
			log=$logdir/$(basename "$bin").$mode.log
			"${runner[@]}" "$bin" "$mode" "$testdir" > "$log" 2>&1
			rc=$?
			runs=$((runs + 1))
			if [ $rc -eq 77 ]; then
				echo "SKIP $(grep -m1 SKIP "$log")"; return 77
			fi
			checks=$((checks + $(grep -c '^ok:' "$log")))
			if [ $rc -ne 0 ]; then
				failed=1
				echo "$(basename "$bin") $mode: exit $rc, $(grep -c '^FAIL' "$log") failed" >&2
				show_log "$log" >&2
			fi
		done
	done
	echo "$runs runs, $checks checks"
	return $failed
}

# One ABI: toolchain present?  build, run, one result line.
do_abi() { # NAME [broken]
	local name=$1 broken=${2:-} row host cc runner sysroot arch_dir
	row=$(abi_table | awk -v n="$name" '$1 == n')
	[ -n "$row" ] || { result FAIL "$name" "unknown ABI"; return; }
	read -r _ host cc runner sysroot arch_dir <<< "$row"
	cc=${cc//:/ }
	local label=$name src=$srcdir base=$workdir/$name
	if [ -n "$broken" ]; then
		label="$name!"
		base=$workdir/$name-broken
	fi

	local compiler=${cc%% *}
	if ! command -v "$compiler" > /dev/null; then
		missing "$label" "no $compiler (the cross toolchain is not installed)"; return
	fi
	local run_cmd=()
	case $runner in
	native) ;;
	x32) ;;
	*)
		if ! command -v "$runner" > /dev/null; then
			missing "$label" "no $runner (qemu-user is not installed)"; return
		fi
		run_cmd=("$runner" -L "$sysroot")
		;;
	esac

	if [ -n "$broken" ]; then
		rm -rf "$base"; mkdir -p "$base"
		cp -a "$srcdir" "$base/src"
		src=$base/src
		local how
		how=$(break_arch_header "$src/src/arch/$arch_dir/fallocate_arch.h")
		echo "self-check $name: src/arch/$arch_dir/fallocate_arch.h: LFA_ARG64(v) $how"
	fi

	local t0 t1 t2 why static=disable
	[ "$name" = musl ] && static=enable
	t0=$(date +%s)
	if ! why=$(build_library "$name" "$host" "$cc" "$arch_dir" "$src" "$base/build" "$static"); then
		result FAIL "$label" "build: $why"; return
	fi
	local lib=$base/build/.libs tests=()
	build_test "$cc" "$src" abi-test "$base/abi-test" -L"$lib" -lfallocate \
		-Wl,-rpath,"$lib" || { result FAIL "$label" "abi-test does not build"; return; }
	build_test "$cc" "$src" abi-test "$base/abi-test-lfs" -D_FILE_OFFSET_BITS=64 \
		-L"$lib" -lfallocate -Wl,-rpath,"$lib" ||
		{ result FAIL "$label" "abi-test-lfs does not build"; return; }
	tests=("$base/abi-test" "$base/abi-test-lfs")
	if [ "$name" = musl ]; then
		build_test "$cc" "$src" abi-test "$base/abi-test-static" -static "$lib/libfallocate.a" ||
			{ result FAIL "$label" "the static abi-test does not build"; return; }
		build_test "$cc" "$src" probe "$base/probe-musl-only" -static ||
			{ result FAIL "$label" "the static musl-only probe does not build"; return; }
		build_test "$cc" "$src" probe "$base/probe-lfa" -static "$lib/libfallocate.a" ||
			{ result FAIL "$label" "the static probe with -lfallocate does not build"; return; }
		tests+=("$base/abi-test-static")
	fi
	t1=$(date +%s)

	if [ "$runner" = x32 ]; then
		local err
		err=$("$base/abi-test" 2>&1) # a usage message (2) if it runs at all
		if [ $? -ge 126 ]; then
			result SKIP "$label" "built in $((t1 - t0))s, not run: this kernel does not" \
				"run x32 programs (no CONFIG_X86_X32_ABI): ${err##*: }"
			return
		fi
	fi

	# A kernel without i386 programs (no CONFIG_IA32_EMULATION, or
	# ia32_emulation=0) runs this row under qemu-i386, as the other ABIs.
	local run_label=native
	if [ "$name" = i386 ] && [ ${#run_cmd[@]} -eq 0 ]; then
		"$base/abi-test" > /dev/null 2>&1
		if [ $? -ge 126 ]; then
			if ! command -v qemu-i386 > /dev/null; then
				missing "$label" "this kernel runs no i386 programs, and qemu-i386 is not installed"
				return
			fi
			run_cmd=(qemu-i386)
		elif [ -n "${LFA_I386_EMULATED:-}" ]; then
			run_label="qemu-i386 via binfmt_misc"
		fi
	fi
	local out rc
	out=$(run_tests "$base" "${run_cmd[@]}" -- "${tests[@]}" 2>"$base/failures.log")
	rc=$?
	t2=$(date +%s)
	local times="build $((t1 - t0))s, tests $((t2 - t1))s"
	if [ -n "$broken" ]; then
		if [ $rc -eq 1 ]; then
			result PASS "$label" "self-check: the broken build FAILS as it must" \
				"($(grep -c '^FAIL' "$base"/*.log | awk -F: '{ s += $2 } END { print s }') checks failed; $times)"
			grep -h -m2 '^FAIL' "$base"/abi-test.native.log | sed 's/^/    e.g. /'
		else
			result FAIL "$label" "self-check: the broken build was not caught (status $rc: $out)"
		fi
		return
	fi
	if [ $rc -eq 0 ] && grep -q '^note: REDUCED RUN' "$base"/*.log; then
		out="$out; REDUCED to values below 2 GiB: libc's own 64-bit calls do not reach the kernel intact under ${run_cmd[0]:-this system}"
	fi
	case $rc in
	0) result PASS "$label" "$out ($times) [${run_cmd[*]:-$run_label}]" ;;
	77) result SKIP "$label" "$out" ;;
	*) result FAIL "$label" "$out ($times)"; cat "$base/failures.log" ;;
	esac
	if [ "$name" = musl ] && [ $rc -eq 0 ]; then
		musl_fallback "$base"
		musl_appends "$base" "$src" "$cc" "$lib"
	fi
}

# musl 1.2.3 has no pwritev2 wrapper: the library makes the syscall itself,
# so that growth appends there too (RWF_APPEND) and another writer's
# appends survive it (issue 18).  tests/calls/append-race built against the musl
# library: 200,000 records while posix_fallocate grows the file, emulation
# forced.  Positional growth damaged thousands of records here.
musl_appends() { # BASE SRC CC LIBDIR
	local base=$1 src=$2 cc=$3 lib=$4 out
	mkdir -p "$testdir/append-race"
	# shellcheck disable=SC2086
	$cc -O2 -Wall -Wextra -Werror -I"$src/include" -o "$base/append-race" \
		"$src/tests/calls/append-race.c" -L"$lib" -lfallocate -Wl,-rpath,"$lib" -lpthread \
		> "$base/append-race.build.log" 2>&1 ||
		{ cat "$base/append-race.build.log"; result FAIL "musl-app" "append-race does not build"; return; }
	if out=$(LIBFALLOCATE_EMULATION=always "$base/append-race" "$testdir/append-race" 200000 2>&1); then
		result PASS "musl-app" "${out##*: }"
	else
		result FAIL "musl-app" "$(echo "$out" | head -n 5 | tr '\n' ' ')"
	fi
	rm -rf "$testdir/append-race"
}

# musl alone has no emulation: where the kernel says EOPNOTSUPP its
# posix_fallocate fails.  The same static program linked with -lfallocate
# falls back to the emulation.
musl_fallback() { # BASE
	local base=$1 out_plain out_lfa rc_plain rc_lfa
	if [ -z "$errno_helper" ] || [ ! -x "$errno_helper" ]; then
		missing "musl-fb" "no tests/lib/with-fallocate-errno (libseccomp missing): the fallback proof needs it"
		return
	fi
	out_plain=$("$errno_helper" EOPNOTSUPP "$base/probe-musl-only" "$testdir" 2>&1)
	rc_plain=$?
	if [ $rc_plain -eq 77 ]; then
		result SKIP "musl-fb" "seccomp unavailable: $out_plain"; return
	fi
	out_lfa=$(LIBFALLOCATE_DEBUG=1 "$errno_helper" EOPNOTSUPP "$base/probe-lfa" "$testdir" 2>&1)
	rc_lfa=$?
	echo "    static musl alone, kernel says EOPNOTSUPP:      $out_plain (exit $rc_plain)"
	echo "    static musl + -lfallocate, kernel says EOPNOTSUPP: $(echo "$out_lfa" | tr '\n' ' ')(exit $rc_lfa)"
	if [ $rc_plain -eq 1 ] && [[ $out_plain == *EOPNOTSUPP* ]] && [ $rc_lfa -eq 0 ] &&
		[[ $out_lfa == *"emulated (kernel said"* ]]; then
		result PASS "musl-fb" "static: musl alone EOPNOTSUPP, with -lfallocate emulated and ok"
	else
		result FAIL "musl-fb" "static musl fallback: alone exit $rc_plain, with -lfallocate exit $rc_lfa"
	fi
}

start=$(date +%s)
echo "cross matrix: source $srcdir, work $workdir, test files in $testdir"
# The test directory must have fallocate: checked with util-linux, not with
# the library under test (a broken build must fail, not skip).
if command -v fallocate > /dev/null; then
	if ! { : > "$testdir/.fallocate-probe" &&
		fallocate --keep-size --length 4096 "$testdir/.fallocate-probe"; }; then
		rm -f "$testdir/.fallocate-probe"
		echo "SKIP: $testdir has no fallocate: use --testdir on ext4, xfs, btrfs or tmpfs"
		exit 77
	fi
	rm -f "$testdir/.fallocate-probe"
fi
# The rows are built and run JOBS at a time (one per core; configure is
# serial, so most of a row is one process), each in a subshell whose output
# and result lines go to files of its own, printed in the table's order.
jobs=${CROSS_JOBS:-$(nproc 2> /dev/null || echo 1)}
rows=()
for abi in "${abis[@]}"; do rows+=("$abi"); done
for abi in "${self_checks[@]}"; do rows+=("$abi:broken"); done
i=0
for row in "${rows[@]}"; do
	while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	(
		results=() n_pass=0 n_fail=0 n_skip=0
		if [ "${row#*:}" = broken ]; then do_abi "${row%:*}" broken; else do_abi "$row"; fi
		printf '%s\n' "${results[@]}" > "$workdir/row.$i.results"
	) > "$workdir/row.$i.out" 2>&1 &
	i=$((i + 1))
done
wait
results=()
for ((i = 0; i < ${#rows[@]}; i++)); do
	cat "$workdir/row.$i.out"
	[ -s "$workdir/row.$i.results" ] || echo "FAIL ${rows[i]%:*} printed no result" > "$workdir/row.$i.results"
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		results+=("$line")
		case ${line%% *} in
		PASS) n_pass=$((n_pass + 1)) ;;
		SKIP) n_skip=$((n_skip + 1)) ;;
		*) n_fail=$((n_fail + 1)) ;;
		esac
	done < "$workdir/row.$i.results"
	rm -f "$workdir/row.$i.out" "$workdir/row.$i.results"
done

echo
echo "=== cross matrix summary ($(( $(date +%s) - start ))s)"
printf '%s\n' "${results[@]}"
echo "cross-matrix: $n_pass passed, $n_fail failed, $n_skip skipped"
[ $n_fail -eq 0 ]

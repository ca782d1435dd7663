#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# pfallocate(1): human sizes, the report (one line, or valid JSON), forced and
# kernel-caused emulation, util-linux style failures where a bad argument
# never writes, and the progress bar on a pseudo-terminal.
. "${top_srcdir:-.}/tests/lib/lib.sh"
PF=$top_builddir/tools/pfallocate
[ -x "$PF" ] || fail "$PF was not built"
need_cmd python3
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
n=0
ok() { n=$((n + 1)); note "$*: ok"; }

# json FILE EXPR: EXPR evaluated in Python on the one JSON object in FILE.
json() {
	python3 -c 'import json, sys
o = json.loads(open(sys.argv[1]).read())
print(eval(sys.argv[2]))' "$1" "$2" || fail "not one JSON object: $(cat "$1")"
}

# Sizes, as util-linux reads them: each input's result (a byte count, or
# "invalid") as util-linux 2.38's fallocate -l gave it, odd fraction
# arithmetic included.  Where util-linux and strace are installed, util-linux
# is asked too and pfallocate must agree with it.  The syscall fails (EIO,
# by seccomp or strace) so that nothing is allocated, whatever the size.
size_table=$scratch/sizes
cat > "$size_table" <<'EOF'
0x1000|4096
0X1000|4096
010|8
010K|8192
0x10K|16384
0x1g|1073741824
0x1E|30
0x1B|27
0x1p|1125899906842624
4096|4096
4K|4096
1k|1024
1KiB|1024
3kib|3072
1KB|1000
1kB|1000
1Kb|1000
1000KB|1000000
1MB|1000000
1M|1048576
2m|2097152
1G|1073741824
1EB|1000000000000000000
4294967296|4294967296
1.5M|1572864
1.5K|1536
1.5KiB|1536
0.5K|512
0.5KiB|512
1.05K|1075
1.25KiB|1279
1.123456789K|1149
1.0000001K|1024
1.999999999M|2202969
1.9999999999999999999K|2150
1.5e|1729382256910270464
7.5E|8646911284551352320
1.K|1024
01.5K|1536
0x1.8K|2048
1..5K|1536
1.0.5K|1075
 12|12
+5|5
0x7fffffffffffffff|9223372036854775807
0|invalid
00|invalid
08|invalid
09|invalid
0x|invalid
0x0|invalid
0Z|invalid
1KIB|invalid
1Ki|invalid
1iB|invalid
1B|invalid
1b|invalid
1KK|invalid
1XiB|invalid
1KiBB|invalid
0x1EiB|invalid
1.5|invalid
1.0|invalid
1.|invalid
.5K|invalid
.|invalid
|invalid
K|invalid
0.0001K|invalid
1,5K|invalid
1.5.5K|invalid
0x10.5|invalid
1e3|invalid
0b101|invalid
12 |invalid
1 K|invalid
-5|invalid
-0|invalid
 -5|invalid
1Z|invalid
1Y|invalid
1ZiB|invalid
8E|invalid
9E|invalid
16E|invalid
7.9E|invalid
0x8000000000000000|invalid
18446744073709551615|invalid
18446744073709551616|invalid
99999999999999999999|invalid
1.99999999999999999999K|invalid
EOF
# The length util-linux's fallocate passes to the kernel, or "invalid".
util_linux_length() {
	LC_ALL=C strace -qq -e trace=fallocate -e inject=fallocate:error=EIO \
		fallocate -l "$1" "$scratch/ul" > "$scratch/ul.out" 2>&1
	if grep -q 'invalid length value specified' "$scratch/ul.out"; then
		echo invalid
	else
		sed -n 's/^fallocate([0-9]*, 0, 0, \([0-9]*\)).*/\1/p' "$scratch/ul.out"
	fi
}
# The length pfallocate takes, from its JSON, or "invalid".
pf_length() {
	if $eio "$PF" --json --emulation=never -l "$1" "$scratch/pf" > "$scratch/pf.out" 2> "$scratch/pf.err"; then
		fail "-l '$1': allocated despite the EIO filter"
	fi
	if grep -Eq "^pfallocate: (invalid length|length too large)" "$scratch/pf.err"; then
		[ ! -s "$scratch/pf.out" ] || fail "-l '$1': refused, yet printed a report"
		echo invalid
	else # sed, not python: this runs for every row
		sed -n 's/.*,"length":\([0-9]*\),.*/\1/p' "$scratch/pf.out"
	fi
}
if [ -x "$WITH_ERRNO" ] && "$WITH_ERRNO" EIO true 2> /dev/null; then
	eio="$WITH_ERRNO EIO"
elif command -v strace > /dev/null 2>&1; then
	eio="strace -f -qq -o /dev/null -e trace=fallocate -e inject=fallocate:error=EIO"
else
	eio=
fi
compare_ul=
if command -v fallocate > /dev/null 2>&1 && command -v strace > /dev/null 2>&1 &&
	[ "$(util_linux_length 0x10)" = 16 ]; then
	compare_ul=1
	note "comparing with $(fallocate --version)"
else
	note "util-linux fallocate or strace (with fault injection) missing: table only"
fi
if [ -n "$eio" ]; then
	rows=0
	while IFS='|' read -r arg want; do
		got=$(pf_length "$arg")
		[ "$got" = "$want" ] || fail "-l '$arg': pfallocate says $got, util-linux $want"
		if [ -n "$compare_ul" ]; then
			ul=$(util_linux_length "$arg")
			[ "$ul" = "$got" ] || fail "-l '$arg': pfallocate says $got, the installed util-linux $ul"
		fi
		rows=$((rows + 1))
	done < "$size_table"
	# Offsets are read the same way; 0 is a valid one.
	for case in 0x10:16 010:8 0:0 1.5K:1536; do
		arg=${case%%:*} want=${case#*:}
		$eio "$PF" --json --emulation=never -o "$arg" -l 1 "$scratch/pf" > "$scratch/pf.out" 2> /dev/null
		[ "$(json "$scratch/pf.out" 'o["offset"]')" = "$want" ] || fail "-o $arg: $(cat "$scratch/pf.out")"
		if [ -n "$compare_ul" ]; then
			LC_ALL=C strace -qq -e trace=fallocate -e inject=fallocate:error=EIO \
				fallocate -o "$arg" -l 1 "$scratch/ul" 2>&1 |
				grep -q "^fallocate([0-9]*, 0, $want, 1)" || fail "-o $arg: util-linux differs"
		fi
	done
	ok "sizes: $rows inputs${compare_ul:+, each as the installed util-linux reads it}"
else
	note "neither seccomp nor strace: the size table is not checked"
fi
# Real allocations of a few sizes.
for case in 4K:4096 0x2000:8192 010:8 1.5M:1572864 3kib:3072; do
	arg=${case%%:*} want=${case#*:}
	f=$scratch/size; rm -f "$f"
	"$PF" --json -l "$arg" "$f" > "$scratch/out" || fail "-l $arg failed: $(cat "$scratch/out")"
	[ "$(file_size "$f")" = "$want" ] || fail "-l $arg: size $(file_size "$f"), wanted $want"
	[ "$(json "$scratch/out" 'o["size_after"]')" = "$want" ] || fail "-l $arg: report says otherwise"
done
ok "sizes allocated"
f=$scratch/offset; rm -f "$f"
"$PF" -o 1M -l 1M "$f" > "$scratch/out" || fail "-o 1M -l 1M"
[ "$(file_size "$f")" = 2097152 ] || fail "-o 1M -l 1M: size $(file_size "$f")"
grep -Eq "^$f: (native|emulated).*, size 0 B -> 2 MiB, blocks 0 -> [0-9]+, [0-9]+ syscalls?, [0-9.]+ s\$" \
	"$scratch/out" || fail "report line: $(cat "$scratch/out")"
ok "offset and the one-line report"

# JSON: an object per file per line, each valid, the report in it.
rm -f "$scratch/j1" "$scratch/j2"
"$PF" --json --emulation=always -l 3M "$scratch/j1" "$scratch/j2" > "$scratch/out" || fail "json run"
[ "$(wc -l < "$scratch/out")" = 2 ] || fail "wanted two lines: $(cat "$scratch/out")"
while read -r line; do
	printf '%s\n' "$line" > "$scratch/line"
	python3 -m json.tool "$scratch/line" > /dev/null || fail "invalid JSON: $line"
	[ "$(json "$scratch/line" 'o["ok"], o["path"], o["reason"], o["bytes_written"], o["length"]')" = \
		"(True, 'emulated', 'forced', 3145728, 3145728)" ] || fail "json fields: $line"
	[ "$(json "$scratch/line" 'o["blocks_after"] * 512 >= 3145728 and o["blocks_before"] == 0')" = True ] ||
		fail "json blocks: $line"
done < "$scratch/out"
weird=$(printf '%s/a "quoted"\\name\tand \351 latin-1' "$scratch")
"$PF" --json -l 4K "$weird" > "$scratch/out" || fail "odd name"
python3 -m json.tool "$scratch/out" > /dev/null || fail "invalid JSON for an odd name: $(cat "$scratch/out")"
ok "JSON output"

# Names that are not UTF-8 (overlong forms, surrogates, bytes F5 and above,
# code points past U+10FFFF, stray continuation bytes, a sequence cut
# short): the output is still UTF-8, each such byte is U+FFFD, and
# well-formed characters pass.
odd=$(printf 'a\300\257b\340\200\200c\355\240\200d\365\200\200\200e\364\220\200\200f\200g\303\251\342\202\254\360\235\204\236\342\202')
"$PF" --json -l 4K "$scratch/$odd" > "$scratch/out" || fail "invalid UTF-8 name"
"$PYTHON" - "$scratch/out" "$scratch/" <<'EOF' || fail "JSON for invalid UTF-8: $(od -c "$scratch/out" | head)"
import json, sys
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8")  # strict: rejects overlong forms, surrogates, > U+10FFFF
want = sys.argv[2] + "a" + "\ufffd" * 2 + "b" + "\ufffd" * 3 + "c" + "\ufffd" * 3 + "d" + \
    "\ufffd" * 4 + "e" + "\ufffd" * 4 + "f" + "\ufffd" + "g\u00e9\u20ac\U0001d11e" + "\ufffd" * 2
got = json.loads(text)["file"]
if got != want:
    sys.exit("file: %r, wanted %r" % (got, want))
EOF
ok "JSON is UTF-8 whatever the name"

# JSON Lines: one object per file and line; the man page's example.
rm -f "$scratch/a" "$scratch/b"
"$PF" --json -l 1MiB "$scratch/a" "$scratch/b" > "$scratch/out" || fail "two files"
if command -v jq > /dev/null 2>&1; then
	[ "$(jq -s 'length' < "$scratch/out")" = 2 ] || fail "jq -s: $(cat "$scratch/out")"
	[ "$(jq -r 'select(.ok) | .file' < "$scratch/out" | wc -l)" = 2 ] || fail "jq per line"
	(cd "$scratch" && rm -f a b && "$PF" --json -l 1MiB a b | jq -s . > jq.out) || fail "man page example"
	[ "$(jq 'length' < "$scratch/jq.out")" = 2 ] || fail "man page example: $(cat "$scratch/jq.out")"
else
	note "jq missing: the man page's jq example is not run"
fi
"$PYTHON" -c 'import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert [o["size_after"] for o in objs] == [1048576, 1048576], objs' "$scratch/out" || fail "JSON Lines"
ok "JSON Lines"

# The options fallocate(1) users type: -x (the default), -v, -q, -n.
f=$scratch/opts; rm -f "$f"
"$PF" -x -l 8K "$f" > "$scratch/out" 2>&1 || fail "-x: $(cat "$scratch/out")"
[ "$(file_size "$f")" = 8192 ] || fail "-x: size"
for len in 1279 1048576 1600000; do
	rm -f "$f"
	"$PF" -v -l $len "$f" > "$scratch/out" 2>&1 || fail "-v: $(cat "$scratch/out")"
	[ "$(wc -l < "$scratch/out")" = 2 ] || fail "-v: wanted two lines: $(cat "$scratch/out")"
	if command -v fallocate > /dev/null 2>&1; then
		rm -f "$f"
		want=$(fallocate -v -l $len "$f")
		[ "$(head -n 1 "$scratch/out")" = "$want" ] ||
			fail "-v: '$(head -n 1 "$scratch/out")', fallocate -v says '$want'"
	fi
	grep -q "^$f: native" "$scratch/out" || fail "-v: no report line: $(cat "$scratch/out")"
done
rm -f "$f"
"$PF" -q --emulation=always -l 1M "$f" > "$scratch/out" 2>&1 || fail "-q: $(cat "$scratch/out")"
[ ! -s "$scratch/out" ] || fail "-q printed: $(cat "$scratch/out")"
[ "$(file_size "$f")" = 1048576 ] || fail "-q: size"
"$PF" -q -l 1M "$scratch" > "$scratch/out" 2> "$scratch/err" && fail "-q on a directory succeeded"
[ ! -s "$scratch/out" ] && grep -q "Is a directory" "$scratch/err" || fail "-q hides errors: $(cat "$scratch/err")"
# -n: allocated, size kept, existing files only (as fallocate(1) -n).
printf 'data' > "$f"
if "$PF" -n -l 1M "$f" > "$scratch/out" 2> "$scratch/err"; then
	[ "$(file_size "$f")" = 4 ] || fail "-n changed the size"
	[ "$(( $(stat -c %b "$f") * 512 ))" -ge 1048576 ] || fail "-n allocated nothing"
	grep -q "^$f: native, size 4 B -> 4 B" "$scratch/out" || fail "-n report: $(cat "$scratch/out")"
else
	note "-n: this filesystem has no FALLOC_FL_KEEP_SIZE: $(cat "$scratch/err")"
fi
rm -f "$scratch/new"
"$PF" -n -l 1M "$scratch/new" > /dev/null 2> "$scratch/err" && fail "-n created a file"
grep -q "cannot open: No such file" "$scratch/err" || fail "-n new file: $(cat "$scratch/err")"
if [ -x "$WITH_ERRNO" ] && "$WITH_ERRNO" ENOSYS true 2> /dev/null; then
	"$WITH_ERRNO" EOPNOTSUPP "$PF" --json -n -l 2M "$f" > "$scratch/out" 2> "$scratch/err" &&
		fail "-n emulated"
	grep -qx "pfallocate: $f: allocation failed: Operation not supported (--keep-size needs the kernel's fallocate: the emulation writes zeros, and cannot keep the size)" \
		"$scratch/err" || fail "-n under EOPNOTSUPP: $(cat "$scratch/err")"
	[ "$(json "$scratch/out" 'o["keep_size"], o["path"], o["native_error"], o["size_after"]')" = \
		"(True, 'native', 'Operation not supported', 4)" ] || fail "-n JSON: $(cat "$scratch/out")"
fi
ok "-x, -v, -q, -n"

# Emulation: forced by option or environment, refused, or caused by the kernel.
f=$scratch/forced; rm -f "$f"
LIBFALLOCATE_EMULATION=always "$PF" --json -l 2M "$f" > "$scratch/out" || fail "env always"
[ "$(json "$scratch/out" 'o["path"], o["reason"]')" = "('emulated', 'forced')" ] ||
	fail "LIBFALLOCATE_EMULATION=always not followed: $(cat "$scratch/out")"
rm -f "$f"
LIBFALLOCATE_EMULATION=always "$PF" --json --emulation=auto -l 2M "$f" > "$scratch/out" || fail "auto"
[ "$(json "$scratch/out" 'o["reason"] != "forced"')" = True ] ||
	fail "--emulation=auto did not override the environment: $(cat "$scratch/out")"
ok "forced emulation"
if [ -x "$WITH_ERRNO" ] && "$WITH_ERRNO" ENOSYS true 2> /dev/null; then
	f=$scratch/enosys; rm -f "$f"
	"$WITH_ERRNO" ENOSYS "$PF" --json -l 5M "$f" > "$scratch/out" || fail "ENOSYS: $(cat "$scratch/out")"
	[ "$(json "$scratch/out" 'o["path"], o["reason"], o["native_error"], o["size_after"]')" = \
		"('emulated', 'kernel', 'Function not implemented', 5242880)" ] ||
		fail "ENOSYS report: $(cat "$scratch/out")"
	rm -f "$f"
	if "$WITH_ERRNO" ENOSYS "$PF" --emulation=never -l 5M "$f" > "$scratch/out" 2> "$scratch/err"; then
		fail "--emulation=never succeeded under ENOSYS"
	fi
	grep -qx "pfallocate: $f: allocation failed: Function not implemented" "$scratch/err" ||
		fail "never: message: $(cat "$scratch/err")"
	[ "$(file_size "$f")" = 0 ] || fail "never: size $(file_size "$f")"
	ok "emulation after ENOSYS, and --emulation=never"
else
	note "no seccomp helper: kernel-caused emulation not checked here"
fi

# Bad arguments: exit 1, a message naming the problem, no file touched.
f=$scratch/untouched
printf 'keep' > "$scratch/existing"
while IFS='|' read -r args want; do
	rm -f "$f"
	# shellcheck disable=SC2086
	if "$PF" $args "$f" "$scratch/existing" > "$scratch/out" 2> "$scratch/err"; then
		fail "pfallocate $args succeeded"
	else
		rc=$?
	fi
	[ "$rc" = 1 ] || fail "pfallocate $args: exit $rc, wanted 1"
	grep -q -- "^pfallocate: $want" "$scratch/err" || fail "pfallocate $args: message: $(cat "$scratch/err")"
	[ ! -s "$scratch/out" ] || fail "pfallocate $args: printed a report: $(cat "$scratch/out")"
	[ ! -e "$f" ] || fail "pfallocate $args created the file"
	[ "$(file_size "$scratch/existing")" = 4 ] || fail "pfallocate $args changed a file"
done <<'EOF'
-l 0|invalid length: '0'
-l -5|invalid length: '-5'
-l 4X|invalid length: '4X'
-l 1.5|invalid length: '1.5'
-l 0x|invalid length: '0x'
-l 08|invalid length: '08'
-n -x -l 1M|--keep-size and --posix exclude each other
-n --emulation=always -l 1M|--keep-size cannot be emulated
-l 1KiBB|invalid length: '1KiBB'
-l .|invalid length: '.'
-l 9E|length too large: '9E'
-l 99999999999999999999|length too large
-o -1 -l 1M|invalid offset: '-1'
-o 7E -l 2E|offset plus length is too large
--emulation=sometimes -l 1M|invalid emulation: 'sometimes'
-o 1M|no length argument specified
--bogus -l 1M|unrecognized option
-l|
EOF
"$PF" -l 1M > /dev/null 2> "$scratch/err" && fail "no file: succeeded"
grep -qx "pfallocate: no filename specified" "$scratch/err" || fail "no file: $(cat "$scratch/err")"
ok "bad arguments"

# Failures per file: the others are still done, and the exit status is 1.
rm -f "$scratch/after"
if "$PF" -l 8K "$scratch" "$scratch/after" > "$scratch/out" 2> "$scratch/err"; then
	fail "a directory was allocated"
fi
grep -qx "pfallocate: $scratch: cannot open: Is a directory" "$scratch/err" ||
	fail "directory message: $(cat "$scratch/err")"
[ "$(file_size "$scratch/after")" = 8192 ] || fail "the file after the failure was not done"
"$PF" --help | grep -q '^Usage:' || fail "--help"
"$PF" --version | grep -Eq '^pfallocate from libfallocate [0-9]+\.[0-9]+' || fail "--version"
ok "per-file failures, --help, --version"

# Progress: nothing unless asked when stderr is no terminal; lines when asked.
f=$scratch/progress; rm -f "$f"
"$PF" --emulation=always -l 16M "$f" > /dev/null 2> "$scratch/err" || fail "quiet run"
[ ! -s "$scratch/err" ] || fail "progress without a terminal: $(cat "$scratch/err")"
rm -f "$f"
"$PF" --progress --emulation=always -l 16M "$f" > /dev/null 2> "$scratch/err" || fail "--progress"
[ "$(grep -cx "pfallocate: $f: 100% done" "$scratch/err")" = 1 ] ||
	fail "--progress lines, 100% once: $(cat "$scratch/err")"
ok "progress lines"
# The bar, on a pseudo-terminal: rate and time left, at most ten redraws a
# second, one final line (tests/programs/pty-progress.py checks each frame).
if "$PYTHON" -c 'import pty, termios' 2> /dev/null; then
	rm -f "$f"
	"$PYTHON" "$top_srcdir/tests/programs/pty-progress.py" 100 "256 MiB" \
		"$PF" --progress --emulation=always -l 256M "$f" > "$scratch/tty" ||
		fail "progress bar: $(cat "$scratch/tty")"
	note "$(grep '^frames' "$scratch/tty")"
	grep -q "emulated (forced; 256 MiB written)" "$scratch/tty" || fail "no report: $(cat "$scratch/tty")"
	[ "$(file_size "$f")" = 268435456 ] || fail "under a terminal: size"
	# A narrow terminal and a long name: no line wraps.
	long=$scratch/a-rather-long-directory-name-for-a-narrow-terminal
	mkdir -p "$long"; rm -f "$f"
	"$PYTHON" "$top_srcdir/tests/programs/pty-progress.py" 40 "16 MiB" \
		"$PF" --progress --emulation=always -l 16M "$long/f" > "$scratch/tty" ||
		fail "narrow terminal: $(cat "$scratch/tty")"
	# Without --progress a quick allocation shows nothing.
	"$PYTHON" "$top_srcdir/tests/programs/pty-progress.py" 100 none \
		"$PF" --emulation=always -l 1M "$long/g" > "$scratch/tty" || fail "quiet bar: $(cat "$scratch/tty")"
	ok "progress bar on a pseudo-terminal"
else
	note "python3 has no pty module: the terminal bar is not checked"
fi
# With stdin, stdout or stderr closed, the file it opens must not take their
# number: the progress it shows would be written into it.  The program itself,
# not libtool's wrapper script, whose shell fills closed descriptors.
real_pf=$PF
for p in "$top_builddir/tools/.libs/lt-pfallocate" "$top_builddir/tools/.libs/pfallocate"; do
	# shellcheck disable=SC2034 # read by the eval below
	if [ -x "$p" ]; then real_pf=$p; break; fi
done
for closed in '<&-' '>&-' '2>&-' '<&- >&- 2>&-'; do
	f=$scratch/closed-stdio
	rm -f "$f"
	LD_LIBRARY_PATH=$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		eval '"$real_pf" --progress --emulation=always -l 16M "$f"' "$closed"
	[ "$(file_size "$f")" = 16777216 ] || fail "stdio closed ($closed): size $(file_size "$f")"
	[ "$(tr -d '\000' < "$f" | wc -c)" = 0 ] ||
		fail "stdio closed ($closed): text in the file: $(tr -d '\000' < "$f" | head -c 200)"
done
ok "closed stdio: nothing written into the file"
echo "PASS: $n groups"

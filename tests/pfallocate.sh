#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# pfallocate(1): human sizes, the report (one line, or valid JSON), forced and
# kernel-caused emulation, util-linux style failures where a bad argument
# never writes, and the progress bar on a pseudo-terminal.
. "${top_srcdir:-.}/tests/lib.sh"
PF=$top_builddir/tools/pfallocate
[ -x "$PF" ] || fail "$PF was not built"
need_cmd python3
n=0
ok() { n=$((n + 1)); note "$*: ok"; }

# json FILE EXPR: EXPR evaluated in Python on the one JSON object in FILE.
json() {
	python3 -c 'import json, sys
o = json.loads(open(sys.argv[1]).read())
print(eval(sys.argv[2]))' "$1" "$2" || fail "not one JSON object: $(cat "$1")"
}

# Sizes, as util-linux reads them.
for case in 4K:4096 512K:524288 1MiB:1048576 1000KB:1000000 1.5M:1572864 2m:2097152 \
	3kib:3072 1MB:1000000 4096:4096 0.5KiB:512; do
	arg=${case%%:*} want=${case#*:}
	f=$scratch/size; rm -f "$f"
	"$PF" --json -l "$arg" "$f" > "$scratch/out" || fail "-l $arg failed: $(cat "$scratch/out")"
	[ "$(file_size "$f")" = "$want" ] || fail "-l $arg: size $(file_size "$f"), wanted $want"
	[ "$(json "$scratch/out" 'o["size_after"]')" = "$want" ] || fail "-l $arg: report says otherwise"
done
ok "sizes"
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
grep -qx "pfallocate: $f: 100% done" "$scratch/err" || fail "--progress lines: $(cat "$scratch/err")"
ok "progress lines"
if command -v script > /dev/null 2>&1 && script -qec true /dev/null > /dev/null 2>&1; then
	rm -f "$f"
	script -qec "'$PF' --progress --emulation=always -l 16M '$f'" /dev/null > "$scratch/tty" ||
		fail "under a terminal: $(cat "$scratch/tty")"
	grep -q "\[#*\] 100% 16 MiB / 16 MiB" "$scratch/tty" || fail "no bar: $(od -c "$scratch/tty" | head)"
	grep -q "emulated (forced; 16 MiB written)" "$scratch/tty" || fail "no report under a terminal"
	[ "$(file_size "$f")" = 16777216 ] || fail "under a terminal: size"
	ok "progress bar on a pseudo-terminal"
else
	note "script(1) unavailable: the terminal bar is not checked"
fi
echo "PASS: $n groups"

#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# fuzz -r runs exactly the operations of an ops file (it used to drop every
# write), and -o saves what ran: a hand-written file and a generated run
# with the second writer (-c) both round-trip, operation for operation.
. "${top_srcdir:-.}/tests/lib/lib.sh"

FUZZ=$top_builddir/tests/calls/fuzz
[ -x "$FUZZ" ] || skip "tests/calls/fuzz is not built: this compiler lacks Linux's headers"
mkdir "$scratch/n" "$scratch/e" || exit 99
cd "$scratch" || exit 99

ops_only() { grep -v '^#' "$1" | awk '{ print $1, $2, $3, $4 }'; }

# Every kind, data seeds above the descriptor kinds' count, records of the
# second writer after an allocation, and one with no allocation before it.
cat > hand.ops <<'OPS'
# a comment, then the operations
c 100 7 5
w 0 5000 4000000000
w 8192 100 17
t 3000 0 0
f 1000 20000 0
p 4096 4096 0
f 0 30000 2
c 40000 10 99
c 500 20 3000000000
w 70000 1 4294967295
f 65536 4096 4  # posix_fallocate on direct
t 0 0 0
f 10 10 6
OPS
"$FUZZ" -r hand.ops -v -o hand.saved n e > hand.log 2>&1; rc=$?
cat hand.log
[ $rc = 77 ] && skip "the kernel cannot fallocate in $scratch"
[ $rc = 0 ] || fail "replaying hand.ops failed"
grep -q 'ignored' hand.log && fail "the replay ignored lines of hand.ops"
ops_only hand.ops > want
ops_only hand.log > ran
cmp want ran || fail "the replay did not run the operations of hand.ops (diff: $(diff want ran | head -5))"
ops_only hand.saved > saved
cmp want saved || fail "-o did not save what the replay ran"
grep -q '^# 11 operations' hand.log || fail "the replay did not count 11 operations"

# A generated run with the second writer, saved, replayed and saved again.
"$FUZZ" -n 150 -s 77 -c -v -o gen.ops n e > gen.log 2>&1 || { cat gen.log; fail "fuzz -c diverged"; }
tail -n 2 gen.log
grep -q '^w ' gen.ops && grep -q '^c ' gen.ops && grep -q '^f ' gen.ops ||
	fail "the generated ops file lacks writes, allocations or the second writer's records"
ops_only gen.log > gen.ran
ops_only gen.ops > gen.want
cmp gen.want gen.ran || fail "-v and -o disagree on what ran"
"$FUZZ" -r gen.ops -v -o replay.ops n e > replay.log 2>&1 || { cat replay.log; fail "the replay diverged"; }
tail -n 2 replay.log
cmp gen.ops replay.ops || fail "the replay's ops file differs from the original"
ops_only replay.log > replay.ran
cmp gen.want replay.ran || fail "the replay ran other operations"
[ "$(grep '^# .* operations' gen.log | sed 's/(.*//')" = \
  "$(grep '^# .* operations' replay.log | sed 's/(.*//')" ] || fail "operation counts differ"
grep '^# second writer' gen.log | sed 's/ (.*)//; s/; lost.*//' > w1
grep '^# second writer' replay.log | sed 's/ (.*)//; s/; lost.*//' > w2
cmp w1 w2 || fail "the second writer's records differ: $(cat w1) / $(cat w2)"
echo PASS

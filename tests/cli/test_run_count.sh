#!/usr/bin/env bash
# test_run_count.sh - tests/run.sh's closing line counts skips as skips, never as passes: a
# suite that passes, one that passes but prints "SKIP: <section>" twice, one that exits 77,
# and one that fails give "2 passed, 1 failed, 3 skipped", list each skip, and exit 1.
# Usage: test_run_count.sh [BIN [ASAN_BIN]] (the binaries are not used)
. "$(dirname "$0")/lib.sh" --no-bin
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir "$tmp/s"
printf '#!/bin/sh\necho ok\n' >"$tmp/s/a_pass"
printf '#!/bin/sh\necho "SKIP: part one (why)"\necho "SKIP: part two (why)"\n' >"$tmp/s/b_partial"
printf '#!/bin/sh\necho "cannot run here"\nexit 77\n' >"$tmp/s/c_skip"
printf '#!/bin/sh\nexit 3\n' >"$tmp/s/d_fail"
chmod +x "$tmp/s"/*

(cd "$ROOT" && RUN_SH_SUITES="$tmp/s" bash tests/run.sh) >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "exit $rc with one failure"
[ "$(tail -n 1 "$tmp/out")" = "2 passed, 1 failed, 3 skipped" ] ||
    fail "closing line: $(tail -n 1 "$tmp/out")"
for l in "SKIPPED: suite: c_skip" "SKIPPED: suite: b_partial: part one (why)" \
    "SKIPPED: suite: b_partial: part two (why)" "FAILED: suite: d_fail"; do
    grep -qxF "$l" "$tmp/out" || fail "no line '$l'"
done
rm "$tmp/s/d_fail"
(cd "$ROOT" && RUN_SH_SUITES="$tmp/s" bash tests/run.sh) >"$tmp/out" 2>&1 || fail "no failure, yet exit $?"
[ "$(tail -n 1 "$tmp/out")" = "2 passed, 0 failed, 3 skipped" ] ||
    fail "closing line without the failure: $(tail -n 1 "$tmp/out")"

[ "$fails" -eq 0 ] && echo "test_run_count: ok"
[ "$fails" -eq 0 ]

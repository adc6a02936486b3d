#!/usr/bin/env bash
# test_run_count.sh - tests/run.sh's closing line counts skips as skips, never as passes: a
# suite that passes, one that passes but prints "SKIP: <section>" twice, one that exits 77,
# and one that fails give "2 passed, 1 failed, 3 skipped", list each skip, and exit 1; jobs
# start slowest first by the recorded seconds, print in list order, and each one's seconds
# (wall clock and CPU) are printed and recorded.
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

mkdir "$tmp/o"
for n in a b c d; do
    printf '#!/bin/sh\necho %s >>"%s"\necho "ran %s"\n' "$n" "$tmp/started" "$n" >"$tmp/o/$n"
done
chmod +x "$tmp/o"/*
# The first run (no record yet): every job, in list order, and the record is written.
rm -f "$tmp/started"
(cd "$ROOT" && RUN_SH_JOBS=1 RUN_SH_SUITES="$tmp/o" RUN_SH_RECORD="$tmp/none" bash tests/run.sh) \
    >"$tmp/out" 2>&1 || fail "the run without a record failed: $(tail -n 3 "$tmp/out")"
[ "$(tr '\n' ' ' <"$tmp/started")" = "a b c d " ] ||
    fail "start order without a record: $(tr '\n' ' ' <"$tmp/started")(want a b c d)"
[ "$(wc -l <"$tmp/none")" -eq 4 ] || fail "the first run recorded $(wc -l <"$tmp/none") jobs, not 4"
rm -f "$tmp/started"

# The order: with a record of the last run's seconds, the slowest job starts first and a job
# the record lacks before any; the output stays in list order; each job's seconds are
# printed and written back to the record.
printf '1.0\tsuite: a\n9.0\tsuite: c\n3.0\tsuite: b\n' >"$tmp/record"
(cd "$ROOT" && RUN_SH_JOBS=1 RUN_SH_SUITES="$tmp/o" RUN_SH_RECORD="$tmp/record" bash tests/run.sh) \
    >"$tmp/out" 2>&1 || fail "the ordered run failed: $(tail -n 3 "$tmp/out")"
[ "$(tr '\n' ' ' <"$tmp/started")" = "d c b a " ] ||
    fail "start order $(tr '\n' ' ' <"$tmp/started")(want d c b a: unknown first, then slowest)"
[ "$(grep '^=== ' "$tmp/out" | tr '\n' ' ')" = "=== suite: a === suite: b === suite: c === suite: d " ] ||
    fail "output order: $(grep '^=== ' "$tmp/out" | tr '\n' ' ')"
# The seed (the tree's tests/job-seconds, for a fresh checkout) gives the figures the
# record lacks, and the record's win: a from the record (1), b and c from the seed.
rm -f "$tmp/started"
printf '1.0\tsuite: a\n' >"$tmp/record2"
printf '50.0\tsuite: a\n3.0\tsuite: b\n9.0\tsuite: c\n' >"$tmp/seed"
(cd "$ROOT" && RUN_SH_JOBS=1 RUN_SH_SUITES="$tmp/o" RUN_SH_RECORD="$tmp/record2" \
    RUN_SH_SEED="$tmp/seed" bash tests/run.sh) >"$tmp/out2" 2>&1 ||
    fail "the seeded run failed: $(tail -n 3 "$tmp/out2")"
[ "$(tr '\n' ' ' <"$tmp/started")" = "d c b a " ] ||
    fail "seeded start order $(tr '\n' ' ' <"$tmp/started")(want d c b a: the record's a, the seed's b and c)"
for n in a b c d; do
    grep -qE "^ +[0-9]+\.[0-9] +[0-9]+\.[0-9]  suite: $n\$" "$tmp/out" ||
        fail "no seconds line (wall clock, CPU) for suite: $n"
    grep -qE "^[0-9.]+	suite: $n\$" "$tmp/record" || fail "the record lacks suite: $n"
done
grep -qE '^total: [0-9.]+ s for tests/run.sh \(4 jobs, [0-9.]+ s of jobs, 1 at once; [0-9.]+ s of CPU, [0-9]+% of [0-9]+ cores\)$' "$tmp/out" ||
    fail "no total line: $(grep '^total' "$tmp/out")"
[ "$(tail -n 1 "$tmp/out")" = "4 passed, 0 failed, 0 skipped" ] ||
    fail "closing line of the ordered run: $(tail -n 1 "$tmp/out")"

# The CPU column: a job that computes for 0.5 s of its own CPU time (python's process_time)
# shows at least that; one that sleeps 0.5 s shows (next to) none.
mkdir "$tmp/c"
printf '#!/bin/sh\nexec python3 -c "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass"\n' >"$tmp/c/spin"
printf '#!/bin/sh\nsleep 0.5\n' >"$tmp/c/nap"
chmod +x "$tmp/c"/*
(cd "$ROOT" && RUN_SH_SUITES="$tmp/c" bash tests/run.sh) >"$tmp/out" 2>&1 ||
    fail "the CPU run failed: $(tail -n 3 "$tmp/out")"
cpu_of() { awk -v n="suite: $1" '$0 ~ /^ +[0-9.]+ +[0-9.]+  / && substr($0, index($0, "suite: ")) == n { print $2 }' "$tmp/out"; }
awk -v c="$(cpu_of spin)" 'BEGIN { exit !(c >= 0.5) }' || fail "spin: CPU '$(cpu_of spin)', want >= 0.5"
awk -v c="$(cpu_of nap)" 'BEGIN { exit !(c != "" && c < 0.2) }' || fail "nap: CPU '$(cpu_of nap)', want < 0.2"

[ "$fails" -eq 0 ] && echo "test_run_count: ok"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# The whole test suite, run by `make test`: every cmocka unit-test binary (normal build and
# the ASan+UBSan build), the GPU checks on emulated devices (ASan+UBSan too), a short fuzz
# run, then every CLI and screen test script, and `make format-check`. Each script gets the
# path of the binary to test as $1 (and the ASan+UBSan one as $2) and exits 0 (pass), 77
# (skipped: it could not run here, and says why) or anything else (fail). Ends with the
# closing line "N passed, N failed, N skipped": a skip is never counted as a pass. A script
# that runs but leaves a section out prints "SKIP: <section> (why)" for it, counted as one
# skip more.
#
# Every job runs in the background, RUN_SH_JOBS at a time (default: the cores + 1, since
# most screen scripts wait on tmux rather than compute; 1 = one by one); each has its own
# temporary files, tmux server, socket folder and mpirun job. The longest start first:
# each run writes every job's seconds to $BUILD/test-seconds, and the next run starts the
# jobs in that order, slowest first (a fresh checkout by tests/job-seconds; a job with no
# figure in either, first of all), so no long one is left to run alone at the end. Output
# is printed whole, in the order of the list below, as each ends; the summary lists every
# job's seconds, slowest first, and the total.
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/collviz
ASAN_BIN=$BUILD/asan/collviz
# allocator_release_to_os_interval_ms=-1: ASan's allocator keeps freed pages instead of
# returning them with madvise() (on this 2-core VM each call flushes the other core's TLB:
# a third of the ASan deck walk's CPU time was system time); what it detects is the same.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:allocator_release_to_os_interval_ms=-1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
suite_start=$EPOCHREALTIME
passed=0
failed=0
skipped=0
failures=()
skips=()
skiplist=$(mktemp)
times=$(mktemp)
cpus=$(mktemp)
bgdir=$(mktemp -d)
trap 'rm -f "$skiplist" "$times" "$cpus"; rm -rf "$bgdir"' EXIT

# The jobs start python3 about a thousand times. When python3 is a launcher script (pyenv's
# shim: bash and pyenv's own scripts, ~0.6 s of CPU a start, ten times the interpreter's),
# the interpreter it chooses is put first in PATH under the same name: the same python3,
# with the same modules, started directly.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ] &&
    [ "$(command -v python3)" != "$py" ] && ! cmp -s "$(command -v python3)" "$py"; then
    mkdir "$bgdir/bin" && ln -s "$py" "$bgdir/bin/python3" && PATH="$bgdir/bin:$PATH"
fi

count() { # name, exit status, file with the output
    local name=$1 rc=$2 out=$3
    local n
    n=$(grep -c '^SKIP: ' "$out")
    skipped=$((skipped + n))
    grep '^SKIP: ' "$out" | sed "s|^SKIP: |$name: |" >>"$skiplist"
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
    elif [ "$rc" -eq 77 ]; then
        if [ "$n" -eq 0 ]; then
            skipped=$((skipped + 1))
            skips+=("$name")
        fi
    else
        failed=$((failed + 1))
        failures+=("$name")
    fi
}

# The jobs, in the order their output is printed: job NAME COMMAND...
names=()
cmds=()
job() {
    names+=("$1")
    shift
    cmds+=("$(printf '%q ' "$@")")
}

# RUN_SH_SUITES=DIR (tests/cli/test_run_count.sh): run the executables in DIR instead, to
# check this script's own counting and order (seconds read from and written to
# RUN_SH_RECORD, when set, and read from RUN_SH_SEED; make test's record is left alone).
# The seed, tests/job-seconds, is a whole run's record kept in the tree: the figures of a
# fresh checkout (CI's), which has no record of its own, for the jobs its record lacks.
record=${RUN_SH_RECORD:-$BUILD/test-seconds}
seed=${RUN_SH_SEED-tests/job-seconds}
if [ -n "${RUN_SH_SUITES:-}" ]; then
    record=${RUN_SH_RECORD:-}
    seed=${RUN_SH_SEED:-}
    for t in "$RUN_SH_SUITES"/*; do
        job "suite: ${t##*/}" "$t"
    done
else
    # The GPU host code on emulated devices (tests/fakegpu), when `make test` could build it:
    # first in the list, as the longest jobs (a run without a record starts in list order).
    if [ -x "$BUILD/fakegpu/collviz" ]; then
        job "fakegpu: tests/gpu/run.sh on emulated devices" \
            env GPU_TEST_FAKE=1 BUILD="$BUILD/fakegpu" bash tests/gpu/run.sh "$BUILD/fakegpu/collviz"
        job "fakegpu: screen: fake_nccl_ui.sh" bash tests/screen/fake_nccl_ui.sh "$BUILD/fakegpu/collviz"
        job "fakegpu: screen: fake_nccl_log.sh" bash tests/screen/fake_nccl_log.sh "$BUILD/fakegpu/collviz"
        job "fakegpu: NCCL across processes (mpirun): fake_nccl_mpi.sh" \
            bash tests/gpu/fake_nccl_mpi.sh "$BUILD/fakegpu/collviz"
    else
        echo "SKIP: the GPU code on emulated devices (no CUDA toolkit headers: not built)"
        echo "fakegpu: the GPU code on emulated devices (no CUDA toolkit headers: not built)" >>"$skiplist"
        skipped=$((skipped + 1))
    fi
    # The lesson parser, the job protocol and NCCL's records under libFuzzer for a few
    # seconds each (SKIP without clang); `make fuzz` is the long run.
    job "fuzz: lesson parser, job protocol, NCCL records (short run)" \
        env BUILD="$BUILD" bash tests/fuzz/run.sh
    for t in "$BUILD"/tests/test_*; do
        [ -x "$t" ] && job "unit: ${t##*/}" "$t"
    done
    for t in "$BUILD"/asan/tests/test_*; do
        [ -x "$t" ] && job "asan+ubsan: ${t##*/}" "$t"
    done
    for s in tests/cli/test_*.sh; do
        [ -f "$s" ] && job "cli: ${s##*/}" bash "$s" "$BIN" "$ASAN_BIN"
    done
    for s in tests/screen/test_*.sh; do
        [ -f "$s" ] && job "screen: ${s##*/}" bash "$s" "$BIN" "$ASAN_BIN"
    done
    job "format: make format-check" make --no-print-directory -s format-check
fi

# The order to start them: by the last run's seconds (the seed's where the record has none),
# slowest first; a job without a figure (new) first of all, in list order.
printf '%s\n' "${names[@]}" >"$bgdir/names"
order=$(awk -F '\t' -v seed="$seed" -v rec="$record" '
    function load(f, l, p) {
        if (f == "") return
        while ((getline l <f) > 0) { split(l, p, "\t"); sec[p[2]] = p[1] }
        close(f)
    }
    BEGIN { load(seed); load(rec) }
    { printf "%s\t%d\n", ($0 in sec) ? sec[$0] : 1e9, NR - 1 }' "$bgdir/names" |
    sort -t "$(printf '\t')" -k1,1gr -k2,2n | cut -f2)

JOBS=${RUN_SH_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
next_print=0
# Print (and count) the jobs that have ended, in list order; with "all", wait for each.
flush() {
    while [ "$next_print" -lt "${#names[@]}" ]; do
        local i=$next_print
        if [ ! -f "$bgdir/$i.rc" ]; then
            [ "${1:-}" = all ] || return 0
            while [ ! -f "$bgdir/$i.rc" ]; do
                if [ -z "$(jobs -rp)" ] && [ ! -f "$bgdir/$i.rc" ]; then # never started
                    echo "run.sh: this job never ran" >"$bgdir/$i.out"
                    echo "$EPOCHREALTIME $EPOCHREALTIME" >"$bgdir/$i.time"
                    echo 1 >"$bgdir/$i.rc"
                fi
                wait -n 2>/dev/null
            done
        fi
        echo "=== ${names[$i]}"
        cat "$bgdir/$i.out"
        local t0 t1
        read -r t0 t1 <"$bgdir/$i.time"
        awk -v n="${names[$i]}" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\t%s\n", b - a, n }' \
            >>"$times"
        # bash's `times`: the job's processes' user and system CPU ("0m1.250s 0m0.310s")
        awk -v n="${names[$i]}" 'NR == 2 { for (f = 1; f <= 2; f++) { split($f, p, /[ms]/)
                                  c += p[1] * 60 + p[2] } } END { printf "%.1f\t%s\n", c, n }' \
            "$bgdir/$i.cpu" 2>/dev/null >>"$cpus"
        count "${names[$i]}" "$(cat "$bgdir/$i.rc")" "$bgdir/$i.out"
        next_print=$((next_print + 1))
    done
}
for i in $order; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
        wait -n 2>/dev/null || true
        flush
    done
    (
        t0=$EPOCHREALTIME
        eval "${cmds[$i]}" >"$bgdir/$i.out" 2>&1 </dev/null
        rc=$?
        times >"$bgdir/$i.cpu"
        echo "$t0 $EPOCHREALTIME" >"$bgdir/$i.time"
        echo $rc >"$bgdir/$i.rc"
    ) &
done
flush all
suite_end=$EPOCHREALTIME
if [ -n "$record" ] && [ -d "$(dirname "$record")" ]; then
    cp "$times" "$record.tmp" && mv "$record.tmp" "$record"
fi

echo
echo "Seconds per job, slowest first (wall clock, then CPU; $JOBS at once):"
awk -F '\t' 'FILENAME == ARGV[1] { cpu[$2] = $1; next }
              { printf "%8.1f %7s  %s\n", $1, ($2 in cpu) ? cpu[$2] : "-", $2 }' "$cpus" "$times" |
    sort -k1,1gr
# The CPU share says whether more at once would help: well below 100% of the cores, the
# lanes wait (on tmux, sleeps, timeouts) more than they compute.
awk -F '\t' -v a="$suite_start" -v b="$suite_end" -v j="$JOBS" -v nc="$(nproc 2>/dev/null || echo 1)" \
    'FILENAME == ARGV[1] { c += $1; next } { s += $1; n++ }
    END { printf "total: %.1f s for tests/run.sh (%d jobs, %.1f s of jobs, %s at once; " \
                 "%.1f s of CPU, %.0f%% of %d cores)\n", b - a, n, s, j, c,
                 (b > a) ? 100 * c / ((b - a) * nc) : 0, nc }' "$cpus" "$times"
if [ -n "${TEST_BUILD_START:-}" ]; then
    awk -v a="$TEST_BUILD_START" -v b="$suite_end" -v r="$suite_start" 'BEGIN {
        printf "total: %.1f s for make test after the main build (%.1f s of its test builds)\n",
               b - a, r - a }'
fi
for f in "${skips[@]+"${skips[@]}"}"; do echo "SKIPPED: $f"; done
while read -r f; do echo "SKIPPED: $f"; done <"$skiplist"
for f in "${failures[@]+"${failures[@]}"}"; do echo "FAILED: $f"; done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

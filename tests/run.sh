#!/usr/bin/env bash
# The whole test suite, run by `make test`: every cmocka unit-test binary (normal build and
# the ASan+UBSan build), the GPU checks on emulated devices (ASan+UBSan too), then every
# CLI and screen test script, and `make format-check`. Each script gets the path of the
# binary to test as $1 (and the ASan+UBSan one as $2) and exits 0 (pass), 77 (skipped: it
# could not run here, and says why) or anything else (fail). Ends with the closing line
# "N passed, N failed, N skipped": a skip is never counted as a pass. A script that runs
# but leaves a section out prints "SKIP: <section> (why)" for it, counted as one skip more.
# The fuzz run (a fixed time per target), the unit tests, the CLI and screen scripts and the
# format check run two at a time (RUN_SH_JOBS=N to change, 1 = one by one): each has its own temporary
# files, tmux server, socket folder and mpirun job, and its output is printed whole, in the
# order of the list, when it ends. The fakegpu checks run alone.
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/collviz
ASAN_BIN=$BUILD/asan/collviz
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
passed=0
failed=0
skipped=0
failures=()
skips=()
skiplist=$(mktemp)

run() { # name, command...
    local name=$1
    shift
    echo "=== $name"
    local out rc
    out=$(mktemp)
    local t0=$EPOCHREALTIME
    "$@" 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    timed "$name" "$t0" "$EPOCHREALTIME"
    count "$name" "$rc" "$out"
}

# Each script's seconds (wall clock, from its start to its end), kept for the summary.
times=$(mktemp)
timed() { # name, start, end ($EPOCHREALTIME)
    awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%8.1f  %s\n", b - a, n }' >>"$times"
}

count() { # name, exit status, file with the output (removed)
    local name=$1 rc=$2 out=$3
    local n
    n=$(grep -c '^SKIP: ' "$out")
    skipped=$((skipped + n))
    grep '^SKIP: ' "$out" | sed "s|^SKIP: |$name: |" >>"$skiplist"
    rm -f "$out"
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

# Scripts started in the background, at most $JOBS at once; printed and counted in the
# order they were started (flush).
JOBS=${RUN_SH_JOBS:-2}
bgdir=$(mktemp -d)
trap 'rm -f "$skiplist" "$times"; rm -rf "$bgdir"' EXIT
bg_names=()
bg_pids=()
bg_next=0
run_bg() { # name, command...
    local name=$1 i=${#bg_names[@]}
    shift
    if [ "$JOBS" -le 1 ]; then
        run "$name" "$@"
        return
    fi
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
        wait -n 2>/dev/null || true
        flush
    done
    (
        t0=$EPOCHREALTIME
        "$@" >"$bgdir/$i.out" 2>&1 </dev/null
        rc=$?
        echo "$t0 $EPOCHREALTIME" >"$bgdir/$i.time"
        echo $rc >"$bgdir/$i.rc"
    ) &
    bg_pids+=($!)
    bg_names+=("$name")
}
flush() { # [all]: print the scripts that have ended, in order; with "all" wait for every one
    while [ "$bg_next" -lt "${#bg_names[@]}" ]; do
        local i=$bg_next
        if [ ! -f "$bgdir/$i.rc" ]; then
            [ "${1:-}" = all ] || return 0
            wait "${bg_pids[$i]}" 2>/dev/null || true
        fi
        echo "=== ${bg_names[$i]}"
        cat "$bgdir/$i.out"
        read -r t0 t1 <"$bgdir/$i.time"
        timed "${bg_names[$i]}" "$t0" "$t1"
        count "${bg_names[$i]}" "$(cat "$bgdir/$i.rc")" "$bgdir/$i.out"
        bg_next=$((bg_next + 1))
    done
}

suite_start=$EPOCHREALTIME
# RUN_SH_SUITES=DIR (tests/cli/test_run_count.sh): run the executables in DIR instead (in
# the background, as the scripts are), to check this script's own counting.
if [ -n "${RUN_SH_SUITES:-}" ]; then
    for t in "$RUN_SH_SUITES"/*; do
        run_bg "suite: ${t##*/}" "$t"
    done
    flush all
else
    # The lesson parser under libFuzzer for a few seconds (SKIP without clang): started first
    # (its run takes a fixed time), so it overlaps the unit tests.
    run_bg "fuzz: lesson parser and job protocol (short run)" env BUILD="$BUILD" bash tests/fuzz/run.sh
    for t in "$BUILD"/tests/test_*; do
        [ -x "$t" ] && run_bg "unit: ${t##*/}" "$t"
    done
    for t in "$BUILD"/asan/tests/test_*; do
        [ -x "$t" ] && run_bg "asan+ubsan: ${t##*/}" "$t"
    done
    flush all
    # The GPU host code on emulated devices (tests/fakegpu), when `make test` could build it.
    if [ -x "$BUILD/fakegpu/collviz" ]; then
        run "fakegpu: tests/gpu/run.sh on emulated devices" \
            env GPU_TEST_FAKE=1 BUILD="$BUILD/fakegpu" bash tests/gpu/run.sh "$BUILD/fakegpu/collviz"
        run "fakegpu: screen: fake_nccl_ui.sh" bash tests/screen/fake_nccl_ui.sh "$BUILD/fakegpu/collviz"
        run "fakegpu: screen: fake_nccl_log.sh" bash tests/screen/fake_nccl_log.sh "$BUILD/fakegpu/collviz"
        run "fakegpu: NCCL across processes (mpirun): fake_nccl_mpi.sh" \
            bash tests/gpu/fake_nccl_mpi.sh "$BUILD/fakegpu/collviz"
    else
        echo "SKIP: the GPU code on emulated devices (no CUDA toolkit headers: not built)"
        echo "fakegpu: the GPU code on emulated devices (no CUDA toolkit headers: not built)" >>"$skiplist"
        skipped=$((skipped + 1))
    fi
    for s in tests/cli/test_*.sh; do
        [ -f "$s" ] && run_bg "cli: ${s##*/}" bash "$s" "$BIN" "$ASAN_BIN"
    done
    for s in tests/screen/test_*.sh; do
        [ -f "$s" ] && run_bg "screen: ${s##*/}" bash "$s" "$BIN" "$ASAN_BIN"
    done
    run_bg "format: make format-check" make --no-print-directory -s format-check
    flush all
fi

suite_end=$EPOCHREALTIME
echo
echo "Seconds per script, slowest first (wall clock; $JOBS at once):"
sort -rn "$times"
awk -v a="$suite_start" -v b="$suite_end" -v j="$JOBS" '{ s += $1 }
    END { printf "total: %.1f s for tests/run.sh (%d scripts, %.1f s of scripts, %s at once)\n",
          b - a, NR, s, j }' "$times"
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

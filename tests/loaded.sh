#!/usr/bin/env bash
# loaded.sh - `make test-loaded`: the timing-sensitive tests (deadlines, stalls, cancels,
# watchdogs) run LOADED_RUNS times each (default 10) beside two busy loops per core, and
# every run must pass. Not part of `make test` (it takes the whole machine for a long
# while). Prints "NAME: P/N passed" per test and ends with the totals; exit 1 if any run
# failed (its output is kept in the folder named at the end). A test that skips (77) is
# counted as a skip, never as a pass.
# Usage: BUILD=build bash tests/loaded.sh   (LOADED_RUNS=N, LOADED_ONLY="name ...")
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/collviz
ASAN_BIN=$BUILD/asan/collviz
RUNS=${LOADED_RUNS:-10}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
logs=$(mktemp -d)

# The tests with a deadline or a timing assertion (unit tests by binary, scripts by path).
tests=(
    "$BUILD/tests/test_train_comm"
    "$BUILD/tests/test_cpu_backend"
    "$BUILD/tests/test_run"
    "$BUILD/tests/test_worker"
    "$BUILD/tests/test_serve"
    "$BUILD/tests/test_notes_ipc"
    "$BUILD/asan/tests/test_serve_mpi"
    "tests/cli/test_mpi_stuck.sh"
    "tests/cli/test_mpi_proc_stall.sh"
    "tests/screen/test_measure.sh"
)

busy=()
stop_busy() {
    local p
    for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${busy[@]}"; do wait "$p" 2>/dev/null; done
    busy=()
}
trap stop_busy EXIT
cores=$(nproc)
for _ in $(seq $((2 * cores))); do
    (while :; do :; done) &
    busy+=($!)
done
echo "collviz test-loaded: ${#busy[@]} busy loops on $cores cores, $RUNS runs of each test"

total_fail=0 total_pass=0 total_skip=0
for t in "${tests[@]}"; do
    name=$(basename "$t")
    if [ -n "${LOADED_ONLY:-}" ] && [[ " $LOADED_ONLY " != *" $name "* ]]; then continue; fi
    pass=0 fail=0 skip=0
    t0=$(date +%s)
    for i in $(seq "$RUNS"); do
        out="$logs/$name.$i.log"
        case "$t" in
        *.sh) bash "$t" "$BIN" "$ASAN_BIN" >"$out" 2>&1 </dev/null ;;
        *) "$t" >"$out" 2>&1 </dev/null ;;
        esac
        rc=$?
        if [ "$rc" -eq 0 ]; then
            pass=$((pass + 1))
            rm -f "$out"
        elif [ "$rc" -eq 77 ]; then
            skip=$((skip + 1))
            rm -f "$out"
        else
            fail=$((fail + 1))
            echo "  $name run $i failed (exit $rc): $out"
        fi
    done
    echo "$name: $pass/$RUNS passed$([ "$skip" -gt 0 ] && echo ", $skip skipped") ($(($(date +%s) - t0)) s)"
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail))
    total_skip=$((total_skip + skip))
done
stop_busy
echo "collviz test-loaded: $total_pass passed, $total_fail failed, $total_skip skipped"
if [ "$total_fail" -gt 0 ]; then
    echo "collviz test-loaded: the failed runs' output is in $logs"
    exit 1
fi
rm -rf "$logs"

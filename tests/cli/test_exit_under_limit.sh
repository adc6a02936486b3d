#!/usr/bin/env bash
# test_exit_under_limit.sh - every command ends under a tight `ulimit -v`, with its result or
# one line saying what does not fit, never a hang. OpenBLAS (libopenblas, linked) starts a
# thread pool in its constructor before main(), and each of its threads, like each thread
# that runs an sgemm, maps a 128 MiB work buffer; one that cannot retries for ever, and
# exit() waits for the pool: under a limit that leaves less than that, even --version hung.
# So: under a memory limit a collviz process has no OpenBLAS pool (checked on a running
# trace, without OPENBLAS_NUM_THREADS in the environment; without a limit the pool is left,
# and no second start paid, so one thread more), and under a limit of what collviz maps
# plus 100 MiB each command below exits within 60 s: those that use no BLAS succeed, train
# says in one line what its sgemm threads need (exit 2), and given that room it runs.
# Usage: test_exit_under_limit.sh BIN [ASAN_BIN]   (BIN only: ASan's shadow needs no limit)
. "$(dirname "$0")/lib.sh" "$@"

# What collviz maps with no OpenBLAS pool (KiB), read off a small trace while it waits to
# write into a pipe nobody reads yet; the environment says so for this measure only, so
# that the limit below leaves less than one OpenBLAS buffer whatever the program does.
# peak_of LIMIT ENV...: VmPeak and Threads of that trace, run under env ENV... and
# ulimit -v LIMIT (KiB or unlimited)
peak_of() {
    local limit=$1
    shift
    rm -f "$tmp/fifo"
    mkfifo "$tmp/fifo"
    (
        ulimit -v "$limit"
        exec env "$@" "$BIN" trace all_reduce --ranks 2 --count 100000
    ) >"$tmp/fifo" 2>/dev/null &
    local tpid=$! st=
    exec 3<"$tmp/fifo"
    for _ in $(seq 100); do
        st=$(awk '/^State:/ {print $2}' "/proc/$tpid/status" 2>/dev/null)
        [ "$st" = S ] && break
        sleep 0.05
    done
    awk '/^VmPeak:/ {p=$2} /^Threads:/ {t=$2} END {print p, t}' "/proc/$tpid/status" 2>/dev/null
    cat <&3 >/dev/null
    exec 3<&-
    wait "$tpid" 2>/dev/null
}
read -r base _ < <(peak_of unlimited OPENBLAS_NUM_THREADS=1)
[ -n "$base" ] || {
    echo "SKIP: could not read what collviz maps"
    exit 77
}
blas=0
ldd "$BIN" 2>/dev/null | grep -q openblas && blas=1
read -r _ threads < <(peak_of $((base + 1024 * 1024)) -u OPENBLAS_NUM_THREADS)
[ "$threads" = 1 ] || fail "under ulimit -v a trace runs $threads threads, wanted 1 (OpenBLAS's pool is running)"
if [ "$blas" = 1 ] && [ "$(nproc)" -ge 2 ] &&
    [ "$(cat /proc/sys/vm/overcommit_memory 2>/dev/null)" != 2 ]; then
    read -r _ threads < <(peak_of unlimited -u OPENBLAS_NUM_THREADS)
    [ "${threads:-0}" -ge 2 ] || fail "with no limit a trace runs $threads threads, wanted 2 or more (OpenBLAS's idle pool: no second start)"
fi
buf=$((128 * 1024)) # KiB: OpenBLAS's work buffer, per thread that runs an sgemm

# ends NAME LIMIT_KIB WANT_RC PATTERN CMD...: CMD, without OPENBLAS_NUM_THREADS, under the
# limit, exits WANT_RC within 60 s; when 2, one line on stderr matching PATTERN (grep -E).
ends() {
    local name=$1 limit=$2 want=$3 pat=$4
    shift 4
    (
        ulimit -v "$limit"
        exec env -u OPENBLAS_NUM_THREADS timeout 60 "$@"
    ) >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ge 124 ]; then
        fail "$name: $([ "$rc" -eq 124 ] && echo "ran past 60 s" || echo "died of signal $((rc - 128))")"
        return 0
    fi
    [ "$rc" -eq "$want" ] || fail "$name: exit $rc, wanted $want ($(head -c 300 "$tmp/err"))"
    if [ "$want" -eq 2 ]; then
        [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: $(wc -l <"$tmp/err") lines on stderr: $(head -3 "$tmp/err")"
        grep -qE -- "$pat" "$tmp/err" || fail "$name: stderr lacks /$pat/: $(cat "$tmp/err")"
    fi
    return 0
}

tight=$((base + 100 * 1024)) # less than one more OpenBLAS buffer
small="--layers 2 --dim 64 --batch 8 --steps 2"
ends "--version" "$tight" 0 "" "$BIN" --version
ends "trace" "$tight" 0 "" "$BIN" trace all_reduce --ranks 2 --count 1024
ends "bench" "$tight" 0 "" "$BIN" bench --backend cpu --ranks 2 -b 4K -n 1 -w 0 all_reduce
ends "model" "$tight" 0 "" "$BIN" model all_reduce --ranks 8
ends "lesson check" "$tight" 0 "" "$BIN" lesson check "$TOP/lessons"
if [ "$blas" = 1 ]; then
    # shellcheck disable=SC2086
    ends "train single" "$tight" 2 \
        "^collviz: train: single on --ranks 1: 1 thread running sgemm needs 128 MiB of address space \(OpenBLAS maps 128 MiB in each\) beside the run's own; ulimit -v leaves [0-9.]+ [KM]iB$" \
        "$BIN" train single $small
    # shellcheck disable=SC2086
    ends "train ddp 2" "$tight" 2 \
        "^collviz: train: ddp on --ranks 2: 3 threads running sgemm need 384 MiB of address space .* ulimit -v leaves [0-9.]+ [KM]iB$" \
        "$BIN" train ddp --ranks 2 $small
fi
# Room for the 2 ranks' and the reference's buffers: it runs.
# shellcheck disable=SC2086
ends "train ddp 2 with room" $((tight + 3 * buf)) 0 "" "$BIN" train ddp --ranks 2 $small
# shellcheck disable=SC2086
ends "train single with room" $((tight + buf)) 0 "" "$BIN" train single $small

cli_finish "test_exit_under_limit (no OpenBLAS pool; every command ends under ulimit -v)"

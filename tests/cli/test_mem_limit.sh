#!/usr/bin/env bash
# test_mem_limit.sh - the one memory rule (issue 29, item 1): every size a user's numbers
# ask for is checked against the memory this process may still take - the machine's
# MemAvailable and its limits (`ulimit -v`) - before anything is allocated. Under a limit
# only a little above what the program needs to start, each command that would pass it
# exits 2 with one line naming the size ("needs N of memory"), never SIGABRT: trace (the
# issue's all_to_all / all_gather / reduce_scatter --ranks 16 --count 16777216, and a trace
# under the element limit but over the memory), bench, train (CPU and the model fit's
# sweep through bench); the same commands with small sizes still run. The protocol jobs
# (serve) are checked in tests/unit/test_serve.c under the same kind of limit.
# Usage: test_mem_limit.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"

# What the program maps once started (KiB): its own libraries (CUDA's among them) map
# about a GiB before main(). Read off a small trace while it waits to write its output
# into a pipe nobody reads yet (its buffers are all allocated by then), under a limit too
# (64 GiB), as every case below runs: there collviz starts without OpenBLAS's pool.
mkfifo "$tmp/fifo"
(
    ulimit -v $((64 * 1024 * 1024))
    exec "$BIN" trace all_reduce --ranks 2 --count 100000
) >"$tmp/fifo" 2>/dev/null &
tpid=$!
exec 3<"$tmp/fifo"
base=
for _ in $(seq 100); do
    base=$(awk '/^VmPeak:/ {print $2}' "/proc/$tpid/status" 2>/dev/null)
    [ "$(awk '/^State:/ {print $2}' "/proc/$tpid/status" 2>/dev/null)" = S ] && break
    sleep 0.05
done
base=$(awk '/^VmPeak:/ {print $2}' "/proc/$tpid/status" 2>/dev/null)
cat <&3 >/dev/null
exec 3<&-
wait "$tpid" 2>/dev/null
[ -n "$base" ] || {
    echo "SKIP: could not read what collviz maps"
    exit 77
}
# 100 MiB of room above a small trace (under a limit collviz runs no OpenBLAS pool: what
# OpenBLAS's buffers need under such a limit is tests/cli/test_exit_under_limit.sh's)
limit=$((base + 100 * 1024))

# under_limit NAME WANT_RC PATTERN CMD...: run CMD under the limit; exit WANT_RC, and when
# 2 exactly one line on stderr matching PATTERN (grep -E); never a signal.
under_limit() {
    local name=$1 want=$2 pat=$3
    shift 3
    (
        ulimit -v "$limit"
        exec timeout 60 "$@"
    ) >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq "$want" ] || fail "$name: exit $rc, wanted $want ($(head -c 300 "$tmp/err"))"
    [ "$rc" -ge 124 ] && fail "$name: $([ "$rc" -eq 124 ] && echo "ran past 60 s" || echo "died of signal $((rc - 128))")"
    if [ "$want" -eq 2 ]; then
        [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: $(wc -l <"$tmp/err") lines on stderr: $(head -3 "$tmp/err")"
        grep -qE -- "$pat" "$tmp/err" || fail "$name: stderr lacks /$pat/: $(cat "$tmp/err")"
    fi
    return 0
}

for c in all_to_all all_gather reduce_scatter; do
    under_limit "trace $c 16x16M" 2 "^collviz: --count 16777216: .*(limit of 16777216 values|needs [0-9.]+ [KMGT]iB of memory)" \
        "$BIN" trace "$c" --ranks 16 --count 16777216
done
# under the element limit (16.2 M values), over the memory (about 210 MiB): 2 ranks
under_limit "trace over the memory" 2 \
    "^collviz: --count 2700000: a trace of all_reduce on 2 ranks, count 2700000 needs [0-9.]+ MiB of memory; [0-9.]+ [KM]iB available$" \
    "$BIN" trace all_reduce --ranks 2 --count 2700000
under_limit "trace small" 0 "" "$BIN" trace all_reduce --ranks 2 --count 1024
under_limit "bench 1G" 2 "^collviz: -b 1G: 1 GiB all_reduce on 4 ranks needs 4 GiB of memory; [0-9.]+ [KM]iB available \(nothing was run\)$" \
    "$BIN" bench --backend cpu --ranks 4 -b 1G -n 1 -w 0 all_reduce
under_limit "bench 4K" 0 "" "$BIN" bench --backend cpu --ranks 2 -b 4K -n 1 -w 0 all_reduce
under_limit "train single dim 8192" 2 "--layers 4 --dim 8192 --batch 128 needs [0-9.]+ GiB of memory; [0-9.]+ [KM]iB available" \
    "$BIN" train single --dim 8192 --layers 4 --steps 1
under_limit "model --fit 1G" 2 "needs [0-9.]+ GiB of memory" \
    "$BIN" model --fit all_reduce --backend cpu --ranks 4 -b 512M -e 1G -n 1 -w 0

cli_finish "test_mem_limit (sizes checked against the memory and ulimit -v before allocating)"

#!/usr/bin/env bash
# test_nccl_fallback.sh - on a machine without a usable GPU, asking for NCCL must fail
# cleanly and "auto" must carry on with the CPU ranks:
#   - `collviz bench all_reduce --backend nccl` exits 2 with exactly one line on stderr
#     naming CUDA's error (cudaError...), and prints nothing on stdout;
#   - `collviz bench all_reduce --backend auto` runs on the cpu backend, every result right;
#   - `collviz --backend nccl` (the interactive UI) exits 2 with one line, before it writes
#     anything to the terminal (stdout stays empty: no curses start-up sequences).
# A binary built without NCCL must still refuse --backend nccl with one line and exit 2.
# On a machine whose nvidia-smi lists GPUs there is nothing to test: skip (exit 77).
# $1 = the binary, $2 = the ASan binary (optional; built without NCCL).
. "$(dirname "$0")/lib.sh" "$@"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "SKIP: this machine has a GPU (nvidia-smi -L); the fallback cannot be tested here"
    exit 77
fi

# run NAME BIN ARGS...: stdout, stderr and status into $tmp/NAME.{out,err,rc}
run() {
    local name=$1
    shift
    TERM=xterm-256color timeout 60 "$@" </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.rc"
}

# expect_one_line_exit2 NAME PATTERN: exit 2, one stderr line matching PATTERN, no stdout.
expect_one_line_exit2() {
    local name=$1 pattern=$2 rc lines
    rc=$(cat "$tmp/$name.rc")
    lines=$(wc -l <"$tmp/$name.err")
    [ "$rc" -eq 2 ] || fail "$name: exit $rc, want 2"
    [ "$lines" -eq 1 ] || fail "$name: $lines lines on stderr, want 1: $(cat "$tmp/$name.err")"
    grep -Eq "$pattern" "$tmp/$name.err" || fail "$name: stderr does not match /$pattern/: $(cat "$tmp/$name.err")"
    [ -s "$tmp/$name.out" ] && fail "$name: wrote $(wc -c <"$tmp/$name.out") bytes to stdout"
    return 0
}

run bench_nccl "$BIN" bench all_reduce --backend nccl -b 1M -e 1M
if grep -q 'not built' "$tmp/bench_nccl.err"; then
    echo "note: $BIN was built without NCCL; checking only the refusal"
    expect_one_line_exit2 bench_nccl 'nccl'
    cuda='nccl'
else
    cuda='nccl.*cudaError[A-Za-z]+ \('
    expect_one_line_exit2 bench_nccl "$cuda"
fi
echo "bench --backend nccl: $(cat "$tmp/bench_nccl.err")"

run bench_auto "$BIN" bench all_reduce --backend auto -b 1M -e 1M -n 3 -w 1 --format json
rc=$(cat "$tmp/bench_auto.rc")
[ "$rc" -eq 0 ] || fail "bench --backend auto: exit $rc: $(cat "$tmp/bench_auto.err")"
grep -q '"backend":"cpu"' "$tmp/bench_auto.out" || fail "bench --backend auto did not run on cpu"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(r["collective"]=="all_reduce" and r["wrong"]==0 for r in d["rows"]) else 1)' "$tmp/bench_auto.out" ||
    fail "bench --backend auto: no all_reduce row with #wrong 0: $(cat "$tmp/bench_auto.out")"

run ui_nccl "$BIN" --backend nccl
expect_one_line_exit2 ui_nccl "$cuda"
echo "collviz --backend nccl: $(cat "$tmp/ui_nccl.err")"

if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
    run asan_nccl "$ASAN_BIN" bench all_reduce --backend nccl -b 1M -e 1M
    expect_one_line_exit2 asan_nccl 'nccl'
fi

if [ "$fails" -ne 0 ]; then
    echo "test_nccl_fallback: $fails failure(s)"
    exit 1
fi
echo "test_nccl_fallback: ok"

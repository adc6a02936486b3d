#!/usr/bin/env bash
# test_train_moe_cli.sh - `collviz train moe`: --check passes at odd shapes (W = 2, 3, 4,
# E = W and 2W, K = 1 and 2, capacity 0, 1.0 and 0.5) on CPU ranks, under mpirun across
# processes (bit for bit the CPU ranks' losses and routing) when mpirun is there, and on
# the emulated GPUs when build/fakegpu exists; the JSON's routing agrees with itself (kept
# within the capacity written out here, the blocks the kept tokens, the drops routed -
# kept, the dispatch bytes the blocks off the diagonal); bad --experts/--topk/--capacity
# exit 2 with one line.
. "$(dirname "$0")/lib.sh" "$@"

for w in 2 3 4; do
    for e in $w $((2 * w)); do
        for k in 1 2; do
            for c in 0 1.0 0.5; do
                args=(--ranks $w --experts $e --topk $k --capacity $c --layers 2 --dim 7
                    --batch $((5 * w)) --steps 2)
                if ! "$BIN" train moe "${args[@]}" --check >"$tmp/out" 2>"$tmp/err"; then
                    fail "train moe ${args[*]} --check: $(tail -3 "$tmp/out") $(cat "$tmp/err")"
                    continue
                fi
                grep -q "check against the single-device reference: .*: ok$" "$tmp/out" &&
                    grep -q "against the reference's: the same$" "$tmp/out" ||
                    fail "train moe ${args[*]}: no ok/same lines: $(tail -2 "$tmp/out")"
            done
        done
    done
done
[ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ] && {
    "$ASAN_BIN" train moe --ranks 3 --experts 6 --capacity 0.5 --layers 2 --dim 7 --batch 15 \
        --steps 2 --check >"$tmp/out" 2>"$tmp/err" || fail "asan train moe: $(cat "$tmp/err")"
}

# The JSON at a shape with drops: capacity ceil(0.5 * 6 * 2 / 6) = 1 token per expert.
"$BIN" train moe --ranks 3 --experts 6 --topk 2 --capacity 0.5 --layers 2 --dim 9 --batch 18 \
    --steps 2 --check --format json >"$tmp/m.json" 2>"$tmp/err" || fail "train moe json: $(cat "$tmp/err")"
python3 - "$tmp/m.json" <<'PYEOF' || fail "train moe json: see above"
import json, sys
d = json.load(open(sys.argv[1]))
m, W, E, D = d["moe"], 3, 6, 9
ok = m["capacity_tokens"] == 1 and d["max_deviation"]["within"] and m["routing_differences"] == 0
drops = 0
for l in m["layers"]:
    for g in range(W):
        if sum(l["routed"][g]) != 6 * 2: print("routed", g, l["routed"][g]); ok = False
        if max(l["kept"][g]) > 1: print("over capacity", l["kept"][g]); ok = False
        drops += sum(l["routed"][g]) - sum(l["kept"][g])
        blocks = [sum(l["kept"][g][q * 2:(q + 1) * 2]) for q in range(W)]
        if blocks != l["blocks"][g]: print("blocks", blocks, l["blocks"][g]); ok = False
if drops != m["dropped_last_step"] or drops == 0: print("drops", drops, m["dropped_last_step"]); ok = False
for g, pr in enumerate(m["per_rank"]):
    off = sum(l["blocks"][g][q] for l in m["layers"] for q in range(W) if q != g)
    back = sum(l["blocks"][q][g] for l in m["layers"] for q in range(W) if q != g)
    if pr["dispatch_bytes"] != off * D * 4 or pr["combine_bytes"] != back * D * 4:
        print("bytes", g, pr, off, back); ok = False
if not m["dispatch_busbw_measured"] > 0: ok = False
sys.exit(0 if ok else 1)
PYEOF
"$BIN" train moe --ranks 2 --experts 4 --capacity 0.5 --layers 2 --dim 9 --batch 8 --steps 1 \
    >"$tmp/t" 2>"$tmp/err" || fail "train moe text: $(cat "$tmp/err")"
for want in "capacity ceil(0.5 * 4 * 2 / 4) = 1 token per expert" "layer 1 rank 1:" \
    "all-to-all blocks (row: from rank, column: to rank):" "dropped (passed through unchanged):" \
    "busbw measured: dispatch"; do
    grep -qF -- "$want" "$tmp/t" || fail "train moe text lacks '$want'"
done

# Across processes: the same losses and routing as CPU ranks (the same plans' order).
if command -v mpirun >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    a=(--experts 6 --capacity 0.5 --layers 2 --dim 9 --batch 15 --steps 2 --check --format json)
    "$BIN" train moe --ranks 3 "${a[@]}" >"$tmp/c.json" 2>"$tmp/err" || fail "moe cpu: $(cat "$tmp/err")"
    mpirun --oversubscribe --bind-to none -np 3 "$BIN" train moe --backend mpi "${a[@]}" \
        >"$tmp/p.json" 2>"$tmp/err" || fail "moe mpi: $(tail -3 "$tmp/err")"
    python3 - "$tmp/c.json" "$tmp/p.json" <<'PYEOF' || fail "train moe: mpi differs from cpu ranks"
import json, sys
c, m = (json.load(open(f)) for f in sys.argv[1:3])
ok = m["backend"] == "mpi" and m["max_deviation"]["within"]
ok = ok and [s["loss"] for s in c["steps"]] == [s["loss"] for s in m["steps"]]
ok = ok and c["moe"]["layers"] == m["moe"]["layers"]
ok = ok and [p["dispatch_bytes"] for p in c["moe"]["per_rank"]] == [p["dispatch_bytes"] for p in m["moe"]["per_rank"]]
sys.exit(0 if ok else 1)
PYEOF
else
    echo "SKIP: train moe across processes (no mpirun)"
fi
FAKE="$TOP/${BUILD:-build}/fakegpu/collviz"
if [ -x "$FAKE" ]; then
    for w in 2 3 4; do
        FAKEGPU_DEVICES=4 "$FAKE" train moe --backend nccl --ranks $w --experts $((2 * w)) \
            --capacity 0.5 --layers 2 --dim 7 --batch $((5 * w)) --steps 2 --check >"$tmp/out" 2>"$tmp/err" ||
            fail "train moe --backend nccl (emulated) W=$w: $(tail -2 "$tmp/out") $(cat "$tmp/err")"
    done
else
    echo "SKIP: train moe on NCCL (no $FAKE)"
fi

expect_usage_error "--experts 6 is not divisible by --ranks 4" train moe --experts 6
expect_usage_error "--experts '0'" train moe --experts 0
expect_usage_error "--experts 'x'" train moe --experts x
expect_usage_error "--topk 9: must be 1..--experts (8)" train moe --topk 9
expect_usage_error "--topk '0'" train moe --topk 0
expect_usage_error "--capacity '-1'" train moe --capacity -1
expect_usage_error "--capacity 'nan'" train moe --capacity nan
expect_usage_error "--capacity '65'" train moe --capacity 65
expect_usage_error "--experts applies to moe, not ddp" train ddp --experts 4
expect_usage_error "--capacity applies to moe, not zero3" train zero3 --capacity 1
expect_usage_error "--batch 10 is not divisible by --ranks 4" train moe --batch 10

cli_finish test_train_moe_cli

#!/usr/bin/env bash
# moe_bench.sh - the mixture-of-experts dispatch beside the plain all-to-all at the same
# bytes (issue 22 §4): `collviz train moe` at the lecture's scale (W=4 CPU ranks, L=4,
# D=1024, B=128, E=8 experts, top-2, capacity 1.0) measures each rank's dispatch and
# combine (wall clock around its exchange, bytes to other ranks counted; busbw = the
# busiest rank's bytes over the slowest rank's time, train.h's train_moe_busbw); then
# `collviz bench all_to_all` runs the uniform all-to-all at S = the dispatch's mean send
# buffer per rank and layer (rows sent, own rows included, x D x 4 bytes). Printed as a
# ratio, never a failure: the dispatch is uneven (the busiest rank sets the pace), counts
# its own count exchange, and is one exchange per layer, the bench's 20 back to back.
#
# usage: bench/moe_bench.sh [COLLVIZ]   env: REPEAT (default 3) rounds, the best kept
set -u
BIN=${1:-build/collviz}
REPEAT=${REPEAT:-3}
[ -x "$BIN" ] || {
    echo "moe_bench: no binary at $BIN (run make first)"
    exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SIZE=(--ranks 4 --layers 4 --dim 1024 --batch 128 --experts 8 --topk 2 --capacity 1.0)

echo
echo "== MoE dispatch against all-to-all: W=4 CPU ranks, L=4 D=1024 B=128 E=8 top-2 C=1.0, best of $REPEAT"
for ((round = 1; round <= REPEAT; round++)); do
    "$BIN" train moe "${SIZE[@]}" --steps 3 --format json >"$tmp/moe.$round.json" 2>"$tmp/err" ||
        echo "   train moe: failed: $(cat "$tmp/err")"
done
S=$(python3 - "$tmp/moe.1.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
W, D, layers = d["ranks"], d["dim"], d["moe"]["layers"]
rows = sum(sum(l["kept"][g]) for l in layers for g in range(W)) / (len(layers) * W)
unit = 4 * W  # the bench's S: a whole float per rank
print(max(unit, int(rows * D * 4) // unit * unit))
PYEOF
) || {
    echo "   moe_bench: no train moe result, no comparison"
    exit 0
}
for ((round = 1; round <= REPEAT; round++)); do
    "$BIN" bench all_to_all --backend cpu --ranks 4 -b "$S" --format json >"$tmp/a2a.$round.json" \
        2>"$tmp/err" || echo "   bench all_to_all: failed: $(cat "$tmp/err")"
done
python3 - "$tmp" "$S" <<'PYEOF'
import glob, json, os, sys
tmp, S = sys.argv[1], int(sys.argv[2])
moe = [json.load(open(f)) for f in glob.glob(os.path.join(tmp, "moe.*.json"))]
a2a = [json.load(open(f)) for f in glob.glob(os.path.join(tmp, "a2a.*.json"))]
if not moe or not a2a:
    print("   moe_bench: a run failed, no ratio"); sys.exit(0)
disp = max(d["moe"]["dispatch_busbw_measured"] for d in moe) / 1e9
comb = max(d["moe"]["combine_busbw_measured"] for d in moe) / 1e9
bus = max(r["busbw"] for d in a2a for r in d["rows"])
m = moe[0]["moe"]
drops = m["dropped_last_step"]
print("   tokens per expert, layer 0 (rank: experts 0..7):")
for g, row in enumerate(m["layers"][0]["kept"]):
    print("     rank %d: %s" % (g, " ".join("%3d" % x for x in row)))
print("   dropped in the last step: %d" % drops)
print("   MoE dispatch busbw %.3f GB/s, combine %.3f GB/s (measured: busiest rank's bytes over"
      % (disp, comb))
print("     the slowest rank's exchange time, train moe)")
print("   all_to_all busbw   %.3f GB/s at S = %d B (the dispatch's mean send buffer per rank, "
      "collviz bench)" % (bus, S))
print("   dispatch / all_to_all = %.3f (no target: uneven blocks, one exchange per layer)"
      % (disp / bus if bus > 0 else float("nan")))
PYEOF

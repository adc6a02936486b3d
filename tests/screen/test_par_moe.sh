#!/usr/bin/env bash
# The parallelism screen's mixture of experts: n goes zero3 -> moe -> ddp; the view of one
# display-scale training step shows each rank's tokens per expert (kept/routed where some
# were dropped), every expert's load, the all-to-all-v's blocks and the drops - the same
# numbers `collviz train moe` prints for the same run (its JSON, read here) - the
# dispatch/combine busbw measured, and the check against one device; the step keys move
# between the two layers; m trains the lecture scale on the worker (its drops equal the
# command line's for the same run); + changes the ranks (and the experts, 2W); at 80x24
# and 100x30 the tables still fit.
. "$(dirname "$0")/lib.sh" "$1"
moe_json=$(mktemp)
trap 'rm -f "$moe_json" "$moe_json.lect"; tm_cleanup_all' EXIT

# The CLI's routing for the screen's display configuration at W = 3 (E = 6, top-2, C = 1).
"$BIN" train moe --ranks 3 --experts 6 --topk 2 --capacity 1.0 --layers 2 --dim 16 --batch 24 \
    --steps 1 --format json >"$moe_json" 2>/dev/null || fail "train moe via the CLI failed"
rows() { # layer: the screen's rank rows as the CLI has them, "rank 0 3/4 3 | ..."
    python3 - "$moe_json" "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
l = d["moe"]["layers"][int(sys.argv[2])]
for g in range(3):
    cells = []
    for e in range(6):
        k, r = l["kept"][g][e], l["routed"][g][e]
        cells.append(("%d" % k if k == r else "%d/%d" % (k, r)) + (" |" if e % 2 and e < 5 else ""))
    print("rank %d %s" % (g, " ".join(cells)))
print("dropped %d of 96" % d["moe"]["dropped_last_step"])
PYEOF
}

tm_start 120 40 "--backend cpu --no-measure --scene 'screen=parallel scheme=zero3 ranks=3'"
tm_wait "ZeRO stage 3 / FSDP" 10 || fail "zero3 did not open"
tm_keys n
tm_wait "mixture of experts (expert parallel)" 5 || fail "n after zero3 is not moe"
tm_wait "layer 1/2" 5 || fail "moe did not start at layer 1"
tm_screen | grep -qF "✓ = one device (routing same" || fail "no check against one device"
tm_squeezed | grep -qF "expert e0@r0 e1@r0 | e2@r1 e3@r1 | e4@r2 e5@r2" || fail "no experts header"
while read -r want; do
    tm_squeezed | grep -qF -- "$want" || fail "layer 0: want '$want' (the CLI's routing)"
done < <(rows 0)
tm_squeezed | grep -qF "capacity ceil(1*8*2/6) = 3 tokens per expert" || fail "no capacity line"
tm_squeezed | grep -qF "from r2 to r0" || fail "no all-to-all-v blocks"
# --no-measure: the routing's bytes, no times (nothing measured until m)
tm_squeezed | grep -qE "dispatch r0 [0-9.]+ K?i?B r1" || fail "no dispatch bytes per rank"
tm_squeezed | grep -qF "not timed: measuring is off" || fail "--no-measure: times shown or not said"
tm_squeezed | grep -qE "busbw [0-9]" && fail "--no-measure: a busbw before m"
tm_keys Right
tm_wait "layer 2/2" 5 || fail "the step key did not move to layer 1"
while read -r want; do
    tm_squeezed | grep -qF -- "$want" || fail "layer 1: want '$want' (the CLI's routing)"
done < <(rows 1 | grep rank)
tm_keys +
tm_wait "W=4" 5 || fail "+ did not add a rank"
tm_squeezed | grep -qF "e6@r3 e7@r3" || fail "W=4 does not show 8 experts"
# m measures the display step again and trains the lecture scale on the worker: its drops
# are the command line's for the same run (L=4 D=1024 B=128, E=2W=8 at W=4, 5 steps, seed 0).
tm_keys m
tm_wait "training on the worker" 10 || fail "m did not start the lecture-scale run"
# m times the display-scale step too
tm_squeezed | grep -qE "dispatch r0 .* busbw [0-9.e+-]+ [kMG]B/s" || fail "no dispatch busbw after m"
tm_squeezed | grep -qE "combine r0 .* busbw [0-9.e+-]+ [kMG]B/s" || fail "no combine busbw after m"
tm_squeezed | tr '\n' ' ' | tr -s ' ' | grep -qF "time from a barrier to" ||
    fail "no word on how it is measured"
"$BIN" train moe --ranks 4 --experts 8 --steps 5 --format json >"$moe_json.lect" 2>/dev/null ||
    fail "train moe at lecture scale via the CLI failed"
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["moe"]["dropped_last_step"])' "$moe_json.lect")
tm_wait "loss and weights = one device, routing the same" 240 || fail "the lecture-scale run never reported"
tm_squeezed | grep -qE "dispatch busbw [0-9.e+-]+ [kMG]B/s, combine [0-9.e+-]+ [kMG]B/s, $want dropped" ||
    fail "lecture scale: want $want dropped (the CLI's) and both busbw"
tm_keys n
tm_wait "data parallel (DDP)" 5 || fail "n after moe is not ddp"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit"
tm_cleanup

for size in "80 24" "100 30"; do
    # shellcheck disable=SC2086 # the two numbers are two arguments
    tm_start $size "--backend cpu --no-measure --scene 'screen=parallel scheme=moe ranks=4'"
    tm_wait "layer 1/2" 10 || fail "$size: moe did not open"
    tm_keys m # times the display-scale step (and trains the lecture scale)
    tm_wait "time from a" 10 || fail "$size: m did not time the exchanges"
    tm_squeezed | grep -qF "load" || fail "$size: no load row"
    tm_squeezed | grep -qF "from r3 to r0" || fail "$size: no blocks"
    tm_squeezed | grep -qF "dropped" || fail "$size: no drops"
    # everything fits, down to the lecture-scale line: at 80x24 each exchange's busbw on one
    # line with the two figures it is made of (compact), at 100x30 every rank's
    if [ "$size" = "80 24" ]; then
        for k in dispatch combine; do
            tm_squeezed | grep -qE "^ ?$k busbw [0-9.e+-]+ [kMG]B/s = [0-9.]+ (K?i?B) \(r[0-3], most\) / [0-9.]+ [mu]?s \(r[0-3], slowest\)" ||
                fail "80 24: no one-line $k busbw with its bytes and time"
        done
    else
        tm_squeezed | grep -qE "combine r0 .* busbw [0-9.e+-]+ [kMG]B/s" || fail "$size: no combine busbw"
    fi
    tm_squeezed | tr '\n' ' ' | tr -s ' ' | grep -qF "time from a barrier to" ||
        fail "$size: no word on how it is measured"
    tm_squeezed | grep -qF "lecture scale L=4 D=1024" || fail "$size: the lecture-scale line is cut off"
    tm_keys q
    tm_wait "EXITED:0" 15 || fail "$size: q did not exit"
    tm_cleanup
done
echo "ok: moe on the parallelism screen, routing as the CLI's, blocks, drops, busbw"

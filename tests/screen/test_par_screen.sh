#!/usr/bin/env bash
# The parallelism screen end to end: p switches to it from the collectives screen, the
# frames of the display-scale step are stepped through, the lecture-scale training runs on
# the worker (the UI keeps drawing meanwhile) and its panel shows the loss against one
# device within tolerance, bytes measured next to the napkin math, and for the pipeline
# both Gantt charts and the bubble; n switches scheme, g the schedule, p goes back.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 36 "--backend cpu"
tm_wait "step 0/6" || fail "the collectives screen never came up"
tm_keys p
tm_wait "parallelism · data parallel (DDP) · W=4" 10 || fail "p did not open the parallelism screen"
tm_wait "frame 1/23  before the step" 5 || fail "no first frame"
tm_screen | grep -qF "every rank holds all 2 layers (a replica)" || fail "no DDP start sentence"
# While the lecture-scale run trains, the screen still answers keys.
tm_keys l
tm_wait "frame 2/23  layer 0 forward" 5 || fail "→ did not step while training"
tm_wait "same loss as 1 device" 90 || fail "the DDP training never reported"
tm_screen | grep -qE "✓ same loss as 1 device: rel. Δ [0-9.e+-]+ ≤ 1e-04" ||
    fail "no deviation within tolerance"
tm_screen | grep -qF "into all-reduces per step: 4194304 measured" || fail "no all-reduce count"
tm_screen | grep -qF "L·D² = 4·1024² = 4194304 model" || fail "no L·D² model"
tm_screen | grep -qE "sent per step, busiest rank: 24 MiB measured" || fail "no bytes per step"
tm_screen | grep -qF "r0-3      16 MiB   16 MiB   32 MiB" || fail "no memory per rank"
# Step to the first all-reduce and through it: ring steps with transfers.
for _ in 1 2 3 4 5; do tm_keys l; done
tm_wait "frame 7/23  all-reduce dW0 0/7" 5 || fail "no all-reduce frame"
tm_screen | grep -qF "each rank's input is in place" || fail "all-reduce inputs not explained"
tm_keys l
tm_wait "all-reduce dW0 1/7" 5 || fail "no first ring step"
tm_screen | grep -qF "r0 ─▶ r1 chunk 3 (+)" || fail "no ring transfer listed"
for _ in 1 2 3 4 5 6; do tm_keys l; done
tm_wait "all-reduce dW0 7/7" 5 || fail "no last ring step"
tm_screen | grep -qF "✓ the engine's own result" || fail "trace not checked against the engine"
tm_screen | grep -qE "✓ = one device \(max \|Δ\| [0-9e.+-]+\)" || fail "no one-device badge"
tm_keys End
tm_wait "frame 23/23  AdamW step" 5 || fail "End did not reach AdamW"
# Tensor parallel: a new run, its napkin math.
tm_keys n
tm_wait "tensor parallel (columns)" 5 || fail "n did not switch to tp"
tm_wait "frame 1/19  before the step" 5 || fail "tp did not start at frame 1"
tm_wait "into all-gathers per step: 524288 measured" 90 || fail "no tp all-gather count"
tm_screen | grep -qF "L·B·D = 4·128·1024 = 524288 model" || fail "no L·B·D model"
tm_screen | grep -qF "DDP: L·D² = 4194304, D/B = 8× more (model)" || fail "no D/B ratio"
tm_screen | grep -qE "✓ same loss as 1 device: rel. Δ [0-9.e+-]+ ≤ 1e-04" ||
    fail "tp not within tolerance"
# Pipeline: the two Gantt charts and the bubble, measured next to the model.
tm_keys n
tm_wait "pipeline parallel (stages)" 5 || fail "n did not switch to pp"
tm_wait "ideal schedule (model), 14 ticks" 5 || fail "no ideal schedule"
tm_screen | grep -qF "s0  F0 F1 F2 F3  ·  ·  ·  ·  ·  · B3 B2 B1 B0" || fail "GPipe row of stage 0 wrong"
tm_screen | grep -qF "bubble model (P-1)/(M+P-1) = 3/7 = 0.43" || fail "no bubble model"
tm_wait "measured, step 5 of 5" 90 || fail "no measured timeline"
tm_screen | grep -qE "measured 0\.[0-9]{2} \(idle share of the span" || fail "no measured bubble"
tm_keys l l l
tm_wait "pipeline tick 3/14" 5 || fail "no pipeline tick 3"
tm_screen | grep -qF "s1 ─▶ s2 x2 mb1" || fail "no activation message at tick 3"
tm_screen | grep -qF "Tick 3 of 14: s0 forward mb2, sends activations to s1" || fail "tick 3 sentence"
tm_keys g
tm_wait "· 1f1b" 5 || fail "g did not switch to 1F1B"
tm_screen | grep -qF "s0  F0 F1 F2 F3  ·  ·  · B0  · B1  · B2  · B3" || fail "1F1B row of stage 0 wrong"
tm_keys p
tm_wait "step 0/6" 5 || fail "p did not go back to the collectives"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit"
echo "ok: parallelism screen, stepping, training panel for ddp/tp/pp, schedules"

#!/usr/bin/env bash
# The parallelism screen's ZeRO stages without automatic training: n cycles ddp -> tp ->
# pp -> zero1 -> zero2 -> zero3; stage 3's boxes name each rank's shard and its first frame
# shows only the shards; the all-gather of W0 is replayed step by step from its ring plan
# and ends on the engine's own result, the full W0 on every rank equal to one device's;
# the reduce-scatter of a gradient too; O switches stage 3's prefetch; m trains and the
# panel shows bytes against the 1.5x model and memory against DDP's.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 40 "--backend cpu --no-measure --scene 'screen=parallel scheme=pp'"
tm_wait "pipeline parallel (stages)" 10 || fail "pp did not open"
tm_keys n
tm_wait "ZeRO stage 1 (optimizer state sharded)" 5 || fail "n after pp is not zero1"
tm_screen | grep -qF "AdamW state for its own shard (1/4) only" || fail "no zero1 start sentence"
tm_keys n
tm_wait "ZeRO stage 2 (+ gradients sharded)" 5 || fail "n did not reach zero2"
tm_keys n
tm_wait "ZeRO stage 3 / FSDP" 5 || fail "n did not reach zero3"
tm_wait "frame 1/33  before the step" 5 || fail "zero3 did not start at frame 1"
tm_screen | grep -qF "rank 2 · rows 4-5 · shard 2 of 4" || fail "no shard in the box label"
tm_screen | grep -qF "W0[2:3,:] ✓" || fail "rank 2 does not hold row block 2 of W0"
tm_screen | grep -qF "holds only shard r (1/4) of every layer" || fail "no zero3 start sentence"
tm_screen | grep -qF "model: sends 3Ψ(W-1)/W floats/step, 1.5x DDP" || fail "no bytes model before the run"
tm_screen | grep -qF "model: w+g+AdamW 20 MiB/rank (DDP 64 MiB)" || fail "no memory model before the run"
tm_keys l
tm_wait "frame 2/33  all-gather W0 0/3" 5 || fail "no all-gather before forward"
tm_keys l l l
tm_wait "all-gather W0 3/3" 5 || fail "the all-gather's ring steps are not replayed"
tm_screen | grep -qF "✓ the engine's own result" || fail "all-gather not checked against the engine"
[ "$(tm_screen | grep -oF "W0 ✓" | wc -l)" -eq 4 ] || fail "not every rank holds the full W0 = one device"
# Forward L0, all-gather W1, forward L1, the loss, then W1 gathered again for backward.
tm_keys l
tm_wait "frame 6/33  layer 0 forward" 5 || fail "no layer 0 forward after the gather"
for _ in 1 2 3 4 5 6; do tm_keys l; done
tm_wait "frame 12/33  loss" 5 || fail "no loss frame"
tm_keys l
tm_wait "frame 13/33  all-gather W1 0/3" 5 || fail "no second all-gather of W1"
tm_screen | grep -qF "for backward" || fail "the second gather is not the one for backward"
for _ in 1 2 3 4 5; do tm_keys l; done
tm_wait "frame 18/33  reduce-scatter dW1" 5 || fail "no reduce-scatter after layer 1's backward"
for _ in 1 2 3 4; do tm_keys l; done
tm_wait "frame 22/33  reduce-scatter dW1[0:1,:] 4/4" 5 || fail "the reduce-scatter's steps"
tm_screen | grep -qF "dW1[3:4,:] ✓" || fail "rank 3's gradient shard is not one device's"
tm_keys O
tm_wait "prefetch on" 5 || fail "O did not switch prefetch on"
tm_keys m
tm_wait "same loss as 1 device" 120 || fail "the lecture-scale zero3 run never reported"
tm_screen | grep -qE "36 MiB model: 3Ψ\(W-1\)/W floats, 1.5x DDP's" || fail "no 1.5x bytes model"
tm_screen | grep -qE "sent per step, busiest rank: 36 MiB measured" || fail "no measured bytes"
tm_screen | grep -qF "model     12 MiB   4 MiB    8 MiB" || fail "no memory model (prefetch: 2 slots)"
tm_screen | grep -qF "24 MiB of DDP's 64 MiB" || fail "no memory bar against DDP"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit"
echo "ok: zero1-3 on the parallelism screen, shards, replayed all-gathers, prefetch, panel"

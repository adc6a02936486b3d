#!/usr/bin/env bash
# test_train_cli.sh - `collviz train`: --check passes for every scheme at small sizes (both
# pipeline schedules, overlapped DDP, an uneven pipeline split, ZeRO at padded shapes), the JSON output parses and
# holds the promised fields with values that agree with the formulas, and bad arguments
# exit 2 with exactly one line on stderr. $1: the binary; $2 (optional): the ASan+UBSan
# binary, run on a smaller selection.
. "$(dirname "$0")/lib.sh" "$@"

SMALL=(--layers 4 --dim 16 --batch 8 --steps 3)

check_ok() { # binary, args...
    local bin=$1
    shift
    if ! "$bin" train "$@" --check >"$tmp/out" 2>"$tmp/err"; then
        fail "$bin train $* --check exited $?: $(tail -2 "$tmp/out") $(cat "$tmp/err")"
        return
    fi
    grep -q "check against the single-device reference: .*: ok" "$tmp/out" ||
        fail "$bin train $* --check: no 'ok' line"
}

for w in 1 2 4; do
    check_ok "$BIN" ddp --ranks $w "${SMALL[@]}"
    check_ok "$BIN" ddp --ranks $w --overlap "${SMALL[@]}"
    check_ok "$BIN" tp --ranks $w "${SMALL[@]}"
    check_ok "$BIN" pp --ranks $w --schedule gpipe "${SMALL[@]}"
    check_ok "$BIN" pp --ranks $w --schedule 1f1b --microbatches 8 "${SMALL[@]}"
done
check_ok "$BIN" single "${SMALL[@]}"
# ZeRO at padded shapes: D² = 49 divides by none of 2, 3, 4.
for w in 2 3 4; do
    for z in zero1 zero2 zero3; do
        check_ok "$BIN" $z --ranks $w --layers 3 --dim 7 --batch 12 --steps 3
    done
    check_ok "$BIN" zero3 --prefetch --ranks $w --layers 3 --dim 7 --batch 12 --steps 3
done
check_ok "$BIN" pp --ranks 2 --layers 3 --dim 16 --batch 8 --steps 2
check_ok "$BIN" pp --ranks 3 --layers 4 --dim 12 --batch 12 --microbatches 3 --steps 2 --schedule 1f1b

# JSON: parses, has the fields, and the numbers agree with the napkin formulas.
# train_json EXPR SCHEME-ARGS...: run train ARGS --format json --check now; the JSON must
# hold the promised fields, its check be within tolerance and the expression (over d) be
# true, all evaluated in one python3 run at the end (json_expect_now).
fields_ok="all(k in d for k in ('scheme', 'backend', 'ranks', 'layers', 'dim', 'batch', 'steps', \
'memory_per_rank', 'max_deviation')) and all(k in s for s in d['steps'] for k in ('step', 'loss', \
'time_s', 'comm_s', 'comm_bytes')) and d['max_deviation']['within'] is True"
njson=0
train_json() {
    local expr=$1
    shift
    njson=$((njson + 1))
    if ! "$BIN" train "$@" --format json --check >"$tmp/j$njson" 2>"$tmp/err"; then
        fail "train $* --format json --check exited $?: $(cat "$tmp/err")"
        return
    fi
    json_expect_later "json of train $*" "$tmp/j$njson" "$fields_ok and ($expr)"
}
L=4 D=16 B=8
# cpu_s: the rank threads' CPU time in the step, summed. W threads cannot use more than W
# times the step's wall time (1e-4 s for the clocks' granularity), and a step computes.
cpu_ok="all(0 < s['cpu_s'] <= d['ranks'] * s['time_s'] * 1.01 + 1e-4 for s in d['steps'])"
train_json "$cpu_ok" ddp --ranks 2 --layers 2 --dim 64 --batch 16 --steps 3
train_json "$cpu_ok and d['ranks'] == 1" single --layers 2 --dim 64 --batch 16 --steps 3
train_json "d['scheme']=='ddp' and d['ranks']==4 and len(d['steps'])==3 and \
d['napkin']['ddp_model_elements']==$L*$D*$D and d['napkin']['measured_elements']==$L*$D*$D and \
all(s['comm_bytes']==2*3*$L*$D*$D//4*4 for s in d['steps']) and \
d['memory_per_rank'][0]['params']==$L*$D*$D*4" ddp --ranks 4 "${SMALL[@]}"
train_json "d['napkin']['tp_model_elements']==$L*$B*$D and d['napkin']['measured_elements']==$L*$B*$D \
and d['napkin']['ratio_model']==$D/$B and d['memory_per_rank'][1]['params']==$L*$D*$D" tp --ranks 4 "${SMALL[@]}"
train_json "abs(d['bubble_model']-3/7)<1e-9 and 0<=d['bubble_measured']<1 and d['schedule']=='1f1b' \
and d['microbatches']==4" pp --ranks 4 --schedule 1f1b "${SMALL[@]}"
# ZeRO: memory per rank equals the model by kind (allocated and peak); the model's sizes
# from the formulas here: Ψ = L·D², fp32, AdamW's two moments; bytes 2Ψ(W-1)/W floats
# per rank for stages 1, 2 and 3Ψ(W-1)/W for stage 3.
P=$((L * D * D))
mem_ok="all(r[k]==r['model'][k] and r['peak'][k]==r['peak_model'][k] for r in d['memory_per_rank'] \
for k in ('params','grads','optimizer','activations'))"
train_json "$mem_ok and d['memory_per_rank'][2]['params']==4*$P and d['memory_per_rank'][2]['grads']==4*$P \
and d['memory_per_rank'][2]['optimizer']==8*$P//4 and all(s['comm_bytes']==4*2*$P*3//4 for s in d['steps'])" \
    zero1 --ranks 4 "${SMALL[@]}"
train_json "$mem_ok and d['memory_per_rank'][0]['grads']==4*$P//4+4*$D*$D \
and d['memory_per_rank'][0]['optimizer']==8*$P//4" zero2 --ranks 4 "${SMALL[@]}"
train_json "$mem_ok and d['memory_per_rank'][3]['params']==4*$P//4+4*$D*$D \
and d['memory_per_rank'][3]['peak']['grads']==4*$P//4 \
and all(s['comm_bytes']==4*3*$P*3//4 for s in d['steps']) \
and d['napkin']['wire_model_bytes_per_rank']==4*3*$P*3//4 \
and d['napkin']['all_gather_elements']==2*$P and d['napkin']['reduce_scatter_elements']==$P" \
    zero3 --ranks 4 "${SMALL[@]}"
"$BIN" train zero3 --ranks 2 "${SMALL[@]}" --timeline >"$tmp/out" 2>"$tmp/err" || fail "zero3 --timeline: $(cat "$tmp/err")"
[ "$(grep -c "collective *all-gather W0" "$tmp/out")" -eq 12 ] ||
    fail "zero3 --timeline: want W0 gathered twice per step on both ranks (3 steps)"
grep -q "1.5x DDP" "$tmp/out" || fail "zero3 text lacks the 1.5x model line"
# --prefetch: every collective on the helper lane (lane 1), the JSON says so, one more
# gathered layer in the memory.
train_json "d['prefetch'] is True and all(s['comm_async_s']>0 for s in d['steps']) and $mem_ok \
and d['memory_per_rank'][0]['params']==4*$P//4+2*4*$D*$D" zero3 --prefetch --ranks 4 "${SMALL[@]}"
"$BIN" train zero3 --prefetch --ranks 2 "${SMALL[@]}" --steps 1 --timeline >"$tmp/out" 2>"$tmp/err" ||
    fail "zero3 --prefetch --timeline: $(cat "$tmp/err")"
grep -q "lane 0 collective" "$tmp/out" && fail "zero3 --prefetch: a collective on lane 0"
[ "$(grep -c "lane 1 collective" "$tmp/out")" -eq $((2 * 3 * L)) ] ||
    fail "zero3 --prefetch: want 3 collectives per layer per rank on lane 1"
train_json "d['overlap'] is True and any(s['comm_async_s']>0 for s in d['steps'])" ddp --ranks 2 --overlap "${SMALL[@]}"

# The timeline comes out with --timeline, in both formats.
"$BIN" train pp --ranks 2 "${SMALL[@]}" --timeline --format json >"$tmp/t" 2>"$tmp/err" &&
    python3 -c "
import json,sys
d=json.load(open('$tmp/t'))
kinds={e['kind'] for e in d['timeline']}
assert {'compute','send','recv'} <= kinds, kinds
" || fail "pp --timeline json: $(cat "$tmp/err")"
"$BIN" train tp --ranks 2 "${SMALL[@]}" --timeline | grep -q "collective *all-gather L0" ||
    fail "tp --timeline text lacks the all-gather events"

# --backend: auto says what it chose (cpu here, nccl on a machine with 2 GPUs); the JSON
# names the backend that ran.
"$BIN" train ddp --ranks 2 "${SMALL[@]}" --backend auto >"$tmp/out" 2>"$tmp/err" ||
    fail "--backend auto exited $?: $(cat "$tmp/err")"
grep -Eq "auto chose (cpu|nccl)" "$tmp/out" || fail "--backend auto does not say what it chose"
"$BIN" train tp --ranks 2 "${SMALL[@]}" --format json >"$tmp/j" 2>"$tmp/err" &&
    python3 -c "import json; assert json.load(open('$tmp/j'))['backend'] == 'cpu'" ||
    fail "tp --format json does not say backend cpu: $(head -c 200 "$tmp/j")"

# --backend nccl without a usable GPU: exit 2, one line, naming the CUDA error (or saying
# NCCL was not built). Skipped where nvidia-smi lists a GPU: there tests/gpu/run.sh trains.
if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
    for scheme in ddp tp pp; do
        "$BIN" train $scheme --backend nccl --ranks 2 "${SMALL[@]}" --check >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -s "$tmp/out" ] ||
            ! grep -Eq "nccl: .*(cuda[A-Za-z]*Error|not built)" "$tmp/err"; then
            fail "$scheme --backend nccl without a GPU: exit $rc, stderr: $(cat "$tmp/err")"
        fi
    done
fi

# Bad arguments: exit 2, one line on stderr, nothing on stdout (on every binary).
bad() { expect_usage_error "" train "$@"; } # ARGS...
bad zero
bad
bad ddp --ranks 0
bad ddp --ranks 99
bad ddp --ranks 3 --batch 8 --dim 8
bad tp --ranks 3 --dim 16 --batch 8
bad zero2 --ranks 3 --dim 16 --batch 8
bad zero4
bad zero2 --prefetch --dim 8 --batch 8
bad ddp --prefetch --dim 8 --batch 8
bad zero3 --overlap --dim 8 --batch 8
bad pp --ranks 4 --layers 3 --dim 8 --batch 8
bad pp --ranks 2 --batch 8 --microbatches 3 --dim 8
bad pp --schedule zigzag
bad ddp --steps x
bad ddp --format xml
bad ddp --backend tpu
bad ddp --backend nccl --dim 8 --batch 8
bad single --backend nccl --dim 8 --batch 8
bad ddp --nonsense
bad ddp tp
bad single --ranks 2
bad ddp --dim 65536 --layers 1024
grep -q "nccl" <("$BIN" train ddp --backend nccl --dim 8 --batch 8 2>&1) ||
    fail "--backend nccl does not give a reason naming nccl"

"$BIN" train --help | grep -q "usage: collviz train" || fail "--help"

if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
    check_ok "$ASAN_BIN" ddp --ranks 2 --overlap "${SMALL[@]}"
    check_ok "$ASAN_BIN" tp --ranks 4 "${SMALL[@]}"
    check_ok "$ASAN_BIN" pp --ranks 2 --schedule 1f1b "${SMALL[@]}"
    check_ok "$ASAN_BIN" single "${SMALL[@]}"
    check_ok "$ASAN_BIN" zero3 --ranks 3 --layers 2 --dim 7 --batch 6 --steps 2
    check_ok "$ASAN_BIN" zero2 --ranks 4 "${SMALL[@]}"
fi

json_expect_now
cli_finish test_train_cli

#!/usr/bin/env bash
# train_bench.sh - step time of every training scheme at the lecture's scale (L=4, D=1024,
# B=128, W=4 CPU ranks, M=4), a few steps after warm-up, and PyTorch's own DDP on CPU
# (gloo, one thread per process, 4 processes; bench/torch_ddp.py) beside ours as a ratio.
# Target: our DDP step at most half of PyTorch's. Prints figures; never fails on a miss.
# On a machine with GPUs (nvidia-smi) and the NCCL backend built, also `collviz train ddp
# --backend nccl` on 1, 2 or 4 GPUs beside PyTorch on the same GPUs (--device cuda: nccl,
# fp32 without TF32, like collviz's cuBLAS path), as a ratio. No target there: a figure.
#
# usage: bench/train_bench.sh [COLLVIZ]   (default build/collviz)
# env:   TRAIN_BENCH_STEPS (default 6, the first is warm-up), TRAIN_BENCH_NO_TORCH=1 to skip
#        PyTorch, TRAIN_BENCH_NO_INSTALL=1 to never apt-get install python3-torch,
#        TRAIN_BENCH_ONLY=gpu for the GPU part alone.
set -u
BIN=${1:-build/collviz}
STEPS=${TRAIN_BENCH_STEPS:-6}
HERE=$(cd "$(dirname "$0")" && pwd)
SIZE=(--ranks 4 --layers 4 --dim 1024 --batch 128 --microbatches 4)
if [ ! -x "$BIN" ]; then
    echo "train_bench: no binary at $BIN (run make first)"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

summarise() { # name, json file
    python3 - "$1" "$2" <<'EOF'
import json, statistics, sys
name, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
steps = d["steps"][1:] or d["steps"]
t = statistics.median(s["time_s"] for s in steps) * 1e3
c = statistics.median(s["comm_s"] for s in steps) * 1e3
# NCCL reports no bytes: the ring model's figure then (comm_bytes_model).
b = max(s.get("comm_bytes", s.get("comm_bytes_model", 0)) for s in steps) / 2**20
notes = []
if "bubble_measured" in d:
    notes.append("bubble %.3f measured / %.3f model" % (d["bubble_measured"], d["bubble_model"]))
if d.get("overlap"):
    notes.append("overlapped comm %.1f ms" % (statistics.median(s["comm_async_s"] for s in steps) * 1e3))
mem = d["memory_per_rank"][0]
notes.append("rank0 alloc %.1f MiB" % (mem["total"] / 2**20))
print("   %-22s %10.1f %10.1f %9.2f MiB  %s" % (name, t, c, b, "; ".join(notes)))
open(path + ".ms", "w").write("%.6f" % t)
EOF
}

run_scheme() { # name, args...
    local name=$1
    shift
    local f="$tmp/${name// /_}.json"
    if "$BIN" train "$@" --steps "$STEPS" --format json >"$f" 2>"$tmp/err"; then
        summarise "$name" "$f"
    else
        echo "   $name: failed: $(cat "$tmp/err")"
    fi
}

# Debian's python3-torch lives in /usr/bin/python3's dist-packages; the python3 first on
# PATH may be another interpreter (pyenv, venv).
find_torch_python() {
    local py
    for py in python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null && "$py" -c "import torch" 2>/dev/null; then
            echo "$py"
            return 0
        fi
    done
    return 1
}

# On GPUs: collviz's DDP on NCCL beside PyTorch's on the same GPUs.
gpu_part() {
    echo
    local ngpu=0
    command -v nvidia-smi >/dev/null 2>&1 && ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
    if [ "$ngpu" -lt 1 ]; then
        echo "== on GPUs: skipped (nvidia-smi lists no GPU)"
        return
    fi
    local g=1
    while [ $((g * 2)) -le "$ngpu" ] && [ $((g * 2)) -le 4 ]; do g=$((g * 2)); done
    echo "== on GPUs: collviz train ddp --backend nccl beside PyTorch, $g of $ngpu GPU(s), L=4 D=1024 B=128"
    echo "   (median of steps 1..$((STEPS - 1)); fp32 without TF32 on both sides)"
    printf "   %-22s %10s %10s %12s  %s\n" scheme "step ms" "comm ms" "sent/rank" "notes"
    run_scheme "ddp nccl" ddp --backend nccl --ranks "$g" --layers 4 --dim 1024 --batch 128
    local py
    if ! py=$(find_torch_python); then
        echo "   PyTorch: skipped (python3 cannot import torch)"
        return
    fi
    if ! "$py" "$HERE/torch_ddp.py" --device cuda --ranks "$g" --variants ddp --layers 4 \
        --dim 1024 --batch 128 --steps $((STEPS - 1)) --warmup 2 >"$tmp/torch_gpu.json" \
        2>"$tmp/torch_gpu.err"; then
        echo "   PyTorch run failed: $(tail -3 "$tmp/torch_gpu.err")"
        return
    fi
    python3 - "$tmp/torch_gpu.json" "$tmp/ddp_nccl.json.ms" <<'EOF'
import json, os, sys
t = json.load(open(sys.argv[1]))
r = t["runs"][0]
ms = r["median_step_s"] * 1e3
label = "DistributedDataParallel" if r["variant"] == "ddp" else "one GPU, no process group"
print("   torch %s on %s, %d process(es): %s %.3f ms/step" % (t["torch"], t.get("gpu", "?"), t["ranks"], label, ms))
if os.path.exists(sys.argv[2]):
    ours = float(open(sys.argv[2]).read())
    print("   collviz ddp nccl / torch = %.3f / %.3f ms = %.2f" % (ours, ms, ours / ms))
EOF
}

if [ "${TRAIN_BENCH_ONLY:-}" = gpu ]; then
    gpu_part
    exit 0
fi
echo "== collviz train at the lecture's scale: L=4 D=1024 B=128, 4 CPU ranks on $(nproc) cores"
echo "   (median of steps 1..$((STEPS - 1)); step 0 is warm-up)"
printf "   %-22s %10s %10s %12s  %s\n" scheme "step ms" "comm ms" "sent/rank" "notes"
run_scheme "single (1 thread)" single --layers 4 --dim 1024 --batch 128
run_scheme "ddp" ddp "${SIZE[@]}"
run_scheme "ddp --overlap" ddp --overlap "${SIZE[@]}"
run_scheme "tp" tp "${SIZE[@]}"
run_scheme "pp gpipe" pp --schedule gpipe "${SIZE[@]}"
run_scheme "pp 1f1b" pp --schedule 1f1b "${SIZE[@]}"
gpu_part

echo
echo "== PyTorch DDP on CPU (gloo, torch.set_num_threads(1), 4 processes, same shapes, AdamW)"
if [ "${TRAIN_BENCH_NO_TORCH:-0}" = 1 ]; then
    echo "   skipped (TRAIN_BENCH_NO_TORCH=1)"
    exit 0
fi
PY=$(find_torch_python)
if [ -z "$PY" ]; then
    cand=$(apt-cache policy python3-torch 2>/dev/null | awk '/Candidate:/ {print $2}')
    if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then
        echo "   skipped: python3 cannot import torch and apt has no python3-torch candidate"
        exit 0
    fi
    if [ "${TRAIN_BENCH_NO_INSTALL:-0}" = 1 ] || [ "$(id -u)" != 0 ]; then
        echo "   skipped: python3 cannot import torch (apt candidate python3-torch $cand; install"
        echo "   it as root, or unset TRAIN_BENCH_NO_INSTALL)"
        exit 0
    fi
    echo "   installing python3-torch $cand with apt-get (once) ..."
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-torch >"$tmp/apt" 2>&1 ||
        ! PY=$(find_torch_python); then
        echo "   skipped: installing python3-torch failed: $(tail -1 "$tmp/apt")"
        exit 0
    fi
fi
if ! "$PY" "$HERE/torch_ddp.py" --ranks 4 --layers 4 --dim 1024 --batch 128 \
    --steps $((STEPS - 1)) --warmup 2 >"$tmp/torch.json" 2>"$tmp/torch.err"; then
    echo "   PyTorch run failed: $(tail -3 "$tmp/torch.err")"
    exit 0
fi
python3 - "$tmp/torch.json" "$tmp/ddp.json.ms" "$tmp/ddp_--overlap.json.ms" <<'EOF'
import json, os, sys
t = json.load(open(sys.argv[1]))
ours = {}
for name, p in (("ddp", sys.argv[2]), ("ddp --overlap", sys.argv[3])):
    if os.path.exists(p):
        ours[name] = float(open(p).read())
print("   torch %s, %d processes" % (t["torch"], t["ranks"]))
ref = None
for r in t["runs"]:
    ms = r["median_step_s"] * 1e3
    label = {"ddp": "DistributedDataParallel", "lecture": "lecture loop (all_reduce per grad)"}[r["variant"]]
    print("   %-40s %8.1f ms/step" % (label, ms))
    if r["variant"] == "ddp":
        ref = ms
if ref:
    for name, ms in ours.items():
        ratio = ms / ref
        verdict = "target met (<= 0.5)" if ratio <= 0.5 else "target missed (> 0.5)"
        print("   collviz %-14s / torch DDP = %6.1f / %6.1f ms = %.2f  %s" % (name, ms, ref, ratio, verdict))
EOF

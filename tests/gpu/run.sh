#!/usr/bin/env bash
# tests/gpu/run.sh - `make gpu-test`: everything about the NCCL backend and kernels/ that
# needs a GPU, in one script, for a machine with one or more NVIDIA GPUs.
#
#   1. kernels: tests/gpu/test_kernels compares every kernel (fill pattern, count #wrong,
#      GELU forward/backward, mean-square loss and gradient, AdamW) with its host reference;
#   2. backend, bypassing `collviz bench`: tests/gpu/test_nccl links build/libcollviz.a and
#      calls the backend as the worker does - every collective x op x W = 1..GPUs at display
#      scale against the trace (trace_output), measure() with #wrong == 0, and the refusal,
#      cancel and deadline/abort/re-init paths; again built with -DNCCL_BACKEND_FORCE_P2P,
#      so the grouped ncclSend/ncclRecv forms of scatter/gather/all-to-all (NCCL < 2.28.3)
#      are exercised too (those three collectives alone: the others' code is the same);
#   3. the CLI: `collviz bench all --backend nccl --ranks W --format json` for every W, and
#      all_reduce with every op at W = GPUs: exit 0, the expected number of rows, every
#      "wrong":0;
#   4. a sweep printed for the reader (all_reduce 1 KiB..1 GiB, then every collective at
#      256 MiB) on all GPUs;
#   5. if nccl-tests' all_reduce_perf is on PATH: the same all_reduce (256 MiB, 20 iters
#      after 5 warm-up, all GPUs, one process) through both, and the ratio of collviz's
#      algbw to nccl-tests' out-of-place algbw. Both call ncclAllReduce on the same GPUs;
#      both time the loop with a host clock around a stream synchronisation (collviz: after
#      a barrier, the slowest rank's), so the two should agree within a few percent. Outside [0.5, 2] means one of the timings is wrong: a failure.
#      (With GPU_TEST_FAKE=1 two other groups replace 4 and 5: the checks must fail on
#      corrupted NCCL results, and the backend choice with 0, 1 and 2 devices.)
#   6. training on GPUs (src/parallel: dev_cuda.c, nccl_comm.c - written without a GPU, so
#      this is their first real check): `collviz train ddp|tp|pp|zero1..3|moe --backend nccl --check`
#      for W = 1..min(GPUs, 4) at small sizes (L=4, D=64, B=16, 3 steps; W=3 uses D=48,
#      B=12 so every split is even), plus overlapped DDP and 1F1B at the largest W: each
#      must exit 0, i.e. agree with the single-device reference computed on the CPU within
#      the GPU tolerances (parallel/train.h); the NCCL communicators each scheme makes per
#      GPU, counted from NCCL's INFO log (pp 4, none for collectives; ddp, ddp --overlap
#      and tp 1); then one lecture-scale run (DDP, L=4, D=1024, B=128, on the largest
#      power-of-two W <= GPUs) printed with its step times.
#
# Usage: tests/gpu/run.sh BUILD_DIR/collviz. Environment: BUILD (default: the binary's
# folder), GPU_TEST_NO_BUILD=1 (use what is built), GPU_TEST_P2P=0 (skip step 2's second
# build), GPU_TEST_MAX_RANKS=N (test at most N GPUs). Prints a summary; exits 1 if anything
# failed or no GPU is visible (then nothing was tested, which is not a pass).
#
# GPU_TEST_FAKE=1: the binaries were built with FAKEGPU=1 (tests/fakegpu: CUDA, NCCL and
# cuBLAS emulated on the host, FAKEGPU_DEVICES devices, default 4) - how `make test` runs
# this script without a GPU. Then nothing is built, step 1 is skipped (the emulation's
# kernels are host loops over the same formulas, so comparing them with the host
# references would prove nothing), steps 2, 3 and 6 run at sizes a host can move quickly,
# an NCCL call of 8 MiB or more never completes (FAKEGPU_HANG_BYTES) so step 2's deadline
# test has something to abort, and steps 4, 5 and the lecture-scale run are skipped: their
# figures would be host timings, not a GPU's.
set -u
fake=${GPU_TEST_FAKE:-0}
if [ "$fake" = 1 ]; then
    export FAKEGPU_DEVICES=${FAKEGPU_DEVICES:-4}
    export FAKEGPU_HANG_BYTES=${FAKEGPU_HANG_BYTES:-8388608}
    export TEST_NCCL_MEASURE_BYTES=${TEST_NCCL_MEASURE_BYTES:-1052672}
    export TEST_NCCL_ABORT_BYTES=${TEST_NCCL_ABORT_BYTES:-16777216}
    GPU_TEST_NO_BUILD=1
fi

BIN=${1:-build/collviz}
BUILD=${BUILD:-$(dirname "$BIN")}
cd "$(dirname "$0")/../.." || exit 1

results=()
failed=0

step() { # name, status (0 = pass)
    if [ "$2" -eq 0 ]; then
        results+=("PASS  $1")
    else
        results+=("FAIL  $1")
        failed=$((failed + 1))
    fi
}

summary() {
    echo
    echo "==== gpu-test summary ($ngpu $([ "$fake" = 1 ] && echo "EMULATED device(s)" || echo "GPU(s)"), ranks 1..$maxw)"
    local r
    for r in "${results[@]+"${results[@]}"}"; do echo "$r"; done
    echo "$(( ${#results[@]} - failed )) passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# ---- how many GPUs
ngpu=0
if [ "$fake" = 1 ]; then
    ngpu=$FAKEGPU_DEVICES
elif command -v nvidia-smi >/dev/null 2>&1; then
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
# CUDA sees only CUDA_VISIBLE_DEVICES when it is set; nvidia-smi lists every GPU.
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    visible=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
    [ "$visible" -lt "$ngpu" ] && ngpu=$visible
fi
if [ "$ngpu" -lt 1 ]; then
    echo "gpu-test: no GPU visible (nvidia-smi -L lists none): nothing was tested" >&2
    exit 1
fi
maxw=$ngpu
[ "$maxw" -gt 16 ] && maxw=16 # CV_MAX_RANKS
if [ -n "${GPU_TEST_MAX_RANKS:-}" ] && [ "$GPU_TEST_MAX_RANKS" -lt "$maxw" ]; then
    maxw=$GPU_TEST_MAX_RANKS
fi
if [ "$fake" = 1 ]; then
    echo "gpu-test: $ngpu EMULATED devices (tests/fakegpu, no GPU); testing ranks 1..$maxw with $BIN"
else
    echo "gpu-test: $ngpu GPU(s); testing ranks 1..$maxw with $BIN"
    nvidia-smi -L
fi

# ---- build
jobs=$(nproc 2>/dev/null || echo 4)
# (GPU_TEST_NO_BUILD=1 on a GPU: binaries built elsewhere, carried to a GPU machine that may
# lack the build's headers; the steps below then show whether they hold the NCCL backend.)
if [ "$fake" != 1 ] && [ "${GPU_TEST_NO_BUILD:-0}" != 1 ] &&
    ! make -s --no-print-directory BUILD="$BUILD" backends | grep -q 'backends: cpu nccl'; then
    echo "gpu-test: the Makefile finds no nvcc + nccl.h (HAVE_NCCL off): set CUDA_HOME" >&2
    step "build with HAVE_NCCL" 1
    summary
    exit 1
fi
if [ "${GPU_TEST_NO_BUILD:-0}" != 1 ]; then
    make -s -j"$jobs" BUILD="$BUILD" "$BIN" "$BUILD/tests/gpu/test_kernels" \
        "$BUILD/tests/gpu/test_nccl"
    rc=$?
    step "build ($BUILD)" $rc
    if [ "$rc" -ne 0 ]; then
        summary
        exit 1
    fi
fi

# ---- 1. kernels
echo
if [ "$fake" = 1 ]; then
    echo "SKIP: kernels vs host references (emulated devices run host loops, not kernels/)"
else
    echo "== kernels vs host references"
    "$BUILD/tests/gpu/test_kernels"
    step "kernels vs host references (test_kernels)" $?
fi

# ---- 2. the backend without the CLI
echo
echo "== NCCL backend: display scale vs trace, measure #wrong, abort paths (native colls)"
"$BUILD/tests/gpu/test_nccl" "$maxw"
step "backend vs trace and #wrong, W=1..$maxw (test_nccl)" $?

if [ "${GPU_TEST_P2P:-1}" != 0 ]; then
    echo
    echo "== the same with scatter/gather/all-to-all from grouped ncclSend/ncclRecv"
    p2p=$BUILD/p2p
    rc=0
    if [ "${GPU_TEST_NO_BUILD:-0}" != 1 ]; then
        # Only nccl_comm.c differs; the kernels are built as PTX alone to save nvcc time.
        make -s -j"$jobs" BUILD="$p2p" CFLAGS="-O2 -g -DNCCL_BACKEND_FORCE_P2P" \
            NVCC_GENCODE="-gencode arch=compute_80,code=compute_80" "$p2p/tests/gpu/test_nccl"
        rc=$?
    fi
    if [ "$rc" -eq 0 ] && [ -x "$p2p/tests/gpu/test_nccl" ]; then
        # The two builds differ in these three collectives alone (nccl_comm.c's
        # NCCL_HAVE_ROOTED_P2P_COLLS): the others' scales ran above on the same code; the
        # robustness checks run again whole.
        TEST_NCCL_COLLS=scatter,gather,all_to_all "$p2p/tests/gpu/test_nccl" "$maxw"
        step "backend with send/recv scatter/gather/all-to-all (test_nccl, P2P build)" $?
    else
        step "build with -DNCCL_BACKEND_FORCE_P2P" 1
    fi
fi

# ---- 3. the CLI, JSON
# Rows, and rows with #wrong == 0, of a `bench --format json` output (one row a line).
json_rows() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]))' "$1" 2>/dev/null || echo 0; }
# A row is right when both of nccl-tests' groups are: out of place (the row's own fields)
# and in place (its "in_place"; null for all_to_all, which collviz has only out of place).
json_right() { python3 -c 'import json,sys; print(sum(r["wrong"] == 0 and (r["in_place"] is None or r["in_place"]["wrong"] == 0) for r in json.load(open(sys.argv[1]))["rows"]))' "$1" 2>/dev/null || echo 0; }
json_bad() { python3 -c 'import json,sys; print(sum((r["wrong"] or 0) > 0 and (r["in_place"] is None or (r["in_place"]["wrong"] or 0) > 0) for r in json.load(open(sys.argv[1]))["rows"]))' "$1" 2>/dev/null || echo 0; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo
echo "== collviz bench --backend nccl --format json"
sizes_per_coll=4 # -b 4K -e 64M -f 16: 4K 64K 1M 16M
top=64M
if [ "$fake" = 1 ]; then
    sizes_per_coll=3 # 4K 64K 1M
    top=1M
fi
for ((w = 1; w <= maxw; w++)); do
    out=$tmp/all_w$w.json
    "$BIN" bench all --backend nccl --ranks "$w" -b 4K -e "$top" -f 16 -n 5 -w 2 --format json \
        >"$out" 2>"$tmp/err"
    rc=$?
    want=$((8 * sizes_per_coll))
    rows=$(json_rows "$out")
    right=$(json_right "$out")
    echo "W=$w: exit $rc, $rows rows, $right with #wrong = 0 (want $want)"
    [ "$rc" -ne 0 ] && cat "$tmp/err"
    [ "$rc" -eq 0 ] && [ "$rows" -eq "$want" ] && [ "$right" -eq "$want" ]
    step "bench all --ranks $w --format json: $right/$want rows right" $?
done
op_sizes=(-b 1M -e 16M -f 4) # 3 sizes
[ "$fake" = 1 ] && op_sizes=(-b 64K -e 1M -f 4)
for op in prod min max avg; do
    out=$tmp/ar_$op.json
    "$BIN" bench all_reduce --backend nccl --ranks "$maxw" -o "$op" "${op_sizes[@]}" -n 5 \
        -w 2 --format json >"$out" 2>"$tmp/err"
    rc=$?
    rows=$(json_rows "$out")
    right=$(json_right "$out")
    [ "$rc" -ne 0 ] && cat "$tmp/err"
    [ "$rc" -eq 0 ] && [ "$rows" -eq 3 ] && [ "$right" -eq 3 ]
    step "bench all_reduce -o $op --ranks $maxw: $right/3 rows right" $?
done

# ---- 3b. (emulated devices only) the checks fail when NCCL's results are wrong
if [ "$fake" = 1 ]; then
    echo
    echo "== with FAKEGPU_CORRUPT=1 (one wrong element per NCCL call) the checks must fail"
    out=$tmp/corrupt.json
    FAKEGPU_CORRUPT=1 "$BIN" bench all --backend nccl --ranks "$maxw" -b 64K -e 64K \
        --format json >"$out" 2>"$tmp/err"
    rc=$?
    rows=$(json_rows "$out")
    bad=$(json_bad "$out")
    echo "bench all: exit $rc, $bad of $rows rows with #wrong > 0"
    [ "$rc" -eq 1 ] && [ "$rows" -eq 8 ] && [ "$bad" -eq 8 ]
    step "corrupted NCCL results: bench reports #wrong > 0 on all 8 rows and exits 1" $?
    if [ "$maxw" -ge 2 ]; then # one rank's DDP makes no NCCL call to corrupt
        FAKEGPU_CORRUPT=1 "$BIN" train ddp --backend nccl --ranks 2 --layers 2 --dim 32 \
            --batch 8 --steps 2 --check >"$tmp/train.txt" 2>&1
        rc=$?
        grep "check against" "$tmp/train.txt"
        [ "$rc" -eq 1 ] && grep -q "FAILED" "$tmp/train.txt"
        step "corrupted NCCL results: train ddp --check fails (exit 1)" $?
    fi
fi

# ---- 3b'. labels: on emulated devices every GPU fact says "emulated" (and on GPUs none
# does); the link NCCL reported, in bench's text and JSON; train's JSON names NCCL's
# collective bytes as the ring model's. Two ranks, or one on a machine with one GPU.
lw2=2
[ "$maxw" -lt 2 ] && lw2=1
echo
echo "== labels: GPU facts on $([ "$fake" = 1 ] && echo "emulated devices" || echo "GPUs"), train JSON model fields"
# One run gives the header's facts and the link (below); NCCL's private log goes to $xdg.
xdg="$tmp/xdg"
mkdir -p "$xdg"
XDG_RUNTIME_DIR="$xdg" "$BIN" bench all_reduce --backend nccl --ranks "$lw2" -b 4K -n 1 -w 0 \
    >"$tmp/hdr.txt" 2>&1
hdr_rc=$?
rc=$hdr_rc
facts=$(grep -E '^# (ranks|hardware|  +GPU [0-9]+:|  +peer access)|measured: ' "$tmp/hdr.txt")
n=$(grep -c . <<<"$facts")
emu=$(grep -c ' emulated' <<<"$facts")
echo "$facts"
if [ "$fake" = 1 ]; then
    # ranks, hardware, a line per device, peer access (with 2 ranks), the section's
    # "measured:" line
    [ "$rc" -eq 0 ] && [ "$n" -eq $((FAKEGPU_DEVICES + 2 + lw2)) ] && [ "$emu" -eq "$n" ] &&
        grep -q 'driver supports CUDA [0-9.]* emulated' <<<"$facts" &&
        grep -q 'sm_[0-9]* emulated' <<<"$facts" &&
        grep -qE "measured: $lw2 emulated GPUs?, nccl" <<<"$facts"
    step "bench --backend nccl header: all $n GPU fact lines say emulated" $?
else
    [ "$rc" -eq 0 ] && [ "$n" -ge 4 ] && [ "$emu" -eq 0 ]
    step "bench --backend nccl header on GPUs: no line says emulated" $?
fi
# The link type NCCL reported, read from its INFO log after the section's first row (the
# emulation names its copy in host memory SHM/fakegpu); NCCL's INFO went to the private
# log, removed at exit, not to the output; with the user's NCCL_DEBUG the log is theirs.
# The link wanted, as a pattern (text and JSON alike):
if [ "$lw2" -eq 1 ]; then
    want='none: one rank connects to nobody' # one rank makes no connection, none is claimed
elif [ "$fake" = 1 ]; then
    want='SHM/fakegpu \(through host shared memory\), 1 channel \(NCCL INFO log\)'
else
    want='(P2P|SHM|NET)/.* \(NCCL INFO log\)'
fi
link=$(grep '^# link: ' "$tmp/hdr.txt")
echo "${link:-(no link line)}"
[[ ${link#\# link: } =~ ^${want}$ ]] && [[ $link == "# link: "* ]] && [ "$hdr_rc" -eq 0 ] &&
    ! grep -qE 'NCCL (INFO|WARN) [A-Z]' "$tmp/hdr.txt" && [ -z "$(ls -A "$xdg")" ]
step "bench --backend nccl: the link NCCL reported (${link#\# link: }), its log private and removed" $?
NCCL_DEBUG=VERSION "$BIN" bench all_reduce --backend nccl --ranks "$lw2" -b 4K -n 1 -w 0 \
    >"$tmp/link.txt" 2>&1
grep -qx '# link: not read (NCCL_DEBUG is set by you)' "$tmp/link.txt"
step "bench --backend nccl with the user's NCCL_DEBUG: link not read" $?
# The same in JSON: every row's "link" is the text line's value (read after that row).
json_links() { # file, then the wanted link (exact) or, with re:, a pattern
    python3 - "$@" <<'PY'
import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"]
want = sys.argv[2]
links = [r.get("link") for r in rows]
print("JSON links:", sorted(set(map(str, links))))
ok = len(rows) == 2 and all(
    isinstance(l, str) and (re.fullmatch(want[3:], l) if want.startswith("re:") else l == want)
    for l in links)
sys.exit(0 if ok else 1)
PY
}
XDG_RUNTIME_DIR="$xdg" "$BIN" bench all_reduce --backend nccl --ranks "$lw2" -b 4K -e 8K -n 1 \
    -w 0 --format json >"$tmp/link.json" 2>"$tmp/err"
rc=$?
json_links "$tmp/link.json" "re:$want"
[ $? -eq 0 ] && [ "$rc" -eq 0 ] && [ -z "$(ls -A "$xdg")" ]
step "bench --backend nccl --format json: each row's \"link\" is the text's" $?
NCCL_DEBUG=VERSION "$BIN" bench all_reduce --backend nccl --ranks "$lw2" -b 4K -e 8K -n 1 \
    -w 0 --format json >"$tmp/link.json" 2>"$tmp/err"
json_links "$tmp/link.json" "not read (NCCL_DEBUG is set by you)"
step "bench --backend nccl --format json with the user's NCCL_DEBUG: link not read" $?
for scheme in ddp tp pp; do
    "$BIN" train "$scheme" --backend nccl --ranks "$lw2" --layers 2 --dim 16 --batch 8 --steps 1 \
        --format json >"$tmp/tj.json" 2>"$tmp/err"
    python3 - "$tmp/tj.json" "$scheme" "$fake" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
scheme, fake = sys.argv[2], sys.argv[3] == "1"
st = d["steps"][0]
model = scheme != "pp"   # NCCL counts no collective bytes; pp's send/recv are counted
wire = d["napkin"] if scheme != "pp" else d
assert ("comm_bytes_model" in st) == model and ("comm_bytes" in st) == (not model), st
assert ("comm_bytes_per_rank_model" in st) == model, st
assert ("wire_ring_model_bytes_per_rank" in wire) == model, wire
assert ("wire_measured_bytes_per_rank" in wire) == (not model), wire
assert ("NCCL emulated" in d["description"]) == fake, d["description"]
PY
    step "train $scheme --backend nccl JSON: model figures named model, emulation named" $?
done

# ---- 3c. (emulated devices only) choosing the backend with 0, 1 and 2 devices
if [ "$fake" = 1 ]; then
    echo
    echo "== backend choice with 0, 1 and 2 emulated devices"
    expect() { # name, want-exit, grep-pattern (on stdout+stderr), command...
        local name=$1 want=$2 pat=$3
        shift 3
        "$@" >"$tmp/choice.txt" 2>&1
        local rc=$?
        local ok=1
        [ "$rc" -eq "$want" ] && grep -qE -- "$pat" "$tmp/choice.txt" && ok=0
        [ "$ok" -ne 0 ] && { echo "exit $rc (want $want), output:"; head -5 "$tmp/choice.txt"; }
        step "$name" $ok
    }
    b4=(bench all_reduce -b 4K -e 4K -n 2 -w 1)
    expect "0 devices, --backend nccl: exit 2 naming the CUDA error" 2 \
        "^collviz: .*cudaErrorNoDevice" env FAKEGPU_DEVICES=0 "$BIN" "${b4[@]}" --backend nccl
    expect "0 devices, auto: CPU ranks, saying why" 0 \
        "backend: cpu .*cudaErrorNoDevice" env FAKEGPU_DEVICES=0 "$BIN" "${b4[@]}"
    expect "1 device, auto: CPU ranks (a collective needs 2 GPUs)" 0 \
        "backend: cpu .*only 1 GPU usable" env FAKEGPU_DEVICES=1 "$BIN" "${b4[@]}"
    expect "2 devices, auto, default ranks: NCCL on both GPUs" 0 \
        '"backend":"nccl","ranks":2' env FAKEGPU_DEVICES=2 "$BIN" "${b4[@]}" --format json
    expect "2 devices, auto, --ranks 4: CPU ranks, saying why" 0 \
        "backend: cpu .*2 GPUs for 4 ranks" env FAKEGPU_DEVICES=2 "$BIN" "${b4[@]}" --ranks 4
    expect "2 devices, --backend nccl --ranks 4: exit 2, one line" 2 \
        "^collviz: --ranks 4: the nccl backend can run at most 2 ranks here$" \
        env FAKEGPU_DEVICES=2 "$BIN" "${b4[@]}" --backend nccl --ranks 4
    expect "NCCL_ALGO set: shown next to the rows it affects" 0 \
        "all_reduce: NCCL_ALGO=Ring set in the environment" \
        env FAKEGPU_DEVICES=2 NCCL_ALGO=Ring "$BIN" "${b4[@]}"
    expect "2 devices, train ddp --ranks 4, auto: CPU ranks, saying why" 0 \
        "auto chose cpu .--ranks 4 needs 4 GPUs" env FAKEGPU_DEVICES=2 "$BIN" train ddp \
        --backend auto --ranks 4 --layers 2 --dim 16 --batch 8 --steps 1
fi

# ---- 4. sweeps for the reader
if [ "$fake" = 1 ]; then
    echo
    echo "SKIP: sweeps and the nccl-tests comparison (emulated devices: host timings)"
fi
if [ "$fake" != 1 ]; then
echo
echo "== sweep: all_reduce 1 KiB .. 1 GiB on $maxw GPU(s)"
"$BIN" bench all_reduce --backend nccl --ranks "$maxw" -b 1K -e 1G -f 4
step "sweep all_reduce 1K..1G" $?
echo
echo "== every collective at 256 MiB on $maxw GPU(s)"
"$BIN" bench all --backend nccl --ranks "$maxw" -b 256M
step "bench all at 256 MiB" $?

# ---- 5. against nccl-tests, when present
if command -v all_reduce_perf >/dev/null 2>&1; then
    echo
    echo "== collviz vs nccl-tests all_reduce_perf (256 MiB, $maxw GPU(s), 20 iters, 5 warm-up)"
    size=268435456
    all_reduce_perf -b "$size" -e "$size" -g "$maxw" -n 20 -w 5 -c 1 >"$tmp/nt.txt" 2>&1
    rc_nt=$?
    # Data row: size count type redop root | time algbw busbw #wrong (out-of-place) | ...
    # The README's promise: collviz's busbw is at least 0.97 of nccl-tests' out-of-place
    # busbw (field 8) at the same size, iterations and warm-up.
    nt_busbw=$(awk -v s="$size" '$1 == s { print $8; exit }' "$tmp/nt.txt")
    "$BIN" bench all_reduce --backend nccl --ranks "$maxw" -b 256M -n 20 -w 5 --format json \
        >"$tmp/cv.json" 2>"$tmp/err"
    rc_cv=$?
    cv_busbw=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"][0]["busbw"])' \
        "$tmp/cv.json" 2>/dev/null)
    if [ "$rc_nt" -eq 0 ] && [ "$rc_cv" -eq 0 ] && [ -n "$nt_busbw" ] && [ -n "$cv_busbw" ]; then
        ratio=$(awk -v a="$cv_busbw" -v b="$nt_busbw" 'BEGIN { printf "%.3f", a / b }')
        echo "busbw: collviz $cv_busbw GB/s, nccl-tests $nt_busbw GB/s (out-of-place), ratio $ratio"
        awk -v a="$cv_busbw" -v b="$nt_busbw" 'BEGIN { exit !(b > 0 && a >= 0.97 * b) }'
        step "busbw vs nccl-tests all_reduce_perf out-of-place: ratio $ratio (at least 0.97)" $?
    else
        cat "$tmp/nt.txt" "$tmp/err"
        step "comparison with nccl-tests (a run failed or its output was not understood)" 1
    fi
else
    echo
    echo "SKIP: the comparison with nccl-tests (all_reduce_perf not on PATH)"
fi
fi # not fake

# ---- 6. training on GPUs against the CPU reference
echo
tw=$maxw
[ "$tw" -gt 4 ] && tw=4
echo "== collviz train --backend nccl --check (W = 1..$tw)"
train_check() { # scheme, W, extra args...
    local scheme=$1 w=$2
    shift 2
    local size=(--layers 4 --dim 64 --batch 16 --steps 3)
    [ "$w" -eq 3 ] && size=(--layers 4 --dim 48 --batch 12 --steps 3)
    # (--microbatches is pp's alone: any other scheme refuses it)
    [ "$w" -eq 3 ] && [ "$scheme" = pp ] && size+=(--microbatches 3)
    "$BIN" train "$scheme" --backend nccl --check --ranks "$w" "${size[@]}" "$@" \
        >"$tmp/train.txt" 2>"$tmp/err"
    local rc=$?
    local line
    line=$(grep "check against the single-device reference" "$tmp/train.txt")
    echo "train $scheme W=$w $*: exit $rc; ${line#  }"
    [ "$rc" -ne 0 ] && cat "$tmp/err" "$tmp/train.txt"
    step "train $scheme --backend nccl --ranks $w $* --check" "$rc"
}
for scheme in ddp tp pp zero1 zero2 zero3; do
    for ((w = 1; w <= tw; w++)); do
        train_check "$scheme" "$w"
    done
done
# ZeRO with padded shards (D² = 49 divides by none of 2, 3, 4)
train_check zero3 "$tw" --dim 7 --batch 12
train_check zero2 "$tw" --dim 7 --batch 12
train_check zero3 "$tw" --prefetch
train_check zero3 "$tw" --prefetch --dim 7 --batch 12
# mixture of experts: E = 2W experts, with drops (capacity 0.5) and dropless
for ((w = 1; w <= tw; w++)); do
    train_check moe "$w" --experts $((2 * w)) --capacity 0.5
    train_check moe "$w" --experts $((2 * w)) --topk 1 --capacity 0
done
train_check ddp "$tw" --overlap
train_check pp "$tw" --schedule 1f1b

# NCCL communicators made per GPU, counted from NCCL's own INFO log (one "Init COMPLETE"
# line per communicator, on GPUs and on emulated devices alike): a pipeline makes only its
# 4 point-to-point ones (none at 1 rank), DDP (with or without overlap) and TP the one for
# collectives.
comms_per_gpu() { # want, scheme args...
    local want=$1 d n ok=0 counts=""
    shift
    rm -f "$tmp/nccl.log"
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT NCCL_DEBUG_FILE="$tmp/nccl.log" "$BIN" train "$@" \
        --backend nccl --ranks "$tw" --layers 4 --dim 16 --batch 8 --steps 1 \
        >"$tmp/train.txt" 2>"$tmp/err" || ok=1
    for ((d = 0; d < ngpu; d++)); do
        n=$(grep -cE "NCCL INFO .*comm 0x[0-9a-f]+ rank [0-9]+ nranks $tw cudaDev $d .*Init COMPLETE" \
            "$tmp/nccl.log" 2>/dev/null)
        counts="$counts ${n:-0}"
        [ "${n:-0}" -eq "$([ "$d" -lt "$tw" ] && echo "$want" || echo 0)" ] || ok=1
    done
    echo "train $* W=$tw: NCCL communicators per GPU:$counts (want $want on each of $tw)"
    [ "$ok" -ne 0 ] && cat "$tmp/err"
    step "train $* --backend nccl --ranks $tw: $want NCCL communicator(s) per GPU" $ok
}
comms_per_gpu "$([ "$tw" -gt 1 ] && echo 4 || echo 0)" pp
comms_per_gpu "$([ "$tw" -gt 1 ] && echo 4 || echo 0)" pp --schedule 1f1b
comms_per_gpu 1 ddp
comms_per_gpu 1 zero3
comms_per_gpu 1 zero3 --prefetch
comms_per_gpu 1 ddp --overlap
comms_per_gpu 1 tp

if [ "$fake" = 1 ]; then
    echo "SKIP: train at lecture scale (emulated devices)"
    summary
    exit
fi
lw=1
while [ $((lw * 2)) -le "$maxw" ] && [ $((lw * 2)) -le 16 ]; do lw=$((lw * 2)); done
echo
echo "== lecture scale: train ddp --backend nccl --ranks $lw (L=4, D=1024, B=128, 5 steps)"
"$BIN" train ddp --backend nccl --ranks "$lw" --check
step "train ddp lecture scale on $lw GPU(s) --check" $?

summary

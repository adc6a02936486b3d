#!/usr/bin/env bash
# fake_nccl_mpi.sh - NCCL across processes on emulated devices (tests/fakegpu): under
# mpirun every process is one rank on the GPU its node rank picks, rank 0 makes the
# ncclUniqueId, MPI broadcasts it and every process calls ncclCommInitRank (the emulation
# keeps the communicator in shared memory). Checks, for 2, 3 and 4 processes:
#   - `bench all --backend nccl --format json`: one JSON document (rank 0 alone prints),
#     every collective and size with #wrong 0, ranks = the process count;
#   - the ranks line says "nccl: N processes on 1 host, one GPU each";
#   - FAKEGPU_CORRUPT=1 (one wrong element per NCCL call): #wrong > 0 and exit 1, rank 0's
#     JSON whole even when it is the last process to end;
#   - `trace all_reduce --backend nccl` equals the trace on every rank;
#   - `train ddp|tp|pp --backend nccl --check` under mpirun -np 2 and 4 (pp's stages send
#     and receive across processes; ddp also with --overlap, pp also with 1f1b): within
#     the tolerance of the single-device reference, rank 0 alone printing; each process
#     made the NCCL communicators its scheme needs and no more (NCCL's INFO log, one
#     "Init COMPLETE" line each: pp 4, ddp and tp 1);
#   - `train --backend nccl --ranks N` that is not the process count: one line, exit 2.
# Usage: fake_nccl_mpi.sh build/fakegpu/collviz   (skips, 77, without mpirun or MPI)
set -u
BIN=${1:?usage: fake_nccl_mpi.sh build/fakegpu/collviz}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
# What went wrong, from a run's stderr: our own and the sanitizers' lines first (mpirun's
# closing box names only the process and its exit code).
why() {
    grep -m8 -E 'collviz|fakegpu|Sanitizer|runtime error|#[0-9]+ 0x' "$1" || tail -3 "$1"
}
command -v mpirun >/dev/null || {
    echo "SKIP: no mpirun (apt-get install openmpi-bin)"
    exit 77
}
if env -u OMPI_COMM_WORLD_SIZE "$BIN" bench all_reduce --backend mpi 2>&1 | grep -q "not built"; then
    echo "SKIP: $BIN was built without MPI"
    exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export FAKEGPU_DEVICES=4 FAKEGPU_WATCHDOG_S=30
# Open MPI keeps some allocations until exit: LeakSanitizer would call them leaks.
export ASAN_OPTIONS=detect_leaks=0
MPIRUN=(mpirun --oversubscribe --bind-to none -x FAKEGPU_DEVICES -x FAKEGPU_WATCHDOG_S -x ASAN_OPTIONS)

for np in 2 3 4; do
    "${MPIRUN[@]}" -np $np "$BIN" bench all --backend nccl -b 4K -e 16K -f 4 -n 2 -w 1 \
        --format json >"$tmp/b$np.json" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "np $np: bench all --backend nccl: exit $rc: $(why "$tmp/err")"
    python3 - "$tmp/b$np.json" "$np" <<'EOF' || fail "np $np: bench JSON (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
np = int(sys.argv[2])
rows = d["rows"]
ok = d["backend"] == "nccl" and d["ranks"] == np and len(rows) == 8 * 2
ok = ok and all(r["wrong"] == 0 and r["busbw"] >= 0 for r in rows)
# nccl-tests' second group too: in place, checked (all_to_all has none in collviz)
ok = ok and all((r["in_place"] is None) == (r["collective"] == "all_to_all") for r in rows)
ok = ok and all(r["in_place"] is None or r["in_place"]["wrong"] == 0 for r in rows)
if not ok:
    print("  ", d["backend"], d["ranks"], [(r["collective"], r["size"], r["wrong"]) for r in rows])
sys.exit(0 if ok else 1)
EOF
done

"${MPIRUN[@]}" -np 4 "$BIN" bench all_reduce --backend nccl -b 64K -n 2 -w 1 >"$tmp/text" 2>"$tmp/err" ||
    fail "np 4: bench text: $(why "$tmp/err")"
grep -q "ranks:   nccl: 4 processes on 1 host, one GPU each" "$tmp/text" ||
    fail "ranks line: $(grep 'ranks:' "$tmp/text")"
[ "$(grep -c '^# collviz bench' "$tmp/text")" -eq 1 ] || fail "bench text printed by more than rank 0"

# Every process finds the wrong elements and exits 1; rank 0 must still write its JSON
# (CV_TEST_LINGER, test builds: rank 0 takes 1 s more after closing the backend, when the
# others could already have exited and made mpirun end the job).
FAKEGPU_CORRUPT=1 CV_TEST_LINGER=1 "${MPIRUN[@]}" -x FAKEGPU_CORRUPT -x CV_TEST_LINGER -np 3 \
    "$BIN" bench all_reduce --backend nccl -b 12K -n 1 -w 0 --format json >"$tmp/c.json" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "FAKEGPU_CORRUPT=1: exit $rc, want 1: $(why "$tmp/err")"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"]; sys.exit(0 if r and all(x["wrong"] > 0 for x in r) else 1)' \
    "$tmp/c.json" 2>/dev/null || fail "FAKEGPU_CORRUPT=1: #wrong not > 0: $(cat "$tmp/c.json")"

"${MPIRUN[@]}" -np 4 "$BIN" trace all_reduce --backend nccl --init random --format json \
    >"$tmp/t.json" 2>"$tmp/err" || fail "trace --backend nccl across processes: exit $?: $(why "$tmp/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["backend"]["trace_equal"] and d["backend"]["name"]=="nccl" else 1)' \
    "$tmp/t.json" 2>/dev/null || fail "trace --backend nccl: not equal to the trace"

# Training on NCCL across processes: one GPU per process, checked against the reference.
for np in 2 4; do
    for args in "ddp" "tp" "pp" "ddp --overlap" "pp --schedule 1f1b"; do
        [ "$np" -eq 2 ] && [ "$args" != "${args% *}" ] && continue # variants at 4 only
        # NCCL's INFO log, one file per process: an "Init COMPLETE" line per communicator.
        rm -f "$tmp"/nccl.*.log
        # shellcheck disable=SC2086
        NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT NCCL_DEBUG_FILE="$tmp/nccl.%p.log" \
            "${MPIRUN[@]}" -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS -x NCCL_DEBUG_FILE -np $np \
            "$BIN" train $args --backend nccl --check --dim 32 --batch 16 \
            --steps 2 >"$tmp/out" 2>"$tmp/err"
        rc=$?
        # A pipeline makes its 4 point-to-point communicators per GPU and none for
        # collectives; DDP (with or without overlap) and TP the one for collectives.
        want=1
        [ "${args%% *}" = pp ] && want=4
        counts=""
        for f in "$tmp"/nccl.*.log; do
            [ -f "$f" ] && counts="$counts $(grep -cE "NCCL INFO ncclCommInitRank comm 0x[0-9a-f]+ rank [0-9]+ nranks $np cudaDev [0-9]+ .*Init COMPLETE" "$f")"
        done
        [ "$counts" = "$(for ((i = 0; i < np; i++)); do printf ' %s' "$want"; done)" ] ||
            fail "np $np: train $args: NCCL communicators per process:${counts:- none}, want $want on each of $np"
        [ "$rc" -eq 0 ] || fail "np $np: train $args --backend nccl --check: exit $rc: $(why "$tmp/err")"
        grep -q "tolerance .*: ok" "$tmp/out" ||
            fail "np $np: train $args: no passing check: $(grep -m1 'check against' "$tmp/out")"
        [ "$(grep -c 'check against the single-device reference' "$tmp/out")" -eq 1 ] ||
            fail "np $np: train $args: printed by more than rank 0"
        grep -q "backend nccl: $np ranks = $np GPUs" "$tmp/out" ||
            fail "np $np: train $args: not $np ranks: $(head -3 "$tmp/out")"
    done
done
"${MPIRUN[@]}" -np 2 "$BIN" train ddp --backend nccl --ranks 3 --dim 32 --batch 12 --steps 1 \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "train --ranks 3 under -np 2: exit $rc, want 2"
[ "$(grep -c 'across processes NCCL trains on the 2 processes' "$tmp/err")" -eq 1 ] ||
    fail "train --ranks 3 under -np 2: $(head -3 "$tmp/err")"

[ "$fails" -eq 0 ] && echo "PASS: fake_nccl_mpi.sh" || echo "FAIL: fake_nccl_mpi.sh ($fails failures)"
[ "$fails" -eq 0 ]

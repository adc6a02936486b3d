#!/usr/bin/env bash
# test_a2av_cli.sh - `trace all_to_all --counts`: all-to-all-v. For random count matrices
# (zero rows, zero columns and zero blocks included) every rank's output equals what a small
# python3 computation from the definition gives (rank d receives the blocks of ranks 0, 1,
# ... meant for it, in source order, cut from each sender's packed input), and so does every
# step's buffer after the last step; the CPU backend (and MPI under mpirun, when built) holds
# the same bits. A small case is checked element by element in the text output. Bad
# matrices exit 2 with one line naming the value. Usage: test_a2av_cli.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
cat >"$tmp/check.py" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
want_counts = [[int(v) for v in row.split(",")] for row in sys.argv[2].split(";")]
W = len(want_counts)
assert d["counts"] == want_counts, ("counts", d["counts"])
inp = d["input"]
for s in range(W):
    assert len(inp[s]) == sum(want_counts[s]), ("input length", s)
for dst in range(W):
    want = []
    for s in range(W):
        start = sum(want_counts[s][:dst])
        want += inp[s][start:start + want_counts[s][dst]]
    assert d["output"][dst] == want, ("output", dst, d["output"][dst], want)
    if "backend" in d:
        assert d["backend"]["output"][dst] == want, ("backend", dst)
    if d["steps"]:
        last = d["steps"][-1]["buffers"][dst]
        half = len(last) // 2
        got = [v for v in last[half:half + len(want)]]
        assert got == want, ("last step", dst, got, want)
        assert all(v is None for v in last[half + len(want):]), ("padding", dst)
assert d["check"]["reference_equal"] is True
PYEOF

# Random matrices, W = 1..6, with a zero row and a zero column in every other one.
matrices=$(python3 - <<'PYEOF'
import random
random.seed(22)
for W in range(1, 7):
    for k in range(3):
        zr, zc = random.randrange(W), random.randrange(W)
        rows = []
        for s in range(W):
            row = [0 if (k % 2 == 0 and (s == zr or d == zc)) else random.randrange(5)
                   for d in range(W)]
            rows.append(",".join(map(str, row)))
        print(";".join(rows))
PYEOF
)
n=0
for m in $matrices; do
    n=$((n + 1))
    if ! "$BIN" trace all_to_all --counts "$m" --init random --seed $n --format json \
        --backend cpu >"$tmp/a.json" 2>"$tmp/err"; then
        fail "counts $m: exit $? ($(cat "$tmp/err"))"
        continue
    fi
    python3 "$tmp/check.py" "$tmp/a.json" "$m" 2>"$tmp/py" || fail "counts $m: $(tail -1 "$tmp/py")"
done
[ "$n" -eq 18 ] || fail "expected 18 matrices, ran $n"

# Refined (slices): the same output, and bit for bit the unrefined plan's.
"$BIN" trace all_to_all --counts "3,0,5;0,0,0;1,7,2" --slices 2 --channels 2 --format json \
    >"$tmp/r.json" || fail "refined: exit $?"
python3 "$tmp/check.py" "$tmp/r.json" "3,0,5;0,0,0;1,7,2" || fail "refined: output"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["check"]; assert c["unrefined_equal"] and c["dependency_order_equal"]' \
    "$tmp/r.json" || fail "refined: not the unrefined bits"

# The text handout, element by element (seq init: rank r's element i is 10*r+i).
out=$("$BIN" trace all_to_all --counts "1,2,0;0,0,0;3,1,1" --init seq) || fail "text: exit $?"
grep -q '^  rank 0  \[  0 20 21 22 \]$' <<<"$out" || fail "text: rank 0's output"
grep -q '^  rank 1  \[  1  2 23 \]$' <<<"$out" || fail "text: rank 1's output"
grep -q '^  rank 2  \[ 24 \]$' <<<"$out" || fail "text: rank 2's output"
grep -q '^  rank 1     0    0    0   sends 0, receives 3$' <<<"$out" || fail "text: counts row"
grep -q '^matches the plain reference: yes (exactly)$' <<<"$out" || fail "text: reference"

# Bad input: one line naming the value, exit 2.
bad() {
    local want=$1
    shift
    "$BIN" trace "$@" >"$tmp/o" 2>"$tmp/e"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "$* : exit $rc, want 2"
    [ "$(wc -l <"$tmp/e")" -eq 1 ] || fail "$* : $(wc -l <"$tmp/e") lines of error"
    grep -qF -- "$want" "$tmp/e" || fail "$* : '$(cat "$tmp/e")' does not say '$want'"
}
bad "row 1 value '-1'" all_to_all --counts "1,2;-1,0"
bad "row 0 value 'x'" all_to_all --counts "x"
bad "row 1 has 1 values, row 0 has 2" all_to_all --counts "1,2;3"
bad "3 rows of 2 values" all_to_all --counts "1,2;3,4;5,6"
bad "row 0 value ''" all_to_all --counts ""
bad "row 0 value '2000000'" all_to_all --counts "2000000"
bad "more than 16 rows" all_to_all --counts "$(printf '1;%.0s' $(seq 16))1"
bad "not all_reduce" all_reduce --counts "1,1;1,1"
bad "not both" all_to_all --counts "1,1;1,1" --count 3
bad "--ranks 3: the --counts matrix has 2 rows" all_to_all --counts "1,1;1,1" --ranks 3
bad "available: direct" all_to_all --counts "1,1;1,1" --algo ring

if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
    "$ASAN_BIN" trace all_to_all --counts "0,4,1,0;0,0,0,0;2,0,3,1;5,0,0,0" --backend cpu \
        --slices 3 >/dev/null || fail "asan: exit $?"
    "$ASAN_BIN" trace all_to_all --counts "1,2;-1,0" >/dev/null 2>&1
    [ $? -eq 2 ] || fail "asan: bad counts not exit 2"
fi

if command -v mpirun >/dev/null && "$BIN" trace all_reduce --backend mpi 2>&1 | grep -qv "not built"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
    m="0,4,1;0,0,0;2,5,3"
    if timeout 120 mpirun --oversubscribe --bind-to none -np 3 "$BIN" trace all_to_all \
        --counts "$m" --format json --backend mpi >"$tmp/m.json" 2>"$tmp/merr"; then
        python3 "$tmp/check.py" "$tmp/m.json" "$m" || fail "mpi: output"
    else
        fail "mpi: exit $? ($(tail -2 "$tmp/merr"))"
    fi
else
    echo "note: mpi part skipped (no mpirun or no mpi backend)"
fi

# NCCL: grouped ncclSend/ncclRecv at the plan's offsets, on the host emulation of the GPU
# code when `make test` built it (build/fakegpu next to BIN), and on real GPUs when BIN has
# them.
m="1,2,3,0;0,0,0,0;2,0,3,1;5,1,0,2"
FAKE_BIN=$(dirname "$BIN")/fakegpu/collviz
if [ -x "$FAKE_BIN" ]; then
    if GPU_TEST_FAKE=1 FAKEGPU_DEVICES=4 "$FAKE_BIN" trace all_to_all --counts "$m" \
        --init random --format json --backend nccl >"$tmp/n.json" 2>"$tmp/nerr"; then
        python3 "$tmp/check.py" "$tmp/n.json" "$m" || fail "nccl (emulated): output"
    else
        fail "nccl (emulated): exit $? ($(tail -1 "$tmp/nerr"))"
    fi
else
    echo "note: emulated nccl part skipped (no $FAKE_BIN)"
fi
if "$BIN" trace all_to_all --counts "1,1;1,1" --backend nccl >/dev/null 2>&1; then
    "$BIN" trace all_to_all --counts "$m" --init random --format json --backend nccl \
        >"$tmp/g.json" || fail "nccl: exit $?"
    python3 "$tmp/check.py" "$tmp/g.json" "$m" || fail "nccl: output"
else
    echo "note: nccl part skipped (no usable GPU here)"
fi

if [ "$fails" -eq 0 ]; then
    echo "a2av cli: all checks passed"
    exit 0
fi
echo "a2av cli: $fails check(s) failed"
exit 1

#!/usr/bin/env bash
# test_ring_order.sh - `trace` and `bench` with --ring-order / --ring-order-from: every
# rank's buffer after every step, and every step's transfers, equal what a small python3
# simulation here computes from the definition (the ring rank pi[0] -> pi[1] -> ... ->
# pi[W-1] -> pi[0]; at reduce-scatter step s position i sends chunk pi[i-1-s], at all-gather
# step t chunk pi[i-t]; broadcast and reduce run a pipelined chain along the ring from / to
# the root), not with the plan code. The CPU backend (and the MPI backend under mpirun, when
# built and installed) runs the same plan and holds the same bits; bench's check stays 0
# wrong. Bad orders exit 2 with one line naming the value. Usage: test_ring_order.sh BIN
# [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
cat >"$tmp/sim.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
coll, ring = sys.argv[2], [int(x) for x in sys.argv[3].split()]
count, root = int(sys.argv[4]), int(sys.argv[5])
W = len(ring)
inp = [[10 * r + i for i in range(len(d["input"][r]))] for r in range(W)]
assert d["input"] == inp, ("input", d["input"])
def chunks(n, parts):
    base, rem = n // parts, n % parts
    out, s = [], 0
    for k in range(parts):
        e = s + base + (1 if k < rem else 0)
        out.append((s, e))
        s = e
    return out
# the working buffers and the chunk ranges, as the issue and coll.h lay them out
if coll == "all_reduce":
    buf, ch = [list(x) for x in inp], chunks(count, W)
elif coll == "reduce_scatter":
    buf, ch = [list(x) for x in inp], [(c * count, (c + 1) * count) for c in range(W)]
elif coll == "all_gather":
    buf = [[None] * (W * count) for _ in range(W)]
    for r in range(W):
        buf[r][r * count:(r + 1) * count] = inp[r]
    ch = [(c * count, (c + 1) * count) for c in range(W)]
else:  # broadcast, reduce: a chain of min(count, W) chunks
    buf = [list(x) if (coll == "reduce" or r == root) else [None] * count
           for r, x in enumerate(inp)]
    if coll == "broadcast":
        buf = [list(inp[root]) if r == root else [None] * count for r in range(W)]
    ch = chunks(count, W)[:min(count, W)]
steps = []
def step(moves, reduce):
    old = [list(b) for b in buf]
    for src, dst, c in moves:
        s, e = ch[c]
        for j in range(s, e):
            buf[dst][j] = old[dst][j] + old[src][j] if reduce else old[src][j]
    steps.append((sorted(moves), [list(b) for b in buf]))
if coll in ("all_reduce", "reduce_scatter"):
    for s in range(W - 1):
        step([(ring[i], ring[(i + 1) % W], ring[(i - 1 - s) % W]) for i in range(W)], True)
if coll in ("all_reduce", "all_gather"):
    for t in range(W - 1):
        step([(ring[i], ring[(i + 1) % W], ring[(i - t) % W]) for i in range(W)], False)
if coll in ("broadcast", "reduce"):
    at = ring.index(root)
    chain = [ring[(at + i) % W] for i in range(W)] if coll == "broadcast" else \
            [ring[(at + 1 + i) % W] for i in range(W)]
    nch = len(ch)
    for s in range(nch + W - 2):
        step([(chain[i], chain[i + 1], s - i) for i in range(W - 1) if 0 <= s - i < nch],
             coll == "reduce")
got = d["steps"]
assert len(got) == len(steps), ("steps", len(got), len(steps))
for k, (moves, bufs) in enumerate(steps):
    m = sorted((x["src"], x["dst"], x["chunk"]) for x in got[k]["transfers"])
    assert m == moves, ("step %d transfers" % (k + 1), m, moves)
    assert got[k]["buffers"] == bufs, ("step %d buffers" % (k + 1), got[k]["buffers"], bufs)
assert d["ring_order"] == ring, ("ring_order", d["ring_order"])
assert d["check"]["reference_equal"], d["check"]
b = d.get("backend")
if b:
    assert b["trace_equal"] and b["same_bits_elements"] == d["check"]["elements"], b
EOF

# sim COLL "RING" COUNT ROOT [extra trace options]
sim() {
    local coll=$1 ring=$2 count=$3 root=$4
    shift 4
    if ! "$BIN" trace "$coll" --ring-order "$ring" --count "$count" --root "$root" --init seq \
        --format json "$@" >"$tmp/d.json" 2>"$tmp/err"; then
        fail "trace $coll --ring-order '$ring' $*: exit $? ($(head -1 "$tmp/err"))"
        return
    fi
    python3 "$tmp/sim.py" "$tmp/d.json" "$coll" "$ring" "$count" "$root" ||
        fail "trace $coll --ring-order '$ring' $*: differs from the simulation"
}
sim all_reduce "0 3 1 2" 8 0
sim all_reduce "0 7 6 5 4 3 2 1" 16 0
sim all_reduce "0 2 4 6 1 3 5 7" 11 0 --backend cpu
sim reduce_scatter "0 3 1 2" 2 0
sim all_gather "0 3 1 2" 1 0 --backend cpu
sim all_gather "2 0 1" 3 0
sim broadcast "0 3 1 2" 4 1
sim broadcast "0 3 1 2" 6 3 --backend cpu
sim reduce "0 3 1 2" 4 2
sim reduce "3 2 1 0" 3 0 --backend cpu
# the identity order is the plan without one
sim all_reduce "0 1 2 3" 8 0

# Hand-checked, one step: ring 0 -> 3 -> 1 -> 2, inputs rank r = [r r r r]: at step 1 rank 3
# sends chunk 0 to rank 1 (4 = 1 + 3) and rank 2 chunk 1 to rank 0 (2 = 0 + 2).
"$BIN" trace all_reduce --ring-order "0 3 1 2" --count 4 --init rank --format json >"$tmp/h.json" ||
    fail "hand case: exit $?"
python3 -c "
import json; d = json.load(open('$tmp/h.json'))
assert d['steps'][0]['buffers'] == [[0, 2, 0, 0], [4, 1, 1, 1], [2, 2, 2, 3], [3, 3, 3, 3]], d['steps'][0]
assert d['output'] == [[6, 6, 6, 6]] * 4, d['output']
" || fail "hand case: buffers after step 1"

# The order of a real record: channel 0 of the H800 log is 0 3 1 2 4 7 5 6 (and sets --ranks).
LOG=tests/records/07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log
"$BIN" trace all_reduce --ring-order-from "$LOG" --init seq --count 8 --format json >"$tmp/l.json" ||
    fail "--ring-order-from $LOG: exit $?"
python3 "$tmp/sim.py" "$tmp/l.json" all_reduce "0 3 1 2 4 7 5 6" 8 0 ||
    fail "--ring-order-from $LOG: differs from the simulation"
"$BIN" trace all_reduce --ring-order-from "$LOG:15" --count 8 >"$tmp/l.txt" ||
    fail "--ring-order-from $LOG:15: exit $?"
grep -q "^ring order: 0 3 1 2 4 7 5 6 " "$tmp/l.txt" || fail "text: no ring order line: $(head -4 "$tmp/l.txt")"

# bench on the CPU ranks: the check holds in that order; the order is said.
"$BIN" bench all_reduce --backend cpu --ring-order "0 3 1 2" -b 4K -e 64K -f 4 -n 2 -w 1 \
    --format json >"$tmp/b.json" 2>"$tmp/err" || fail "bench --ring-order: exit $? ($(head -1 "$tmp/err"))"
python3 -c "
import json; d = json.load(open('$tmp/b.json'))
rows = d['rows'] if 'rows' in d else d['results']
assert len(rows) == 3 and all(r['wrong'] == 0 for r in rows), rows
assert all(r['algorithm'] == 'ring' for r in rows), rows
assert d['ring_order'] == [0, 3, 1, 2], d['ring_order']
" || fail "bench --ring-order: rows"
"$BIN" bench all_gather --backend cpu --ring-order "1 0 3 2" -b 4K -e 4K -n 1 -w 0 >"$tmp/b.txt" ||
    fail "bench all_gather --ring-order: exit $?"
grep -q "^# ring order: 1 0 3 2" "$tmp/b.txt" || fail "bench text: no ring order line"
awk '$1 == 4096 { if ($NF != 0) exit 1; found = 1 } END { exit !found }' "$tmp/b.txt" ||
    fail "bench all_gather --ring-order: #wrong not 0: $(tail -2 "$tmp/b.txt")"

# ---- bad orders: exit 2, one line naming the value --------------------------------------
bad() { # bad MESSAGE ARGS...
    local msg=$1
    shift
    "$BIN" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "$*: exit $rc, want 2"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$*: want one line on stderr: $(cat "$tmp/err")"
    grep -qF -- "$msg" "$tmp/err" || fail "$*: stderr lacks '$msg': $(cat "$tmp/err")"
}
for b in "$BIN" ${ASAN_BIN:+"$ASAN_BIN"}; do
    BIN_SAVED=$BIN
    BIN=$b
    bad "rank 1 appears twice" trace all_reduce --ring-order "0 1 1 2"
    bad "'x' is not a rank" trace all_reduce --ring-order "0 x 2"
    bad "no ranks" trace all_reduce --ring-order " "
    bad "rank 5 is not one of the 3 ranks" trace all_reduce --ring-order "0 1 5"
    bad "4 ranks in the order, 3 ranks in the run" trace all_reduce --ring-order "0 1 2 3" --ranks 3
    bad "the tree algorithm has no ring" trace all_reduce --ring-order "0 1 2 3" --algo tree
    bad "no ring of channel 7" trace all_reduce --ring-order-from tests/records/04-socket-2node-p40-nccl248.log:7
    bad "cannot open" trace all_reduce --ring-order-from "$tmp/none.log"
    bad "channel 500: must be 0..127" trace all_reduce --ring-order-from "$LOG:500"
    bad "rank 3 appears twice" bench all_reduce --backend cpu --ring-order "0 3 3 1"
    bad "4 ranks in the order, --ranks 5" bench all_reduce --backend cpu --ring-order "0 1 2 3" --ranks 5
    bad "only the ring plans have a ring" bench all_reduce --backend cpu --ring-order "0 1 2 3" --algo direct
    BIN=$BIN_SAVED
done

# ---- the MPI ranks run the same order ----------------------------------------------------
if command -v mpirun >/dev/null && "$BIN" trace all_reduce --backend mpi 2>&1 | grep -qv "not built"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
    if timeout 120 mpirun --oversubscribe --bind-to none -np 4 "$BIN" trace all_reduce \
        --ring-order "0 3 1 2" --count 8 --init seq --backend mpi --format json \
        >"$tmp/m.json" 2>"$tmp/err"; then
        python3 "$tmp/sim.py" "$tmp/m.json" all_reduce "0 3 1 2" 8 0 ||
            fail "mpi: trace --ring-order differs"
    else
        fail "mpi: trace --ring-order: exit $? ($(head -2 "$tmp/err"))"
    fi
else
    echo "note: mpi part skipped (no mpirun or no mpi backend)"
fi

if [ "$fails" -eq 0 ]; then
    echo "PASS: test_ring_order.sh"
    exit 0
fi
echo "FAIL: test_ring_order.sh: $fails failure(s)"
exit 1

#!/usr/bin/env bash
# test_nccl_large.sh - a job as large as labs run is read whole and right, and one past the
# reader's limits is refused whole. Correctness only: the time and memory ratios are in
# `make bench` (bench/nccl_scale.py).
#
# 1. bench/gen_nccl_log.py writes the INFO log of an 8,192-rank job (1,024 nodes x 8 GPUs,
#    16 channels, NCCL 2.18's forms: rank 0's ring lines cut at 128 bytes as NCCL cuts them,
#    a link line a rank and channel, [send]/[receive] pairs between nodes, a Trees line a
#    rank). `collviz nccl --format json` must give exactly: nranks 8192, nnodes 1024, 1,024
#    hosts, 16 rings each the generator's order from rank 0 (so read from the link lines past
#    the cut), 131,072 links (a connection's two lines one link), every NET link of class
#    ib (the NIC list says IB on every host, the 1,024th too), one communicator of 8192.
#    The expected values are the generator's own structures, not collviz's.
# 2. Past the limits: a communicator of 16,777,217 ranks (past 2^24) and one of 16,000,000
#    (more than a one-line record may keep) each exit 2 with one line naming the value.
# Usage: test_nccl_large.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"

python3 "$TOP/bench/gen_nccl_log.py" 8192 --out "$tmp/job.log" || fail "the generator failed"
"$BIN" nccl --format json "$tmp/job.log" >"$tmp/job.json" 2>"$tmp/job.err"
rc=$?
[ "$rc" -eq 0 ] || fail "8192 ranks: exit $rc: $(head -2 "$tmp/job.err")"
python3 - "$tmp/job.json" "$TOP/bench" <<'PYEOF' || fail "8192 ranks: the JSON differs (see above)"
import json, sys
sys.path.insert(0, sys.argv[2])
import gen_nccl_log as g
d = json.load(open(sys.argv[1]))
N, G, C = 8192, 8, 16
bad = []
def want(what, got, exp):
    if got != exp:
        bad.append("%s: got %r, want %r" % (what, got, exp))
want("nranks", d["nranks"], N)
want("nnodes", d["nnodes"], N // G)
want("hosts", len(d["hosts"]), N // G)
want("ring channels", sorted(int(c) for c in d["rings"]), list(range(C)))
for c in range(C):
    o = g.ring_order(c, N, G)
    k = o.index(0)
    if d["rings"].get(str(c)) != o[k:] + o[:k]:
        bad.append("channel %d's ring is not the generator's" % c)
want("links", len(d["links"]), N * C)
net = [l for l in d["links"] if l["via"].startswith("NET/")]
want("network links", len(net), C * (N // G))
want("network link classes", sorted({l["class"] for l in net}), ["ib"])
want("communicators", [(m["nranks"], m["nnodes"]) for m in d["communicators"]], [(N, N // G)])
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PYEOF

# Past the limits: refused whole, one line naming the value, exit 2.
printf 'h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 16777217 nNodes 4 localRanks 8 localRank 0 MNNVL 0\n' >"$tmp/huge.log"
expect_usage_error "huge.log:1: a communicator of 16777217 ranks: larger than this reader holds" nccl "$tmp/huge.log"
printf 'h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 16000000 nNodes 4 localRanks 8 localRank 0 MNNVL 0\n' >"$tmp/mem.log"
expect_usage_error "mem.log:1: a communicator of 16000000 ranks: the record would keep" nccl "$tmp/mem.log"

cli_finish "test_nccl_large (an 8,192-rank job read whole and right; past the limits refused)"

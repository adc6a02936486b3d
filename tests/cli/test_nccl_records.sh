#!/usr/bin/env bash
# test_nccl_records.sh - `collviz nccl` on the corpus of real records (tests/records/): the
# version, rings, trees, link counts and nccl-tests rows of every file equal what a small
# python3 reader here extracts from the same text with its own regular expressions (no code
# shared with src/records/); the link classes, node crossings and warnings that need NCCL
# knowledge are written by hand from reading the files. Then bad input: file:line: errors,
# exit 2 only when nothing could be read, escapes from a log never reach the terminal (also
# against the ASan+UBSan binary, when given).
# Usage: test_nccl_records.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
DIR=tests/records

# The independent reader: ref(FILE) is what it finds in FILE. Then the parser's JSON against
# the reader's, for every file listed in the argument (FILE<TAB>JSON a line), all in one
# python3 run (python starts slowly): for each file that differs, a line saying where, then
# "FAIL: nccl FILE: differs".
cat >"$tmp/cmp.py" <<'EOF'
import json, math, re, sys


def ref(path):
    text = open(path, encoding="latin-1").read()
    lines = [re.sub(r"\[\d+,\d+\]<std(out|err)>:", "", l) for l in text.split("\n")]
    out = {"version": None, "rings": {}, "trees": {}, "links": {}, "tests": []}
    for l in lines:
        m = re.search(r"NCCL version (\d\S*)", l)
        if m and out["version"] is None:
            out["version"] = m.group(1)
        m = re.search(r"nccl-library=(\d+)", l)  # NCCL_VERSION_CODE: x*10000 + y*100 + z
        if m and out["version"] is None:
            c = int(m.group(1))
            out["version"] = "%d.%d.%d" % (c // 10000, c % 10000 // 100, c % 100)
        m = re.search(r"NCCL INFO Channel (\d+)(?:/\d+)? :((?: +\d+)+) *$", l)
        if m:
            out["rings"].setdefault(str(int(m.group(1))), [int(x) for x in m.group(2).split()])
        if "NCCL INFO Trees" in l:
            for ch, down, me, up in re.findall(r"\[(\d+)\] ([-\d/]+)->(\d+)->(-?\d+)", l):
                t = out["trees"].setdefault(str(int(ch)), {})
                t.setdefault(me, {"up": int(up), "down": [int(d) for d in down.split("/") if int(d) >= 0]})
        m = re.search(r"NCCL INFO (Channel|Ring) (\d+)(/\d+)? : (\d+)(\[\w+\])? -> (\d+)(\[\w+\])?.* via (.*\S)", l)
        if m:
            conn = m.group(3) if m.group(1) == "Channel" else None
            key = (int(m.group(2)), conn, int(m.group(4)), int(m.group(6)), m.group(8))
            out["links"][repr(key)] = m.group(8)
    # nccl-tests: a data row has as many fields as the header before it
    hdr = None
    for l in lines:
        s = l.split()
        if l.lstrip().startswith("#") and "busbw" in l and "size" in l:
            hdr = s[1:]
            out["tests"].append({"rows": [], "avg": None, "old": "error" in hdr})
        elif hdr and s and s[0].isdigit() and len(s) == len(hdr):
            t = hdr.index("time")
            out["tests"][-1]["rows"].append([float(s[0]), float(s[t]), float(s[t + 2]), s[t + 3]])
        m = re.search(r"# Avg bus bandwidth *: *(\S+)", l)
        if m and out["tests"]:
            out["tests"][-1]["avg"] = float(m.group(1))
    vias = {}
    for via in out["links"].values():
        vias[via] = vias.get(via, 0) + 1
    out["vias"] = vias
    return out


class Differs(Exception):
    pass


def compare(d, r, name):
    d["warnings"] = [w["message"] for w in d["warnings"]]

    def eq(got, want, what):
        if got != want:
            raise Differs("  %s: %s: got %r, want %r" % (name, what, got, want))

    eq(d["nccl_version"], r["version"], "nccl_version")
    derived = any("read from its link lines" in w for w in d["warnings"])
    if not derived:
        eq(d["rings"], r["rings"], "rings")
    eq(d["trees"], r["trees"], "trees")
    vias = {}
    for k in d["links"]:
        vias[k["via"]] = vias.get(k["via"], 0) + 1
    eq(vias, r["vias"], "links per via")
    rows = [t for t in r["tests"] if t["rows"]]
    eq(len(d["tests"]), len(rows), "tests")
    for t, w in zip(d["tests"], rows):
        eq(len(t["rows"]), len(w["rows"]), "rows")
        for row, wr in zip(t["rows"], w["rows"]):
            eq([row["size"], row["oop"]["time_us"], row["oop"]["busbw"]], wr[:3], "row")
            v = None if wr[3] == "N/A" else float(wr[3])
            eq(row["oop"]["error" if w["old"] else "wrong"], v, "oop error/#wrong")
            eq(row["oop"]["wrong" if w["old"] else "error"], None, "the other column")
        eq(t["avg_busbw"], w["avg"], "avg_busbw")


bad = 0
for line in open(sys.argv[1]):
    f, dpath = line.rstrip("\n").split("\t")
    try:
        compare(json.load(open(dpath)), ref(f), f.rsplit("/", 1)[-1])
    except Differs as e:
        print(e)
        print("FAIL: nccl %s: differs" % f)
        bad += 1
    except Exception as e:
        print("  %s: %s: %s" % (f, type(e).__name__, e))
        print("FAIL: nccl %s: differs" % f)
        bad += 1
sys.exit(1 if bad else 0)
EOF

# The records this reader was written for: the first 16 of tests/records/README.md. The corpus
# grew later with forms this small reader does not know (launcher prefixes, RCCL, several
# communicators, cut and spliced lines, folders, gzip); tests/cli/test_nccl_corpus.sh checks the
# parser against hand-written expectations for every record, these 16 included.
ORIG="04-socket-2node-p40-nccl248 07-h800-8gpu-1proc-nvls-broadcast-nccl2183
11-nccltests-h100-4gpu-multiop efa-2node-t4-nccl2127-ompi nccltests-h100-2node16-allreduce
nccl392-roce-2node16-nccl257-rank0 pytorch68893-socket-2node-nccl278-rank0
nccl1412-ib-2node16-nccl2xx-partial nccl687-ib-gdrdma-2node8-ipcread
nccl707-ib-roce-nics-nccl276-oldtests nccltests166-failed-init
nccltests252-ibext-plugin-2node8-cumem nccl229-efa-2node16-nccl24-libfabric
nccltests82-broadcast-oldtable-nccl296 nccltests-a100-2node16-sharp-oldtable
nccltests307-rtx4090-pcie-shm-1node8"
n=0
: >"$tmp/pairs"
for b in $ORIG; do
    f=$DIR/$b.log
    n=$((n + 1))
    if ! "$BIN" nccl "$f" --format json >"$tmp/d_$b.json" 2>"$tmp/err"; then
        fail "nccl $f: exit status $? ($(head -1 "$tmp/err"))"
        continue
    fi
    [ -s "$tmp/err" ] && fail "nccl $f: stderr: $(head -1 "$tmp/err")"
    printf '%s\t%s\n' "$f" "$tmp/d_$b.json" >>"$tmp/pairs"
done
python3 "$tmp/cmp.py" "$tmp/pairs" >"$tmp/cmp.out"
cli_take_fails $? "$tmp/cmp.out" "the reader's comparison (cmp.py)"
[ "$n" -ge 15 ] || fail "corpus: $n files, want at least 15"

# facts FILE -- PYTHON (d = the JSON, t = the text output): what needs NCCL knowledge, by hand.
# Kept, then checked all in one python3 run by facts_now.
nfacts=0
: >"$tmp/facts"
facts() {
    local f=$1
    shift 2
    nfacts=$((nfacts + 1))
    "$BIN" nccl "$DIR/$f" --format json >"$tmp/facts$nfacts.json" 2>/dev/null || { fail "$f: exit $?"; return; }
    "$BIN" nccl "$DIR/$f" >"$tmp/facts$nfacts.txt" 2>/dev/null || { fail "$f: text: exit $?"; return; }
    printf '%s\n' "$1" >"$tmp/facts$nfacts.py"
    printf '%s\t%s\n' "$f" "$tmp/facts$nfacts" >>"$tmp/facts"
}
facts_now() {
    python3 - "$tmp/facts" >"$tmp/facts.out" <<'EOF'
import json, sys
bad = 0
for line in open(sys.argv[1]):
    f, base = line.rstrip("\n").split("\t")

    def classes():
        c = {}
        for k in d["links"]:
            c.setdefault(k["via"], set()).add(k["class"])
        return {v: sorted(s) for v, s in c.items()}
    try:
        d = json.load(open(base + ".json"))
        d["warnings"] = [w["message"] for w in d["warnings"]]  # each {"code", "message"}
        t = open(base + ".txt").read()
        exec(open(base + ".py").read(), {"d": d, "t": t, "classes": classes, "json": json})
    except AssertionError as e:
        print("  ", e)
        print("FAIL: %s: facts (see above)" % f)
        bad += 1
    except Exception as e:
        print("   %s: %s" % (type(e).__name__, e))
        print("FAIL: %s: facts (see above)" % f)
        bad += 1
sys.exit(1 if bad else 0)
EOF
    cli_take_fails $? "$tmp/facts.out" "facts_now"
}

# 2.4.8, two nodes over TCP: ring 0 1 crosses twice (0->1 and back).
facts 04-socket-2node-p40-nccl248.log -- '
assert (d["nranks"], d["nnodes"], d["hosts"]) == (2, 2, ["node01", "node02"]), d
assert classes() == {"NET/Socket/0": ["socket"]}, classes()
assert "node01[0] -> node02[1] -> back: 2 node crossings" in t, t
assert d["warnings"] == ["NCCL WARN: node01: Failed to open libibverbs.so[.1]"], d["warnings"]
'
# 2.18.3, one node behind NVSwitch: NVLS is available, so P2P is NVLink; 16 channels, one ring.
facts 07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log -- '
assert (d["nranks"], d["nnodes"]) == (8, 1), d
assert len(d["rings"]) == 16 and all(v == [0, 3, 1, 2, 4, 7, 5, 6] for v in d["rings"].values())
assert classes() == {"P2P/direct pointer": ["nvlink"]}, classes()
assert d["trees"]["0"]["0"] == {"up": -1, "down": [3]}, d["trees"]["0"]
assert "channels 0..15: 0 3 1 2 4 7 5 6" in t and "0 node crossings" in t, t
assert d["ranks"][7] == {"rank": 7, "host": "nf5688m7-1", "device": 7, "busid": "0xd7",
                         "gpu": "NVIDIA H800"}, d["ranks"][7]
assert d["tests"][0]["redop"] == "none" and d["tests"][0]["rows"][0]["oop"]["wrong"] is None
'
# nccl-tests only, five collectives named by "# Collective test starting".
facts 11-nccltests-h100-4gpu-multiop.log -- '
assert [x["collective"] for x in d["tests"]] == ["all_reduce", "all_gather", "reduce_scatter",
                                                 "alltoall", "sendrecv"], d["tests"]
assert d["nccl_version"] == "2.29.2" and d["nranks"] == 4 and d["hosts"] == ["cnode3-002"]
assert d["ranks"][0]["gpu"] == "NVIDIA H100 80GB HBM3" and d["ranks"][3]["busid"] == "0000:61:00"
'
# EFA through the AWS plugin, Open MPI tags everywhere (and an INFO line inside the table).
facts efa-2node-t4-nccl2127-ompi.log -- '
assert classes() == {"NET/AWS Libfabric/0": ["net-plugin"]}, classes()
assert len(d["links"]) == 4, d["links"]
assert d["hosts"] == ["test-nccl-efa-worker-0", "test-nccl-efa-worker-1"], d["hosts"]
assert len(d["tests"][0]["rows"]) == 31 and d["tests"][0]["avg_busbw"] == 1.15327
assert d["trees"]["1"] == {"0": {"up": 1, "down": []}, "1": {"up": -1, "down": [0]}}, d["trees"]
assert "2 node crossings" in t
'
# Rank 0 of 16 over RoCE: the NIC list says RoCE; P2P/IPC alone says nothing more.
facts nccl392-roce-2node16-nccl257-rank0.log -- '
assert classes() == {"NET/IB/0": ["roce"], "P2P/IPC": ["unknown"],
                     "direct shared memory": ["shm"]}, classes()
assert d["trees"]["0"] == {"0": {"up": 7, "down": [1]}}, d["trees"]
assert d["nranks"] == 16 and d["nnodes"] is None
assert "lines of ranks 0 only (of 16)" in d["warnings"], d["warnings"]
'
# A NIC list without one for this link: NET/IB is the network, which one not said; P2P
# read is NVLink.
facts nccl687-ib-gdrdma-2node8-ipcread.log -- '
assert classes() == {"NET/IB/0/GDRDMA": ["network"], "P2P/IPC/read": ["nvlink"]}, classes()
assert any(w.startswith("no ring-order line") for w in d["warnings"]), d["warnings"]
'
# A failed init: NCCL's own error trace through init.cc, with the first WARN as the reason.
facts nccltests166-failed-init.log -- '
w = [x for x in d["warnings"] if x.startswith("init failed")]
assert w == ["init failed (init.cc:1089 -> 3): ubuntu: socketStartConnect: Connect to "
             "10.0.0.2<45763> failed : Software caused connection abort"], d["warnings"]
assert classes() == {"SHM/direct/direct": ["shm"]}, classes()
'
# One node over PCIe, SHM only, no ring line: the ring is read from the link lines.
facts nccltests307-rtx4090-pcie-shm-1node8.log -- '
assert d["rings"] == {"0": [0, 1, 2, 3, 4, 5, 6, 7]}, d["rings"]
assert "0 node crossings" in t, t
'
# The IB plugin counts as a network plugin; P2P/CUMEM without path or NVLS stays unknown.
facts nccltests252-ibext-plugin-2node8-cumem.log -- '
assert classes() == {"NET/IBext_v8/0/GDRDMA": ["net-plugin"], "P2P/CUMEM": ["unknown"]}
assert (d["nranks"], d["nnodes"]) == (8, 2), d
assert d["trees"]["3"]["3"] == {"up": -1, "down": [0, 7]}, d["trees"]["3"]
'
# 2.4 over EFA: 16 ranks, both hosts named by the lines that printed ranks 0 and 8.
facts nccl229-efa-2node16-nccl24-libfabric.log -- '
assert d["rings"]["0"] == [0, 1, 3, 2, 6, 4, 5, 7, 8, 9, 11, 10, 14, 12, 13, 15]
assert classes() == {"NET/AWS Libfabric/0": ["net-plugin"], "P2P/IPC": ["unknown"]}
assert d["ranks"][8]["host"] == "ip-192-168-29-243", d["ranks"]
'
# The old table: the error column is the largest error, not a count.
facts nccltests-a100-2node16-sharp-oldtable.log -- '
x = d["tests"][0]
assert (x["collective"], x["type"], x["redop"]) == ("all_reduce", "float", "sum"), x
assert x["rows"][0]["oop"]["error"] == 4e-07 and x["rows"][0]["oop"]["wrong"] is None
assert d["hosts"] == ["a0000", "a0001"] and d["nnodes"] == 2
'
facts nccltests82-broadcast-oldtable-nccl296.log -- '
x = d["tests"][0]
assert (x["collective"], x["redop"]) == ("broadcast", None), x
assert x["rows"][0]["oop"]["error"] is None and x["rows"][0]["ip"]["time_us"] == 38.17
'
facts nccl1412-ib-2node16-nccl2xx-partial.log -- '
assert (d["nranks"], d["nnodes"]) == (16, 2), d
assert "node crossings unknown" in t
assert "lines of ranks 0..1, 3, 5..7 only (of 16)" in d["warnings"], d["warnings"]
'
facts_now

# Two files (one per node) read as one record: 04 is two nodes' captures, split here.
head -14 "$DIR/04-socket-2node-p40-nccl248.log" >"$tmp/node01.log"
tail -n +15 "$DIR/04-socket-2node-p40-nccl248.log" >"$tmp/node02.log"
"$BIN" nccl "$tmp/node01.log" "$tmp/node02.log" --format json >"$tmp/two.json" ||
    fail "two files: exit $?"
python3 -c "
import json,sys; d=json.load(open('$tmp/two.json'))
assert d['hosts'] == ['node01', 'node02'] and d['nnodes'] == 2 and len(d['links']) == 2, d
" || fail "two files: hosts/links"
# The same two files as a folder (one record, files in name order), and gzipped: the same.
mkdir "$tmp/nodes"
cp "$tmp/node01.log" "$tmp/node02.log" "$tmp/nodes/"
gzip -n "$tmp/nodes/node02.log"
"$BIN" nccl "$tmp/nodes" --format json >"$tmp/dir.json" || fail "a folder: exit $?"
python3 -c "
import json; a, b = (json.load(open(f)) for f in ('$tmp/two.json', '$tmp/dir.json'))
for d in (a, b):
    del d['warnings']
assert a == b, (a, b)
" || fail "a folder with a gzipped file reads as the two files"

# ---- tables as they are pasted (fixtures derived from the real records named) -----------
# Rows whose header was not copied, of every nccl-tests version's shape: 2.x's broadcast (a
# root, no redop, N/A errors: nccltests82's row), the old table's error column (nccltests-a100's
# rows: "error" with 4e-07), alltoall's empty redop (nccltests78's): all read, none dropped.
grep -v '^#' "$DIR/nccltests82-broadcast-oldtable-nccl296.log" | grep -E '^ +[0-9]' >"$tmp/hl1.log"
grep -v '^#' "$DIR/nccltests-a100-2node16-sharp-oldtable.log" | grep -E '^ +[0-9]' >"$tmp/hl2.log"
grep -E '^ +[0-9]' "$DIR/nccltests78-oldtable-allreduce-alltoall-prose.log" >"$tmp/hl3.log"
for f in hl1 hl2 hl3; do
    want=$(wc -l <"$tmp/$f.log")
    "$BIN" nccl "$tmp/$f.log" --format json >"$tmp/$f.json" 2>"$tmp/$f.err" || fail "$f: exit $?"
    [ -s "$tmp/$f.err" ] && fail "$f: $(head -1 "$tmp/$f.err")"
    python3 - "$tmp/$f.json" "$want" "$f" <<'PY' || fail "$f: rows lost"
import json, sys
d = json.load(open(sys.argv[1]))
rows = sum(len(t["rows"]) for t in d["tests"])
assert rows == int(sys.argv[2]), (rows, sys.argv[2])
assert any(w["code"] == "table_no_header" for w in d["warnings"]), d["warnings"]
if sys.argv[3] == "hl2":  # the old table's largest error, not a #wrong count
    assert d["tests"][0]["rows"][0]["oop"]["error"] == 4e-07, d["tests"][0]["rows"][0]
    assert all(r["oop"]["wrong"] is None for t in d["tests"] for r in t["rows"])
PY
done
# Two runs' tables pasted side by side (nccltests-h100's header and rows, twice on each
# line: by spaces, by a tab, by '|'), with and without the header: two tables of all rows.
sed -n '/^#  *size/,$p' "$DIR/nccltests-h100-2node16-allreduce.log" | grep -E '^#  *size|^ +[0-9]' >"$tmp/one.log"
rows=$(grep -cE '^ +[0-9]' "$tmp/one.log")
paste -d' ' "$tmp/one.log" "$tmp/one.log" >"$tmp/sbs1.log"
grep -v '^#' "$tmp/one.log" >"$tmp/rows.log"
paste "$tmp/rows.log" "$tmp/rows.log" >"$tmp/sbs2.log"
paste -d'|' "$tmp/rows.log" "$tmp/rows.log" >"$tmp/sbs3.log"
for f in sbs1 sbs2 sbs3; do
    "$BIN" nccl "$tmp/$f.log" --format json >"$tmp/$f.json" 2>"$tmp/$f.err" || fail "$f: exit $?"
    python3 - "$tmp/$f.json" "$rows" <<'PY' || fail "$f: side by side not read as two runs"
import json, sys
d = json.load(open(sys.argv[1]))
assert [len(t["rows"]) for t in d["tests"]] == [int(sys.argv[2])] * 2, [len(t["rows"]) for t in d["tests"]]
assert any(w["code"] == "table_side_by_side" for w in d["warnings"]), d["warnings"]
PY
done
# Lines of numbers that no nccl-tests version prints, and nothing else: exit 2, each said.
printf '   8  2  float  sum  x  1 2 3 4 5 6 7 8 9
 32 8 9 10 11 12 13 14 15 16 17 18 19 20
' >"$tmp/norow.log"
"$BIN" nccl "$tmp/norow.log" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "rows no table takes: exit $rc, want 2"
grep -q "norow.log:2: a line of numbers that is no nccl-tests row" "$tmp/err" || fail "rows no table takes: $(cat "$tmp/err")"
grep -q "none of the 2 lines of nccl-tests rows could be read" "$tmp/err" || fail "rows no table takes: $(cat "$tmp/err")"

# collviz's own bench under MPI (`mpirun -np 4 collviz bench all_reduce --backend mpi`, this
# output as it printed it): its process lists its own rank and says 3 more are in the job:
# 4 ranks in the text and the JSON, the nodes unknown, the ranks not listed warned about.
cat >"$tmp/mpibench.log" <<'LOG'
# collviz bench: nccl-tests 2.19.6's table and lines (one block per collective); GB/s = 1e9 bytes/s,
#   algbw = size/time, busbw = algbw * factor; each size run out of place, then in place
# backend: mpi
# ranks:   mpi: 4 processes on 1 host (vm), Open MPI v4.1.4
# options: 20 iters, 5 warm-up, check on, op sum, algo each collective's default (ring; direct where it has no ring), timeout 30 s
#
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 67108864 maxBytes 67108864 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid  13228 on         vm device -1 [none] vm process
#  (3 more ranks in the job's other processes: not listed here)
# all_reduce: busbw factor 2(W-1)/W = 1.5; measured: 4 MPI processes, ring plan, 1 slice, 20 iters after 5 warm-up
# all_reduce: algorithm: ring for every row, out of place and in place
# all_reduce: out-of-place: the input in a buffer of its own (a plan copies it in first); in-place: one buffer
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
    67108864      16777216     float     sum      -1   934466    0.07    0.11       0   709586    0.09    0.14       0
# lecture: size*2(W-1)/(W*duration) = 67108864 B * 2*3 / (4 * 934.5 ms) = 0.108 GB/s (= busbw, out of place)
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.124792 
#
# Collective test concluded: all_reduce_perf
LOG
"$BIN" nccl "$tmp/mpibench.log" >"$tmp/mb.txt" 2>&1 || fail "collviz bench mpi output: exit $?"
head -1 "$tmp/mb.txt" | grep -q ', 4 ranks\( on at least 1 node\)\?$' || fail "collviz bench mpi output: $(head -1 "$tmp/mb.txt")"
"$BIN" nccl "$tmp/mpibench.log" --format json >"$tmp/mb.json" || fail "mpi bench json: exit $?"
python3 - "$tmp/mb.json" <<'PY' || fail "collviz bench mpi output: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["nranks"] == 4 and [c["nranks"] for c in d["communicators"]] == [4], d["communicators"]
assert d["communicators"][0]["nnodes"] is None, d["communicators"]
assert any("3 more are in the job" in w["message"] for w in d["warnings"]), d["warnings"]
PY

# ---- the record's rings and trees: one communicator's, never a mix ----------------------
# With several communicators the top-level rings and trees are those of one of them, the
# largest (most ranks: nranks, else the ranks seen; the first of equal ones), named by
# rings_of (its index in communicators); so they equal its ring_orders and tree_nodes.
# Checked on every record of the corpus that holds several (vLLM's TP x PP, two runs, ...),
# all of them in one python3 run.
: >"$tmp/mc.list"
k=0
for f in "$DIR"/*.log; do
    k=$((k + 1))
    "$BIN" nccl --format json "$f" >"$tmp/mc$k.json" 2>/dev/null || continue
    printf '%s\t%s\n' "$(basename "$f")" "$tmp/mc$k.json" >>"$tmp/mc.list"
done
python3 - "$tmp/mc.list" >"$tmp/mc.out" <<'PY'
import json, sys
bad = multi = 0
for line in open(sys.argv[1]):
    name, path = line.rstrip("\n").split("\t")
    d = json.load(open(path))
    cs = d["communicators"]
    if len(cs) < 2:
        continue
    multi += 1
    size = lambda c: c["nranks"] if c["nranks"] is not None else len(c["ranks_seen"])
    big = max(range(len(cs)), key=lambda i: (size(cs[i]), -i))
    why = None
    if d.get("rings_of") != big:
        why = ("rings_of", d.get("rings_of"), "want", big)
    elif d["rings"] != cs[big]["ring_orders"]:
        why = (d["rings"], cs[big]["ring_orders"])
    elif d["trees"] != cs[big]["tree_nodes"]:
        why = "trees differ from communicators[%d]'s" % big
    if why is not None:
        print("  %s: %s" % (name, why))
        print("FAIL: nccl %s: top-level rings/trees are not one communicator's" % name)
        bad += 1
if multi < 3:
    print("FAIL: fewer than 3 corpus records with several communicators checked (%d)" % multi)
    bad += 1
sys.exit(1 if bad else 0)
PY
cli_take_fails $? "$tmp/mc.out" "the communicators' check"
# --ring-order-from reads the same communicator's ring: here a 2-rank one prints its ring of
# channel 0 first, a 4-rank one after it; the ring taken is the 4-rank one's.
{
    printf 'h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0xa - Init START\n'
    printf 'h:1:1 [0] NCCL INFO Channel 00/02 :    0   1\n'
    printf 'h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0xa - Init COMPLETE\n'
    printf 'h:1:1 [0] NCCL INFO comm 0x20 rank 0 nranks 4 cudaDev 0 busId 1000 commId 0xb - Init START\n'
    printf 'h:1:1 [0] NCCL INFO Channel 00/02 :    0   2   1   3\n'
    printf 'h:1:1 [0] NCCL INFO comm 0x20 rank 0 nranks 4 cudaDev 0 busId 1000 commId 0xb - Init COMPLETE\n'
} >"$tmp/two.log"
"$BIN" trace all_reduce --ranks 4 --ring-order-from "$tmp/two.log" --format json >"$tmp/rof.json" 2>"$tmp/rof.err" ||
    fail "--ring-order-from two.log: exit $? ($(head -1 "$tmp/rof.err"))"
json_expect "--ring-order-from two.log" "$tmp/rof.json" 'd["ring_order"] == [0, 2, 1, 3]'
"$BIN" nccl --format json "$tmp/two.log" >"$tmp/two.json"
json_expect "nccl two.log" "$tmp/two.json" 'd["rings_of"] == 1 and d["rings"] == {"0": [0, 2, 1, 3]}'

# ---- bad input ------------------------------------------------------------------------
bad() { # bad WANT_RC STDERR_SUBSTRING ARGS...
    local want=$1 msg=$2
    shift 2
    "$BIN" nccl "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq "$want" ] || fail "nccl $*: exit $rc, want $want"
    grep -qF -- "$msg" "$tmp/err" || fail "nccl $*: stderr lacks '$msg': $(head -2 "$tmp/err")"
}
bad 2 "no FILE given"
bad 2 "--format xml: must be text or json" "$DIR/04-socket-2node-p40-nccl248.log" --format xml
bad 2 "unknown option" --bogus "$DIR/04-socket-2node-p40-nccl248.log"
bad 2 "$tmp/none.log: cannot open: No such file or directory" "$tmp/none.log"
bad 0 "$tmp/none.log: cannot open: No such file or directory" "$tmp/none.log" "$DIR/04-socket-2node-p40-nccl248.log"
bad 2 "nothing could be read" /etc/hostname
# Larger than the reader holds: refused whole (exit 2, where and what), never read in part.
# Ranks past the reader's ceiling (2^24), and a communicator more than memory may keep (a
# one-line record may keep 32 MiB + 16 bytes a byte of text: 16,000,000 ranks need ~3.4 GiB).
printf 'h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 16777217 nNodes 1024 localRanks 8 localRank 0 MNNVL 0\n' >"$tmp/big.log"
bad 2 "$tmp/big.log:1: a communicator of 16777217 ranks: larger than this reader holds" "$tmp/big.log"
printf 'h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 16000000 nNodes 2000000 localRanks 8 localRank 0 MNNVL 0\n' >"$tmp/big.log"
bad 2 "$tmp/big.log:1: a communicator of 16000000 ranks: the record would keep" "$tmp/big.log"
{
    printf 'h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n'
    printf 'h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 99999999[1] via P2P/IPC\n'
} >"$tmp/biglink.log"
bad 2 "$tmp/biglink.log:2: a link of rank 0 to 99999999: larger than this reader holds" "$tmp/biglink.log"
mkdir "$tmp/empty"
bad 2 "a folder with no file that could be read" "$tmp/empty"
printf 'h:1:1 [0] NCCL INFO Channel 00/02 :    0   1   1\nh:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 - Init COMPLETE\n' >"$tmp/dup.log"
bad 0 "$tmp/dup.log:1: channel 0's ring lists rank 1 twice" "$tmp/dup.log"
{
    printf 'h:1:1 [0] NCCL INFO Channel 00/02 :    0   1\n'
    head -c 70000 /dev/zero | tr '\0' x
    printf '\n#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n'
    printf '   8 2 float sum -1 1.0 0.1 0.1 0\n'
} >"$tmp/long.log"
bad 0 "$tmp/long.log:2: a line of 70000 bytes" "$tmp/long.log"
# Tables side by side whose last row's right half is cut: the left table keeps that row
# (its half is whole), the cut half is warned about. Lines of rocmsys3272's table, pasted
# twice across as a terminal of two panes shows them.
R3272=$DIR/rocmsys3272-rccltests-version-banner-cut-row.log
hdr=$(grep -m1 '^#       size' "$R3272" | sed 's/ *$//')
r1=$(grep -m1 '^        1024 ' "$R3272")
r2=$(grep -m1 '^        2048 ' "$R3272")
r3=$(grep -m1 '^       32768 ' "$R3272")
printf '%s    %s\n%s    %s\n%s    %s\n' "$hdr" "$hdr" "$r1" "$r1" "$r2" "$r3" >"$tmp/side.log"
"$BIN" nccl "$tmp/side.log" --format json >"$tmp/side.json" 2>/dev/null || fail "side.log: exit $?"
json_expect side.log "$tmp/side.json" '[len(t["rows"]) for t in d["tests"]] == [2, 1] and any(
    w["code"] == "cut_line" and "a row of 20 fields under a header of 26" in w["message"]
    for w in d["warnings"])'
# a row cut short (its fields begin a row of the header) is a cut line, warned about, not data
"$BIN" nccl "$tmp/long.log" --format json >"$tmp/out" 2>/dev/null
grep -qF "$tmp/long.log:4: cut: a row of 9 fields under a header of 13" "$tmp/out" ||
    fail "nccl long.log: no cut warning for the short row: $(grep -m1 warnings -A3 "$tmp/out")"
# Every line said on stderr is in the JSON's warnings too (code not_read): the JSON alone
# tells what could not be read, a file that could not be opened included.
"$BIN" nccl "$tmp/long.log" "$tmp/none.log" --format json >"$tmp/lw.json" 2>"$tmp/lw.err"
python3 - "$tmp/lw.json" "$tmp/lw.err" <<'PY' || fail "stderr lines missing from the JSON warnings"
import json, sys
msgs = [w["message"] for w in json.load(open(sys.argv[1]))["warnings"] if w["code"] == "not_read"]
err = [l.rstrip("\n") for l in open(sys.argv[2]) if l.strip()]
assert err, "nothing on stderr"
missing = [l for l in err if l not in msgs]
assert not missing, ("not in the JSON", missing, msgs)
PY
truncate -s $((64 * 1024 * 1024 + 1)) "$tmp/big.log"
bad 2 "$tmp/big.log: larger than 64 MiB" "$tmp/big.log"
# A host name with a terminal escape: never printed as it is.
printf 'ev\033]0;pwn\007il:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 - Init COMPLETE\nev\033[2Jil:1:1 [0] NCCL INFO Channel 00/01 :    0\n' >"$tmp/esc.log"
"$BIN" nccl "$tmp/esc.log" >"$tmp/esc.txt" 2>&1 || fail "escape log: exit $?"
"$BIN" nccl "$tmp/esc.log" --format json >>"$tmp/esc.txt" 2>&1 || fail "escape log json: exit $?"
if LC_ALL=C grep -q $'\033' "$tmp/esc.txt"; then fail "escape log: an ESC reached the output"; fi
# what runs into the header's host is no host ("ev]0;pwn?il": not read as a name)
if grep -q 'pwn' "$tmp/esc.txt"; then fail "escape log: a host made of an escape: $(cat "$tmp/esc.txt")"; fi
grep -q '"hosts":\["evil"\]' "$tmp/esc.txt" || fail "escape log: host evil not read: $(cat "$tmp/esc.txt")"

# The same corpus under ASan+UBSan: no finding on any file, nor on the bad inputs.
if [ -n "$ASAN_BIN" ]; then
    for f in $(for b in $ORIG; do echo "$DIR/$b.log"; done) "$tmp/dup.log" "$tmp/long.log" "$tmp/esc.log"; do
        "$ASAN_BIN" nccl "$f" --format json >/dev/null 2>"$tmp/asan" ||
            fail "asan: nccl $f: exit $? ($(head -3 "$tmp/asan"))"
        grep -q "runtime error\|AddressSanitizer" "$tmp/asan" && fail "asan: $f: $(head -3 "$tmp/asan")"
    done
    # the files of several jobs at once: refused whole (exit 2, one line), with no finding
    "$ASAN_BIN" nccl $(for b in $ORIG; do echo "$DIR/$b.log"; done) >/dev/null 2>"$tmp/asan"
    rc=$?
    [ "$rc" -eq 2 ] || fail "asan: all files at once: exit $rc, not 2 (files of different jobs)"
    grep -q "are not one job's record" "$tmp/asan" || fail "asan: all files at once: $(head -3 "$tmp/asan")"
    [ "$(wc -l <"$tmp/asan")" -eq 1 ] || fail "asan: all files at once: $(head -3 "$tmp/asan")"
fi

# "the lines of N ranks only" counts ranks that printed, not processes: one process whose
# five threads print for ranks 1, 3, 4, 5 and 7 (read from the record by hand).
"$BIN" nccl "$TOP/tests/records/nccltests213-one-process-8gpu-threads-p2pdirect-cut.log" >"$tmp/out" 2>&1
grep -q "the lines of 5 ranks only (of at least 8)" "$tmp/out" ||
    fail "nccltests213: $(grep 'lines of' "$tmp/out")"

# A connection's send and receive lines are one link though each names its own NIC: 12 whole
# link lines of 7 connections (counted by hand in the record's notes).
"$BIN" nccl "$TOP/tests/records/nccl707-one-process-4gpu-net-send-recv-nics-differ.log" \
    --format json >"$tmp/out" 2>/dev/null
python3 -c 'import json,sys; n=len(json.load(open(sys.argv[1]))["links"]); sys.exit(0 if n == 7 else "%d links, not 7" % n)' "$tmp/out" ||
    fail "nccl707 send/receive NICs: not 7 links"

# One file given twice (under one name or two) is refused, never counted twice: for every
# record, both ways, JSON and text, and as the two files of a compare.
for p in "$TOP"/tests/records/*.log; do
    for second in "$p" "$(dirname "$p")/./$(basename "$p")"; do
        "$BIN" nccl "$p" "$second" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 2 ] || fail "$(basename "$p") twice: exit $rc, not 2"
        grep -q "are the same file" "$tmp/err" || fail "$(basename "$p") twice: $(head -1 "$tmp/err")"
        [ -s "$tmp/out" ] && fail "$(basename "$p") twice: a finding on stdout"
    done
done

if [ "$fails" -eq 0 ]; then
    echo "PASS: test_nccl_records.sh ($n corpus files)"
    exit 0
fi
echo "FAIL: test_nccl_records.sh: $fails failure(s)"
exit 1

#!/usr/bin/env bash
# test_bench_format.sh - `collviz bench`'s text is nccl-tests' own, both ways.
#
# 1. Golden format: every nccl-tests line collviz prints has the form of the same line in
#    real nccl-tests output of the version whose util.cu collviz copies (2.19.6; the records
#    are 2.20.0, whose lines are the same, and 2.17.8 for the footer, which 2.20.0's paste
#    lacks): tests/records/sparkpb103-nccltests220-gb10-2node.log and
#    tests/records/11-nccltests-h100-4gpu-multiop.log. Lines without values are compared
#    exactly (the records' pastes dropped trailing spaces, so those are compared stripped,
#    and collviz's own trailing spaces are checked against util.cu's format strings);
#    rows field by field: every field ends in the column where nccl-tests' does; lines
#    with values by their form with every number made N. Each hand-written pattern below
#    is matched against the real record too, so no pattern passes what nccl-tests
#    would not print. The nccl-tests lines come in the record's order.
# 2. Round trip: `collviz nccl` reads bench's text back: the same tests, sizes, counts,
#    busbw (both groups), #wrong and average busbw as the text says, for every collective.
# Usage: test_bench_format.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"

rec=$TOP/tests/records
"$BIN" bench all_reduce -b 8K -e 32K -n 2 -w 1 --ranks 2 --backend cpu >"$tmp/ar.txt" 2>"$tmp/err" ||
    fail "bench all_reduce: exit $? ($(head -1 "$tmp/err"))"
"$BIN" bench all -b 8K -e 32K -n 1 -w 0 --ranks 2 --backend cpu >"$tmp/all.txt" 2>"$tmp/err" ||
    fail "bench all: exit $? ($(head -1 "$tmp/err"))"
"$BIN" bench all_gather -b 8K -n 1 -w 0 -c 0 --ranks 2 --backend cpu >"$tmp/nocheck.txt" 2>"$tmp/err" ||
    fail "bench -c 0: exit $? ($(head -1 "$tmp/err"))"

python3 - "$tmp/ar.txt" "$rec/sparkpb103-nccltests220-gb10-2node.log" \
    "$rec/11-nccltests-h100-4gpu-multiop.log" "$tmp/nocheck.txt" <<'EOF' || fail "golden format (see above)"
import re, sys
ours = open(sys.argv[1]).read().splitlines()
gold = open(sys.argv[2]).read().splitlines()
foot = open(sys.argv[3]).read().splitlines()[:40]  # its first test: all_reduce_perf
nocheck = open(sys.argv[4]).read().splitlines()
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("  format:", what)
        ok = False

def num(line):  # every number N: the form of a line with values
    return re.sub(r"-?\d+(\.\d+)?", "N", line)

ROW = re.compile(r"^ *\d")
def kind(line):  # which of nccl-tests' lines this is (None: not one of them)
    if ROW.match(line): return "row"
    for k, p in (("start", "# Collective test starting: "), ("params", "# nThread "),
                 ("devices", "# Using devices"), ("rank", "#  Rank "),
                 ("cols", "#       size"), ("units", "#        (B)"), ("groups", "#      "),
                 ("oob", "# Out of bounds values"), ("avg", "# Avg bus bandwidth"),
                 ("end", "# Collective test concluded: ")):
        if line.startswith(p): return k
    return "hash" if line.rstrip() == "#" else None

def seq(lines):
    out = []
    for l in lines:
        k = kind(l)
        if k and not (out and out[-1] == k and k in ("row", "rank")): out.append(k)
    return out

# Order: the record's lines, in its order (the record lacks the footer: 11's has it).
g = seq(gold)
o = seq(ours)
o = o[o.index("start"):] if "start" in o else o  # collviz's own lines come first
check(o[:len(g)] == g, "order of nccl-tests' lines:\n    ours %r\n    gold %r" % (o[:len(g)], g))
check(o[len(g):] == ["oob", "avg", "hash", "end"], "footer order %r" % o[len(g):])

def lines(src, k): return [l for l in src if kind(l) == k]

# Lines without values: exactly the record's.
for k in ("start", "devices", "groups", "cols", "units"):
    a, b = lines(ours, k), lines(gold, k)
    check(len(a) == 1 and len(b) == 1 and a[0].rstrip() == b[0].rstrip(),
          "%s line:\n    ours %r\n    gold %r" % (k, a, b))
for k in ("oob", "end"):
    a, b = lines(ours, k), lines(foot, k)
    check(len(a) == 1 and a[0] == b[0], "%s line:\n    ours %r\n    gold %r" % (k, a, b[:1]))
# Trailing spaces: util.cu's formats end the group and column lines with spaces
# ("in-place          \n", "#wrong %*s\n" with an empty timestamp) and the average with
# " %s\n" of "": the records lost them in pasting, 11's average line kept its own.
check(lines(ours, "groups")[0].endswith("in-place          "), "groups line: trailing spaces")
check(lines(ours, "cols")[0].endswith("#wrong "), "columns line: trailing space")
check(lines(ours, "units")[0] == lines(gold, "units")[0].rstrip() + " " * 9,
      "units line: trailing spaces %r" % lines(ours, "units")[0][-12:])
avg = re.compile(r"^# Avg bus bandwidth    : [0-9.e+-]+ $")
check(avg.match(lines(foot, "avg")[0]), "pattern does not fit the record's average line")
check(len(lines(ours, "avg")) == 1 and avg.match(lines(ours, "avg")[0]),
      "avg line %r" % lines(ours, "avg"))
# Lines with values: their form.
a, b = lines(ours, "params"), lines(gold, "params")
check(len(a) == 1 and num(a[0]) == num(b[0]), "params line:\n    ours %r\n    gold %r" % (a, b))
# "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s"
dev = re.compile(r"^#  Rank [ \d]\d Group [ \d]\d Pid [ \d]{5}\d+ on [ \S]{9}\S+ device [ \d-]\d \[[^\]]+\] \S.*$")
for l in lines(gold, "rank"): check(dev.match(l), "pattern does not fit the record's %r" % l)
check(len(lines(ours, "rank")) == 2, "2 device lines, got %r" % lines(ours, "rank"))
for l in lines(ours, "rank"): check(dev.match(l), "device line %r" % l)
# Rows: 13 fields, each ending in the column where the record's does.
def ends(l): return [m.end() for m in re.finditer(r"\S+", l)]
gends = {tuple(ends(l)) for l in lines(gold, "row")}
check(len(gends) == 1, "the record's rows disagree %r" % gends)
rows = lines(ours, "row")
check(len(rows) == 3, "3 rows, got %d" % len(rows))
for l in rows:
    check(tuple(ends(l)) in gends, "row columns %r\n    ours %r\n    gold %r" % (l, ends(l), sorted(gends)[0]))
    f = l.split()
    check(f[2:5] == ["float", "sum", "-1"] and f[8] == "0" and f[12] == "0", "row %r" % l)
# -c 0: #wrong is nccl-tests' "   N/A" in both groups, in the same columns.
for l in lines(nocheck, "row"):
    check(tuple(ends(l)) in gends and l.split()[8] == "N/A" and l.split()[12] == "N/A",
          "-c 0 row %r" % l)
check(any(l == "# all_gather: #wrong: N/A, validation off (-c 0)" for l in nocheck),
      "-c 0: the N/A is not labelled")
sys.exit(0 if ok else 1)
EOF

# 2. Round trip: bench's text read back by collviz nccl.
for f in ar all; do
    for bin in $(cli_bins); do # the ASan build reads it too; the last one's JSON is checked
        "$bin" nccl "$tmp/$f.txt" --format json >"$tmp/$f.json" 2>"$tmp/err" ||
            fail "$bin nccl $f.txt: exit $? ($(head -1 "$tmp/err"))"
        [ -s "$tmp/err" ] && fail "$bin nccl $f.txt: said on stderr: $(head -3 "$tmp/err")"
    done
done
python3 - "$tmp/ar.txt" "$tmp/ar.json" "$tmp/all.txt" "$tmp/all.json" <<'EOF' || fail "round trip (see above)"
import json, math, re, sys
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("  round trip:", what)
        ok = False
def blocks(text):  # the text's own tables: [(program, [row fields], avg)]
    out, cur = [], None
    for l in text.splitlines():
        if l.startswith("# Collective test starting: "):
            cur = [l.split(": ")[1], [], None]
            out.append(cur)
        elif cur and re.match(r"^ *\d", l):
            cur[1].append(l.split())
        elif cur and l.startswith("# Avg bus bandwidth"):
            cur[2] = float(l.split(":")[1])
    return out
def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9 * max(1, abs(a))
def val(s): return float("nan") if s == "N/A" else float(s)
def jv(x): return float("nan") if x is None else x
for txt, js, want in ((sys.argv[1], sys.argv[2], ["all_reduce"]),
                      (sys.argv[3], sys.argv[4], ["broadcast", "scatter", "gather", "reduce",
                       "all_gather", "reduce_scatter", "all_reduce", "alltoall"])):
    b = blocks(open(txt).read())
    d = json.load(open(js))
    tests = d["tests"]
    check([t["collective"] for t in tests] == want, "%s: tests %r" % (js, [t["collective"] for t in tests]))
    check([p for p, _, _ in b] == [w + "_perf" for w in want], "%s: blocks %r" % (txt, [p for p, _, _ in b]))
    check(d["nranks"] in (None, 2) and len(d["ranks"]) == 2, "%s: ranks %r" % (js, d["ranks"]))
    for t, (prog, rows, avg) in zip(tests, b):
        c = t["collective"]
        check(len(t["rows"]) == len(rows) == 3, "%s: %d rows read, %d printed" % (c, len(t["rows"]), len(rows)))
        check([r["size"] for r in t["rows"]] == [8192, 16384, 32768], "%s sizes %r" % (c, [r["size"] for r in t["rows"]]))
        for r, f in zip(t["rows"], rows):
            check(r["size"] == int(f[0]) and r["count"] == int(f[1]), "%s: size/count %r %r" % (c, r, f))
            for grp, at in (("oop", 5), ("ip", 9)):
                m = r[grp]
                for k, i in (("time_us", 0), ("algbw", 1), ("busbw", 2), ("wrong", 3)):
                    check(same(jv(m[k]), val(f[at + i])), "%s %d %s %s: read %r, printed %r" % (c, r["size"], grp, k, m[k], f[at + i]))
            check(r["oop"]["wrong"] == 0, "%s %d: out-of-place #wrong %r" % (c, r["size"], r["oop"]["wrong"]))
            check((r["ip"]["wrong"] is None) == (c == "alltoall"), "%s: in-place #wrong %r" % (c, r["ip"]["wrong"]))
        check(t["avg_busbw"] is not None and same(t["avg_busbw"], avg), "%s avg %r vs %r" % (c, t["avg_busbw"], avg))
        # the average is nccl-tests': over every group measured (both, but all_to_all's one)
        bws = [val(f[7]) for f in rows] + [val(f[11]) for f in rows if f[11] != "N/A"]
        check(abs(sum(bws) / len(bws) - avg) <= 0.005 + 1e-4 * avg, "%s avg %r, groups %r" % (c, avg, bws))
sys.exit(0 if ok else 1)
EOF

cli_finish test_bench_format

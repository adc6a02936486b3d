#!/usr/bin/env bash
# test_nccl_compare.sh - `collviz nccl A B`: two runs of one nccl-tests test compared.
#   - hand-written runs (below) with the ratios, spreads and verdicts worked out by hand:
#     spread = the larger of the two runs' |out-of-place - in-place| busbw at a size; B is
#     slower where A's busbw - B's > spread; text and JSON say the same;
#   - a size without any in-place figure: spread unknown, no verdict (null);
#   - sizes in one run only are listed, not compared;
#   - runs of different tests, or a file without a run, are refused: exit 2, one line;
#   - two of collviz bench's own runs compare (exit 0, the sizes of the sweep);
#   - --compare with a number of files other than 2 is refused.
# Usage: test_nccl_compare.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"

hdr='# Collective test starting: all_reduce_perf
# nThread 1 nGpus 8 minBytes 1024 maxBytes 8192 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)'
{
    echo "$hdr"
    cat <<'EOF'
        1024           256     float     sum      -1    10.00    0.10   10.00       0    11.00    0.09    9.00       0
        2048           512     float     sum      -1    10.00    0.20   20.00       0    10.00    0.20   20.50       0
        4096          1024     float     sum      -1    10.00    0.41   40.00       0    10.00    0.41   40.00       0
        8192          2048     float     sum      -1    10.00    0.82   80.00       0    10.00    0.82   80.00       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 20 
#
# Collective test concluded: all_reduce_perf
EOF
} >"$tmp/a.log"
{
    echo "$hdr"
    cat <<'EOF'
        1024           256     float     sum      -1    10.00    0.10    9.50       0    10.00    0.10    9.40       0
        2048           512     float     sum      -1    10.00    0.18   18.00       0    10.00    0.18   18.20       0
        4096          1024     float     sum      -1    10.00    0.45   44.00       0    10.00    0.44   43.00       0
       16384          4096     float     sum      -1    10.00    1.64  160.00       0    10.00    1.64  160.00       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 25 
#
# Collective test concluded: all_reduce_perf
EOF
} >"$tmp/b.log"
# all_gather: another test
sed -e 's/all_reduce_perf/all_gather_perf/' -e 's/ sum / none/' "$tmp/b.log" >"$tmp/ag.log"
# in-place N/A at 1024 in both (collviz's all_to_all has none): the spread is unknown there
for f in a b; do # the in-place group of the 1024 row (its last 4 fields) made N/A
    awk '$1 == 1024 { NF = 9; $0 = $0 "      N/A     N/A     N/A     N/A" } { print }' \
        "$tmp/$f.log" >"$tmp/${f}_na.log"
done
grep -q '^ *1024 .* N/A *N/A *N/A *N/A$' "$tmp/a_na.log" || fail "fixture: no N/A row in a_na.log"
printf 'just some text\nno tables here\n' >"$tmp/none.log"

for bin in $(cli_bins); do
    "$bin" nccl "$tmp/a.log" "$tmp/b.log" --format json >"$tmp/ab.json" 2>"$tmp/err" ||
        fail "$bin nccl a b --format json: exit $? ($(head -1 "$tmp/err"))"
    "$bin" nccl "$tmp/a.log" "$tmp/b.log" >"$tmp/ab.txt" 2>"$tmp/err" ||
        fail "$bin nccl a b: exit $? ($(head -1 "$tmp/err"))"
    "$bin" nccl "$tmp/a_na.log" "$tmp/b_na.log" --format json >"$tmp/na.json" 2>"$tmp/err" ||
        fail "$bin nccl a_na b_na: exit $? ($(head -1 "$tmp/err"))"
    python3 - "$tmp/ab.json" "$tmp/ab.txt" "$tmp/na.json" <<'EOF' || fail "$bin: comparison (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
na = json.load(open(sys.argv[3]))
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("  compare:", what)
        ok = False
def near(a, b): return a is not None and abs(a - b) <= 1e-9
check(len(d["tests"]) == 1, "tests %r" % d["tests"])
t = d["tests"][0]
check((t["collective"], t["type"], t["redop"]) == ("all_reduce", "float", "sum"), "test %r" % t)
# By hand: size: A, B, B/A, spread = max(|A oop - A ip|, |B oop - B ip|), B slower?
want = [(1024, 10.0, 9.5, 0.95, 1.0, False),   # 0.5 below A: within A's spread of 1.0
        (2048, 20.0, 18.0, 0.9, 0.5, True),    # 2.0 below: beyond the spread of 0.5
        (4096, 40.0, 44.0, 1.1, 1.0, False)]   # faster
got = [(r["size"], r["a_busbw"], r["b_busbw"], r["ratio"], r["spread"], r["b_slower"]) for r in t["rows"]]
check(len(got) == 3, "rows %r" % got)
for g, w in zip(got, want):
    check(g[0] == w[0] and all(near(x, y) for x, y in zip(g[1:5], w[1:5])) and g[5] is w[5],
          "row %r, want %r" % (g, w))
check(t["b_slower_sizes"] == [2048], "slower sizes %r" % t["b_slower_sizes"])
check(t["only_in_a"] == [8192] and t["only_in_b"] == [16384], "only %r %r" % (t["only_in_a"], t["only_in_b"]))
check(near(t["a_avg_busbw"], 20) and near(t["b_avg_busbw"], 25) and near(t["avg_ratio"], 1.25),
      "avg %r %r %r" % (t["a_avg_busbw"], t["b_avg_busbw"], t["avg_ratio"]))
check("in-place" in d["spread"] and "out-of-place" in d["compared"], "definitions %r %r" % (d["spread"], d["compared"]))
# The text says the same.
for line in ("            1024      10.00       9.50   0.950      1.00",
             "            2048      20.00      18.00   0.900      0.50  B slower",
             "            4096      40.00      44.00   1.100      1.00",
             "  B slower than A beyond the spread at 1 size: 2048",
             "  only in A: 8192", "  only in B: 16384",
             "  avg busbw: A 20, B 25 GB/s (B/A 1.250)"):
    check(line + "\n" in text, "text: no line %r in:\n%s" % (line, text))
# N/A in place at 1024 in both: no spread, no verdict there; the others as before.
r = na["tests"][0]["rows"]
check(r[0]["size"] == 1024 and r[0]["spread"] is None and r[0]["b_slower"] is None, "N/A row %r" % r[0])
check(near(r[0]["ratio"], 0.95) and r[1]["b_slower"] is True, "N/A rows %r" % r)
sys.exit(0 if ok else 1)
EOF
done

# A file name is untrusted text: no escape byte of it reaches the terminal.
esc=$tmp/$'x\e[31mred'.log
cp "$tmp/b.log" "$esc"
"$BIN" nccl "$tmp/a.log" "$esc" >"$tmp/esc.txt" 2>&1 || fail "nccl a <escape name>: exit $?"
grep -q $'\e' "$tmp/esc.txt" && fail "nccl a <escape name>: an escape byte reached the output"
grep -q '^  B = .*x.*31mred.log$' "$tmp/esc.txt" || fail "nccl a <escape name>: $(head -3 "$tmp/esc.txt")"
# Every line at 80 columns at most (the paths on lines of their own).
"$BIN" nccl "$tmp/a.log" "$tmp/b.log" >"$tmp/w.txt" || fail "nccl a b: exit $?"
awk -v p="$tmp" 'index($0, p) == 0 && length($0) > 80 { print; bad = 1 } END { exit bad }' "$tmp/w.txt" ||
    fail "nccl a b: lines over 80 columns"

# Refused: different tests; a file without a run (--compare); --compare with 3 files.
expect_usage_error "a.log is all_reduce (float sum)" nccl "$tmp/a.log" "$tmp/ag.log"
expect_usage_error "is all_gather (float none): not the same test" nccl "$tmp/a.log" "$tmp/ag.log" --format json
expect_usage_error "none.log has no nccl-tests rows" nccl --compare "$tmp/a.log" "$tmp/none.log"
expect_usage_error "two files, A and B (got 3)" nccl --compare "$tmp/a.log" "$tmp/b.log" "$tmp/b.log"
# Without --compare, a file without a run is read with the other as one record (per node).
"$BIN" nccl "$tmp/a.log" "$tmp/none.log" --format json >"$tmp/merged.json" 2>/dev/null ||
    fail "nccl a none: exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "tests" in d and len(d["tests"]) == 1' \
    "$tmp/merged.json" || fail "nccl a none: not read as one record"

# Two of collviz bench's runs: compared, the sweep's sizes.
for i in 1 2; do
    "$BIN" bench all_reduce -b 4K -e 16K -n 1 -w 0 --ranks 2 --backend cpu >"$tmp/run$i.txt" 2>"$tmp/err" ||
        fail "bench run $i: exit $?"
done
"$BIN" bench all_gather -b 4K -e 16K -n 1 -w 0 --ranks 2 --backend cpu >"$tmp/runag.txt" 2>"$tmp/err" ||
    fail "bench all_gather: exit $?"
"$BIN" nccl "$tmp/run1.txt" "$tmp/run2.txt" --format json >"$tmp/runs.json" 2>"$tmp/err" ||
    fail "nccl run1 run2: exit $? ($(head -1 "$tmp/err"))"
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tests"]
assert len(t) == 1 and t[0]["collective"] == "all_reduce", t
assert [r["size"] for r in t[0]["rows"]] == [4096, 8192, 16384], t
assert all((r["ratio"] is None or r["ratio"] >= 0) and r["spread"] >= 0 and r["b_slower"] in (True, False) for r in t[0]["rows"]), t
' "$tmp/runs.json" || fail "nccl run1 run2: content"
expect_usage_error "not the same test" nccl "$tmp/run1.txt" "$tmp/runag.txt"
# Two runs of one test with no size in common: nothing compared, said so (exit 2), never
# "B slower than A at no size"; text and JSON.
"$BIN" bench all_reduce -b 64K -e 128K -n 1 -w 0 --ranks 2 --backend cpu >"$tmp/run3.txt" 2>"$tmp/err" ||
    fail "bench run 3: exit $?"
expect_usage_error "no message size in common" nccl "$tmp/run1.txt" "$tmp/run3.txt"
expect_usage_error "no message size in common" nccl "$tmp/run1.txt" "$tmp/run3.txt" --format json

cli_finish test_nccl_compare

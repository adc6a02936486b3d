#!/usr/bin/env bash
# test_bench_cli.sh - `collviz bench` on the CPU backend at small sizes: the JSON parses and
# has a row per (collective, size) with #wrong == 0 out of place and in place and
# nccl-tests' accounting (its count column: the API count), one algorithm per collective for
# the whole table ("hardware" and each row's "link" are null on CPU, whose text has no
# "# link:" line; on a machine where NCCL runs, the hardware block is checked); the text
# table has nccl-tests' column header, 13 fields a row, its footer and the lecture's
# formula line; bad input exits 2 with one line on stderr naming the value (also against
# the ASan+UBSan binary, when given). nccl-tests' exact format is test_bench_format.sh's.
# Usage: test_bench_cli.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"

small=(-b 4K -e 64K -f 4 -n 2 -w 1 --backend cpu)
answers="$(dirname "$0")/../oracle/coll_answers.h" # every collective's answers, one entry each

# --- JSON: every collective, every row right -----------------------------------------
if "$BIN" bench all "${small[@]}" --format json >"$tmp/all.json" 2>"$tmp/err"; then
    python3 - "$tmp/all.json" "$answers" <<'EOF' || fail "bench all --format json: content (see above)"
import json, re, sys
d = json.load(open(sys.argv[1]))
ok = True
# Every collective's answers, from its entry in tests/oracle/coll_answers.h.
ans = {}
for e in re.findall(r"\[COLL_[A-Z_]+\] = \{(.*?)\.source = \w+\}", open(sys.argv[2]).read(), re.S):
    f = lambda k: (re.search(r"\." + k + r" = ([^,]+),", e) or [None, None])[1]
    ans[f("name").strip('"')] = {"rooted": f("rooted") == "true", "reduces": f("reduces") == "true",
                                "in_place": f("in_place") == "true", "whole": f("bytes") == "4000",
                                "factor": float(f("busbw_w4")), "ring": "[ALGO_RING] = true" in e}
colls = list(ans)
def check(cond, what):
    global ok
    if not cond:
        print("  json:", what)
        ok = False
check(d["backend"] == "cpu", "backend %r" % d["backend"])
check(d["ranks"] == 4, "ranks %r" % d["ranks"])
check("hardware" in d and d["hardware"] is None, "cpu hardware %r" % d.get("hardware"))
rows = d["rows"]
check([r["collective"] for r in rows] == [c for c in colls for _ in range(3)],
      "collectives/sizes %r" % [(r["collective"], r["size"]) for r in rows])
check(len(colls) >= 8 and all(f is not None for a in ans.values() for f in a.values()),
      "answers read from coll_answers.h: %r" % ans)
factor = {c: a["factor"] for c, a in ans.items()}
whole = [c for c in colls if ans[c]["whole"]]  # count = size / 4; the others: / (4 * ranks)
algo_of = {}
for r in rows:
    c = r["collective"]
    check(set(r) == {"collective", "algorithm", "size", "count", "type", "redop", "root",
                     "time_us", "algbw", "busbw", "wrong", "in_place", "slices", "channels",
                     "link"},
          "fields %r" % sorted(r))
    # No --algo: one algorithm for the whole table, the collective's default.
    algo_of.setdefault(c, r["algorithm"])
    check(r["algorithm"] == algo_of[c], "%s: algorithm %r then %r" % (c, algo_of[c], r["algorithm"]))
    check(r["algorithm"] == ("ring" if ans[c]["ring"] else "direct"),
          "%s: default algorithm %r" % (c, r["algorithm"]))
    ip = r["in_place"]
    if not ans[c]["in_place"]:
        check(ip is None, "%s in_place %r (collviz has no in-place %s)" % (c, ip, c))
    else:
        check(ip is not None and set(ip) == {"time_us", "algbw", "busbw", "wrong"},
              "%s in_place %r" % (c, ip))
        check(ip["wrong"] == 0 and ip["time_us"] > 0, "%s in_place %r" % (c, ip))
        f = factor[c]
        check(abs(ip["busbw"] - ip["algbw"] * f) <= 1e-4 * ip["busbw"] + 1e-9, "%s ip busbw" % c)
    # CPU ranks report no links: null, as the text prints no "# link:" line.
    check(r["link"] is None, "%s link %r" % (c, r["link"]))
    # 4..64 KiB: every transfer is under the default 64 KiB slice, so one slice.
    check(r["slices"] == 1 and r["channels"] == 1, "slices %r" % r["slices"])
    check(r["wrong"] == 0, "%s %d: wrong %r" % (c, r["size"], r["wrong"]))
    check(r["size"] in (4096, 16384, 65536), "%s size %r" % (c, r["size"]))
    check(r["count"] * 4 * (1 if c in whole else 4) == r["size"], "%s count %r" % (c, r["count"]))
    check(r["type"] == "float", "type")
    check(r["algorithm"] in ("ring", "tree", "direct", "owner"), "algorithm %r" % r["algorithm"])
    check(r["redop"] == ("sum" if ans[c]["reduces"] else "none"),
          "%s redop %r" % (c, r["redop"]))
    check(r["root"] == (0 if ans[c]["rooted"] else -1),
          "%s root %r" % (c, r["root"]))
    check(r["time_us"] > 0, "%s time %r" % (c, r["time_us"]))
    algbw = r["size"] / (r["time_us"] * 1e-6) / 1e9
    check(abs(r["algbw"] - algbw) <= 1e-4 * algbw, "%s algbw %r vs %r" % (c, r["algbw"], algbw))
    f = factor[c]
    check(abs(r["busbw"] - r["algbw"] * f) <= 1e-4 * r["busbw"] + 1e-9, "%s busbw" % c)
sys.exit(0 if ok else 1)
EOF
else
    fail "bench all --format json: exit status $? ($(head -1 "$tmp/err"))"
fi

# Explicit algorithms, ops, roots and rank counts, each checked.
while read -r args; do
    # shellcheck disable=SC2086
    if ! "$BIN" bench $args -n 2 -w 1 --backend cpu --format json >"$tmp/one.json" 2>"$tmp/err"; then
        fail "bench $args: exit status $? ($(head -1 "$tmp/err"))"
        continue
    fi
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert rows and all(r["wrong"] == 0 for r in rows), rows
assert all(r["in_place"] is None or r["in_place"]["wrong"] == 0 for r in rows), rows
' "$tmp/one.json" || fail "bench $args: rows wrong"
done <<'EOF'
all_reduce --algo ring -b 1M
all_reduce --algo tree -b 100K -o prod
all_reduce --algo direct -b 12345 -o avg --ranks 3
reduce_scatter --algo ring -b 64K -o min --ranks 5
reduce --algo tree -b 64K -r 2 -o max
broadcast --algo ring -b 64K -r 3 --ranks 7
all_to_all -b 64K --ranks 2
gather -b 4K -i 4K -e 16K -r 1
all_reduce --ranks 1 -b 4K
EOF

# -c 0: not checked, so wrong is null.
if "$BIN" bench all_reduce -b 4K -n 1 -w 0 -c 0 --backend cpu --format json >"$tmp/nc.json" 2>"$tmp/err"; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rows"][0]; assert r["wrong"] is None and r["in_place"]["wrong"] is None' "$tmp/nc.json" ||
        fail "-c 0: wrong should be null"
else
    fail "-c 0: exit status $?"
fi

# --- text ------------------------------------------------------------------------------
if "$BIN" bench all_reduce -b 64K -e 256K -n 2 -w 1 --backend cpu >"$tmp/text" 2>"$tmp/err"; then
    grep -q '^# backend: cpu' "$tmp/text" || fail "text: no backend line"
    grep -q '^# ranks: *4 ranks = 4 CPU threads on [0-9]* cores\? (pthreads, shared memory)' "$tmp/text" ||
        fail "text: no ranks description"
    grep -q 'GB/s = 1e9 bytes/s' "$tmp/text" || fail "text: units not stated"
    grep -q '^#  *size  *count  *type  *redop  *root  *time  *algbw  *busbw  *#wrong  *time  *algbw  *busbw  *#wrong $' "$tmp/text" ||
        fail "text: column header"
    grep -q '^#  *out-of-place  *in-place  *$' "$tmp/text" || fail "text: out-of-place / in-place header"
    grep -q '^# all_reduce: algorithm: ring for every row, out of place and in place$' "$tmp/text" ||
        fail "text: no algorithm line"
    grep -q '^# Out of bounds values : 0 OK$' "$tmp/text" || fail "text: no out-of-bounds line"
    grep -q '^# Avg bus bandwidth    : [0-9.e+-]* $' "$tmp/text" || fail "text: no avg busbw line"
    grep -q 'measured: 4 CPU threads, [a-z]* plan, 1 slice, 2 iters after 1 warm-up' "$tmp/text" ||
        fail "text: how it was measured"
    grep -q '^# link:' "$tmp/text" && fail "text: a link line on CPU ranks: $(grep '^# link:' "$tmp/text")"
    # size count float sum -1, then time algbw busbw #wrong twice, #wrong 0 both times.
    n='[0-9.e+-]\+'
    [ "$(grep -c "^ *$n \+$n \+float \+sum \+-1 \+$n \+$n \+$n \+0 \+$n \+$n \+$n \+0$" "$tmp/text")" = 3 ] ||
        fail "text: expected 3 all_reduce rows with #wrong 0: $(cat "$tmp/text")"
    # The lecture's formula, with this run's own numbers plugged in, equals busbw.
    python3 - "$tmp/text" <<'EOF' || fail "text: lecture formula line"
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^# lecture: size\*2\(W-1\)/\(W\*duration\) = (\d+) B \* 2\*3 / \(4 \* ([0-9.e+-]+) ms\) = ([0-9.e+-]+) GB/s \(= busbw, out of place\)$", text, re.M)
assert m, "no lecture line"
size, ms, gbs = int(m.group(1)), float(m.group(2)), float(m.group(3))
assert size == 262144
assert abs(size * 6 / (4 * ms * 1e-3) / 1e9 - gbs) <= 0.01 * gbs
last = [l for l in text.splitlines() if l.strip() and not l.startswith("#")][-1].split()
# nccl-tests prints busbw to 2 decimals (getFloatStr): within half a unit of the last.
assert abs(float(last[7]) - gbs) <= 0.01 * gbs + 0.0051, (last, gbs)
EOF
else
    fail "bench text: exit status $? ($(head -1 "$tmp/err"))"
fi
"$BIN" bench --help >"$tmp/help" 2>&1 || fail "--help exit status $?"
grep -q 'usage: collviz bench' "$tmp/help" || fail "--help text"

# all with an algorithm some collectives lack: those are skipped with a note.
if "$BIN" bench all --algo tree -b 4K -n 1 -w 0 --backend cpu >"$tmp/tree" 2>"$tmp/err"; then
    grep -q '^# all_to_all: skipped, no tree algorithm' "$tmp/tree" || fail "all --algo tree: no skip note"
else
    fail "bench all --algo tree: exit status $?"
fi

# --- bad input: exit 2, exactly one line on stderr, naming the value --------------------
bad() { expect_usage_error "$1" bench "${@:2}"; } # WANT_SUBSTRING ARGS..., on every binary
bad "-b 12Q" all_reduce -b 12Q
bad "-e 1K" all_reduce -b 4K -e 1K
bad "--ranks 0" all_reduce --ranks 0
bad "--ranks 17" all_reduce --ranks 17
bad "-n 0" all_reduce -n 0
bad "-w -1" all_reduce -w -1
bad "-c 2" all_reduce -c 2
bad "-o xor" all_reduce -o xor
bad "-r 4" broadcast -r 4
bad "-f 1" all_reduce -f 1
bad "-T 0" all_reduce -T 0
bad "--format xml" all_reduce --format xml
bad "--algo spiral" all_reduce --algo spiral
bad "all_to_all has no ring" all_to_all --algo ring -b 4K
bad "bogus" all_reduce --backend bogus
bad "frobnicate" frobnicate
bad "collective" --backend cpu
bad "--bogus" all_reduce --bogus
bad "-b 8" all_gather -b 8 --backend cpu
bad "-b 1T: at most 16G" all_reduce -b 1T --backend cpu  # memory: test_hostile.sh
for bin in "$BIN" ${ASAN_BIN:+"$ASAN_BIN"}; do
    [ -x "$bin" ] || continue
    # NCCL: either not built, or unavailable here (no GPU / driver); on a machine with
    # two GPUs it would run, so only check the message shape when it fails.
    "$bin" bench all_reduce --backend nccl -b 4K -n 1 -w 0 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 2 ]; then
        [ "$(wc -l <"$tmp/err")" = 1 ] || fail "--backend nccl: stderr not one line"
        grep -qE '^collviz: --backend nccl: (unavailable - .+|not built \(no CUDA toolkit at build time\))$' "$tmp/err" ||
            fail "--backend nccl: message '$(cat "$tmp/err")'"
    elif [ "$rc" != 0 ]; then
        fail "--backend nccl: exit $rc ($(head -1 "$tmp/err"))"
    else
        # NCCL ran (a machine with 2+ GPUs): the hardware block in the text header and
        # in JSON, with the versions, every GPU and the NCCL_ALGO line.
        grep -q '^# hardware: NCCL [0-9.]* (built against' "$tmp/out" ||
            fail "--backend nccl: no hardware line: $(head -8 "$tmp/out")"
        grep -q '^#  *GPU 0: .*, sm_[0-9]*, PCI ' "$tmp/out" || fail "--backend nccl: no GPU 0 line"
        grep -q '^#  *NCCL_ALGO=' "$tmp/out" || fail "--backend nccl: no NCCL_ALGO line"
        NCCL_ALGO=Ring "$bin" bench all_reduce --backend nccl -b 4K -n 1 -w 0 >"$tmp/ring" 2>"$tmp/err" &&
            grep -q '^# all_reduce: NCCL_ALGO=Ring set in the environment' "$tmp/ring" ||
            fail "--backend nccl with NCCL_ALGO=Ring: no section note ($(head -1 "$tmp/err"))"
        "$bin" bench all_reduce --backend nccl -b 4K -n 1 -w 0 --format json >"$tmp/nccl.json" 2>"$tmp/err" ||
            fail "--backend nccl --format json: exit $?"
        python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
hw = d["hardware"]
assert d["backend"] == "nccl" and isinstance(hw, str), d
assert hw.startswith("NCCL ") and "GPU 0: " in hw and "NCCL_ALGO=" in hw, hw
assert hw.count("GPU ") >= d["ranks"], hw
' "$tmp/nccl.json" || fail "--backend nccl --format json: hardware field"
    fi
done

# ASan: one real run through the worker and rank threads as well.
if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
    "$ASAN_BIN" bench all -b 4K -e 16K -n 1 -w 1 --backend cpu --format json >"$tmp/asan.json" 2>"$tmp/err" ||
        fail "asan bench all: exit $? ($(head -3 "$tmp/err"))"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=open(sys.argv[2]).read().count(".source = "); assert n >= 8 and len(d["rows"]) == 3 * n and all(r["wrong"] == 0 for r in d["rows"])' "$tmp/asan.json" "$answers" ||
        fail "asan bench all: rows"
fi

# A deadline missed: the message says what timed out (the collective and its algorithm, the
# one chosen by auto too, or the barrier between runs), on how many threads, which rank gave
# up after what deadline and which ranks it waited for (it was empty when the auto trial
# timed out).
for algo in "--algo auto" "--algo ring"; do
    # shellcheck disable=SC2086
    "$BIN" bench all_reduce -b 32M -T 0.00001 $algo --backend cpu -n 1 -w 0 >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 1 ] || fail "-T 0.00001 ${algo:-auto}: exit $rc (want 1)"
    grep -Eqx "collviz: all_reduce 32 MiB: (all_reduce \((ring|tree|direct|owner)\) on|a barrier of) 4 CPU threads timed out: rank [0-3] waited more than the deadline of 1e-05 s for (the other ranks|ranks? [0-3](, [0-3])*)( at the barrier that ends it| \(through rank [0-3], which waits for it\))?(; ranks? [0-3](, [0-3])* (was|were) behind the others \(had started [0-9]+ runs?, they up to [0-9]+\))?" "$tmp/err" ||
        fail "-T 0.00001 ${algo:-auto}: message: $(cat "$tmp/err")"
done

# The check seen failing: CV_TEST_CORRUPT=RANK:ELEM (honoured only by the test build,
# -DCV_TEST_HOOKS, which is the ASan one) corrupts one element of one rank's result: #wrong
# 1 in each group of the row (out of place and in place are each checked), exit 1 and
# "2 wrong elements" on stderr, 2 groups out of bounds. The normal build ignores it.
CV_TEST_CORRUPT=1:3 "$BIN" bench all_reduce -b 64K -n 1 -w 0 --backend cpu --format json \
    >"$tmp/nohook.json" 2>"$tmp/err" || fail "CV_TEST_CORRUPT reached the normal build: exit $?"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["rows"][0]["wrong"] == 0' \
    "$tmp/nohook.json" || fail "CV_TEST_CORRUPT changed #wrong in the normal build"
if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
    grep -aq 'collviz-test-hooks:''built-in' "$ASAN_BIN" ||
        fail "$ASAN_BIN has no test hooks (make test builds it with -DCV_TEST_HOOKS)"
    for args in "all_reduce --algo ring" "reduce_scatter --algo ring" "broadcast -r 1"; do
        # shellcheck disable=SC2086
        CV_TEST_CORRUPT=1:3 "$ASAN_BIN" bench $args -b 64K -n 1 -w 0 --backend cpu --format json \
            >"$tmp/corrupt.json" 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 1 ] || fail "bench $args, one element corrupted: exit $rc (want 1)"
        grep -qx "collviz: bench: 2 wrong elements" "$tmp/err" ||
            fail "bench $args, one element corrupted: stderr $(cat "$tmp/err")"
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; assert r["wrong"] == 1 and r["in_place"]["wrong"] == 1' \
            "$tmp/corrupt.json" || fail "bench $args, one element corrupted: #wrong is not 1 in each group"
    done
    CV_TEST_CORRUPT=1:3 "$ASAN_BIN" bench all_reduce -b 64K -n 1 -w 0 --backend cpu >"$tmp/corrupt" 2>&1
    grep -q '^ *65536 \+16384 \+float \+sum \+-1 \+[0-9.]\+ \+[0-9.]\+ \+[0-9.]\+ \+1 \+[0-9.]\+ \+[0-9.]\+ \+[0-9.]\+ \+1$' "$tmp/corrupt" ||
        fail "text table, one element corrupted: no row with #wrong 1 twice: $(cat "$tmp/corrupt")"
    grep -q '^# Out of bounds values : 2 FAILED$' "$tmp/corrupt" ||
        fail "text table, one element corrupted: out-of-bounds line: $(grep Out "$tmp/corrupt")"
else
    echo "SKIP: #wrong seen failing through bench (no ASan+UBSan test build given)"
fi

cli_finish test_bench_cli

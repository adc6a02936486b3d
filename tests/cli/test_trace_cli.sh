#!/usr/bin/env bash
# test_trace_cli.sh - `collviz trace`: the lecture's values in JSON, the text handout, every
# collective and algorithm against the reference, and bad input (exit 2, one line on
# stderr). Usage: test_trace_cli.sh BIN [ASAN_BIN]; the bad-input cases also run against
# the ASan+UBSan binary when it exists.
. "$(dirname "$0")/lib.sh" "$@"

# trace_json NAME PYTHON_EXPR ARGS... : run trace --format json now; the expression (with
# d = the parsed object) is evaluated later, all in one python3 run (json_expect_now).
njson=0
trace_json() {
    local name=$1 expr=$2
    shift 2
    njson=$((njson + 1))
    if ! "$BIN" trace "$@" --format json >"$tmp/$njson.json" 2>"$tmp/err"; then
        fail "$name: exit status $? ($(head -1 "$tmp/err"))"
        return
    fi
    json_expect_later "$name" "$tmp/$njson.json" "$expr"
}

# The lecture's demo at four ranks (shared/reference/README.md).
trace_json "all_reduce lecture" 'd["output"] == [[6, 10, 14, 18]] * 4 and d["check"]["reference_equal"]' all_reduce
trace_json "all_reduce ring steps" 'len(d["steps"]) == 6 and d["steps"][0]["phase"] == "reduce-scatter 1/3" and d["steps"][0]["transfers"][0] == {"src": 0, "dst": 1, "src_offset": 3, "dst_offset": 3, "count": 1, "reduce": True, "kind": "reduce", "chunk": 3} and d["steps"][0]["buffers"][1] == [1, 2, 3, 7]' all_reduce
trace_json "all_reduce tree" 'd["output"] == [[6, 10, 14, 18]] * 4 and d["algorithm"] == "tree"' all-reduce --algo tree
trace_json "all_reduce direct" 'd["output"] == [[6, 10, 14, 18]] * 4' allreduce --algo direct
trace_json "reduce_scatter lecture" 'd["output"] == [[6], [10], [14], [18]]' reduce_scatter
trace_json "all_to_all lecture" 'd["output"][0] == [0, 4, 8, 12] and d["output"][3] == [3, 7, 11, 15]' all_to_all
trace_json "scatter lecture" 'd["output"] == [[0], [1], [2], [3]]' scatter
trace_json "reduce lecture" 'd["output"] == [[6], [], [], []]' reduce
trace_json "broadcast lecture" 'd["output"] == [[0, 1, 2, 3]] * 4 and d["input"] == [[0, 1, 2, 3], [], [], []]' broadcast
trace_json "all_gather lecture" 'd["output"] == [[0, 1, 2, 3]] * 4' all_gather
trace_json "gather lecture" 'd["output"] == [[0, 1, 2, 3], [], [], []]' gather
# Elements that hold nothing yet are null: after the first tree level, rank 3 (relative 3
# of root 0) is still empty.
trace_json "tree broadcast nulls" 'd["steps"][0]["buffers"][3] == [None] * 4 and d["steps"][0]["buffers"][1] == [0, 1, 2, 3]' broadcast --algo tree
trace_json "avg" 'd["output"] == [[1.5], [2.5], [3.5], [4.5]] and d["steps"][-1]["phase"] == "average"' reduce_scatter --op avg --count 1
trace_json "root" 'd["root"] == 2 and d["output"][2] == [6] and d["output"][0] == []' reduce --root 2 --algo tree
trace_json "seq init" 'd["input"][2] == [20, 21, 22] and d["count"] == 3' all_gather --init seq --count 3

# Refined: slices and channels, each transfer with what it waits for. Rank 1's first
# transfer of step 2, slice 0, waits only for rank 3's slice 0 of step 1 (#3), which wrote
# chunk 2 on rank 0; the refined result is the unrefined one bit for bit, run step by step
# and by dependencies alone.
trace_json "refined ring" 'd["slices"] == 2 and d["channels"] == 1 and d["transfers"] == 48 and len(d["steps"][0]["transfers"]) == 8 and d["steps"][1]["transfers"][0] == {"src": 0, "dst": 1, "src_offset": 4, "dst_offset": 4, "count": 1, "reduce": True, "kind": "reduce", "chunk": 2, "index": 8, "slice": 0, "channel": 0, "by": 1, "tick": 1, "order": 1, "depends_on": [3]} and d["check"]["unrefined_equal"] and d["check"]["dependency_order_equal"] and d["output"] == [[6, 10, 14, 18, 22, 26, 30, 34]] * 4' all_reduce --slices 2 --count 8
# A broadcast chain in 3 slices per chunk on 4 ranks: 12 slices per link plus 2 ticks of
# fill, where the chunk view has 6 steps.
trace_json "refined chain ticks" 'd["ticks"] == 14 and max(x["tick"] for s in d["steps"] for x in s["transfers"]) == 13' broadcast --slices 3 --count 12
# The owner all-reduce: rank r runs every transfer of chunk r, pushing it to the others.
trace_json "owner" 'd["output"] == [[6, 10, 14, 18]] * 4 and all(x["by"] == x["chunk"] for s in d["steps"] for x in s["transfers"]) and d["steps"][-1]["phase"] == "write out"' all_reduce --algo owner --slices 1

# Every collective and algorithm, a few world sizes, random inputs: the output equals what
# this test computes itself from the input (oracle_ok below, each collective by its
# definition), not only the binary's own "reference_equal".
for coll in broadcast scatter gather reduce all_gather reduce_scatter all_reduce all_to_all; do
    for algo in ring tree direct owner; do
        for ranks in 1 3 8; do
            case $ranks in 1) op=prod ;; 3) op=avg ;; *) op=max ;; esac
            args=($coll --algo $algo --ranks $ranks --count 5 --init random --seed 7 --op $op
                --root $((ranks - 1)))
            njson=$((njson + 1))
            "$BIN" trace "${args[@]}" --format json >"$tmp/$njson.json" 2>"$tmp/err"
            rc=$?
            if [ $rc -eq 2 ] && grep -q "is not available for $coll" "$tmp/err"; then
                continue
            elif [ $rc -ne 0 ]; then
                fail "${args[*]}: exit status $rc ($(head -1 "$tmp/err"))"
                continue
            fi
            json_expect_later "${args[*]}" "$tmp/$njson.json" \
                'oracle_ok(d) and d["check"]["reference_equal"] and len(d["output"]) == d["ranks"] == '$ranks
            # The same, refined into uneven slices over two channels.
            njson=$((njson + 1))
            "$BIN" trace "${args[@]}" --slices 3 --channels 2 --op sum --format json \
                >"$tmp/$njson.json" 2>"$tmp/err" ||
                fail "${args[*]} --slices 3 --channels 2: exit status $? ($(head -1 "$tmp/err"))"
            json_expect_later "${args[*]} --slices 3 --channels 2" "$tmp/$njson.json" \
                'd["check"]["unrefined_equal"] and d["check"]["dependency_order_equal"] and d["check"]["reference_equal"]'
        done
    done
done

# Evaluate every JSON check at once, with the oracle the loop's checks call.
json_expect_now "$(
    cat <<'PY'
import functools, json, sys

def oracle(d):
    """Every rank's output from the input by the collective's definition."""
    W, n, root, inp = d["ranks"], d["count"], d["root"], d["input"]
    op = d["op"]
    def red(xs):
        f = {"sum": lambda a, b: a + b, "avg": lambda a, b: a + b, "prod": lambda a, b: a * b,
             "min": min, "max": max}[op]
        v = functools.reduce(f, xs)
        return v / W if op == "avg" else v
    blocks = lambda r: [x for q in range(W) for x in inp[q][r * n:(r + 1) * n]]
    c = d["collective"]
    if c == "broadcast":
        return [inp[root][:n] for r in range(W)]
    if c == "scatter":
        return [inp[root][r * n:(r + 1) * n] for r in range(W)]
    if c in ("gather", "all_gather"):
        cat = [x for q in range(W) for x in inp[q][:n]]
        return [cat if c == "all_gather" or r == root else [] for r in range(W)]
    if c in ("reduce", "all_reduce"):
        v = [red([inp[q][j] for q in range(W)]) for j in range(n)]
        return [v if c == "all_reduce" or r == root else [] for r in range(W)]
    if c == "reduce_scatter":
        return [[red([inp[q][r * n + j] for q in range(W)]) for j in range(n)] for r in range(W)]
    if c == "all_to_all":
        return [blocks(r) for r in range(W)]
    raise ValueError(c)

def oracle_ok(d):
    want = oracle(d)
    got = d["output"]
    return len(got) == len(want) and all(
        len(g) == len(w) and all(abs(a - b) <= 1e-6 * max(1.0, abs(b)) for a, b in zip(g, w))
        for g, w in zip(got, want))
PY
)"

# The text handout.
text=$(LC_ALL=C.UTF-8 "$BIN" trace all_reduce)
rc=$?
[ $rc -eq 0 ] || fail "text all_reduce: exit $rc"
for want in "all-reduce on 4 ranks, count 4, op sum, algorithm ring" "(numbered as in NCCL; a teaching model)" \
    "step 1/6  reduce-scatter 1/3" "step 6/6  all-gather 3/3" \
    "Every rank r sends chunk (r-1) mod 4 to rank r+1" \
    "matches the plain reference: yes"; do
    grep -qF -- "$want" <<<"$text" || fail "text all_reduce lacks '$want'"
done
grep -qE 'rank 0 -> rank 1 +chunk 3 +\[3\.\.4\) +add' <<<"$text" || fail "text lacks the transfer line"
grep -qE '^  rank 2 +\[ +6 +10 +14 +18 \]$' <<<"$text" || fail "text lacks rank 2's output"
# Empty elements: a middle dot in UTF-8, a plain dot otherwise.
text=$(LC_ALL=C.UTF-8 "$BIN" trace broadcast --algo tree)
grep -qF '[ · · · · ]' <<<"$text" || fail "UTF-8 text lacks the empty glyph"
text=$(LC_ALL=C "$BIN" trace broadcast --algo tree)
grep -qF '[ . . . . ]' <<<"$text" || fail "ASCII text lacks the empty dot"
if LC_ALL=C "$BIN" trace broadcast --algo tree | LC_ALL=C grep -q $'\xc2'; then
    fail "ASCII text contains UTF-8"
fi
"$BIN" trace --help | grep -q "usage: collviz trace" || fail "--help"

# Bad input: exit 2, exactly one line on stderr naming the value, nothing on stdout.
bad_inputs() { # bin
    local bin=$1 args want
    while IFS='|' read -r args want; do
        # shellcheck disable=SC2086
        "$bin" trace $args >"$tmp/bad.out" 2>"$tmp/bad.err"
        rc=$?
        lines=$(wc -l <"$tmp/bad.err")
        if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/bad.out" ] ||
            ! grep -qF -- "$want" "$tmp/bad.err"; then
            fail "${bin##*/} trace $args: rc=$rc, $lines stderr lines: $(head -3 "$tmp/bad.err")"
        fi
    done <<'EOF'
all_reduce --ranks 0|--ranks 0
all_reduce --ranks 17|--ranks 17
all_reduce --count 0|--count 0
all_reduce --count abc|--count abc
all_gather --algo tree|algorithm tree is not available for all_gather (available: ring, direct)
all_reduce --algo pat|--algo pat
allgatherv|allgatherv
reduce --root 9|--root 9
all_reduce --root 9 --ranks 4|--root 9
all_reduce --op bogus|--op bogus
all_reduce --format xml|--format xml
all_reduce --init foo|--init foo
all_reduce --seed x|--seed x
all_reduce --frobnicate|--frobnicate
all_reduce --ranks|--ranks
all_reduce extra|extra
|which collective
all_reduce --count 20000000|--count 20000000
all_reduce --slices 0|--slices 0
all_reduce --slices 70000|--slices 70000
all_reduce --channels 65|--channels 65
all_reduce --channels x|--channels x
EOF
}
bad_inputs "$BIN"
if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
    bad_inputs "$ASAN_BIN"
    ASAN_OPTIONS=detect_leaks=1 "$ASAN_BIN" trace all_reduce --format json >/dev/null ||
        fail "asan: trace all_reduce"
    ASAN_OPTIONS=detect_leaks=1 "$ASAN_BIN" trace all_to_all --ranks 16 --count 3 >/dev/null ||
        fail "asan: trace all_to_all 16 ranks"
fi

cli_finish test_trace_cli

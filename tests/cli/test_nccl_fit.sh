#!/usr/bin/env bash
# test_nccl_fit.sh - the alpha-beta fit of a record's nccl-tests rows in `collviz nccl`
# (text and JSON) against the least-squares fit of tests/cli/nccl_fit_ref.py, done in
# python3 from the file's text with none of collviz's code. Two corpus files: a new table
# (#wrong, H100, 2 nodes) and an old one (error, A100, 2 nodes).
# Usage: test_nccl_fit.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
DIR=tests/records

cat >"$tmp/cmp.py" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["tests"][0]
want = json.load(open(sys.argv[2]))
fit = got["fit"]
bad = 0
if fit is None:
    print("no fit:", got.get("fit_error")); sys.exit(1)
for k in ("ranks", "rows"):
    if fit[k] != want[k]:
        print(f"{k}: {fit[k]}, want {want[k]}"); bad += 1
for k in ("alpha_us", "beta_gbps", "r2"):
    if abs(fit[k] - want[k]) > 1e-6 * abs(want[k]):
        print(f"{k}: {fit[k]}, want {want[k]}"); bad += 1
if not fit["physical"] or "measured" not in fit["source"] or "model" not in fit["source"]:
    print("fit not labelled as the model of the measured rows:", fit); bad += 1
print(json.dumps(want))
sys.exit(1 if bad else 0)
PY

for f in nccltests-h100-2node16-allreduce.log nccltests-a100-2node16-sharp-oldtable.log; do
    python3 tests/cli/nccl_fit_ref.py "$DIR/$f" >"$tmp/want.json" || fail "$f: the reference fit failed"
    for b in $(cli_bins); do
        "$b" nccl --format json "$DIR/$f" >"$tmp/got.json" 2>"$tmp/err" ||
            fail "$f: collviz nccl --format json exit status $?"
        python3 "$tmp/cmp.py" "$tmp/got.json" "$tmp/want.json" >"$tmp/cmp.out" ||
            fail "$f ($b): fit differs: $(tr '\n' ' ' <"$tmp/cmp.out")"
        "$b" nccl "$DIR/$f" >"$tmp/got.txt" 2>&1
        # The text says the same figures, to its 4 significant digits, and what they are.
        want=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))
print("alpha %.4g us per step, beta %.4g GB/s, R^2 %.4f" % (w["alpha_us"], w["beta_gbps"], w["r2"]))' \
            "$tmp/want.json")
        grep -qF "$want" "$tmp/got.txt" || fail "$f: text has no '$want': $(grep -A1 'fit' "$tmp/got.txt")"
        # (the label is a sentence wrapped at 80 columns: read with its lines joined)
        tr -s ' \n' '  ' <"$tmp/got.txt" | grep -q "fit (model: .*measured out-of-place rows" ||
            fail "$f: the text fit is not labelled a model of the measured rows"
    done
done

# A test the model cannot plan, and one of a single size, say why in both formats.
"$BIN" nccl --format json "$DIR/11-nccltests-h100-4gpu-multiop.log" >"$tmp/multi.json"
python3 - "$tmp/multi.json" <<'PY' || fail "multiop: sendrecv's fit should be null with a reason"
import json, sys
t = {x["collective"]: x for x in json.load(open(sys.argv[1]))["tests"]}
assert t["sendrecv"]["fit"] is None and "sendrecv" in t["sendrecv"]["fit_error"], t["sendrecv"]
assert t["all_reduce"]["fit"]["algo"] == "ring" and t["all_reduce"]["fit_error"] is None
assert t["all_reduce"]["fit"]["ranks"] == 4
PY
"$BIN" nccl "$DIR/nccltests82-broadcast-oldtable-nccl296.log" >"$tmp/one.txt"
grep -q "fit: none (fit: 1 point; need at least 2 distinct sizes)" "$tmp/one.txt" ||
    fail "one-row test: $(grep fit "$tmp/one.txt")"

cli_finish test_nccl_fit

#!/usr/bin/env bash
# test_nccl_fit.sh - the alpha-beta fit of a record's nccl-tests rows in `collviz nccl`
# (text and JSON) against a least-squares fit done here in python3, from the file's text,
# with none of collviz's code: the rows' sizes and out-of-place times read off the table,
# the world size from nccl-tests' "Rank N ... device" lines, and the ring all-reduce's
# cost written out by hand (2(W-1) steps, each carrying the largest of the W chunks,
# ceil(S/4/W) floats, through the busiest port). The fit is the one `model --fit` makes:
# t = n*alpha + c/beta, least squares in relative error, R^2 over the times. Two corpus
# files: a new table (#wrong, H100, 2 nodes) and an old one (error, A100, 2 nodes).
# Usage: test_nccl_fit.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
DIR=tests/records

cat >"$tmp/fit.py" <<'PY'
import json, math, re, sys
text = open(sys.argv[1], encoding="latin-1").read().split("\n")
W = len({int(m.group(1)) for l in text for m in [re.search(r"#\s+Rank\s+(\d+) .* device", l)] if m})
hdr, rows = None, []
for l in text:
    s = l.split()
    if l.lstrip().startswith("#") and "busbw" in l and "size" in l:
        hdr = s[1:]
    elif hdr and s and s[0].isdigit() and len(s) == len(hdr):
        rows.append((int(s[0]), float(s[hdr.index("time")])))
n = 2 * (W - 1)  # ring all-reduce: reduce-scatter then all-gather, W-1 steps each
pts = [(n, n * 4 * -(-(S // 4) // W), t * 1e-6) for S, t in rows if S // 4 >= 1]
# least squares of 1 = alpha*(n/t) + g*(c/t): the 2x2 normal equations
a11 = sum((p / t) ** 2 for p, c, t in pts)
a12 = sum(p * c / t / t for p, c, t in pts)
a22 = sum((c / t) ** 2 for p, c, t in pts)
b1 = sum(p / t for p, c, t in pts)
b2 = sum(c / t for p, c, t in pts)
det = a11 * a22 - a12 * a12
alpha = (b1 * a22 - b2 * a12) / det
g = (b2 * a11 - b1 * a12) / det
mean = sum(t for _, _, t in pts) / len(pts)
res = sum((t - alpha * p - g * c) ** 2 for p, c, t in pts)
tot = sum((t - mean) ** 2 for _, _, t in pts)
print(json.dumps({"ranks": W, "rows": len(pts), "alpha_us": alpha * 1e6,
                  "beta_gbps": 1 / g / 1e9, "r2": 1 - res / tot}))
PY

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
    python3 "$tmp/fit.py" "$DIR/$f" >"$tmp/want.json" || fail "$f: the reference fit failed"
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
        grep -q "fit (model: .*measured out-of-place rows" "$tmp/got.txt" ||
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

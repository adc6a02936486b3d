#!/usr/bin/env bash
# test_model_cli.sh - `collviz model`: the JSON and text figures equal the closed forms and
# hand-worked plans computed here independently (ring all-reduce and all-gather, tree
# all-reduce W=4, an uneven split); --tier all and --tier list carry the lecture's figures;
# --fit on the CPU backend returns a fit whose curve is consistent with its own α and β; bad
# input exits 2 with one line on stderr naming the value (also against the ASan+UBSan
# binary, when given).
# Usage: test_model_cli.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
# model_json ARGS... -- PYTHON: run `model ARGS --format json`, then PYTHON with d = the
# JSON (json_assert).
model_json() {
    local args=()
    while [ "$1" != "--" ]; do
        args+=("$1")
        shift
    done
    shift
    if ! "$BIN" model "${args[@]}" --format json >"$tmp/out.json" 2>"$tmp/err"; then
        fail "model ${args[*]}: exit status $? ($(head -1 "$tmp/err"))"
        return
    fi
    json_assert "model ${args[*]}" "$tmp/out.json" "$1"
}

# Ring all-reduce, W=4, S=64 MiB, alpha 1 us, beta 900 GB/s: 2(W-1)(alpha + S/(W beta)).
model_json all_reduce --ranks 4 --size 64M --alpha-us 1 --beta-gbs 900 -- '
S, W, a, b = 64 * 2**20, 4, 1e-6, 900e9
t = 2 * (W - 1) * (a + S / (W * b))
for k, v in {"collective": "all_reduce", "algo": "ring", "ranks": 4, "bytes": S,
             "steps": 6, "source": "model", "tier": None, "count": S // 4}.items():
    assert d[k] == v, (k, d[k], v)
close(d["alpha_us"], 1, "alpha_us")
close(d["beta_gbs"], 900, "beta_gbs")
close(d["time_us"], t * 1e6, "time_us")
close(d["algbw_gbs"], S / t / 1e9, "algbw")
close(d["busbw_gbs"], S / t * 2 * (W - 1) / W / 1e9, "busbw")
assert d["wire_bytes"] == 6 * S // 4, d["wire_bytes"]
assert [s["phase"] for s in d["per_step"]] == ["reduce-scatter %d/3" % i for i in (1, 2, 3)] + \
    ["all-gather %d/3" % i for i in (1, 2, 3)], d["per_step"]
assert all(s["bytes"] == S // 4 for s in d["per_step"])
'

# Ring all-gather, W=8, S=1 GiB (the whole gathered buffer): (W-1)(alpha + S/(W beta)).
model_json all_gather --ranks 8 --size 1G --alpha-us 2 --beta-gbs 50 -- '
S, W, a, b = 2**30, 8, 2e-6, 50e9
t = (W - 1) * (a + S / (W * b))
assert d["steps"] == 7 and d["bytes"] == S and d["count"] == S // 4 // 8, d
close(d["time_us"], t * 1e6, "time_us")
close(d["busbw_gbs"], S / t * (W - 1) / W / 1e9, "busbw")
'

# Reduce-scatter on the ib tier: the tier table'"'"'s alpha and beta.
model_json reduce_scatter --ranks 16 --size 256M --tier ib -- '
S, W, a, b = 256 * 2**20, 16, 2e-6, 50e9
assert d["tier"] == "ib", d["tier"]
close(d["alpha_us"], 2, "alpha")
close(d["beta_gbs"], 50, "beta")
close(d["time_us"], (W - 1) * (a + S / (W * b)) * 1e6, "time_us")
assert "model assumption" in d["alpha_source"], d["alpha_source"]
'

# Tree all-reduce W=4, S = 4000 B (count 1000): steps move S, 2S, 2S, S (see test_model.c):
# T = 4 alpha + 6S/beta = 4*3 us + 24000 B / 1 GB/s = 12 + 24 us.
model_json all_reduce --algo tree --ranks 4 --size 4000 --alpha-us 3 --beta-gbs 1 -- '
assert d["steps"] == 4 and d["wire_bytes"] == 24000, d
assert [s["bytes"] for s in d["per_step"]] == [4000, 8000, 8000, 4000], d["per_step"]
close(d["time_us"], 36.0, "time_us")
'

# Uneven split: all-reduce of 10 floats on 3 ranks, chunks 4, 3, 3: each of the 4 ring steps
# moves the largest chunk, 16 B, so T = 4 alpha + 64 B / beta.
model_json all_reduce --ranks 3 --size 40 --alpha-us 1 --beta-gbs 1 -- '
assert d["steps"] == 4 and d["wire_bytes"] == 64, d
close(d["time_us"], 4 + 0.064, "time_us")
'

# A size that is not whole floats rounds down: 4003 B -> 1000 floats, S = 4000.
model_json all_reduce --ranks 4 --size 4003 --alpha-us 1 --beta-gbs 1 -- '
assert d["bytes"] == 4000 and d["count"] == 1000, d
'

# One rank: nothing crosses, no bandwidth.
model_json all_reduce --ranks 1 --size 4K -- '
assert d["steps"] == 0 and d["time_us"] == 0, d
assert d["algbw_gbs"] is None and d["busbw_gbs"] is None, d
'

# --tier all: one row per link, the lecture'"'"'s figures (NVLink halved: both directions).
model_json all_reduce --ranks 8 --size 1G --tier all -- '
rows = d["rows"]
assert d["source"] == "model"
assert [r["tier"] for r in rows] == ["nvlink", "pcie", "ib", "ethernet"], rows
want = {"nvlink": (1, 900), "pcie": (1, 242), "ib": (2, 50), "ethernet": (50, 0.2)}
S, W = 2**30, 8
for r in rows:
    a, b = want[r["tier"]]
    close(r["alpha_us"], a, r["tier"] + " alpha")
    close(r["beta_gbs"], b, r["tier"] + " beta")
    close(r["time_us"], 2 * (W - 1) * (a * 1e-6 + S / (W * b * 1e9)) * 1e6, r["tier"] + " time")
    assert r["source"] == "model"
'

# --tier list: the hierarchy with the lecture's figures and the ratios.
model_json --tier list -- '
t = {x["key"]: x for x in d["tiers"]}
assert list(t) == ["onchip", "hbm", "nvlink", "pcie", "ib", "ethernet"], list(t)
assert t["onchip"]["bw_bytes_per_s"] is None and t["onchip"]["bw_text"] == "none given"
for k, v in {"hbm": 8e12, "nvlink": 1.8e12, "pcie": 242e9, "ib": 50e9, "ethernet": 200e6}.items():
    assert t[k]["bw_bytes_per_s"] == v, (k, t[k])
    assert t[k]["source"] == "lecture"
close(t["hbm"]["ratio_to_next"], 8 / 1.8, "hbm ratio")
close(t["ib"]["ratio_to_next"], 250, "ib ratio")
assert t["ethernet"]["ratio_to_next"] is None
assert not t["hbm"]["link"] and t["nvlink"]["link"]
'

# Text: the labelled lines.
if "$BIN" model all_reduce --ranks 4 --size 64M --tier pcie >"$tmp/text" 2>"$tmp/err"; then
    grep -q '^# collviz model: .*source: model, not measured' "$tmp/text" ||
        fail "text: no source line"
    grep -qE '^steps +6 ' "$tmp/text" || fail "text: steps"
    want=$(python3 -c 'S=64*2**20; print("%.6g" % (6*(1e-6+S/(4*242e9))*1e6))')
    grep -qE "^time_us +$want +\(model\)" "$tmp/text" || fail "text: time_us (want $want)"
    grep -qE '^beta_gbs +242 +\(tier pcie' "$tmp/text" || fail "text: beta_gbs"
    [ "$(grep -c 'reduce-scatter [123]/3' "$tmp/text")" = 3 ] || fail "text: per-step rows"
else
    fail "text: exit status $?"
fi
if "$BIN" model --tier list >"$tmp/list" 2>"$tmp/err"; then
    grep -qE '^  nvlink +NVLink 5 \+ NVSwitch +1.8 TB/s +1 +900 +3.72x pcie' "$tmp/list" ||
        fail "tier list: nvlink row"
    grep -q 'the lecture gives no figure' "$tmp/list" || fail "tier list: on-chip note"
else
    fail "tier list: exit status $?"
fi

# --fit on the CPU ranks: 4 sizes measured; the fitted curve is alpha*steps + bytes/beta at
# every point. The numbers are measurements, so only their consistency is checked; a fit
# that comes out not physical on a busy machine must say so and exit 1.
"$BIN" model --fit all_reduce --backend cpu -b 4K -e 256K -f 4 -n 3 -w 1 --format json \
    >"$tmp/fit.json" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && ! { [ $rc -eq 1 ] && grep -q 'fit not physical' "$tmp/err"; }; then
    fail "model --fit: exit status $rc ($(head -1 "$tmp/err"))"
else
    python3 - "$tmp/fit.json" $rc <<'EOF' || fail "model --fit: json (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
assert d["collective"] == "all_reduce" and d["algo"] == "ring" and d["backend"] == "cpu", d
assert d["ranks"] == 4 and d["physical"] == (rc == 0), d
pts = d["points"]
assert [p["bytes"] for p in pts] == [4096, 16384, 65536, 262144], pts
for p in pts:
    assert p["steps"] == 6 and p["wire_bytes"] == 6 * p["bytes"] // 4, p
    assert p["time_us"] > 0
    m = d["alpha_us"] * p["steps"] + d["inv_beta_s_per_byte"] * p["wire_bytes"] * 1e6
    assert abs(p["model_time_us"] - m) <= 1e-9 * abs(m), (p, m)
assert d["r2"] <= 1.0 and d["rel_rms"] >= 0
if d["physical"]:
    assert abs(d["beta_gbs"] - 1e-9 / d["inv_beta_s_per_byte"]) <= 1e-9 * d["beta_gbs"]
EOF
fi

# --- bad input: exit 2, one line naming the value --------------------------------------
check_bad() {
    local bin=$1 want=$2
    shift 2
    "$bin" model "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -ne 2 ]; then
        fail "model $*: exit status $rc, want 2"
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        fail "model $*: stderr has $(wc -l <"$tmp/err") lines, want 1"
    elif ! grep -qF -- "$want" "$tmp/err"; then
        fail "model $*: stderr '$(cat "$tmp/err")' does not name '$want'"
    fi
}
for bin in "$BIN" $ASAN_BIN; do
    check_bad "$bin" "--ranks 0" all_reduce --ranks 0
    check_bad "$bin" "--ranks 17" all_reduce --ranks 17
    check_bad "$bin" "--size 0" all_reduce --size 0
    check_bad "$bin" "--size lots" all_reduce --size lots
    check_bad "$bin" "--size 2P" all_reduce --size 2P
    check_bad "$bin" "--alpha-us -1" all_reduce --alpha-us -1 --beta-gbs 1
    check_bad "$bin" "--beta-gbs 0" all_reduce --alpha-us 1 --beta-gbs 0
    check_bad "$bin" "--beta-gbs nan" all_reduce --alpha-us 1 --beta-gbs nan
    check_bad "$bin" "--alpha-us: give --alpha-us and --beta-gbs together" all_reduce --alpha-us 1
    check_bad "$bin" "--tier wifi" all_reduce --tier wifi
    check_bad "$bin" "--tier hbm" all_reduce --tier hbm
    check_bad "$bin" "not both" all_reduce --tier ib --alpha-us 1 --beta-gbs 1
    check_bad "$bin" "'allreduc'" allreduc
    check_bad "$bin" "algorithm tree is not available for all_gather" all_gather --algo tree
    check_bad "$bin" "--algo fast" all_reduce --algo fast
    check_bad "$bin" "--format xml" all_reduce --format xml
    check_bad "$bin" "name a collective" --ranks 4
    check_bad "$bin" "size 15 B" all_gather --ranks 4 --size 15
    check_bad "$bin" "'--bogus'" all_reduce --bogus
    check_bad "$bin" "--tier list: takes no collective" all_reduce --tier list
    check_bad "$bin" "one size (1048576 B)" --fit all_reduce -b 1M
    check_bad "$bin" "model --fit all" --fit all
    check_bad "$bin" "--ranks 99" --fit all_reduce --ranks 99
done

# --help: exit 0 on stdout.
"$BIN" model --help >"$tmp/help" 2>&1 || fail "model --help: exit status $?"
grep -q 'usage: collviz model' "$tmp/help" || fail "model --help: no usage line"

if [ $fails -eq 0 ]; then
    echo "test_model_cli: ok"
else
    echo "test_model_cli: $fails failure(s)"
    exit 1
fi

# nccl_fit_ref.py FILE - the alpha-beta fit of an nccl-tests all-reduce table, written for
# the tests from the file's text with none of collviz's code (tests/cli/test_nccl_fit.sh,
# tests/screen/test_topology_tests.sh): the rows' sizes and out-of-place times off the
# table, the world size from nccl-tests' "Rank N ... device" lines, the ring all-reduce's
# cost by hand (2(W-1) steps, each carrying the largest of the W chunks, ceil(S/4/W)
# floats, through the busiest port), and the fit `model --fit` makes: t = n*alpha + c/beta
# by least squares in relative error, R^2 over the times. Prints one JSON object.
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

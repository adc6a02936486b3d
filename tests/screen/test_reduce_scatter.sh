#!/usr/bin/env bash
# 6 (reduce-scatter) and End: rank r's receive buffer (the cell its marker row labels
# "in=out") holds 6, 10, 14, 18 for r = 0..3, the lecture's result. The boxes are read
# column by column from the captured screen.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 40 "--backend cpu --no-measure"
tm_wait "step 0/" || fail "the screen never came up"
tm_keys 6 End
tm_wait "reduce-scatter" || fail "6 did not pick reduce-scatter"
tm_wait "step 3/3" || fail "End did not reach step 3/3"
out=$(tm_screen | python3 -c '
import re, sys
lines = sys.stdin.read().split("\n")
res = {}
for y, line in enumerate(lines):
    for m in re.finditer(r"\u250c rank (\d+)", line):
        r, x0 = int(m.group(1)), m.start()
        x1 = line.index("\u2510", x0)
        vals, marks = lines[y + 1], lines[y + 2]
        seg = marks[x0:x1]
        # The receive cell: under the "in=out" label, or its short forms "i=o", "=".
        k = seg.find("in=out")
        if k >= 0:
            c = x0 + k + 3
        elif seg.find("i=o") >= 0:
            c = x0 + seg.find("i=o") + 1
        else:
            c = x0 + seg.find("=")
        toks = [(t.start(), t.end(), t.group()) for t in re.finditer(r"\S+", vals[x0 + 1:x1])]
        hit = [t for (s, e, t) in toks if s + x0 + 1 <= c + 1 and e + x0 + 1 > c - 1]
        res[r] = hit[0] if hit else "?"
print(" ".join("%d:%s" % (r, res[r]) for r in sorted(res)))
')
[ "$out" = "0:6 1:10 2:14 3:18" ] || fail "receive cells: got '$out', want '0:6 1:10 2:14 3:18'"
tm_wait "✓ animation = cpu ranks" 20 || fail "the check badge never passed"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit with status 0"
echo "ok: reduce-scatter leaves 6, 10, 14, 18 on ranks 0..3"

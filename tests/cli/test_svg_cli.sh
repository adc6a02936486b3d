#!/usr/bin/env bash
# test_svg_cli.sh - `collviz svg`: a scene drawn off-screen as SVG and as text. The SVG is
# well-formed XML with no remote reference, and read back into its cell grid
# (tests/tools/svg_text.py) it shows exactly what the text export shows: for the lecture's
# all-reduce at its last step, 6 10 14 18 on each of the 4 ranks. Bad input: exit 2, one
# line. Usage: test_svg_cli.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
HERE=$CLI_HERE

"$BIN" svg --scene "collective=all_reduce step=end" -o "$tmp/ar.svg" || fail "svg exit $?"
"$BIN" svg --scene "collective=all_reduce step=end" --text >"$tmp/ar.txt" || fail "text exit $?"
python3 "$HERE/../tools/svg_text.py" "$tmp/ar.svg" >"$tmp/ar.grid" || fail "svg does not read back"
cmp -s "$tmp/ar.grid" "$tmp/ar.txt" || fail "the SVG's cells differ from the text export: $(diff "$tmp/ar.grid" "$tmp/ar.txt" | head -5)"
n=$(grep -o "│  6  10  14  18 │" "$tmp/ar.grid" | wc -l)
[ "$n" -eq 4 ] || fail "expected 4 ranks holding 6 10 14 18 in the SVG, found $n"
grep -q "step 6/6" "$tmp/ar.grid" || fail "not at the last step"
[ "$(grep -o 'http[s]*://[^"]*' "$tmp/ar.svg" | sort -u)" = "http://www.w3.org/2000/svg" ] ||
    fail "the SVG names something other than its namespace"
grep -qE '<script|xlink:href|href=|src=' "$tmp/ar.svg" && fail "the SVG has a script or reference"
head -1 "$tmp/ar.svg" | grep -qF '<?xml version="1.0" encoding="UTF-8"?>' || fail "no XML declaration"
# Step 3 of the ring: the reduce-scatter is done, rank r holds the full sum of chunk r+1.
"$BIN" svg --scene "collective=all_reduce step=3" --text >"$tmp/s3.txt" || fail "step 3 exit $?"
grep -q "step 3/6" "$tmp/s3.txt" || fail "step 3 not drawn"
# Another screen and size.
"$BIN" svg --scene "screen=parallel scheme=tp step=3" --size 100x30 -o "$tmp/par.svg" ||
    fail "parallel screen svg exit $?"
python3 "$HERE/../tools/svg_text.py" "$tmp/par.svg" >"$tmp/par.grid" || fail "parallel svg does not read back"
[ "$(wc -l <"$tmp/par.grid")" -eq 30 ] || fail "parallel svg is not 30 rows"
grep -q "tp" "$tmp/par.grid" || fail "parallel svg does not show tp"

# Bad input: one line naming the bad value, exit 2.
bad() { expect_usage_error "$1" svg "${@:2}"; } # expected-text args...
bad "nope" --scene "collective=nope"
bad "ranks" --scene "ranks=99"
bad "bad value '5x5'" --size 5x5
bad "bad value 'big'" --size big
bad "unknown option '--frobnicate'" --frobnicate
bad "unexpected argument 'extra'" extra

cli_finish "test_svg_cli (SVG = text export, 4 ranks with 6 10 14 18, bad input)"

#!/usr/bin/env bash
# The `e` key writes the screen as it is shown: collviz-<screen>-<time>.svg and .txt in
# $COLLVIZ_EXPORT_DIR, names the file in the status line, and the SVG read back into its
# cells (tests/tools/svg_text.py) is exactly the text file, which is exactly the pane.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'tm_cleanup_all; rm -rf "$out"' EXIT

tm_start 120 36 "--backend cpu --no-measure --step end" "COLLVIZ_EXPORT_DIR=$out"
tm_wait "step 6/6" || fail "did not start"
tm_keys e
tm_wait "wrote $out/collviz-collectives-" 5 || fail "no 'wrote' message naming the file"
svg=$(ls "$out"/collviz-collectives-*.svg 2>/dev/null | head -1)
[ -n "$svg" ] || fail "no SVG written"
txt=${svg%.svg}.txt
[ -f "$txt" ] || fail "no .txt beside the SVG"
python3 "$HERE/../tools/svg_text.py" "$svg" >"$out/grid" || fail "the SVG does not read back"
cmp -s "$out/grid" "$txt" || fail "the SVG's cells differ from the .txt: $(diff "$out/grid" "$txt" | head -4)"
# The text is the pane as it was before the key (the message is not in it yet).
grep -q "step 6/6" "$txt" || fail ".txt lacks the step"
n=$(grep -o "│  6  10  14  18 │" "$txt" | wc -l)
[ "$n" -eq 4 ] || fail "expected 4 ranks with 6 10 14 18 in the .txt, found $n"
grep -q "wrote" "$txt" && fail "the export holds the message it caused"
[ "$(wc -l <"$txt")" -eq 36 ] || fail ".txt is not 36 rows"

# The parallelism screen too; a second export never replaces the first.
tm_keys p
tm_wait "parallelism" 10 || fail "no parallelism screen"
tm_keys e
tm_wait "wrote $out/collviz-parallel" 5 || fail "no export on the parallelism screen"
[ "$(ls "$out"/*.svg | wc -l)" -eq 2 ] || fail "expected 2 SVGs"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit"
echo "ok: e writes the shown screen as SVG and text, named in the status line"

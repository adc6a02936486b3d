#!/usr/bin/env bash
# The pipeline chart at 80x24 (issue 19): its legends and the bubble line are shortened to
# what fits, never cut mid-word (the old lines ended "(digit: micro-ba" and "(idle share of
# the span"), and the help overlay carries the whole pipeline legend on one of its pages.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 80 24 "--backend cpu --scene 'screen=parallel scheme=pp'"
tm_wait "ideal schedule (model)" 10 || fail "no pipeline chart"
tm_keys m
tm_wait "measured, step" 120 || fail "m did not train"
tm_wait "measured 0." 10 || fail "no measured bubble"
line=$(tm_screen | grep -F "F/B: fwd/bwd of a micro-batch, · idle (bubble)") ||
    fail "the ideal chart's legend is not whole"
# The measured legend, right of the ideal one: one of its whole forms, to the line's end.
right=$(printf '%s\n' "$line" | sed 's/.*idle (bubble) *//')
case "$right" in
"F/B computing (digit: micro-batch), · waiting in recv, A AdamW" | \
    "F/B compute, digit: micro-batch, · recv wait, A AdamW" | \
    "F/B, digit micro-batch, · wait, A AdamW" | "0-9 micro-batch · wait A AdamW") ;;
*) fail "the measured legend is cut: '$right'" ;;
esac
tm_screen | grep -qE "^ bubble model \(P-1\)/\(M\+P-1\) = 3/7 = 0\.43 +measured 0\.[0-9]{2}( \(idle share[^)]*\))? *$" ||
    fail "the bubble line is cut"
tm_keys '?'
tm_wait "or Esc closes" 5 || fail "? did not open the help"
found=
for i in 1 2 3 4; do
    tm_screen | tr -d '│' | tr -s ' ' | tr '\n' ' ' | grep -qF "measured: the digit marks where a micro-batch's F or B starts" && found=1 && break
    tm_keys NPage
    sleep 0.3
done
[ -n "$found" ] || fail "the help lacks the pipeline legend"
tm_keys Escape q
tm_wait "EXITED:0" 10 || fail "q did not quit"
echo "ok: the pipeline chart's legends fit 80x24 whole; the help has them in full"

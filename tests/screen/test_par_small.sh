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
# The ideal chart's legend whole (its long or short form; the ticks narrow where the measured
# chart beside it needs the room for its own legend, issue 31).
line=$(tm_screen | grep -E "^ F/B(: fwd/bwd of a micro-batch, · idle \(bubble\)| fwd/bwd, · idle) ") ||
    fail "the ideal chart's legend is not whole"
# The measured legend, right of the ideal one: one of its whole forms, to the line's end, each
# naming every glyph the chart draws (the send's > too).
right=$(printf '%s\n' "$line" | sed -E 's/^ F\/B(: fwd\/bwd of a micro-batch, · idle \(bubble\)| fwd\/bwd, · idle) *//')
case "$right" in
"F/B computing forward/backward, 0-9 where micro-batch n's F or B starts, · waiting in recv, > sending on, A the AdamW update" | \
    "F/B compute, 0-9 micro-batch, · recv wait, > send, A AdamW" | \
    "F/B fwd/bwd 0-9 mb · wait > send A AdamW") ;;
*) fail "the measured legend is cut: '$right'" ;;
esac
tm_screen | grep -qE "^ bubble model \(P-1\)/\(M\+P-1\) = 3/7 = 0\.43 +measured 0\.[0-9]{2}( \(idle share[^)]*\))? *$" ||
    fail "the bubble line is cut"
tm_keys '?'
tm_wait "or Esc closes" 5 || fail "? did not open the help"
found=
for i in 1 2 3 4; do
    tm_screen | tr -d '│' | tr -s ' ' | tr '\n' ' ' | grep -qF "· waiting in recv, > sending on, A the AdamW update" && found=1 && break
    tm_keys NPage
    sleep 0.3
done
[ -n "$found" ] || fail "the help lacks the pipeline legend"
tm_keys Escape q
tm_wait "EXITED:0" 10 || fail "q did not quit"
echo "ok: the pipeline chart's legends fit 80x24 whole; the help has them in full"

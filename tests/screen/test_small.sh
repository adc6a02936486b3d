#!/usr/bin/env bash
# A terminal below 80x24 shows a centred message instead of a broken layout, and the
# screen comes back when the terminal grows (SIGWINCH -> KEY_RESIZE); 80x24 itself and a
# 200x60 projector terminal both lay out, also with 16 ranks.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 70 20 "--backend cpu --no-measure"
tm_wait "terminal too small: 70x20, need 80x24" || fail "no too-small message at 70x20"
tm resize-window -t main -x 120 -y 40
tm_wait "step 0/6" 5 || fail "did not recover after growing to 120x40"
tm resize-window -t main -x 79 -y 24
tm_wait "terminal too small: 79x24, need 80x24" 5 || fail "no too-small message at 79x24"
tm resize-window -t main -x 80 -y 24
tm_wait "step 0/6" 5 || fail "80x24 does not lay out"
[ "$(tm_count " 0 1 2 3 ")" -eq 1 ] || fail "rank 0's input missing at 80x24"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit"

# 16 ranks at 80x24: every rank is on screen.
tm_cleanup
tm_start 80 24 "--backend cpu --no-measure --ranks 16 --step end"
tm_wait "step 30/30" || fail "16 ranks at 80x24 did not come up"
for r in 0 5 10 15; do
    tm_screen | grep -qE "(^|[^0-9])r$r " || fail "rank $r missing at 80x24 with 16 ranks"
done
# All-reduce of [r, r+1, ...] over 16 ranks: element j sums to 120 + 16 j.
n=$(tm_count "120 136 152 168")
[ "$n" -eq 16 ] || fail "expected 16 ranks with 120 136 152 168..., found $n"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit (16 ranks)"

# A projector terminal.
tm_cleanup
tm_start 200 60 "--backend cpu --no-measure --ranks 8 --step end"
tm_wait "step 14/14" || fail "200x60 did not come up"
n=$(tm_count "28 36 44 52 60 68 76 84")
[ "$n" -eq 8 ] || fail "expected 8 boxes with the all-reduce result at 200x60, found $n"
tm_screen | grep -qF "┌ measured" || fail "no measured panel at 200x60"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit (200x60)"
echo "ok: too-small message, recovery on resize, 80x24 and 200x60 layouts"

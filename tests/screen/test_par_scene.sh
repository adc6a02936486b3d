#!/usr/bin/env bash
# The parallelism screen from a scene description (as a lesson sets it), without automatic
# training: the frame's numbers are the same on every rank after an all-gather, m trains,
# x cancels a run in flight; bad scene words are refused with exit status 2; monochrome
# ASCII at 80x24 keeps every distinction in plain characters; a resize keeps the frame.
. "$(dirname "$0")/lib.sh" "$1"

out=$("$BIN" --scene "screen=parallel ranks=8" 2>&1)
[ $? -eq 2 ] || fail "ranks=8 on the parallelism screen was not refused with status 2"
echo "$out" | grep -qF "2..4 ranks" || fail "the refusal does not name the range: $out"
out=$("$BIN" --scene "screen=parallel scheme=zero" 2>&1)
[ $? -eq 2 ] || fail "an unknown scheme was not refused with status 2"
echo "$out" | grep -qF "unknown scheme 'zero'" || fail "the refusal does not name the word: $out"

tm_start 100 30 "--backend cpu --no-measure --scene 'screen=parallel scheme=tp step=5'"
tm_wait "frame 6/19  all-gather x1 3/3" 10 || fail "the scene did not open tp at frame 6"
tm_wait "not trained yet (m trains)" 5 || fail "--no-measure trained anyway"
# After the all-gather every rank holds the same full x1: each row of values four times.
row=$(tm_screen | grep -m1 -E "│ +-?[0-9]+ +-?[0-9]+ +-?[0-9]+ +-?[0-9]+ │" | sed -E 's/^[^│]*│([^│]*)│.*/\1/')
[ -n "$row" ] || fail "no row of values in a rank box"
n=$(tm_screen | grep -oF -- "$row" | wc -l)
[ "$n" -eq 4 ] || fail "row '$row' appears $n times, not once per rank"
tm_screen | grep -qF "x1 ✓" || fail "no one-device check mark on x1"
tm_keys m
tm_wait "training tp at lecture scale" 5 || fail "m did not start training"
tm_keys x
tm_wait "training cancelled" 5 || fail "x did not cancel the training"
tm_wait_gone "training tp at lecture scale" 10 || fail "still training after x"
tm_keys m
tm_wait "same loss as 1 device" 90 || fail "the second run never finished"
tm_keys -
tm_wait "W=3" 5 || fail "- did not take a rank away"
tm_wait "display L=2 D=6 B=4" 5 || fail "tp at W=3 is not D=6"
tm_keys - -
tm_wait "ranks stay within 2..4" 5 || fail "W=1 was not refused"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit"
tm_cleanup

tm_start 80 24 "--backend cpu --no-measure --no-color --ascii --scene 'screen=parallel scheme=pp step=4'"
tm_wait "frame 5/16  pipeline tick 4/14" 10 || fail "pp at frame 5 never came up in ASCII"
# at 80x24 the ideal chart's ticks narrow to two columns so that its legend fits whole
tm_screen | grep -qF "s0  F0F1F2F3. . . ." || fail "no ASCII ideal chart (two columns a tick at 80x24)"
tm_screen | grep -qF "x1e-" || fail "no ASCII scale"
tm_screen | grep -qF "OK = one device" || fail "no ASCII check mark"
tm_screen | grep -q "[─│┌▶×]" && fail "UTF-8 drawing characters in --ascii"
tm_screen | grep -qF "s0 -> s1 x1 mb3" || fail "no ASCII message arrow"
tm resize-window -t main -x 120 -y 36
tm_wait "frame 5/16  pipeline tick 4/14" 5 || fail "the frame changed on resize"
tm_wait "m measure" 5 || fail "the key bar did not widen after the resize"
tm_screen | grep -qF "s0  F0 F1 F2 F3  .  ." || fail "the ideal chart's ticks did not widen at 120x36"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit"
echo "ok: scene words, equal ranks after all-gather, m/x, refusals, ASCII, resize"

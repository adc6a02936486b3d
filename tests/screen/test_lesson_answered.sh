#!/usr/bin/env bash
# test_lesson_answered.sh - the player at 80x24: `collviz lesson 03` opens lesson 03 by its
# number; an exercise answered right (or given up) is not answered again: Enter says it is
# solved and shows the answer instead of opening the input line. A wrong answer is kept:
# `lesson review` lists it with what it was, `lesson reset 03` clears it and says so, and
# a progress file it cannot read is refused, not written over. Shipped lessons, cpu.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")/../.." && pwd)
STATE=$(mktemp -d)
trap 'tm_cleanup_all; rm -rf "$STATE"' EXIT

tm_start 80 24 "lesson 03 --backend cpu --no-measure" XDG_STATE_HOME="$STATE" \
    COLLVIZ_LESSONS="$HERE/lessons"
tm_wait "slide 1/" 10 || fail "collviz lesson 03 did not open lesson 03"
tm_screen | head -1 | grep -qF "Broadcast, scatter, gather, reduce" ||
    fail "collviz lesson 03 opened another lesson: $(tm_screen | head -1)"
# slide 2: the broadcast's root sends 100 MB to each of 3 others: 300 MB (worked by hand)
tm_keys n
tm_wait "slide 2/" 5 || fail "n did not reach slide 2"
tm_keys Enter
tm_wait "Enter submits" 5 || fail "Enter did not open the input line"
tm_keys 4 0 0 Enter
tm_wait "not right: 400 MB" 5 || fail "400 MB was not wrong: $(tm_screen)"
tm_keys Enter
tm_wait "Enter submits" 5 || fail "Enter after a wrong answer did not open the input line"
tm_keys 3 0 0 Enter
tm_wait "right: 300" 5 || fail "300 MB was not right: $(tm_screen)"
tm_keys Enter
tm_wait "already solved" 5 || fail "a solved exercise took another answer: $(tm_screen)"
tm_screen | grep -qF "Enter submits" && fail "Enter opened the input line of a solved exercise"
# given up: the same
tm_keys v
tm_wait "Enter: answer" 5 || fail "v did not ask new numbers"
tm_keys S
tm_wait "gave up; the answer" 5 || fail "S did not give up"
tm_keys Enter
tm_wait "given up; the answer is shown" 5 || fail "a given-up exercise took an answer"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# the kept mistake, graded again: 400 MB counts a copy for the root itself (the lesson's
# own wrong: line, mb * w = 100 * 4)
export XDG_STATE_HOME="$STATE" COLLVIZ_LESSONS="$HERE/lessons"
P="$STATE/collviz/progress"
[ "$(stat -c %a "$P")" = 600 ] || fail "progress file mode $(stat -c %a "$P")"
grep -q "^mistake broadcast-root-bytes seed 0 answer 343030$" "$P" || fail "no mistake kept: $(cat "$P")"
out=$("$BIN" lesson review) || fail "lesson review failed"
echo "$out" | grep -qF "Broadcast, scatter, gather, reduce (slide 2): In the direct broadcast, the root sends its whole 100 MB buffer to each of the other ranks. With 4 ranks, how many MB leave the root? (solved since)" ||
    fail "review: $out"
echo "$out" | grep -qF "you answered: 400" || fail "review lacks the answer: $out"
echo "$out" | grep -qF "That counts a copy for the root itself" || fail "review lacks what it was: $out"
# an unreadable (corrupt) file: refused by both, left as it was
cp "$P" "$STATE/keep"
printf 'collviz-progress 2
mistake x seed 0 answer 1b
' >"$P"
"$BIN" lesson review >/dev/null 2>"$STATE/err" && fail "review read a corrupt file"
"$BIN" lesson reset 03 >/dev/null 2>"$STATE/err"
[ $? = 2 ] || fail "reset of a corrupt file: not exit 2"
grep -q "corrupt" "$STATE/err" || fail "reset did not say the file is corrupt: $(cat "$STATE/err")"
[ "$(cat "$P")" = "$(printf 'collviz-progress 2
mistake x seed 0 answer 1b')" ] || fail "reset wrote over a corrupt file"
cp "$STATE/keep" "$P"
out=$("$BIN" lesson reset 03) || fail "lesson reset 03 failed"
[ "$out" = "cleared lesson rooted-collectives (1 lesson, 1 exercise) in $P" ] ||
    fail "reset 03 said: $out"
grep -q "rooted-collectives\|broadcast-root-bytes" "$P" && fail "reset left the lesson: $(cat "$P")"
[ "$("$BIN" lesson review)" = "no mistakes kept: nothing to review" ] || fail "review after reset"
[ "$("$BIN" lesson reset)" = "no progress kept for any lesson: nothing cleared" ] || fail "reset all of nothing"
"$BIN" lesson reset nope 2>/dev/null
[ $? = 2 ] || fail "reset of no lesson: not exit 2"
echo "ok: lesson 03 opens by number; a solved or given-up exercise is not answered again"

#!/usr/bin/env bash
# test_lesson_answered.sh - the player at 80x24: `collviz lesson 03` opens lesson 03 by its
# number; an exercise answered right (or given up) is not answered again: Enter says it is
# solved and shows the answer instead of opening the input line. Shipped lessons, cpu.
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
echo "ok: lesson 03 opens by number; a solved or given-up exercise is not answered again"

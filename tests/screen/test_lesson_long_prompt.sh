#!/usr/bin/env bash
# test_lesson_long_prompt.sh - the player shows a prompt of any length whole (issue 29,
# item 6: prompts over 2,047 bytes, and over 1,199 in the player, were cut silently, in
# CJK mid-character). tests/lesson/hostile2/06-long-text.md's prompt is ~2,770 bytes of
# CJK text ending in "QUESTION-END": scrolled to the end of the pane, it is there, and its
# hint ends in "HINT-END" (H shows it); every sentence of the prompt is on the screen.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")/../.." && pwd)
STATE=$(mktemp -d)
trap 'tm_cleanup_all; rm -rf "$STATE"' EXIT

tm_start 120 50 "lesson $HERE/tests/lesson/hostile2/06-long-text.md --backend cpu --no-measure" \
    XDG_STATE_HOME="$STATE"
tm_wait "slide 1/1" 10 || fail "the lesson never came up"
for _ in $(seq 1 40); do tm_keys j; done
tm_wait "QUESTION-END" 5 || fail "the end of the prompt is not shown: $(tm_screen | tail -8)"
# every sentence of it: the prompt's three lines hold 11 whole sentences each, each ending
# in "。" (a line of CJK is one word: words were cut at 255 bytes)
want=$(grep '^prompt: ' "$HERE/tests/lesson/hostile2/06-long-text.md" | grep -o '。' | wc -l)
got=$(tm_count '。')
[ "$got" -eq "$want" ] || fail "the prompt shows $got of its $want sentences"
tm_keys H
tm_wait "HINT-END" 5 || fail "the end of the hint is not shown"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
echo "ok: the player shows a 2,770-byte prompt and its hint whole"

#!/usr/bin/env bash
# test_lesson_list_header.sh - the player at 80x24 (issue 31's student walk): the list of the
# shipped lessons shows how many lessons are out of view ("↓ N more below", N counted here
# from the lesson files and the last number on screen), Down scrolls to the last lesson,
# which then shows with "↑ N more above"; and on a slide a status message (a key for
# another screen) leaves the lesson's title on the title row.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")/../.." && pwd)
STATE=$(mktemp -d)
trap 'tm_cleanup_all; rm -rf "$STATE"' EXIT
total=$(find "$HERE/lessons" -maxdepth 1 -name '[0-9][0-9]-*.md' | wc -l)
[ "$total" -gt 8 ] || fail "only $total shipped lessons: the list would fit anyway"

tm_start 80 24 "lesson --backend cpu --no-measure" XDG_STATE_HOME="$STATE" \
    COLLVIZ_LESSONS="$HERE/lessons"
tm_wait "collviz lessons" 10 || fail "the list did not open"
page=$(tm_settled)
last=$(echo "$page" | sed -n 's/^ *[^0-9]* \{0,1\}\([0-9][0-9]*\)\. .*/\1/p' | tail -1)
[ -n "$last" ] || fail "no lesson number on the list: $page"
if [ "$last" -lt "$total" ]; then
    echo "$page" | grep -qF "↓ $((total - last)) more below" ||
        fail "lessons $((last + 1))-$total are below with no sign: $page"
fi
for _ in $(seq 2 "$total"); do tm_keys Down; done
tm_wait "$total. " 5 || fail "Down did not scroll to lesson $total: $(tm_screen)"
page=$(tm_settled)
first=$(echo "$page" | sed -n 's/^ *[^0-9]* \{0,1\}\([0-9][0-9]*\)\. .*/\1/p' | head -1)
[ "$first" -gt 1 ] && { echo "$page" | grep -qF "↑ $((first - 1)) more above" ||
    fail "lessons 1-$((first - 1)) are above with no sign: $page"; }
echo "$page" | grep -qF "more below" && fail "a mark below the last lesson: $page"
tm_keys q
tm_wait "EXITED" 10 || fail "q did not quit the list"
tm_cleanup

title=$(sed -n 's/^title: //p' "$HERE/lessons/10-tensor-parallel.md" | head -1)
[ -n "$title" ] || fail "lesson 10 has no title"
tm_start 80 24 "lesson 10 --backend cpu --no-measure" XDG_STATE_HOME="$STATE" \
    COLLVIZ_LESSONS="$HERE/lessons"
tm_wait "slide 1/" 10 || fail "lesson 10 did not open"
tm_keys n a # a: a key of the collectives screen, answered with a status message
tm_wait "that key is for" 5 || fail "no status message for a: $(tm_screen)"
tm_screen | head -1 | grep -qF "$title" || fail "the title row lost the lesson's title: $(tm_screen | head -1)"
tm_screen | head -1 | grep -qF "slide 2/" || fail "the title row lost the slide number"
echo "ok: the lesson list marks what is out of view and scrolls; a status keeps the title"

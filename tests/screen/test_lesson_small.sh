#!/usr/bin/env bash
# test_lesson_small.sh - the player at 80x24 (issue 18: nothing cut, the scene shown): a
# slide's text alone with a line saying z shows the scene; z shows the slide's scene over
# the whole terminal, every rank's box, with predict first's ? on the asked box; z again
# (or Enter, to answer) brings the text back; narration longer than the pane ends in a
# visible "more" line and j scrolls to its end. Spot checks; the walk over every slide at
# four sizes is tests/unit/test_lesson_layout.c.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")/../.." && pwd)
STATE=$(mktemp -d)
trap 'tm_cleanup_all; rm -rf "$STATE"' EXIT

tm_start 80 24 "lesson rooted-collectives --backend cpu --no-measure" XDG_STATE_HOME="$STATE" \
    COLLVIZ_LESSONS="$HERE/lessons"
tm_wait "slide 1/" 10 || fail "the lesson never came up at 80x24"
tm_keys n n
tm_wait "slide 3/7" 5 || fail "n did not reach slide 3"
tm_wait "Scatter: the root hands out slices" 5 || fail "the title is not shown whole"
tm_screen | grep -qF "z: the slide's scene" || fail "no line saying z shows the scene"
tm_keys z
tm_wait "┌ r3" 5 || fail "z did not show the scene's boxes"
for r in 0 1 2 3; do tm_screen | grep -qF "┌ r$r" || fail "rank $r's box is not shown"; done
tm_squeezed | grep -qF "│ ? ? ? ? │" || fail "the asked box is not hidden in the scene alone"
tm_screen | grep -qF "z: back to the text" || fail "the bar does not say how to go back"
tm_keys Enter
tm_wait "Enter submits" 5 || fail "Enter did not bring the text back with the input line"
tm_keys Escape z
tm_wait "┌ r3" 5 || fail "z did not show the scene again"
tm_keys z
tm_wait "z: the slide's scene" 5 || fail "z did not go back to the text"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# a long slide: the text runs on below, says so, and j reaches its last word
mkdir -p "$STATE/l"
{
    printf '# A long slide\n\n'
    for i in $(seq 1 30); do printf 'Paragraph %d of a long narration that must not be lost.\n\n' "$i"; done
    printf 'The very last words.\n'
} >"$STATE/l/01-long.md"
tm_start 80 24 "lesson $STATE/l/01-long.md --backend cpu --no-measure" XDG_STATE_HOME="$STATE"
tm_wait "slide 1/1" 10 || fail "the long lesson never came up"
tm_wait "more ↓" 5 || fail "no 'more' line on a slide longer than the pane"
tm_screen | grep -qF "The very last words." && fail "the end shows without scrolling"
for _ in $(seq 1 70); do tm_keys j; done
tm_wait "the end" 5 || fail "j did not reach the end of the narration"
tm_screen | grep -qF "The very last words." || fail "the last words are not on the last page"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
echo "ok: lesson player at 80x24: text alone, z shows the scene (boxes, ? hidden), more/end lines"

#!/usr/bin/env bash
# test_lesson_glossary.sh - the player at 80x24: a slide's narration ends with the glossary
# terms it uses (lesson 08 slide 2: algbw first), G opens the glossary with the slide's terms
# first (the presenter's G shows the same blocks), its definition whole (no line cut), Esc goes back to the slide; the help
# lists G from the one key table. Shipped lesson 08, cpu.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")/../.." && pwd)
STATE=$(mktemp -d)
trap 'tm_cleanup_all; rm -rf "$STATE"' EXIT

tm_start 80 24 "lesson 08 --backend cpu --no-measure" XDG_STATE_HOME="$STATE" \
    COLLVIZ_LESSONS="$HERE/lessons"
tm_wait "slide 1/" 10 || fail "lesson 08 did not open"
tm_keys n
tm_wait "slide 2/" 5 || fail "n did not reach slide 2"
for i in $(seq 1 30); do tm_keys j; done
tm_wait "terms (G: glossary): algbw" 5 || fail "slide 2 does not mark its terms"
tm_keys G
tm_wait "algbw: Algorithm bandwidth: the buffer's size S divided by the" 5 ||
    fail "G did not open the glossary"
# the slide's terms first: the page's first term (after its title, its key line and a blank
# line, under the title row) is the slide's first, algbw
tm_screen | sed -n 5p | grep -qF " algbw: " || fail "the glossary does not start at algbw: $(tm_screen | sed -n 5p)"
tm_screen | grep -q '…' && fail "a line of the glossary is cut"
tm_keys Escape
tm_wait "algbw: bytes over time" 5 || fail "Esc did not go back to the slide"
tm_keys '?'
tm_wait "help 1/" 5 || fail "? did not open the help"
found=
for i in 1 2 3 4; do
    sleep 0.3
    if tm_screen | grep -qE " G +glossary"; then found=1; break; fi
    tm_keys NPage
done
[ -n "$found" ] || fail "the help does not list G"
tm_keys Escape q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup
echo "ok: the glossary: terms marked on the slide, G opens it at the first, Esc back, in the help"

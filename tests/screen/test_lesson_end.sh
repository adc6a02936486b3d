#!/usr/bin/env bash
# test_lesson_end.sh - the player at 80x24: n on a lesson's last slide shows its end page:
# the front matter's summary (read from the lesson file here), then the exercises missed,
# the one answered wrong with its diagnosis (400 MB for the broadcast: the lesson's own
# wrong: line, a copy for the root itself); no line of it cut; p goes back to the last
# slide. Shipped lesson 03, cpu.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")/../.." && pwd)
STATE=$(mktemp -d)
trap 'tm_cleanup_all; rm -rf "$STATE"' EXIT
L="$HERE/lessons/03-rooted-collectives.md"
nslides=$(grep -c '^# ' "$L")
summary=$(sed -n 's/^summary: //p' "$L" | tr '\n' ' ')
[ -n "$summary" ] || fail "lesson 03 has no summary"

tm_start 80 24 "lesson 03 --backend cpu --no-measure" XDG_STATE_HOME="$STATE" \
    COLLVIZ_LESSONS="$HERE/lessons"
tm_wait "slide 1/" 10 || fail "lesson 03 did not open"
tm_keys n Enter
tm_wait "Enter submits" 5 || fail "no input line on slide 2"
tm_keys 4 0 0 Enter
tm_wait "not right: 400 MB" 5 || fail "400 MB was not wrong"
for i in $(seq 3 "$nslides"); do tm_keys n; done
tm_wait "slide $nslides/$nslides" 5 || fail "n did not reach the last slide"
tm_keys n
tm_wait "End of the lesson: Broadcast, scatter, gather, reduce" 5 || fail "no end page"
tm_screen | head -1 | grep -qF "the end" || fail "the title row does not say the end"
# the summary's words, in order, on the page (wrapped to the pane)
page=$(tm_settled)
flat=$(echo "$page" | sed 's/^ *//' | tr '\n' ' ' | tr -s ' ')
want=$(echo "$summary" | tr -s ' ' | sed 's/ $//')
case "$flat" in *"$want"*) ;; *) fail "the summary is not whole on the page: $flat" ;; esac
# the missed exercise by its question's words, never its id (the room's and the student's)
case "$flat" in *"• slide 2, not solved: With 4 ranks, how many MB leave the root?"*) ;;
*) fail "the missed exercise is not listed by its question: $flat" ;; esac
echo "$page" | grep -qF "broadcast-root-bytes" && fail "the end page shows an exercise id"
case "$flat" in *"you answered 400: not right: 400 MB. That counts a copy for the root itself, which already holds the buffer."*) ;;
*) fail "the diagnosis is not shown whole: $flat" ;; esac
echo "$page" | grep -q '…' && fail "a line of the end page is cut"
# the rest of the page: the last exercise and the way back
tm_keys j j j j j j j j j j
tm_wait "the end ─" 5 || fail "j did not reach the page's end"
flat=$(tm_screen | sed 's/^ *//' | tr '\n' ' ' | tr -s ' ')
case "$flat" in *"• slide $nslides, not answered: Each rank computed a loss on its part of the data; you want the total on rank 0 for logging. Which collective?"*) ;;
*) fail "the last exercise is not listed by its question: $flat" ;; esac
tm_keys p
tm_wait "slide $nslides/$nslides" 5 || fail "p did not go back to the last slide"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup
echo "ok: a lesson's end page: its summary whole, the exercises missed with their diagnosis"

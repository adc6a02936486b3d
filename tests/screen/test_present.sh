#!/usr/bin/env bash
# collviz --present on the fixture lesson (tests/lesson/present/01-present.md, 4 slides: text,
# all-reduce from step 0, reduce-scatter from step 1, text): PageDown/PageUp walk the scene
# scene's stops and then the slides (the arrows every step), Esc and F5 show the scene's
# end and then leave it, '.' blanks and the next key only
# unblanks, g N Enter / Home / End / n / p jump, --auto advances and a key pauses it, block
# digits toggle, the speaker notes never reach the presenter's pane, a too-small terminal
# gets a centred message, q and SIGTERM restore the terminal.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/../lesson/present/01-present.md
xdg=$(mktemp -d)
chmod 700 "$xdg"
trap 'tm_cleanup_all; rm -rf "$xdg"' EXIT
ARGS="--present $FIX --backend cpu --no-measure"

# The presenter's pane must never show a speaker note.
no_notes() {
    tm_screen | grep -qE "NOTE-|greet the room" && fail "a speaker note is on the presenter's screen ($1)"
    return 0
}
# The pane's shell reports the terminal modes after the program: canonical and echo again.
restored() {
    tm_wait "icanon" 5 || fail "no stty report ($1)"
    tm_screen | grep -qE "(^| )-icanon|(^| )-echo( |$)" && fail "terminal left raw after $1"
    tm_screen | grep -qE "(^| )icanon echo( |$)" || fail "icanon echo not reported after $1"
}
# at "slide X/N..." TEXT: wait for the footer and a text of the slide.
at() {
    tm_wait "$1" 5 || fail "expected '$1'"
    [ -z "${2:-}" ] || tm_wait "$2" 5 || fail "expected '$2' with '$1'"
    no_notes "$1"
}

mkdir "$xdg/exp"
tm_start 120 40 "$ARGS" "XDG_RUNTIME_DIR=$xdg" "XDG_STATE_HOME=$xdg/state" "COLLVIZ_EXPORT_DIR=$xdg/exp"
at "slide 1/4 · Presenter fixture" "Welcome to the ring"
tm_screen | grep -qF "• one chunk moves per step" || fail "narration list not drawn"
# e: the presenter's screen as SVG and text, as the audience sees it (no note in it).
# e says where it will write first; a second e writes (without that notice in the picture).
tm_keys e
at "e again writes the screen to $xdg/exp/"
ls "$xdg"/exp/collviz-present-* >/dev/null 2>&1 && fail "the first e already wrote"
tm_keys e
at "wrote $xdg/exp/collviz-present-"
grep -q "e again writes" "$xdg"/exp/collviz-present-*.txt && fail "the export shows the e notice"
grep -q "Welcome to the ring" "$xdg"/exp/collviz-present-*.txt || fail "exported text lacks the slide"
grep -q "NOTE-" "$xdg"/exp/collviz-present-*.svg && fail "a note in the exported SVG"
tm_keys NPage
at "slide 2/4 · step 0/6" "All-reduce on four ranks"
tm_screen | grep -q "collviz · all-reduce" || fail "the slide's scene is not drawn"
# PageDown walks the scene's stops (its phases: after the reduce-scatter, the end), the steps
# between played; a press during the play goes to its stop at once
tm_keys NPage
at "slide 2/4 · step 1/6"
at "slide 2/4 · step 3/6"
tm_keys NPage
tm_keys NPage
at "slide 2/4 · step 6/6"
sleep 1.2
at "slide 2/4 · step 6/6" # the second press finished the play; it did not leave
# the arrows step every frame
tm_keys Left
at "slide 2/4 · step 5/6"
tm_keys Right
at "slide 2/4 · step 6/6"
tm_keys Space
at "slide 3/4 · step 1/3" "Reduce-scatter alone" # its scene starts at step 1
tm_keys PPage
at "slide 2/4 · step 6/6" # back into the previous slide at its last stop
tm_keys PPage
at "slide 2/4 · step 3/6"

# A clicker's start/stop button sends F5 or Esc: the scene's end, then the next slide;
# neither quits.
tm_keys Escape
at "slide 2/4 · step 6/6"
tm_keys F5
at "slide 3/4 · step 1/3"
tm_screen | grep -q "EXITED" && fail "Esc or F5 quit the presenter"
tm_keys PPage
at "slide 2/4 · step 6/6"

# Blank: everything goes; the next key only brings it back (it does not also move).
tm_keys .
tm_wait_gone "slide 2/4" 3 || fail "'.' did not blank the screen"
[ -z "$(tm_screen | tr -d ' \n')" ] || fail "the blank screen is not empty"
tm_keys n
at "slide 2/4 · step 6/6"
tm_keys b
tm_wait_gone "slide 2/4" 3 || fail "'b' did not blank the screen"
tm_keys NPage
at "slide 2/4 · step 6/6"

# Whole slides and jumps.
tm_keys g 4 Enter
at "slide 4/4" "Wrap-up"
tm_screen | grep -qF "Raw <b>markup</b> & friends stay text." || fail "raw HTML not shown as text"
tm_keys NPage
at "End of the lesson: " "What it taught" # past the talk's last frame: its end page (E)
tm_keys n
at "this is the last slide"
tm_keys Home
at "slide 1/4" "Welcome to the ring"
tm_keys End
at "slide 4/4"
tm_keys p
at "slide 3/4 · step 1/3"
tm_keys g 9 Enter
at "no slide 9 (1..4)"
tm_keys n
at "slide 4/4"

# Block digits: on by default where they fit (the reduce-scatter's values at 120x40), d
# toggles them.
tm_keys p
at "slide 3/4 · step 1/3"
tm_screen | grep -q "███" || fail "no block digits at 120x40"
tm_keys d
at "block digits off"
tm_wait_gone "███" 3 || fail "d did not turn block digits off"
tm_squeezed | grep -q "│ 0 1 7 3 " || fail "plain values of rank 0 at step 1 not shown"
tm_keys d
at "block digits on"
tm_wait "███" 3 || fail "d did not turn block digits on"

# Too small, then back.
tm resize-window -t main -x 70 -y 20
tm_wait "terminal too small: 70x20, need 80x24" 5 || fail "no too-small message"
tm_screen | grep -q "slide 3/4" && fail "a half-drawn screen below the minimum"
tm resize-window -t main -x 120 -y 40
at "slide 3/4 · step 1/3"

tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit"
restored "q"

# --auto: slides advance on their own; any key pauses; a resumes.
tm_cleanup
rm -rf "$xdg/state" # each run starts at slide 1, not where the last one was
tm_start 120 40 "$ARGS --auto 1" "XDG_RUNTIME_DIR=$xdg" "XDG_STATE_HOME=$xdg/state"
at "slide 1/4"
tm_wait "slide 2/4" 4 || fail "--auto 1 did not advance"
tm_keys x
at "auto-advance paused"
paused=$(tm_screen | grep -o "slide [0-9]/4" | head -1)
sleep 2.2
tm_screen | grep -qF "$paused" || fail "--auto went on after a key (was at $paused)"
tm_keys a
tm_wait_gone "$paused" 4 || fail "a did not resume --auto"

# A scene with autoplay steps on its own, and stops at its last step. Two seconds a step:
# a loaded machine's look at the screen can take most of half a second, and step 0 must be
# on screen long enough to be seen.
printf '# Auto\n\nIt moves.\n\n```scene\ncollective: all_gather\nautoplay: 2\n```\n' >"$xdg/01-auto.md"
tm_cleanup
rm -rf "$xdg/state" # each run starts at slide 1, not where the last one was
tm_start 120 40 "--present $xdg/01-auto.md --backend cpu --no-measure" "XDG_RUNTIME_DIR=$xdg" "XDG_STATE_HOME=$xdg/state"
at "slide 1/1 · step 0/3"
tm_wait "step 1/3" 8 || fail "autoplay did not step"
tm_wait "step 3/3" 12 || fail "autoplay did not reach the last step"
sleep 2.5
tm_screen | grep -qF "step 3/3" || fail "autoplay went past the end"

# A backend that cannot run here: the panel gives the reason and the talk goes on (where
# NCCL does run, the panel is NCCL's).
tm_cleanup
rm -rf "$xdg/state" # each run starts at slide 1, not where the last one was
tm_start 120 40 "--present $FIX --backend nccl" "XDG_RUNTIME_DIR=$xdg" "XDG_STATE_HOME=$xdg/state"
at "slide 1/4"
tm_keys n
at "slide 2/4 · step 0/6"
tm_wait "no backend: nccl:" 5 || tm_wait "measured · nccl" 5 || fail "no reason for the missing backend"
tm_keys NPage
at "slide 2/4 · step 1/6"
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit (nccl)"

# SIGTERM: the terminal comes back, the status is 128+15.
tm_cleanup
rm -rf "$xdg/state" # each run starts at slide 1, not where the last one was
tm_start 120 40 "$ARGS" "XDG_RUNTIME_DIR=$xdg" "XDG_STATE_HOME=$xdg/state"
at "slide 1/4"
pid=$(tm_pid)
kill -TERM "$pid"
tm_wait "EXITED:143" 5 || fail "SIGTERM: no exit 143"
restored "SIGTERM"

# Bad input: one line, exit 2, before the screen starts.
"$BIN" --present /nonexistent.md >/dev/null 2>"$xdg/err"
[ $? -eq 2 ] || fail "missing lesson: exit status not 2"
[ "$(wc -l <"$xdg/err")" -eq 1 ] && grep -q "nonexistent.md" "$xdg/err" || fail "missing lesson: $(cat "$xdg/err")"
"$BIN" --present "$FIX" --auto 0 >/dev/null 2>"$xdg/err"
[ $? -eq 2 ] && grep -q "auto: bad value '0'" "$xdg/err" || fail "--auto 0 accepted: $(cat "$xdg/err")"
"$BIN" --present "$FIX" --name ../x >/dev/null 2>"$xdg/err"
[ $? -eq 2 ] && grep -q "bad name '../x'" "$xdg/err" || fail "--name ../x accepted"
echo "ok: --present walks stops and slides, Esc/F5 skip a scene, blank, jumps, --auto, block digits, too small, q and SIGTERM restore"

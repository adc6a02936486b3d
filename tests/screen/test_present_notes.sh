#!/usr/bin/env bash
# collviz notes follows a running presenter: the current slide's speaker note, the next
# slide's title, the slide number, the elapsed time; each slide change shows up within a
# second; the note never appears on the presenter's pane; the socket is 0600 in a 0700
# directory; two presenters with different names run at once; the notes terminal waits for
# a presenter that went away and follows the next one; q restores its terminal.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/../lesson/present/01-present.md
xdg=$(mktemp -d)
chmod 700 "$xdg"
trap 'tm_cleanup_all; rm -rf "$xdg"' EXIT
ENVS="XDG_RUNTIME_DIR=$xdg XDG_STATE_HOME=$xdg/state"

notes_screen() { tm capture-pane -p -t notes; }
# notes_wait TEXT MS: until the notes pane shows TEXT, at most MS milliseconds.
notes_wait() {
    local end=$(($(date +%s%N) / 1000000 + $2))
    while [ $(($(date +%s%N) / 1000000)) -le "$end" ]; do
        notes_screen | grep -qF -- "$1" && return 0
        sleep 0.05
    done
    return 1
}
start_notes() { # ARGS
    tm new-session -d -x 100 -y 24 -s notes \
        "env $ENVS LANG=C.UTF-8 LC_ALL=C.UTF-8 $BIN notes $1; echo NOTES-EXITED:\$?; stty -a | tr ' ;' '\n\n' | grep -E '^-?(icanon|echo)\$' | tr '\n' ' '; echo; sleep 600"
}

# The notes terminal first: no presenter yet.
tm_start 80 24 "--version" "$ENVS" # a placeholder pane, so the tmux server exists
start_notes ""
notes_wait "waiting for presenter default" 3000 || fail "notes: no waiting message"
tm kill-session -t main
tm -f /dev/null new-session -d -x 120 -y 40 -s main \
    "env $ENVS LANG=C.UTF-8 LC_ALL=C.UTF-8 $BIN --present $FIX --backend cpu --no-measure; echo EXITED:\$?; sleep 600"
tm_wait "slide 1/4" 5 || fail "presenter did not start"
notes_wait "NOTE-ONE greet the room and point at rank 0" 3000 || fail "notes did not connect"
notes_screen | grep -qF "slide 1/4 · Presenter fixture" || fail "notes: no slide number"
notes_screen | grep -qF "Next: All-reduce on four ranks" || fail "notes: no next title"
notes_screen | grep -qE "elapsed 00:0[0-9]" || fail "notes: no elapsed time"
notes_screen | grep -qE "[0-2][0-9]:[0-5][0-9]:[0-5][0-9]" || fail "notes: no clock"

# Socket and directory permissions.
[ "$(stat -c '%a %U' "$xdg/collviz")" = "700 $(id -un)" ] || fail "socket dir is $(stat -c '%a %U' "$xdg/collviz")"
[ "$(stat -c '%a %F' "$xdg/collviz/default.sock")" = "600 socket" ] ||
    fail "socket is $(stat -c '%a %F' "$xdg/collviz/default.sock")"

# Every move shows up on the notes terminal within a second; never on the presenter.
check_move() { # KEY FOOTER NOTE-TEXT
    tm_keys "$1"
    notes_wait "$3" 1000 || fail "notes did not follow '$1' within 1 s (wanted '$3')"
    tm_wait "$2" 3 || fail "presenter not at '$2'"
    tm_screen | grep -qE "NOTE-|greet the room|full sum of chunk" && fail "a note is on the presenter's pane"
    return 0
}
check_move NPage "slide 2/4" "NOTE-TWO ask who holds the full sum of chunk 2"
notes_screen | grep -qF "after the third step" || fail "a note's second line is missing"
notes_screen | grep -qF "Next: Reduce-scatter alone" || fail "next title not updated"
check_move n "slide 3/4" "NOTE-THREE reduce-scatter is half an all-reduce"
check_move n "slide 4/4" "(no speaker note on this slide)"
notes_screen | grep -qF "(this is the last slide)" || fail "no last-slide marker"
check_move Home "slide 1/4" "NOTE-ONE"
# Blanking is reported to the speaker, not shown to the audience.
tm_keys .
notes_wait "SCREEN BLANKED" 1000 || fail "notes: blanking not shown within 1 s"
tm_keys x
notes_wait "Now: Welcome to the ring" 1000 || fail "notes after unblank"
sleep 1.2
notes_screen | grep -q "SCREEN BLANKED" && fail "notes still say blanked"

# A second presenter under another name, at the same time, with its own notes.
tm new-session -d -x 120 -y 40 -s main2 \
    "env $ENVS LANG=C.UTF-8 LC_ALL=C.UTF-8 $BIN --present $FIX --name room2 --backend cpu --no-measure; sleep 600"
tm new-session -d -x 100 -y 24 -s notes2 "env $ENVS LANG=C.UTF-8 $BIN notes --name room2; sleep 600"
# Until room2's notes show its presenter's first slide: both are up and connected.
end=$(($(date +%s) + 5))
until tm capture-pane -p -t notes2 | grep -qF "slide 1/4"; do
    [ "$(date +%s)" -le $end ] || fail "notes --name room2 did not connect to its presenter"
    sleep 0.1
done
tm send-keys -t main2 End
end=$(($(date +%s) + 3))
until tm capture-pane -p -t notes2 | grep -qF "slide 4/4"; do
    [ "$(date +%s)" -le $end ] || fail "notes --name room2 did not follow its presenter"
    sleep 0.1
done
notes_screen | grep -qF "slide 1/4" || fail "the default notes followed room2's presenter"
[ "$(stat -c '%a' "$xdg/collviz/room2.sock")" = 600 ] || fail "room2 socket not 0600"
# The same name twice: the second presenter runs, without notes, and says why.
tm new-session -d -x 120 -y 40 -s dup \
    "env $ENVS LANG=C.UTF-8 LC_ALL=C.UTF-8 $BIN --present $FIX --backend cpu --no-measure; sleep 600"
end=$(($(date +%s) + 5))
until tm capture-pane -p -t dup | grep -qF "no speaker notes: notes: a presenter named 'default' is already running"; do
    [ "$(date +%s)" -le $end ] || { tm capture-pane -p -t dup | tail -2; fail "duplicate name not reported"; }
    sleep 0.1
done
tm kill-session -t dup

# The presenter quits: notes wait; a new presenter: notes follow it again.
tm_keys q
tm_wait "EXITED:0" 5 || fail "presenter did not quit"
notes_wait "waiting for presenter default" 2000 || fail "notes did not notice the presenter left"
tm kill-session -t main
tm -f /dev/null new-session -d -x 120 -y 40 -s main \
    "env $ENVS LANG=C.UTF-8 LC_ALL=C.UTF-8 $BIN --present $FIX --backend cpu --no-measure; echo EXITED:\$?; sleep 600"
notes_wait "NOTE-ONE" 3000 || fail "notes did not reconnect to the restarted presenter"
[ -e "$xdg/collviz/default.sock" ] || fail "no socket while presenting"

# q on the notes terminal restores it.
tm send-keys -t notes q
notes_wait "NOTES-EXITED:0" 3000 || fail "notes: q did not quit"
notes_wait "icanon" 3000 || fail "notes: no stty report"
notes_screen | grep -qE "(^| )-icanon|(^| )-echo( |$)" && fail "notes left the terminal raw"
# The presenter removes its socket when it quits.
tm_keys q
tm_wait "EXITED:0" 5 || fail "second presenter did not quit"
sleep 0.3
[ -e "$xdg/collviz/default.sock" ] && fail "socket left behind after quit"
# A socket directory that is not private is refused by the notes side.
chmod 755 "$xdg/collviz"
XDG_RUNTIME_DIR=$xdg "$BIN" notes >/dev/null 2>"$xdg/err"
[ $? -eq 2 ] && grep -q "is not private" "$xdg/err" || fail "a 0755 socket dir was accepted: $(cat "$xdg/err")"
chmod 700 "$xdg/collviz"

# A note longer than the terminal, at 80x24: marked, scrolled by the notes terminal's own keys
# through a real terminal, and a new slide (the presenter's n) opens at the top of its note.
LONG=$HERE/../lesson/notes/01-long-notes.md
tm new-session -d -x 80 -y 24 -s plong \
    "env $ENVS LANG=C.UTF-8 LC_ALL=C.UTF-8 $BIN --present $LONG --name long --backend cpu --no-measure; sleep 600"
tm new-session -d -x 80 -y 24 -s nlong "env $ENVS LANG=C.UTF-8 LC_ALL=C.UTF-8 $BIN notes --name long; sleep 600"
long_screen() { tm capture-pane -p -t nlong; }
long_wait() { # TEXT: until the long notes pane shows TEXT, at most 3 s
    local end=$(($(date +%s) + 3))
    until long_screen | grep -qF -- "$1"; do
        [ "$(date +%s)" -le $end ] || { long_screen; fail "long notes: no '$1'"; }
        sleep 0.05
    done
}
long_wait "LONGNOTE-P1 begins"
long_wait "↓ more (PgDn Space), lines 1-"
long_screen | grep -qF "↑ more" && fail "long notes: an up mark at the top"
long_screen | grep -qF "LONGNOTE-END" && fail "long notes: the end shown with the start"
for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do tm send-keys -t nlong NPage; done
long_wait "LONGNOTE-END the very last words of the note"
long_wait "↑ more (PgUp)"
tm send-keys -t nlong Home
long_wait "LONGNOTE-P1 begins"
tm send-keys -t nlong j
long_wait "↑ more (PgUp)"
tm send-keys -t plong n # the presenter's next slide: its note from the top
long_wait "SHORTNOTE-TWO ask for the count"
long_screen | grep -qF "↑ more" && fail "long notes: a new slide did not open at its top"
tm kill-session -t plong
tm kill-session -t nlong
echo "ok: notes follow within 1 s, never on the presenter, 0600 socket, two names, reconnect, q restores, a long note scrolls"

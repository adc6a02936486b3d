#!/usr/bin/env bash
# The screen scripts' tmux control client (tm_cm in lib.sh) answers every command, however
# busy the pane is when it attaches. A pane that writes without pause (yes) has output
# queued for the client at any moment; each of 5 sessions opens its client on that pane,
# and the first command, and five after it, come back within 5 s (the client waits 30 s in
# the scripts: a lost reply was a script's 30 s stall, then the command sent again), and
# the client never reads the pane's output (%output): the screen comes from capture-pane.
# tmux 3.3a lost every reply after a `refresh-client -f no-output` sent while pane output
# was queued (the blocks of a pane it stopped following stayed ahead of the replies;
# tmux pull request 5049).
. "$(dirname "$0")/lib.sh" "$1"
TM_CM_TIMEOUT=5
BIN=$(command -v yes) || { echo "SKIP: no yes(1) here"; exit 77; }

for i in $(seq 1 5); do
    tm_start 80 24 "flood-$i"
    [ -n "$TM_CM_SOCK" ] || fail "session $i: the control client did not open"
    for j in $(seq 1 5); do
        tm_cm "display-message -p reply-$i-$j"
        rc=$?
        [ "$rc" = 0 ] || fail "session $i: command $j had no reply within ${TM_CM_TIMEOUT}s (tm_cm: $rc)"
    done
    tm_look
    [[ $TM_SCREEN == *"flood-$i"* ]] || fail "session $i: the pane's text was not captured"
    tm_cleanup
done
[ "$TM_CM_OUTPUT" = 0 ] || fail "the control client read $TM_CM_OUTPUT %output lines"
echo "ok: the control client answered 30 commands on 5 busy panes, and read no pane output"

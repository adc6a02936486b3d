#!/usr/bin/env bash
# SIGTERM, SIGINT and SIGHUP: the program restores the terminal, then dies of the signal
# (the shell sees 128+N), and the terminal is left sane - also in the middle of a
# measurement. A terminal that goes away ends the program too.
. "$(dirname "$0")/lib.sh" "$1"

for sig in TERM INT HUP; do
    tm_cleanup
    tm_start 100 30 "--backend cpu"
    tm_wait "step 0/" || fail "the screen never came up ($sig)"
    tm_wait "measuring" 10 || true # usually mid-measurement: the worker must not block exit
    pid=$(tm_pid)
    [ -n "$pid" ] || fail "no collviz process found ($sig)"
    kill -s "$sig" "$pid"
    num=$(kill -l "$sig")
    tm_wait "EXITED:$((128 + num))" 15 || fail "SIG$sig did not end the program with $((128 + num))"
    tm_wait "icanon" 5 || fail "no stty report ($sig)"
    tm_screen | grep -qE "(^| )-icanon|(^| )-echo( |$)" && fail "terminal not restored after SIG$sig"
    tm_screen | grep -qF "step 0/" && fail "the program's screen is still shown after SIG$sig"
    kill -0 "$pid" 2>/dev/null && fail "collviz still running after SIG$sig"
done
# The terminal itself goes away (its tmux server killed): every full-screen program ends
# too, rather than spinning on a hung-up terminal whose every poll returns at once. Each
# runs twice: as the pane's foreground job (the kernel also sends SIGHUP), and in a session
# of its own (setsid), where no SIGHUP comes and the hung-up terminal alone must end it, as
# when the SIGHUP came while the program was not waiting for it.
LESSON="$(dirname "$0")/../lesson/present/01-present.md"
PLAIN_BIN=$BIN
hangup_case() { # name wait-text args
    BIN=$PLAIN_BIN
    hangup_once "$@"
    BIN="setsid $PLAIN_BIN"
    hangup_once "$1 (own session)" "$2" "$3"
    BIN=$PLAIN_BIN
}
hangup_once() { # name wait-text args
    tm_cleanup
    tm_start 100 30 "$3"
    tm_wait "$2" 20 || fail "the screen never came up (hangup, $1)"
    local pid
    pid=$(tm_pid)
    [ -n "$pid" ] || fail "no collviz process found (hangup, $1)"
    tm_kill "$SOCK"
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid"
        fail "$1 still running 5 s after its terminal went away"
    fi
}
hangup_case "the visualizer" "step 0/" "--backend cpu"
hangup_case "the lesson player" "slide 1/" "lesson $LESSON --backend cpu --no-measure"
hangup_case "--present" "slide 1/4" "--present $LESSON --name hup --backend cpu --no-measure"
hangup_case "collviz notes" "presenter" "notes --name hup-none"
echo "ok: SIGTERM, SIGINT and SIGHUP restore the terminal and exit; a closed terminal ends the visualizer, the player, the presenter and the notes"

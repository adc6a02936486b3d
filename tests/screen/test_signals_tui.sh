#!/usr/bin/env bash
# test_signals_tui.sh - every signal that ends a full-screen program restores the terminal
# first (issue 29, item 2): SIGQUIT (Ctrl-\), SIGUSR1, SIGPIPE and SIGALRM as SIGTERM, SIGINT
# and SIGHUP already do (test_signals.sh). For the visualizer each of the four, and for the
# lesson player, --present and --nccl-log's topology screen SIGQUIT: the program dies of
# the signal (the shell sees 128+N), the pane has left the alternate screen and shows the
# shell's stty report with icanon and echo on. (collviz notes shares the same terminal
# code: ui/kit/term.c's signal list.)
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
xdg=$(mktemp -d)
chmod 700 "$xdg"
trap 'tm_cleanup_all; rm -rf "$xdg"' EXIT
bad=0
miss() { # one failure more, said; the test goes on to the next case
    echo "FAIL ($TEST): $*"
    bad=$((bad + 1))
}

# one_case NAME WAIT_TEXT SIGNAL ARGS: start, wait for WAIT_TEXT, send SIGNAL, check.
one_case() {
    local name=$1 text=$2 sig=$3 args=$4 pid num
    tm_cleanup
    tm_start 110 32 "$args" "XDG_RUNTIME_DIR=$xdg" "XDG_STATE_HOME=$xdg/state"
    if ! tm_wait "$text" 20; then
        miss "$name: the screen never came up"
        return
    fi
    pid=$(tm_pid)
    [ -n "$pid" ] || {
        miss "$name: no collviz process"
        return
    }
    kill -s "$sig" "$pid"
    num=$(kill -l "$sig")
    tm_wait "EXITED:$((128 + num))" 10 || miss "$name: SIG$sig did not end it with $((128 + num))"
    tm_wait "icanon" 5 || miss "$name: no stty report after SIG$sig"
    tm_screen | grep -qE "(^| )-icanon|(^| )-echo( |$)" && miss "$name: terminal left raw after SIG$sig"
    [ "$(tm display-message -p -t main '#{alternate_on}')" = 0 ] ||
        miss "$name: still on the alternate screen after SIG$sig"
    tm_screen | grep -qF "$text" && miss "$name: its screen is still shown after SIG$sig"
    kill -0 "$pid" 2>/dev/null && {
        kill -9 "$pid"
        miss "$name: still running after SIG$sig"
    }
}

for sig in QUIT USR1 PIPE ALRM; do
    one_case "visualizer" "step 0/" "$sig" "--backend cpu --no-measure"
done
one_case "lesson player" "slide 1/" QUIT "lesson $HERE/../lesson/present/01-present.md --backend cpu --no-measure"
one_case "--present" "slide 1/4" QUIT "--present $HERE/../lesson/present/01-present.md --backend cpu --no-measure"
one_case "--nccl-log" "rank" QUIT "--no-measure --nccl-log $HERE/../records/04-socket-2node-p40-nccl248.log"

if [ "$bad" -ne 0 ]; then
    echo "test_signals_tui: $bad failure(s)"
    exit 1
fi
echo "ok: SIGQUIT, SIGUSR1, SIGPIPE and SIGALRM restore the terminal in every screen"

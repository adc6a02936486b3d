#!/usr/bin/env bash
# SIGTERM, SIGINT and SIGHUP: the program restores the terminal, then dies of the signal
# (the shell sees 128+N), and the terminal is left sane - also in the middle of a
# measurement.
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
echo "ok: SIGTERM, SIGINT and SIGHUP restore the terminal and exit"

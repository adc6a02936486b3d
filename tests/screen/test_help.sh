#!/usr/bin/env bash
# ? opens the help overlay, generated from the key table (so it names every action), with
# the colour legend; Esc closes it, ? toggles it, and q quits from inside it.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 80 24 "--backend cpu --no-measure"
tm_wait "step 0/" || fail "the screen never came up"
tm_keys '?'
tm_wait "help: keys" || fail "? did not open the help"
for text in "next step" "previous step" "PgDn" "Home" "play / pause" "all-to-all" \
    "reduce-scatter" "measure now" "sweep sizes" "cancel measurement" "quit" \
    "partial reduction" "send/receive buffer" "10^9 B/s"; do
    tm_screen | grep -qF -- "$text" || fail "help lacks '$text'"
done
tm_keys Escape
tm_wait_gone "help: keys" 5 || fail "Esc did not close the help"
tm_keys '?'
tm_wait "help: keys" || fail "? did not reopen the help"
tm_keys 7 # other actions are ignored while the help is open
sleep 0.3
tm_screen | grep -qF "help: keys" || fail "a key other than Esc/?/q closed the help"
tm_keys '?'
tm_wait_gone "help: keys" 5 || fail "? did not close the help"
tm_keys '?'
tm_wait "help: keys" || fail "? did not reopen the help"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q inside the help did not quit"
echo "ok: help overlay opens, lists the key table and closes"

#!/usr/bin/env bash
# q exits with status 0 and leaves the terminal sane: canonical mode and echo back on
# (the pane runs `stty -a` after the program), and the program's screen gone.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 100 30 "--backend cpu"
tm_wait "step 0/" || fail "the screen never came up"
tm_keys l l
tm_wait "step 2/" || fail "l did not step"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit with status 0"
tm_wait "icanon" 5 || fail "no stty report"
tm_screen | grep -qE "(^| )-icanon|(^| )-echo( |$)" && fail "terminal left in raw/noecho mode"
tm_screen | grep -qE "(^| )icanon( |$)" || fail "icanon not reported"
tm_screen | grep -qE "(^| )echo( |$)" || fail "echo not reported"
tm_screen | grep -qF "step 2/" && fail "the program's screen is still shown after exit"
echo "ok: q exits 0 and restores the terminal"

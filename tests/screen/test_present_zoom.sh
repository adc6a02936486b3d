#!/usr/bin/env bash
# The presenter's + / - zoom on the fixture's all-reduce slide at 120x36: zoom 1 hides the
# measured panel, zoom 2 draws the block digits twice as wide (runs of six ink cells where
# the 3-column glyphs have at most three), - undoes it step by step; the zoom is kept per
# deck across a restart (also with --start); on the presenter the ranks are w / W, and + no
# longer changes them.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/../lesson/present/01-present.md
xdg=$(mktemp -d)
chmod 700 "$xdg"
trap 'tm_cleanup_all; rm -rf "$xdg"' EXIT
ARGS="--present $FIX --backend cpu --no-measure"
ENVS="XDG_RUNTIME_DIR=$xdg XDG_STATE_HOME=$xdg/state"

# The longest run of full block cells on the screen (the digits' ink), counted in bytes in
# the C locale (a "█" is 3 bytes of UTF-8) so the result does not hang on the shell's locale.
ink_run() {
    tm_screen | LC_ALL=C grep -oE '(█)+' |
        LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print int(m / 3) }'
}
# until the longest run is (-eq) or is not more than (-le) N
wait_run() {
    local op=$1 n=$2 end=$(($(date +%s) + 5))
    while [ "$(date +%s)" -le "$end" ]; do
        [ "$(ink_run)" "$op" "$n" ] && return 0
        sleep 0.1
    done
    fail "longest run of block ink $(ink_run), expected $op $n ($3)"
}
panel_shown() { tm_wait "measured · cpu" 5 || fail "the measured panel is not shown ($1)"; }
panel_gone() { tm_wait_gone "measured · cpu" 5 || fail "the measured panel is still shown ($1)"; }

tm_start 120 36 "$ARGS --start 2" "$ENVS"
tm_wait "slide 2/4 · step 0/6" 5 || fail "not on the all-reduce slide"
panel_shown "zoom 0"
wait_run -le 3 "zoom 0: 3-column glyphs"
tm_keys +
tm_wait "zoom 1/3: no measured panel" 5 || fail "+ did not zoom"
panel_gone "zoom 1"
tm_wait "W=4 " 5 || fail "+ changed the ranks on the presenter"
wait_run -le 3 "zoom 1: the same glyphs"
tm_keys +
tm_wait "zoom 2/3" 5 || fail "the second + did not zoom"
wait_run -eq 6 "zoom 2: glyphs twice as wide"
tm_keys -- -
tm_wait "zoom 1/3" 5 || fail "- did not zoom out"
wait_run -le 3 "back at zoom 1"
panel_gone "back at zoom 1"
tm_keys -- -
tm_wait "zoom 0/3" 5 || fail "the second - did not zoom out"
panel_shown "back at zoom 0"
tm_keys -- -
tm_wait "zoom 0 is the smallest" 5 || fail "no word at the smallest zoom"
# Ranks on the presenter: w / W (+ and - zoom there).
tm_keys w
tm_wait "W=5 " 5 || fail "w did not add a rank"
tm_keys W
tm_wait "W=4 " 5 || fail "W did not take the rank away"
tm_keys + +
tm_wait "zoom 2/3" 5 || fail "zoom 2 not reached again"
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit"
grep -qx "zoom 2" "$xdg"/state/collviz/present-*.pos || fail "the zoom is not in the position file"
tm_cleanup

# The same deck again: zoom 2 is back, with the slide (--resume) and with --start.
for start in "--resume" "--start 2"; do
    tm_start 120 36 "$ARGS $start" "$ENVS"
    tm_wait "slide 2/4" 5 || fail "not back on slide 2 ($start)"
    panel_gone "after a restart $start"
    wait_run -eq 6 "after a restart $start"
    tm_keys -- -
    tm_wait "zoom 1/3" 5 || fail "- after a restart did not go to zoom 1 ($start)"
    tm_keys +
    tm_wait "zoom 2/3" 5 || fail "+ after a restart"
    tm_keys q
    tm_wait "EXITED:0" 5 || fail "q did not quit ($start)"
    tm_cleanup
done
# Another deck (a copy elsewhere) has a zoom of its own: 0.
mkdir "$xdg/other"
cp "$FIX" "$xdg/other/"
tm_start 120 36 "--present $xdg/other/01-present.md --backend cpu --no-measure --start 2" "$ENVS"
tm_wait "slide 2/4" 5 || fail "the other deck did not start"
panel_shown "another deck"
wait_run -le 3 "another deck"
tm_keys q
echo "ok test_present_zoom"

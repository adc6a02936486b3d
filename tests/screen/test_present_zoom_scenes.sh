#!/usr/bin/env bash
# The presenter's + / - zoom on the scenes that are not collectives: on the
# parallelism screen (lesson 11's pipeline slide, at 120x48, where its narration and the
# whole scene share the page, the panel framed) zoom 1 drops the measured panel, 2 keeps
# only the key matrices (stage 0 shows x2, not x0), 3 drops the transfer and sentence rows
# too (the pipeline chart stays); on the hierarchy screen (lesson 2's ladder) zoom 1 drops
# the tiers' detail lines and the what-if table, 2 the "not measured" lines, and the room
# left goes between the lines that stay. The zoom is kept in the deck's position file.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
LESSONS=$HERE/../../lessons
xdg=$(mktemp -d)
chmod 700 "$xdg"
trap 'tm_cleanup_all; rm -rf "$xdg"' EXIT
ENVS="XDG_RUNTIME_DIR=$xdg XDG_STATE_HOME=$xdg/state"
has() { tm_wait "$1" 5 || fail "'$1' is not shown ($2)"; }
gone() { tm_wait_gone "$1" 5 || fail "'$1' is still shown ($2)"; }

# ---- the parallelism screen
tm_start 120 48 "--present $LESSONS/11-pipeline-parallel.md --backend cpu --no-measure --start 2" "$ENVS"
tm_wait "slide 2/" 5 || fail "the pipeline slide did not come up"
for _ in 1 2 3 4 5 6; do
    tm_screen | grep -qF "tick 3/10" && break
    tm_keys Right
    sleep 0.3
done
has "tick 3/10" "the pipeline's fourth frame"
has "measured on cpu ranks" "zoom 0: the panel"
has "x0 ✓" "zoom 0: every matrix"
tm_keys +
has "zoom 1/3: no panel" "zoom 1's word"
gone "measured on cpu ranks" "zoom 1: the panel"
has "x0 ✓" "zoom 1: every matrix"
tm_keys +
has "zoom 2/3: no panel, key matrices only" "zoom 2's word"
gone "x0 ✓" "zoom 2: a matrix that is not a key one"
has "x2 ✓" "zoom 2: the key matrix"
has "s0 ─▶ s1 x2 mb2" "zoom 2: the transfer"
has "Tick 3 of 10" "zoom 2: the sentence"
tm_keys +
has "zoom 3/3" "zoom 3's word"
gone "s0 ─▶ s1 x2 mb2" "zoom 3: the transfer"
gone "Tick 3 of 10" "zoom 3: the sentence"
has "ideal schedule (model)" "zoom 3: the pipeline chart"
has "x2 ✓" "zoom 3: the key matrix"
tm_keys -- - - -
has "zoom 0/3" "back at zoom 0"
has "measured on cpu ranks" "back at zoom 0: the panel"
has "x0 ✓" "back at zoom 0: every matrix"
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit (parallel)"
tm_cleanup

# ---- the hierarchy screen (its ladder at step 0)
tm_start 120 48 "--present $LESSONS/02-hierarchy.md --backend cpu --no-measure --start 1" "$ENVS"
tm_wait "slide 1/" 5 || fail "the hierarchy slide did not come up"
for _ in 1 2 3; do
    tm_screen | grep -qF "the ladder and what if" && break
    tm_keys Right
    sleep 0.3
done
has "the ladder and what if" "the ladder page"
has "the SMs of one GPU" "zoom 0: a tier's details"
has "What if:" "zoom 0: the what-if table"
gone "this machine, memcpy: not measured" "zoom 0: the room told what is not measured"
tm_keys +
has "zoom 1/3" "zoom 1's word"
gone "the SMs of one GPU" "zoom 1: a tier's details"
gone "What if:" "zoom 1: the what-if table"
gone "this machine, memcpy: not measured" "zoom 1: the room told what is not measured"
tm_keys +
has "zoom 2/3" "zoom 2's word"
gone "this machine, memcpy: not measured yet" "zoom 2: what is not measured"
has "HBM (B200)" "zoom 2: the tiers"
has "1.8 TB/s" "zoom 2: the lecture's figures"
# The room left goes between the lines: an empty row under each tier.
row=$(tm_screen | grep -n "HBM (B200)" | cut -d: -f1)
next=$(tm_screen | sed -n "$((row + 1))p")
[ -z "${next// /}" ] || fail "zoom 2: no empty row under the HBM tier: '$next'"
tm_screen | sed -n "$((row + 2))p" | grep -qF "NVLink" || fail "zoom 2: NVLink is not two rows under HBM"
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit (hierarchy)"
grep -qx "zoom 2" "$xdg"/state/collviz/present-*.pos || fail "the zoom is not in the position file"
echo "ok test_present_zoom_scenes"

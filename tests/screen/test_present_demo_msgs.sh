#!/usr/bin/env bash
# A live-demo key that fails on the presenter says why without naming a key: the room's
# screen (its footer and the scene) never shows "(p opens ...)", "(n switches scheme)",
# "(? lists its keys)", "(y goes back ...)", "(m measures ...)", "(x cancels)" and the like.
# Every message a demo key can give there: measure and sweep with no backend, the size at
# its limits, ranks at 16, schedule and overlap on a collective, another screen's key on the
# collectives, parallelism and hierarchy screens, training with no worker, and a measured
# row of another op after a change of op (with the cpu backend): not shown to the room. The explorer still names the key,
# the one that works there (p opens the parallelism screen).
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/../lesson/present/01-present.md
LESSONS=$HERE/../../lessons
xdg=$(mktemp -d)
chmod 700 "$xdg"
trap 'tm_cleanup_all; rm -rf "$xdg"' EXIT
ENVS="XDG_RUNTIME_DIR=$xdg XDG_STATE_HOME=$xdg/state"
# A parenthesis that names a key and what it does, or the room test's hints.
KEYED='\([^ ()]{1,5} (opens|switches|goes back|lists|measures|cancels|trains|says)|press [^ ]+ to|\(or l\)'

footer() { tm_screen | tail -n 1; }
# key KEYS... then WORDS: after the keys the footer shows WORDS, and no screen row names a key
say() {
    local words=$1
    shift
    tm_keys "$@"
    tm_wait "$words" 5 || fail "after '$*' the screen does not say '$words'"
    if tm_screen | grep -qE "$KEYED"; then
        fail "after '$*' the room's screen names a key: $(tm_screen | grep -oE "$KEYED" | head -1)"
    fi
}

# ---- no backend (nccl cannot open here): measure, sweep, sizes, ranks, other screens' keys
tm_start 120 36 "--present $FIX --backend nccl --start 2" "$ENVS"
tm_wait "slide 2/4" 5 || fail "the all-reduce slide did not come up"
if tm_wait "no backend" 3; then
    say "no backend to measure on" m
    say "no backend to measure on" s
else
    echo "SKIP: measure and sweep without a backend (NCCL opened here)"
fi
say "the schedule applies to pp" S
say "overlap applies to ddp" O
say "that key is not for the collectives screen" J
keys=()
for _ in $(seq 1 16); do keys+=("["); done
say "measurement size stays within 4 KiB..16 GiB" "${keys[@]}"
keys=()
for _ in $(seq 1 14); do keys+=(w); done
say "ranks stay within" "${keys[@]}"
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit"
tm_cleanup

# ---- the parallelism screen (lesson 11's pipeline slide)
tm_start 120 36 "--present $LESSONS/11-pipeline-parallel.md --backend nccl --start 2" "$ENVS"
tm_wait "slide 2/" 5 || fail "the pipeline slide did not come up"
tm_keys Space
tm_wait "frame " 5 || fail "the pipeline's scene is not shown"
say "overlap applies to ddp, prefetch to zero3" O
say "that key is for the collectives screen" s
if tm_screen | grep -qF "no backend"; then say "no worker to train on" m; fi
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit (parallel)"
tm_cleanup

# ---- the hierarchy screen
tm_start 120 36 "--present $LESSONS/02-hierarchy.md --backend nccl --start 1" "$ENVS"
tm_wait "slide 1/" 5 || fail "the hierarchy slide did not come up"
tm_keys Space
tm_wait "the ladder and what if" 5 || fail "the ladder is not shown"
say "that key is for the collectives screen" s
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit (hierarchy)"
tm_cleanup

# ---- a stale measured row: measured, then the op changes (the cpu ranks, measured on m)
tm_start 120 36 "--present $FIX --backend cpu --no-measure --start 2" "$ENVS"
tm_wait "slide 2/4" 5 || fail "the all-reduce slide did not come up (cpu)"
tm_keys m
tm_wait "measured on cpu" 30 || fail "m did not measure on the cpu ranks"
# the room never sees another scene's figures: the row measured for sum is gone after the op
# changes to avg (the explorer marks it stale instead)
say "not measured for this scene" "*"
tm_screen | grep -qF "measured on cpu" && fail "the room still sees the row measured for sum"
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit (cpu)"
tm_cleanup

# ---- the explorer names the key that works there
tm_start 120 36 "--backend cpu --no-measure" "$ENVS"
tm_wait "step 0/" 5 || fail "the explorer did not come up"
tm_keys G
tm_wait "the schedule applies to pp (p opens the parallelism screen)" 5 ||
    fail "the explorer does not name p for the parallelism screen"
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit (explorer)"
echo "ok test_present_demo_msgs"

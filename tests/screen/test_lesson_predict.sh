#!/usr/bin/env bash
# test_lesson_predict.sh - predict first (issue 18): while a slide's exercise is unanswered
# the screen does not answer it. 03 "Scatter" asks what rank 2 holds after the scatter: its
# box shows ? from the asked step on (step 0, before the scatter, shows it empty), and S
# (give up) shows · · 2 ·; 10's all-gather slide asks for L·B·D: the panel's model line
# reads "L·B·D = ? per step" with an "answer first" line until the student gives up, then
# 524288; 05's all-gather slide holds its scene before the step that tells its choice's
# answer until the student gives up. Shipped lessons, --no-measure.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")/../.." && pwd)
STATE=$(mktemp -d)
trap 'tm_cleanup_all; rm -rf "$STATE"' EXIT

start() { # lesson id
    rm -rf "$STATE/collviz"
    tm_start 130 40 "lesson $1 --backend cpu --no-measure" XDG_STATE_HOME="$STATE" \
        COLLVIZ_LESSONS="$HERE/lessons"
    tm_wait "slide 1/" 10 || fail "lesson $1 never came up"
}
slide() { # n title
    local i
    for i in $(seq 2 "$1"); do tm_keys n; done
    tm_wait "slide $1/" 5 || fail "n did not reach slide $1"
    tm_wait "$2" 5 || fail "slide $1 is not '$2'"
}
# rank 2's box row: the values row of the boxes (the line after the box tops)
boxes() { tm_squeezed | grep -A1 -F "┌ r0" | tail -1; }

start rooted-collectives
slide 3 "Scatter: the root hands out"
tm_wait "step 1/1" 5 || fail "the scatter slide does not open at its last step"
boxes | grep -qF "│ ? ? ? ? │" || fail "rank 2's box is not hidden before the answer: $(boxes)"
tm_screen | grep -qF "answer first: the asked box shows ?" || fail "no 'answer first' line"
tm_keys Home
tm_wait "step 0/1" 5 || fail "Home did not go to step 0"
boxes | grep -qF "?" && fail "the box is hidden before the asked step: $(boxes)"
tm_keys End S
tm_wait "gave up; the answer: . . 2 ." 5 || fail "S did not give up"
tm_wait "│ · · 2 · │" 5 tm_squeezed || fail "rank 2's box is not shown after giving up: $(boxes)"
tm_screen | grep -qF "answer first" && fail "the 'answer first' line stayed after giving up"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

start tensor-parallel
slide 3 "All-gather before the next layer"
# the lecture's L·B·D = 524288 was on earlier slides' panel: the exercise asks with its own
# variant's numbers, so the student computes rather than recalls
tm_wait "variant 1" 5 || fail "the exercise is not asked with other numbers than the lecture's"
tm_keys L
tm_wait "L·B·D = ? per step" 5 || fail "the panel shows the answer L·B·D before the student"
tm_screen | grep -qF "answer first: the scene shows ? for figures" || fail "no 'answer first' line"
tm_screen | grep -qF "524288" && fail "524288 is on screen before the answer"
tm_keys S
tm_wait "L·B·D = 524288 per step" 5 || fail "the figure is not shown after giving up"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# 07's α-β slide asks a number whose answer is 8 on a W=8 scene: the scene's own settings
# (the legend's "Σ all 8", "8 ranks") are not hidden, only figures that answer
start algorithms
slide 5 "The α-β model"
tm_wait "Σ all 8" 5 || fail "the legend's W was hidden as an answer: $(tm_screen | grep -F 'data of')"
tm_screen | grep -qF "8 ranks = 8 CPU" || fail "the backend's rank count was hidden"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# 13's ring slide asks what rank 0 holds at the end, where every rank holds the same: no
# box may show it (found by a student's review: ranks 1 and 3 read 60 64 68 72, the answer
# on the inputs it had then; now its own, 10 13 9 -4)
start check-yourself
slide 3 "Problem 2: reduce-scatter, then all-gather"
tm_keys End
tm_wait "step 6/6" 5 || fail "End did not reach step 6"
boxes | grep -qE "10 +13 +9 +-4" && fail "a box shows the answer beside the hidden one: $(boxes)"
[ "$(boxes | grep -o '? ? ? ?' | wc -l)" -eq 4 ] || fail "not all four boxes hidden: $(boxes)"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# 14: figures that answer in another unit or rounded: "40 MiB/rank" for 41.9 MB, and the
# stage 3 figure "1.9 GB" for 1.875 GB (a panel's rounding), are hidden too
start sharding-zero
slide 2 "Stage 1: each rank updates only its shard"
# an earlier lesson showed the lecture's 40 MiB/rank: the exercise starts on a variant's
# numbers and says why (recall.h); L brings the lecture's numbers back
tm_wait "the lecture's answer was on screen" 5 tm_squeezed ||
    fail "the exercise does not start on a variant: $(tm_screen | grep -F 'variant')"
tm_keys L
tm_wait "w+g+AdamW ?/rank" 5 || fail "40 MiB/rank (the answer, 41.9 MB) is shown: $(tm_screen | grep -F 'AdamW')"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup
start sharding-zero
slide 6 "The paper's accounting"
tm_keys L Tab L
tm_wait "stage 2 ? stage 3 ?" 5 tm_squeezed ||
    fail "a stage's figure answers an open exercise: $(tm_squeezed | grep -F 'DDP 120')"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup
# 05's all-gather slide asks what a rank does with a finished chunk; its scene opens at step 3
# and plays on, and step 4's sentence says it ("which stores it", shows:): the scene stays at
# step 3 (autoplay stops there, → says "answer first") until the student gives up
start allreduce-decomposed
slide 5 "Steps 4 to 6: the all-gather phase"
tm_wait "step 3/6" 5 || fail "the all-gather slide does not open at step 3"
sleep 2 # autoplay's 1.5 s a step
tm_keys Right
tm_wait "answer first: the next step of this scene tells the answer" 5 ||
    fail "→ did not say answer first: $(tm_screen | grep -F 'step ')"
tm_screen | grep -qF "step 3/6" || fail "the scene stepped past its hold"
tm_screen | grep -qF "which stores it" && fail "the choice's answer is on screen"
tm_keys S Right
tm_wait "step 4/6" 5 || fail "→ did not step on after giving up"
tm_wait "which stores it" 5 tm_squeezed || fail "step 4's sentence is not shown after S"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
echo "ok: lesson player: predict first (hidden box, hidden panel figure, shown after S; equal boxes, per-rank units, rounded figures; a choice's scene held before the step that tells it)"

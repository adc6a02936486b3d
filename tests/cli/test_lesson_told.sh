#!/usr/bin/env bash
# test_lesson_told.sh - predict first in words: `lesson check` warns (and --strict fails)
# where the narration read since the last question restates a choice's right option, where a
# number answer is stated approximately before it is asked ("more than eighty times", "about
# 400 GB/s", "eighty times"), and on a doubled full stop in any text a student reads,
# including a wrong choice's verdict as the grader composes it; and a hint: line that goes on
# with the previous hint's sentence (a student would see half a sentence) is an error. Lessons written here, not the
# shipped ones, so the checks hold for lessons teachers write. Also on the ASan+UBSan binary.
# Usage: test_lesson_told.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
export XDG_STATE_HOME=$tmp/state

check() { # name rc file-of-expected-stderr-lines (grep -F each)...: lesson check on $tmp/l
    local name=$1 want=$2
    shift 2
    "$B" lesson check "$@" "$tmp/l" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq "$want" ] || fail "$name: exit status $rc, wanted $want ($(head -2 "$tmp/err"))"
}
has() { # name text: $tmp/err holds text
    grep -qF -- "$2" "$tmp/err" || fail "$1: no '$2' in: $(cat "$tmp/err")"
}
lines() { # name n: $tmp/err has n lines
    [ "$(wc -l <"$tmp/err")" -eq "$2" ] || fail "$1: $(wc -l <"$tmp/err") lines, wanted $2: $(cat "$tmp/err")"
}

mkdir -p "$tmp/l"
for B in $(cli_bins); do
    # ---- a choice's right option restated just above it -----------------------------------
    cat >"$tmp/l/01-told.md" <<'MD'
# Overlap

Backward runs from the last layer to the first, so the last layer's gradient is ready first.

```exercise
id: told-first
type: choice
prompt: Which gradient's all-reduce can start first?
option: The first layer's, because it is the biggest | backward produces it last
option: The last layer's, because backward produces it first
option: None: DDP cannot overlap | it can
correct: 2
```
MD
    check "told warns" 0
    has "told warns" "01-told.md:3: warning: slide 1 tells the right option of exercise told-first (asked on slide 1) before it is asked ('Backward runs from the last layer to the first, so the last '): ask, do not tell"
    lines "told warns" 1
    check "told strict" 2 --strict
    # asked, not told: the same slide passes
    sed -i 's/^Backward runs.*$/Backward walks the layers in the opposite order to forward. Which gradient is complete before the others?/' "$tmp/l/01-told.md"
    check "asked passes" 0 --strict
    lines "asked passes" 0

    # the slide before counts when it asks nothing; the sentence names several options
    # alike (a recap), and a one-word option, are not a restatement
    cat >"$tmp/l/01-told.md" <<'MD'
# Routing

A small router looks at each token and picks the expert that processes it; which rank a
token goes to is only known after the router looks at it.

---

# Which exchange

broadcast: the root's buffer to every rank. scatter: piece i to rank i.

```exercise
id: told-why
type: choice
prompt: Why can routing not use a fixed pattern set up before training?
option: Because experts change rank every step | they stay
option: Because which expert a token needs is only known after the router looks at it
option: Because all-reduce is too slow | speed is not the reason
correct: 2
```

```exercise
id: told-one-word
type: choice
prompt: Which collective gives every rank the root's weights?
option: scatter | each rank gets one piece
option: broadcast
correct: 2
```
MD
    check "told slide before" 0
    has "told slide before" "01-told.md:3: warning: slide 1 tells the right option of exercise told-why (asked on slide 2)"
    lines "told slide before" 1
    # another question in between does not make it untold: any narration before the
    # exercise counts, however many questions come between
    sed -i '0,/^---$/s//```exercise\nid: between\ntype: choice\nprompt: p\noption: a | no\noption: b\ncorrect: 2\n```\n\n---/' "$tmp/l/01-told.md"
    check "question between" 2 --strict
    has "question between" "01-told.md:3: warning: slide 1 tells the right option of exercise told-why (asked on slide 2)"
    lines "question between" 1

    # ---- a number answer stated approximately, in digits or words ---------------------------
    for say in "more than eighty times what one GPU holds" "eighty times what one GPU holds" \
        "about 80 times what one GPU holds" "roughly eighty-three times one GPU's memory" \
        "almost 90 times one GPU's memory"; do
        cat >"$tmp/l/01-told.md" <<MD
# Reason one

A trillion parameters need 16 TB for their state, $say.

\`\`\`exercise
id: told-times
type: number
prompt: How many times one GPU's 192 GB is 16000 GB?
param: tb = 16000
param: gb = 192
answer: tb / gb
units: x
tolerance: 2%
\`\`\`
MD
        check "approx '$say'" 0
        has "approx '$say'" "01-told.md:3: warning: slide 1 shows the answer of its exercise told-times before it is asked"
        check "approx '$say' strict" 2 --strict
    done
    # not the answer: another order of magnitude, the other side of a bound, a small word
    for say in "more than ninety times what one GPU holds" "about 8 times one GPU's memory" \
        "less than eighty times one GPU" "one of many GPUs, two racks"; do
        sed -i "3s/.*/A trillion parameters need 16 TB for their state, $say./" "$tmp/l/01-told.md"
        check "not approx '$say'" 0 --strict
        lines "not approx '$say'" 0
    done
    # a bandwidth "about 400 GB/s" for 393; the unit is converted ("about 0.4 TB/s")
    cat >"$tmp/l/01-told.md" <<'MD'
# The lecture's run

The lecture's run came out at about 0.4 TB/s.

---

# Compute it

```exercise
id: told-bw
type: number
prompt: 419.43 MB × 2 × 3 / (4 × 1.6 ms) in GB/s?
param: mb = 419.43
answer: mb * 6 / 6.4
units: GB/s
```
MD
    check "approx TB/s" 0
    has "approx TB/s" "01-told.md:3: warning: slide 1 shows the answer of exercise told-bw, asked later on slide 2 ('0.4 TB/s')"

    # ---- a doubled full stop --------------------------------------------------------------
    cat >"$tmp/l/01-told.md" <<'MD'
# Scales

The ring has 1..16 ranks... and so on. The end.. Rank r holds 10r .. 10r+3.

```exercise
id: told-stop
type: choice
prompt: Which is timed?
option: Both come from the animation; nothing was run. | The panel is timed.
option: The panel's figure.
correct: 2
hint: look at the panel.
```
MD
    check "double stop" 0
    has "double stop" "01-told.md:3: warning: the narration has a doubled full stop: '16 ranks... and so on. The end..'"
    lines "double stop" 1
    check "double stop strict" 2 --strict

    # ---- one hint's sentence written over two hint: lines (each line is a hint) -------------
    mkdir -p "$tmp/s"
    cat >"$tmp/s/01-split.md" <<'MD'
# Split

A ring of four ranks.

```exercise
id: split-hint
type: number
prompt: How many steps?
answer: 6
units: x
hint: In step 4 each rank r sends its finished chunk r to rank r+1. Rank 0 receives from
hint: rank 3.
hint: bytes first
hint: then the factor
```
MD
    "$B" lesson check "$tmp/s" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "split hint: exit status $rc, wanted 2 ($(head -2 "$tmp/err"))"
    has "split hint" "01-split.md:12: hint: this line goes on with the previous hint's sentence"
    sed -i 's/ Rank 0 receives from$/ Rank 0 receives from rank 3./; /^hint: rank 3\.$/d' "$tmp/s/01-split.md"
    "$B" lesson check "$tmp/s" >"$tmp/out" 2>"$tmp/err" || fail "two hints: refused: $(cat "$tmp/err")"
done
# the verdict on option 1 joins the option and its why with one full stop, not two
COLLVIZ_LESSONS=$tmp/l "$BIN" lesson grade told-stop 1 >"$tmp/out" 2>&1
grep -qxF "not right: 1) Both come from the animation; nothing was run. The panel is timed." "$tmp/out" ||
    fail "verdict join: $(cat "$tmp/out")"

cli_finish test_lesson_told

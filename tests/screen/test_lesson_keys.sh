#!/usr/bin/env bash
# test_lesson_keys.sh - every scene key a shipped slide asks for works in the lesson player
# (issue 18): 03 "Reduce" o changes the op and 0 brings the slide's scene back; 07 a the
# algorithm; 08 ] the measurement size; 09 O the overlap and N the scheme while n stays
# the next slide; 11 g the schedule (GPipe/1F1B); and the help lists the scene keys with
# the keys that reach them in the player (N, not n); 10's reduce-scatter boxes named by their
# tensor. Shipped lessons, --no-measure.
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
slide() { # n title: n-1 times n, then the title must show
    local i
    for i in $(seq 2 "$1"); do tm_keys n; done
    tm_wait "slide $1/" 5 || fail "n did not reach slide $1"
    tm_wait "$2" 5 || fail "slide $1 is not '$2'"
}
header() { tm_screen | sed -n 2p; }
header_gone() { # text: until the header row no longer has it (5 s)
    local end=$(($(date +%s) + 5))
    while [ "$(date +%s)" -le "$end" ]; do
        header | grep -qF -- "$1" || return 0
        sleep 0.1
    done
    return 1
}

start rooted-collectives
slide 5 "Reduce: gather"
header | grep -qF "op=sum" || fail "the reduce slide does not open at op=sum"
tm_keys o
tm_wait "op=prod" 5 || fail "o did not change the op on the slide's scene"
tm_screen | head -1 | grep -qF "your own scene (0: the slide's)" ||
    fail "the title does not say the scene is the student's own"
tm_keys 0
tm_wait "op=sum" 5 || fail "0 did not bring the slide's scene back"
tm_screen | head -1 | grep -qF "your own scene" && fail "the own-scene note stayed"
tm_keys o BSpace
tm_wait "op=sum" 5 || fail "Backspace did not bring the slide's scene back"
tm_keys '?'
tm_wait "help: keys" 5 || fail "? did not open the help"
tm_screen | grep -qE " V +view: chunk" || fail "the help does not list V for the slice view"
tm_screen | grep -qE " o( \*)? +next reduction op" || fail "the help does not list o"
tm_screen | grep -qE "0 Backspace +back to the slide" || fail "the help lacks 0 / Backspace"
tm_keys Escape q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

start algorithms
header | grep -qF "algo=direct" || fail "07's first slide is not the direct all-reduce"
tm_keys a
tm_wait_gone "algo=direct" 5 || fail "a did not switch the algorithm"
tm_keys q
tm_cleanup

start bandwidth
slide 5 "Measure it here"
tm_wait "size 64 MiB" 5 || fail "08's measure slide does not show 64 MiB"
tm_wait "([ ] halve/double)" 5 || fail "the panel does not name [ ] in the player"
tm_keys ']'
tm_wait "size 128 MiB" 5 || fail "] did not double the measurement size"
tm_keys '['
tm_wait "size 64 MiB" 5 || fail "[ did not halve it"
tm_keys q
tm_cleanup

start data-parallel
slide 6 "Overlap: start talking"
header | grep -qF "(DDP) · W=4 · L=2 D=4 B=8 · overlap on" ||
    fail "09's overlap slide does not overlap (or its header is cut): $(header)"
tm_keys O
header_gone "B=8 · overl" || fail "O did not turn the overlap off"
tm_keys N
tm_wait "tensor parallel" 5 || fail "N did not switch the scheme"
tm_keys n
tm_wait "slide 7/" 5 || fail "n is no longer the next slide"
tm_keys q
tm_cleanup

start pipeline-parallel
slide 5 "GPipe versus 1F1B"
sched() { tm_screen | grep -oE "M=[0-9]+ (GPipe|1F1B)" | head -1 | cut -d' ' -f2; }
was=$(sched)
[ -n "$was" ] || fail "the panel names no schedule"
tm_keys g
tm_wait "your own scene" 5 || fail "g did not change the slide's scene"
[ "$(sched)" != "$was" ] || fail "g did not switch the schedule (still $was)"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# 01's "Step forward once and watch the first transfers appear" opens before that step
start why-many-gpus
slide 2 "The same problem as last week"
tm_wait "step 0/6" 5 || fail "01's step-forward slide does not open at step 0"
tm_keys l
tm_wait "step 1/6" 5 || fail "l did not step forward"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# 10's backward slide: the reduce-scatter's boxes show the whole 4x4 working buffer, named
# by the tensor, not by the one column each rank keeps (issue 18)
start tensor-parallel
slide 5 "Backward: the input gradient needs"
# the slide's choice holds its scene before the step that names the collective: give it
# up, then step on to the reduce-scatter
tm_wait "answer first" 5 || fail "10's backward slide does not hold its scene for the choice"
tm_keys S
tm_wait "gave up" 5 || fail "S did not give the choice up"
tm_keys l
tm_wait "│ dx1 partials" 5 || fail "the reduce-scatter's box is not named by its tensor"
tm_screen | grep -qE "│ dx1\[:,[0-9]:[0-9]\] " && fail "a 4x4 box is named as one column"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# Esc in a lesson opened by its number (not from the list) goes to the list, as the help's
# "Esc close help / backends / a lesson" says; q there quits
start 04
tm_keys Escape
tm_wait "collviz lessons" 5 || fail "Esc in a lesson opened by name did not go to the list"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q in the list did not quit"
tm_cleanup

echo "ok: lesson player: every scene key a slide asks for works; 0/Backspace restore; help; Esc to the list"

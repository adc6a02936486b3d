#!/usr/bin/env bash
# The presenter in the room (issue 19), where the terminal and the processes are what is
# tested: an exercise's answer appears only after r on the room's screen, and from the start
# on the notes terminal; o and / jump; a reload after a slide is inserted before the current
# one keeps the slide (its title), not its number; after kill -9 the presenter resumes at its
# slide with its clock (--resume; without it, slide 1, saying where it was left: R goes
# there). That every word of every slide is shown on one of its pages at 80x24, 100x30,
# 120x36 and 160x45, and that no screen names a key, is checked off-screen, on the same
# pages reached by the same keys: tests/unit/test_room_words.c.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
LESSONS=$HERE/../../lessons
xdg=$(mktemp -d)
chmod 700 "$xdg"
trap 'tm_cleanup_all; rm -rf "$xdg"' EXIT
mkdir "$xdg/run"
chmod 700 "$xdg/run"
ENVS="XDG_RUNTIME_DIR=$xdg/run XDG_STATE_HOME=$xdg/state XDG_DATA_HOME=$xdg/data"
# The deck's slides, as the parser counts them.
NSLIDES=$(for f in "$LESSONS"/[0-9][0-9]-*.md; do
    "$BIN" lesson show "$f" --format json || fail "lesson show $f"
done | python3 -c '
import json, sys
dec = json.JSONDecoder(); text = sys.stdin.read(); i = 0; n = 0
while i < len(text):
    while i < len(text) and text[i].isspace(): i += 1
    if i >= len(text): break
    d, i = dec.raw_decode(text, i)
    n += len(d["slides"])
print(n)
') || fail "no slides counted"
[ "$NSLIDES" -ge 50 ] || fail "only $NSLIDES slides in the lessons"

footer() { tm_screen | tail -n 1; }

# Quiz: the prompt for the room, the answer only after r, and once (a holds exercise: computed from
# the scene, 60 52 32 72 is rank 3's box after the ring reduce-scatter on 10r+i inputs).
tm_cleanup
rm -rf "$xdg/state"
tm_start 120 36 "--present $LESSONS --backend cpu --no-measure --start 'Half one: the reduce-scatter'" $ENVS
tm_wait "Exercise: What does rank 3's box hold" 5 || fail "quiz prompt not shown"
tm_screen | grep -qF "Answer:" && fail "the answer is shown before r"
# The speaker has it from the start, and the keys that work (r among them, here).
tm new-session -d -x 100 -y 30 -s notes "env $ENVS LANG=C.UTF-8 $BIN notes; sleep 600"
end=$(($(date +%s) + 5))
until tm capture-pane -p -t notes | grep -qF "Answer: 60 52 32 72"; do
    [ "$(date +%s)" -le "$end" ] || fail "the notes terminal lacks the answer"
    sleep 0.1
done
tm capture-pane -p -t notes | grep -qF "Solution:" || fail "notes lack the worked solution"
# The keys: the bottom line holds those that fit and "? +N keys"; `?` lists them all in the
# note's rows. Only keys that act on this slide's screen (the collectives): the algorithm,
# not the parallelism screen's schedule or overlap.
tm send-keys -t notes '?'
end=$(($(date +%s) + 5))
until tm capture-pane -p -t notes | grep -qF "r reveal answer"; do
    [ "$(date +%s)" -le "$end" ] || fail "notes do not list r (after ?): $(tm capture-pane -p -t notes | tail -5)"
    sleep 0.1
done
tm capture-pane -p -t notes | grep -qF "A algo" || fail "notes do not list A (algorithm)"
tm capture-pane -p -t notes | grep -qE "G schedule|O overlap" && fail "notes list a parallelism key on a collectives slide"
tm kill-session -t notes
tm_keys r
tm_wait "Answer: 60 52 32 72" 5 || fail "r did not reveal the answer"
tm_screen | grep -qF "Solution:" && fail "the worked solution is on the room's screen (it is the notes')"
tm_screen | tail -n 1 | grep -qF "slide " || fail "r left the slide"
# answered once: r again does not hide it to ask again, nor does leaving and coming back
tm_keys r
sleep 0.5
tm_screen | grep -qF "Answer: 60 52 32 72" || fail "r again hid the answer"
tm_keys p
tm_wait_gone "Answer: 60 52 32 72" 5 || fail "p did not leave the slide"
tm_keys n
tm_wait "Answer: 60 52 32 72" 5 || fail "back on the slide, its answer is not shown"
# The scene gives no answer away before r either: ZeRO stage 1's panel figure (the answer,
# 41.9 MB, shown as 40 MiB/rank) is "?" on the scene's page until r
tm_cleanup
rm -rf "$xdg/state"
tm_start 120 36 "--present $LESSONS --backend cpu --no-measure --start 'Stage 1: each rank updates only its shard'" $ENVS
tm_wait "Stage 1: each rank updates only its shard" 5 || fail "no ZeRO stage 1 slide"
for _ in 1 2 3; do
    tm_screen | grep -qF "w+g+AdamW" && break
    tm_keys NPage
    sleep 0.5
done
tm_wait "w+g+AdamW ?/rank" 5 || fail "the room sees the answer before r: $(tm_screen | grep -F 'AdamW')"
tm_keys r
tm_wait "Answer: 41.943 MB" 5 || fail "r did not reveal the ZeRO answer"
# o: the overview of every slide; Home then Enter jumps to the first.
tm_keys o
tm_wait "All slides" 3 || fail "o did not open the overview"
tm_keys Home Enter
tm_wait "slide 1/$NSLIDES" 3 || fail "the overview did not jump to slide 1"
# / words Enter: the next slide whose title has them (case ignored).
tm_keys / i n s i d e Enter
tm_wait "Inside the ring: stop after step 3" 3 || fail "/ did not find 'inside'"
tm_screen | tail -n 1 | grep -qF "slide 1/" && fail "/ found the title but did not move"

# Reload after inserting a slide before the current one: the same slide (title), one
# number further on.
tm_cleanup
mkdir "$xdg/talk"
cp "$HERE/../lesson/present/01-present.md" "$xdg/talk/01-present.md"
tm_start 120 36 "--present $xdg/talk --backend cpu --no-measure --no-big-digits" $ENVS
tm_wait "slide 1/4" 5 || fail "fixture did not start"
tm_keys g 3 Enter
tm_wait "slide 3/4" 5 || fail "not on slide 3"
tm_wait "Reduce-scatter alone" 3 || fail "slide 3 is not 'Reduce-scatter alone'"
python3 - "$xdg/talk/01-present.md" <<'EOF'
import sys
p = sys.argv[1]; t = open(p).read()
i = t.index("# Welcome to the ring")
t = t[:i] + "# An inserted slide\n\nNew words.\n\n---\n\n" + t[i:]
open(p + ".tmp", "w").write(t)
EOF
mv "$xdg/talk/01-present.md.tmp" "$xdg/talk/01-present.md"
tm_wait "slide 4/5" 5 || fail "reload did not keep 'Reduce-scatter alone' (now slide 4 of 5)"
tm_screen | grep -qF "Reduce-scatter alone" || fail "reload moved off the slide's title"

# kill -9, then the same command: the same slide and its clock.
tm_keys n
tm_wait "slide 5/5" 5 || fail "n did not reach slide 5"
sleep 2.2 # the clock passes 00:02
pid=$(tm_pid)
[ -n "$pid" ] || fail "no presenter pid"
kill -9 "$pid"
tm_wait "EXITED:137" 5 || fail "kill -9 did not end the presenter"
tm_cleanup
tm_start 120 36 "--present $xdg/talk --backend cpu --no-measure --no-big-digits --resume" $ENVS
tm_wait "slide 5/5" 5 || fail "no resume at slide 5 after kill -9"
tm_wait "resumed at slide 5" 3 || fail "the resume is not said"
clock=$(footer | grep -oE "[0-9]{2}:[0-9]{2} *$" | tr -d ' ')
[ "${clock%%:*}" = 00 ] && [ "${clock#*:}" -ge 2 ] || fail "the clock restarted after kill -9 ($clock)"
# Without --resume (or --start) a talk starts at slide 1.
tm_cleanup
tm_start 120 36 "--present $xdg/talk --backend cpu --no-measure" $ENVS
tm_wait "slide 1/5" 5 || fail "without --resume the talk did not start at slide 1"
# ... and says where it was left (the notes, or the footer without them): R goes there
tm_wait "left at slide 5" 3 || fail "the talk does not say where it was left: $(footer)"
tm_keys R
tm_wait "slide 5/5" 5 || fail "R did not resume at slide 5"
tm_wait "resumed at slide 5" 3 || fail "R: the resume is not said"
# --start chooses, and starts a fresh clock.
tm_cleanup
tm_start 120 36 "--present $xdg/talk --backend cpu --no-measure --start 2" $ENVS
tm_wait "slide 2/5" 5 || fail "--start 2 not honoured"
echo "ok: quiz reveal ($NSLIDES slides), the notes' answer and keys, o and /, reload keeps the title, resume after kill -9"

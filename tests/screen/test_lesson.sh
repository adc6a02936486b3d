#!/usr/bin/env bash
# The lesson player (collviz lesson): a slide's narration beside its scene (golden), the
# speaker note never shown, an exercise answered wrong (no answer revealed) and then right
# (the answer and the solution shown, golden), a holds exercise graded by the trace
# engine, a choice given up with S, progress saved (XDG_STATE_HOME points to a temporary
# folder) and resumed at the saved slide after quitting, and the list of lessons with
# that progress. Fixture: tests/screen/lessons/01-player.md.
# Regenerate the goldens after an intended change with:
#   UPDATE_GOLDEN=1 bash tests/screen/test_lesson.sh build/collviz
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN_DIR="$HERE/golden"
LESSONS="$HERE/lessons"
STATE=$(mktemp -d)
trap 'tm_cleanup_all; rm -rf "$STATE"' EXIT

# The backend's description depends on the machine: masked from its column to the right,
# from its line to the panel's bottom border (as test_golden.sh does).
mask() {
    python3 -c '
import re, sys
lines = sys.stdin.read().rstrip("\n").split("\n")
start, col = None, None
for y, line in enumerate(lines):
    m = re.search(r"backend \w+: ", line)
    if m:
        start, col = y, m.start()
        break
for y, line in enumerate(lines):
    if start is not None and start <= y < len(lines) - 2:
        line = line[:col] + "<masked>"
    print(line.rstrip())
'
}

golden() { # name
    local got file="$GOLDEN_DIR/$1.txt"
    tm_stable
    got=$(tm_screen | mask)
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        printf '%s\n' "$got" >"$file"
        echo "updated $file"
        return
    fi
    [ -f "$file" ] || fail "$1: no golden file $file (run with UPDATE_GOLDEN=1)"
    if ! diff -u "$file" <(printf '%s\n' "$got"); then
        fail "$1: screen differs from $file"
    fi
}

start() { # args...
    tm_start 130 36 "lesson $* --backend cpu --no-measure" XDG_STATE_HOME="$STATE" \
        COLLVIZ_LESSONS="$LESSONS"
}

# 1. A slide: narration left, the scene's own screen right, no speaker note.
start "$LESSONS/01-player.md"
tm_wait "slide 1/3" 10 || fail "the lesson never came up"
tm_wait "✓ animation = cpu ranks" 20 || fail "the slide's scene was not checked"
tm_screen | grep -qF "A slide with a scene" || fail "no slide title"
tm_screen | grep -qF "step 6/6" || fail "the slide's scene (step=end) is not shown"
tm_screen | grep -qF "must never appear" && fail "a speaker note is shown"
golden lesson_slide_130x36

# 2. Exercises: wrong (nothing revealed), then right (answer and solution).
tm_keys n
tm_wait "slide 2/3" 5 || fail "n did not go to the next slide"
tm_wait "exercise 1 of 2" 5 || fail "the slide's exercise is not shown"
tm_keys Enter
tm_wait "Enter submits" 5 || fail "Enter did not open the input line"
tm_keys 1 2 Enter
tm_wait "not right: 12 GB/s" 5 || fail "a wrong answer was not graded wrong"
tm_screen | grep -qF "the answer:" && fail "a wrong answer revealed the answer"
tm_keys Enter 4 1 9 . 4 3 Space G B / s Enter
tm_wait "right: 419.43 GB/s" 5 || fail "the right answer was not graded right"
tm_screen | grep -qF "the answer: 419.43" || fail "the answer is not shown after a right answer"
tm_screen | grep -qF "solution: 838.9 MB" || fail "the solution is not shown after a right answer"
golden lesson_exercise_130x36

# holds: graded by running the slide's scene (init seq, rank 1 after step 3)
tm_keys Tab
tm_wait "exercise 2 of 2" 5 || fail "Tab did not go to the next exercise"
tm_keys H
tm_wait "this exercise has no hints" 5 || fail "H on an exercise without hints said nothing"
tm_keys Enter 1 Space 2 Space 3 Space 4 Enter
tm_wait "not right" 5 || fail "a wrong holds answer was not graded wrong"
tm_keys S
tm_wait "gave up; the answer:" 5 || fail "S did not show the answer"
# rank 1 after the ring's reduce-scatter of 10r+i (rank r sends chunk r-s at step s):
# chunk 0 its own 10; chunk 3 from rank 0 at step 1 (13+3 = 16); chunk 2 from rank 0 at
# step 2 (12+2+32 = 46); chunk 1 complete at step 3 (1+11+21+31 = 64) - by hand.
tm_screen | grep -qF "gave up; the answer: 10 64 46 16" || fail "the holds answer is not rank 1's buffer"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup
[ -s "$STATE/collviz/progress" ] || fail "no progress file in \$XDG_STATE_HOME/collviz"
grep -qF "player-test" "$STATE/collviz/progress" || fail "the progress file lacks the lesson"

# 3. Resume at the saved slide, by id; the solved exercise says so.
start player-test
tm_wait "slide 2/3" 10 || fail "the lesson did not resume at the saved slide"
tm_screen | grep -qF "solved before" || fail "the solved exercise is not marked"
tm_screen | grep -qF "1/3 solved" || fail "the title does not count the solved exercise"
# a variant: its solution is worked with its own numbers (the fixture's solution is a
# template; the first v is seed 1, whose numbers lesson variant prints)
tm_keys v
tm_wait "variant 1" 5 || fail "v did not draw variant 1"
sol=$(COLLVIZ_LESSONS="$LESSONS" "$BIN" lesson variant player-bandwidth --seed 1 --format json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["solution"].split(" times")[0])')
case "$sol" in "838.9 MB" | "") fail "variant 1 has the default numbers or none: '$sol'" ;; esac
tm_keys S
tm_wait "solution: $sol" 5 || fail "the variant's solution does not use its numbers ($sol)"
# the choice: given up, the solution shown
tm_keys n
tm_wait "slide 3/3" 5 || fail "n did not reach slide 3"
tm_keys S
tm_wait "option 2: reduce-scatter" 5 || fail "S did not show the right option"
tm_screen | grep -qF "Reduce-scatter first" || fail "the solution is not shown"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# 4. The list, with the progress of the lesson.
start
tm_wait "collviz lessons" 10 || fail "the list never came up"
tm_screen | grep -qF "The lesson player, tested" || fail "the list lacks the lesson's title"
tm_screen | grep -qE "3/3 seen +1/3 solved" || fail "the list does not show the progress"
tm_keys Enter
tm_wait "slide 3/3" 5 || fail "Enter did not open the lesson at its saved slide"
tm_keys Escape
tm_wait "collviz lessons" 5 || fail "Esc did not go back to the list"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit from the list"

# 5. Bad targets: one line, status 2.
out=$("$BIN" lesson no-such-lesson 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] || fail "an unknown lesson id exited $rc, not 2"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "an unknown lesson id printed more than one line"
printf '%s' "$out" | grep -qF "no-such-lesson" || fail "the message does not name the bad id"
echo "ok: lesson player: slide, exercises right and wrong, holds, give up, progress and resume, list"

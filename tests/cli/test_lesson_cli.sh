#!/usr/bin/env bash
# test_lesson_cli.sh - `collviz lesson`: check (ok lines, every error as file:line: message
# with exit 2), show --format json (slides, scenes, answers; notes only with --notes),
# variant --format json (the lecture's numbers at seed 0, other seeds deterministic), list
# with progress, the player's placeholder line, and bad input (one line, exit 2), also on
# the ASan+UBSan binary when given. Usage: test_lesson_cli.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
# absolute: the checks below run from tests/lesson so file names in messages stay short
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
[ -n "$ASAN_BIN" ] && [ -e "$ASAN_BIN" ] && ASAN_BIN=$(cd "$(dirname "$ASAN_BIN")" && pwd)/$(basename "$ASAN_BIN")
HERE=$(cd "$(dirname "$0")/.." && pwd)
OK=$HERE/lesson/ok
BAD=$HERE/lesson/bad
export XDG_STATE_HOME=$tmp/state

run() { # name rc args...: runs BIN, keeps out/err in $tmp/out, $tmp/err
    local name=$1 want=$2
    shift 2
    "$BIN" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq "$want" ] || fail "$name: exit status $rc, wanted $want ($(head -1 "$tmp/err"))"
}

same() { # name file expected-text
    if ! diff -u <(printf '%s\n' "$3") "$2" >"$tmp/diff"; then
        fail "$1: output differs"
        cat "$tmp/diff"
    fi
}

# ---- check -------------------------------------------------------------------------------
cd "$HERE/lesson" || exit 1
run "check ok folder" 0 lesson check ok
same "check ok folder" "$tmp/out" "ok/01-ring.md: ok (lesson ring, 2 slides, 2 exercises)
ok/02-bandwidth.md: ok (lesson bandwidth, 1 slide, 1 exercise)"
[ -s "$tmp/err" ] && fail "check ok: unexpected stderr: $(cat "$tmp/err")"

run "check ok file" 0 lesson check ok/02-bandwidth.md
same "check ok file" "$tmp/out" "ok/02-bandwidth.md: ok (lesson bandwidth, 1 slide, 1 exercise)"

run "check bad" 2 lesson check bad/01-broken.md
same "check bad" "$tmp/err" "bad/01-broken.md:3: front matter: unknown key 'colour' (keys: lesson, title, short, minutes, summary)
bad/01-broken.md:9: scene: bad ranks '99' (1..16)
bad/01-broken.md:10: scene: unknown key 'speed'
bad/01-broken.md:17: answer: not a finite number (inf) at x=0
bad/01-broken.md:24: slide 2 has no title (its first heading, e.g. '# Title')"
[ -s "$tmp/out" ] && fail "check bad: printed an ok line: $(cat "$tmp/out")"

# a scene's stops (the presenter's clicker): steps of the scene, going up, end last; a stop
# past the scene's last step is named with the range
mkdir -p "$tmp/stops"
cat >"$tmp/stops/01-stops.md" <<'EOF'
# Good stops

```scene
collective: all_reduce
algo: ring
ranks: 4
stops: 0, 3, end
```

---

# Not steps

```scene
collective: all_reduce
stops: 3, two
```

---

# Backwards

```scene
collective: all_reduce
stops: end, 3
```
EOF
cat >"$tmp/stops/02-range.md" <<'EOF'
# Past the end

```scene
collective: all_gather
ranks: 4
stops: 2, 7
```
EOF
run "check stops" 2 lesson check "$tmp/stops"
sed "s|$tmp/||" "$tmp/err" >"$tmp/err2"
same "check stops" "$tmp/err2" "stops/01-stops.md:16: scene: stops: 'two' is not a step (a number from 0, or end)
stops/01-stops.md:25: scene: stops: '3' after end (stops go up, end last)
stops/02-range.md:6: scene: stops: 7, but the scene's last step is 3 (0..3, or end)"

# a choice whose scene steps on from where it opens says what the screen then says
# (`shows:`), and a phrase the slide's own text says holds nothing apart; `nothing` and a
# phrase both, a phrase of two bytes and a fifth phrase are errors at their line
mkdir -p "$tmp/shows"
cat >"$tmp/shows/01-shows.md" <<'EOF'
# Step on

```scene
collective: all_reduce
step: 3
```

```exercise
id: shows-none
type: choice
prompt: What does a rank do with a finished chunk?
option: Adds it | It is finished.
option: Stores it
correct: 2
```

---

# Said in the text, "which stores it"

```scene
collective: all_reduce
step: 3
```

```exercise
id: shows-said
type: choice
prompt: What does a rank do with a finished chunk?
option: Adds it | It is finished.
option: Stores it
correct: 2
shows: which stores it
```

---

# At the end

```scene
collective: all_reduce
step: end
```

```exercise
id: shows-end
type: choice
prompt: What does a rank do with a finished chunk?
option: Adds it | It is finished.
option: Stores it
correct: 2
```
EOF
run "check shows" 0 lesson check "$tmp/shows"
sed "s|$tmp/||" "$tmp/err" >"$tmp/err2"
same "check shows" "$tmp/err2" "shows/01-shows.md:8: warning: exercise shows-none: the slide's scene steps on from step 3 and may come to tell this choice's answer: write \`shows:\` with what the screen then says (the scene is held before it until the choice is answered), or \`shows: nothing\`
shows/01-shows.md:33: warning: exercise shows-said: shows: \"which stores it\" is in the slide's own text: name words only the scene says once it tells the answer"
run "check shows strict" 2 lesson check --strict "$tmp/shows"
run "show shows" 0 lesson show "$tmp/shows/01-shows.md" --format json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
e = [s["exercises"][0] for s in d["slides"]]
assert "shows" not in e[0] and e[1]["shows"] == ["which stores it"], e
' "$tmp/out" || fail "show shows"
mkdir -p "$tmp/shows-bad"
for body in 'shows: nothing\nshows: which stores it' 'shows: ab' \
    'shows: one\nshows: two\nshows: three\nshows: four\nshows: five'; do
    printf '# Bad\n\n```exercise\nid: shows-bad\ntype: choice\nprompt: Which?\noption: a | no\noption: b\ncorrect: 2\n%b\n```\n' \
        "$body" >"$tmp/shows-bad/01-bad.md"
    run "check shows bad" 2 lesson check "$tmp/shows-bad"
    grep -q '01-bad.md:[0-9]*: .*shows' "$tmp/err" || fail "check shows bad: $(cat "$tmp/err")"
done

# both: the good files are ok, the bad one fails the whole run
run "check mixed" 2 lesson check ok bad
grep -c ': ok ' "$tmp/out" | grep -qx 2 || fail "check mixed: wanted 2 ok lines"
[ "$(wc -l <"$tmp/err")" -eq 5 ] || fail "check mixed: wanted 5 error lines"

# the same file twice: ids must be unique across the lessons checked
run "check duplicate ids" 2 lesson check ok/02-bandwidth.md ok/02-bandwidth.md
same "check duplicate ids" "$tmp/err" "ok/02-bandwidth.md:1: lesson id 'bandwidth' is also the id of ok/02-bandwidth.md
ok/02-bandwidth.md:8: exercise id 'effective-bandwidth' is also used at ok/02-bandwidth.md:8"

run "check missing" 2 lesson check nothing-here.md
same "check missing" "$tmp/err" "nothing-here.md: cannot open: No such file or directory"
mkdir -p "$tmp/empty"
run "check empty folder" 2 lesson check "$tmp/empty"
same "check empty folder" "$tmp/err" "$tmp/empty: no lessons here (lesson files are named NN-*.md)"
run "check no path" 2 lesson check
same "check no path" "$tmp/err" "collviz: lesson check: which files or folders?"
# a FIFO named as a lesson must not hang
mkfifo "$tmp/fifo.md"
timeout 5 "$BIN" lesson check "$tmp/fifo.md" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "check fifo: wanted exit 2"
same "check fifo" "$tmp/err" "$tmp/fifo.md: not a regular file"

# the complete example in lessons/README.md is a valid lesson (the documentation is honest)
sed -n '/<!-- example:start -->/,/<!-- example:end -->/p' "$HERE/../lessons/README.md" |
    sed '1,2d;$d' | sed '$d' >"$tmp/01-example.md"
run "README example" 0 lesson check "$tmp/01-example.md"
same "README example" "$tmp/out" "$tmp/01-example.md: ok (lesson example-ring, 3 slides, 3 exercises)"
run "README example answers" 0 lesson show "$tmp/01-example.md" --format json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
h = d["slides"][1]["exercises"][0]
assert h["answer"] == [10, 64, 46, 16], h
n = d["slides"][2]["exercises"][0]
assert abs(n["answer"] - 60.0) < 1e-12, n   # 2*3/4 * 1e9 B / 0.025 s = 60e9 B/s
' "$tmp/out" || fail "README example answers"

# a link in a lessons folder that leads outside it is not read
mkdir -p "$tmp/linked"
cp ok/02-bandwidth.md "$tmp/linked/01-fine.md"
ln -s /etc/passwd "$tmp/linked/02-escape.md"
run "check link out" 2 lesson check "$tmp/linked"
same "check link out" "$tmp/err" "$tmp/linked/02-escape.md: leads outside the lessons folder: not read"
same "check link out (ok)" "$tmp/out" "$tmp/linked/01-fine.md: ok (lesson bandwidth, 1 slide, 1 exercise)"

# ---- show --------------------------------------------------------------------------------
run "show json" 0 lesson show ok/01-ring.md --format json
python3 - "$tmp/out" <<'EOF' || fail "show json: contents"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["id"] == "ring" and d["title"] == "The ring, by hand" and d["minutes"] == 10, d
s0, s1 = d["slides"]
assert s0["title"] == "Why a ring?" and s0["line"] == 6
assert s0["scene"].startswith("screen=collectives collective=all_reduce algo=ring op=sum ranks=4 count=auto root=0 init=lecture seed=1 step=0"), s0["scene"]
assert "notes" not in s0, "notes shown without --notes"
assert "draw the four" not in json.dumps(d), "a note leaked"
p = s0["narration"][0]
assert p["kind"] == "paragraph" and p["line"] == 9
assert {"text": "own", "bold": True} in p["spans"] and {"text": "sum", "italic": True} in p["spans"]
assert {"text": "2(W-1)/W", "code": True} in s0["narration"][0]["spans"]
assert "collective" not in s0["markdown"] and "**own**" in s0["markdown"]
h, c = s1["exercises"]
assert h["type"] == "holds" and h["rank"] == 1 and h["step"] == 3
assert h["answer"] == [10, 64, 46, 16], h["answer"]   # the trace engine's buffer, see test_lesson_exercise.c
assert c["options"] == ["all-gather", "reduce-scatter"] and c["correct"] == 2
assert "step=3" in s1["scene"] and "init=seq" in s1["scene"] and "count=4" in s1["scene"]
EOF

run "show notes" 0 lesson show ok/01-ring.md --format json --notes
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["slides"][0]["notes"] == "draw the four boxes on the board first"
assert d["slides"][1]["notes"] is None
' "$tmp/out" || fail "show --notes"

run "show number" 0 lesson show ok/02-bandwidth.md --format json
python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["slides"][0]["exercises"][0]
assert e["prompt"] == "An all-reduce of 209715200 float32 elements over 8 ranks takes 3.5 ms. What bandwidth does each link see?", e["prompt"]
assert abs(e["answer"] - 419.4304) < 1e-9 and e["units"] == "GB/s" and e["tolerance"] == 0.01
assert [p["name"] for p in e["params"]] == ["elements", "ranks", "ms"]
assert e["params"][0]["integer"] and not e["params"][2]["integer"] and e["variants"]
' "$tmp/out" || fail "show number"

run "show text" 0 lesson show ok/01-ring.md
grep -q '^\[1\] Why a ring?$' "$tmp/out" || fail "show text: title line"
grep -q 'draw the four' "$tmp/out" && fail "show text: note without --notes"
run "show bad" 2 lesson show bad/01-broken.md --format json
[ "$(wc -l <"$tmp/err")" -eq 5 ] || fail "show bad: wanted the 5 errors"
[ -s "$tmp/out" ] && fail "show bad: printed something on stdout"
run "show format" 2 lesson show ok/01-ring.md --format xml
same "show format" "$tmp/err" "collviz: --format xml: must be text or json"

# ---- variant -----------------------------------------------------------------------------
export COLLVIZ_LESSONS=$OK
run "variant seed 0" 0 lesson variant effective-bandwidth --seed 0 --format json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) >= {"id", "prompt", "params", "answer", "units"}, d
assert d["id"] == "effective-bandwidth" and d["units"] == "GB/s"
assert d["params"] == {"elements": 209715200, "ranks": 8, "ms": 3.5}, d["params"]
# by hand: 209715200*4 B * 2*7/8 / 0.0035 s / 1e9
assert abs(d["answer"] - 419.4304) < 1e-9, d["answer"]
assert "209715200 float32 elements over 8 ranks takes 3.5 ms" in d["prompt"]
' "$tmp/out" || fail "variant seed 0"
cp "$tmp/out" "$tmp/v0"
run "variant seed 1" 0 lesson variant effective-bandwidth --seed 1 --format json
cp "$tmp/out" "$tmp/v1a"
run "variant seed 1 again" 0 lesson variant effective-bandwidth --seed 1 --format json
cmp -s "$tmp/v1a" "$tmp/out" || fail "variant: seed 1 twice differs"
run "variant seed 2" 0 lesson variant effective-bandwidth --seed 2 --format json
python3 - "$tmp/v1a" "$tmp/out" <<'EOF' || fail "variant seeds 1, 2"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["params"] != b["params"], "seed 1 == seed 2"
for d in (a, b):
    p = d["params"]
    assert 1048576 <= p["elements"] <= 1073741824 and p["elements"] == int(p["elements"])
    assert 2 <= p["ranks"] <= 64 and p["ranks"] == int(p["ranks"])
    assert 0.5 <= p["ms"] <= 20 and float("%.3g" % p["ms"]) == p["ms"]
    want = p["elements"] * 4 * 2 * (p["ranks"] - 1) / (p["ranks"] * p["ms"] / 1000) / 1e9
    assert abs(d["answer"] - want) <= 1e-9 * want, (d["answer"], want)
    assert str(p["ranks"]) + " ranks" in d["prompt"]
EOF
run "variant text" 0 lesson variant effective-bandwidth
grep -q '^answer: 419.43 GB/s$' "$tmp/out" || fail "variant text: $(tail -1 "$tmp/out")"
run "variant unknown" 2 lesson variant no-such-id --format json
same "variant unknown" "$tmp/err" "collviz: no exercise 'no-such-id' in the lessons of $OK"
run "variant holds" 2 lesson variant ring-holds
same "variant holds" "$tmp/err" "collviz: exercise ring-holds is a holds exercise: only number exercises have variants"
run "variant bad seed" 2 lesson variant effective-bandwidth --seed -3
same "variant bad seed" "$tmp/err" "collviz: --seed -3: must be a non-negative integer"

# ---- list --------------------------------------------------------------------------------
run "list fresh" 0 lesson list
grep -q '^01-ring.md .*The ring, by hand.*10 min  seen 0/2 slides, solved 0/2 exercises$' "$tmp/out" ||
    fail "list fresh: $(head -1 "$tmp/out")"
mkdir -p "$XDG_STATE_HOME/collviz"
printf 'collviz-progress 1\nlesson ring current 1 seen 0,1\nexercise ring-phase lesson ring attempts 2 solved 1\n' \
    >"$XDG_STATE_HOME/collviz/progress"
run "list progress" 0 lesson list
grep -q '^01-ring.md .*seen 2/2 slides, solved 1/2 exercises$' "$tmp/out" || fail "list progress: $(head -1 "$tmp/out")"
grep -q '^02-bandwidth.md .*seen 0/1 slides, solved 0/1 exercises$' "$tmp/out" || fail "list progress 2"
printf 'not a progress file\n' >"$XDG_STATE_HOME/collviz/progress"
run "list corrupt progress" 0 lesson list
# list only reads: it names the fault and leaves the file (the player sets it aside)
grep -q '^collviz: progress file .*/progress is corrupt (line 1: .*); left as it is (the player sets it aside)$' "$tmp/err" ||
    fail "list corrupt: $(cat "$tmp/err")"
ls "$XDG_STATE_HOME"/collviz/progress.corrupt-* >/dev/null 2>&1 && fail "list corrupt: a read-only command set the file aside"
[ -f "$XDG_STATE_HOME/collviz/progress" ] || fail "list corrupt: the progress file is gone"
COLLVIZ_LESSONS=$tmp/empty run "list none" 2 lesson list
same "list none" "$tmp/err" "collviz: no lessons in $tmp/empty"
unset COLLVIZ_LESSONS

# ---- the player, help, bad input ----------------------------------------------------------
# The interactive player (tests/screen/test_lesson.sh drives it in a terminal): without a
# terminal it says so after finding the lesson; a folder or id that is not there comes first.
COLLVIZ_LESSONS=$tmp/nosuch run "player: no folder" 2 lesson
same "player: no folder" "$tmp/err" \
    "collviz lesson: no lessons folder: $tmp/nosuch (COLLVIZ_LESSONS)"
COLLVIZ_LESSONS=ok run "player: bad id" 2 lesson nosuch
same "player: bad id" "$tmp/err" \
    "collviz lesson: no lesson file or id 'nosuch' in ok (collviz lesson list shows them)"
for args in "lesson ok/01-ring.md" "lesson ring"; do
    # shellcheck disable=SC2086
    COLLVIZ_LESSONS=ok run "player: $args" 2 $args --backend cpu </dev/null
    same "player: $args" "$tmp/err" "collviz: the interactive program needs a terminal on stdin and stdout (collviz trace, bench, train and lesson show|list work without one)"
done
# The presenter and the notes view are full-screen too: without a terminal they say so and
# exit 2 at once, instead of drawing into a pipe and waiting for keys that never come.
timeout 20 "$BIN" --present ok/01-ring.md </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "presenter without a terminal: exit $rc, want 2"
same "presenter without a terminal" "$tmp/err" "collviz: the presenter needs a terminal on stdin and stdout (collviz trace, bench, train and lesson show|list work without one)"
[ -s "$tmp/out" ] && fail "presenter without a terminal wrote to stdout"
# several paths make one deck: each is read (a missing one is the error, before the terminal)
run "presenter: two paths, one missing" 2 --present ok/01-ring.md ok/09-nosuch.md </dev/null
grep -qF "ok/09-nosuch.md" "$tmp/err" || fail "presenter: the missing second path is not named: $(cat "$tmp/err")"
run "presenter: two paths" 2 --present ok/01-ring.md ok/02-bandwidth.md </dev/null
grep -qF "needs a terminal" "$tmp/err" || fail "presenter: two good paths refused: $(cat "$tmp/err")"
# a shell's glob of a lesson folder brings its README along: left out, named in one notice,
# the lessons presented; a file that is not a lesson, named alone (or with no lesson beside
# it), is refused with the reason
run "presenter: a glob with a README" 2 --present ok/*.md </dev/null
same "presenter: a glob with a README" "$tmp/err" "collviz: skipped, not lessons: ok/README.md
collviz: the presenter needs a terminal on stdin and stdout (collviz trace, bench, train and lesson show|list work without one)"
for args in "ok/README.md" "ok/README.md ok/README.md"; do
    # shellcheck disable=SC2086
    run "presenter: $args" 2 --present $args </dev/null
    same "presenter: $args" "$tmp/err" "ok/README.md: not a lesson (a lesson opens with front matter, a '---' line, or is named NN-name.md; see lessons/README.md)"
done
run "presenter: bad --minutes" 2 --present ok/01-ring.md --minutes 0 </dev/null
same "presenter: bad --minutes" "$tmp/err" "collviz: --minutes: '0' is not a talk length in minutes (1..10000)"
XDG_RUNTIME_DIR=$tmp timeout 20 "$BIN" notes </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "notes without a terminal: exit $rc, want 2"
same "notes without a terminal" "$tmp/err" "collviz: the notes view needs a terminal on stdin and stdout (collviz trace, bench, train and lesson show|list work without one)"
[ -s "$tmp/out" ] && fail "notes without a terminal wrote to stdout"
for verb in "" check show variant list; do
    # shellcheck disable=SC2086
    run "help $verb" 0 lesson $verb --help
    grep -q '^usage: collviz lesson' "$tmp/out" || fail "help $verb: no usage line"
done
run "unknown option" 2 lesson check --frobnicate ok
same "unknown option" "$tmp/err" "collviz: --frobnicate: unknown option (try --help)"
run "notes on variant" 2 lesson variant effective-bandwidth --notes
same "notes on variant" "$tmp/err" "collviz: --notes: unknown option (try --help)"

# ---- check's cost: a holds exercise's scene runs once per check ------------------------------
# Whether a slide names the computed values of a holds answer skips the values some rank
# starts with; those are read from one run of the scene, not one run per value and rank (a
# 16-rank scene of 64 random values, tests/fuzz/corpus/holds.md, took 50 s of CPU that way,
# 80 s under ASan). CPU seconds, not wall: the bound holds on a busy machine.
cpu=$( { TIMEFORMAT='%3U %3S'; time "$BIN" lesson check "$HERE/fuzz/corpus/holds.md" >/dev/null 2>&1; } 2>&1 | tail -1)
awk -v t="$cpu" 'BEGIN { split(t, a, " "); exit !(a[1] + a[2] < 5) }' ||
    fail "lesson check of a 16-rank holds scene took $cpu s of CPU (user, system); want < 5"

# ---- the sanitizer build on nasty input ----------------------------------------------------
if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
    for f in "$HERE"/fuzz/corpus/*.md ok/*.md bad/*.md; do
        [ -f "$f" ] || continue
        "$ASAN_BIN" lesson check "$f" >/dev/null 2>"$tmp/err"
        rc=$?
        { [ $rc -eq 0 ] || [ $rc -eq 2 ]; } || fail "asan check $f: exit $rc: $(head -3 "$tmp/err")"
        grep -q 'Sanitizer' "$tmp/err" && fail "asan check $f: $(grep -m1 Sanitizer "$tmp/err")"
    done
    "$ASAN_BIN" lesson show ok/01-ring.md --format json --notes >/dev/null 2>"$tmp/err" ||
        fail "asan show: $(head -3 "$tmp/err")"
fi

cli_finish test_lesson_cli

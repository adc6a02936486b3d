#!/usr/bin/env bash
# test_lesson_grade.sh - `collviz lesson grade` (text and JSON, exit 0 right / 1 wrong / 2 bad
# input, the diagnosis of a slip, variants graded against their own numbers), `lesson variant`
# printing hints and solution with the variant's numbers, and `lesson check --strict`: the
# shipped lessons pass, a slide that shows its own answer is warned about (and fails with
# --strict), a variant constraint no draw can meet is an error. Also on the ASan+UBSan binary
# when given. Usage: test_lesson_grade.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
HERE=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
[ -n "$ASAN_BIN" ] && [ -e "$ASAN_BIN" ] && ASAN_BIN=$(cd "$(dirname "$ASAN_BIN")" && pwd)/$(basename "$ASAN_BIN")
export XDG_STATE_HOME=$tmp/state
export COLLVIZ_LESSONS=$HERE/lessons

run() { # name rc args...: runs $B (BIN by default), keeps out/err in $tmp/out, $tmp/err
    local name=$1 want=$2
    shift 2
    "${B:-$BIN}" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq "$want" ] || fail "$name: exit status $rc, wanted $want ($(head -1 "$tmp/err"))"
}

same() { # name file expected-text
    if ! diff -u <(printf '%s\n' "$3") "$2" >"$tmp/diff"; then
        fail "$1: output differs"
        cat "$tmp/diff"
    fi
}

json() { # name python-expression-over-d: checks the JSON in $tmp/out
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $2, d" "$tmp/out" ||
        fail "$1: $(tr -d '\n\t' <"$tmp/out")"
}

for B in "$BIN" ${ASAN_BIN:+"$ASAN_BIN"}; do
    # ---- grade: the lecture's problem 1, 419.4304 GB/s (209715200*4 B * 2*7/8 / 3.5 ms) ----
    run "grade right" 0 lesson grade effective-bandwidth 419.4
    same "grade right" "$tmp/out" "right: 419.4 GB/s (≈ 419.43 GB/s)"
    run "grade right TB/s" 0 lesson grade effective-bandwidth "0.42 TB/s"
    same "grade right TB/s" "$tmp/out" "right: 0.42 TB/s (≈ 419.4 GB/s)"
    run "grade json" 0 lesson grade effective-bandwidth 420GB/s --format json
    json "grade json" 'd == {"id": "effective-bandwidth", "seed": 0, "correct": True, "verdict": "right", "message": "right: 420GB/s (≈ 419.4 GB/s)", "diagnosis": ""}'
    # 419.43/1000: the number in TB/s read as GB/s
    run "grade x1000" 1 lesson grade effective-bandwidth 0.4194 --format json
    json "grade x1000" 'd["correct"] is False and d["diagnosis"] == "power-of-ten" and "answer in TB/s" in d["message"]'
    # 838860800 B / 3.5 ms = 239.67 GB/s: algbw, the lesson's own wrong: line
    run "grade algbw" 1 lesson grade effective-bandwidth 239.7 --format json
    json "grade algbw" 'd["diagnosis"] == "listed" and "algbw" in d["message"]'
    # 419.43 / 8 = 52.43: a factor W
    run "grade per rank" 1 lesson grade effective-bandwidth 52.43 --format json
    json "grade per rank" 'd["diagnosis"] == "factor-w"'
    run "grade too low" 1 lesson grade effective-bandwidth 100
    same "grade too low" "$tmp/out" "not right: 100 GB/s is too low"
    run "grade wrong unit" 1 lesson grade effective-bandwidth 3.5 ms --format json
    json "grade wrong unit" 'd["verdict"] == "wrong unit" and d["diagnosis"] == "wrong-unit"'
    run "grade not a number" 2 lesson grade effective-bandwidth fast
    run "grade no id" 2 lesson grade no-such-exercise 1
    same "grade no id" "$tmp/err" "collviz: no exercise 'no-such-exercise' in the lessons of $HERE/lessons"
    run "grade no answer" 2 lesson grade effective-bandwidth
    same "grade no answer" "$tmp/err" "collviz: lesson grade effective-bandwidth: which answer?"
    run "grade seed on choice" 2 lesson grade rooted-which --seed 3 3
    run "grade bad seed" 2 lesson grade effective-bandwidth --seed -1 419
    # a negative answer after --, graded (not an option)
    run "grade negative" 1 lesson grade effective-bandwidth -- -419.4
    # a choice says why the picked option is wrong; the right one is named
    run "grade choice why" 1 lesson grade rooted-which 1
    same "grade choice why" "$tmp/out" "not right: 1) scatter. A scatter gives each rank a different piece; every rank needs all the weights."
    run "grade choice right" 0 lesson grade rooted-which 3
    same "grade choice right" "$tmp/out" "right: 3) broadcast"
    # holds: the words of the answer are joined; rank 0 ends with the four components'
    # sums of lesson 13's own inputs (init: random, seed 8), a negative one after --
    run "grade holds" 0 lesson grade rs-then-ag -- 10 13 9 -4
    # lesson 13 problem 2: rank 2's output after the reduce-scatter, 6-4+2+5 = 9
    run "grade holds output" 0 lesson grade rs-then-ag-middle 9
    same "grade holds output" "$tmp/out" "right: rank 2 holds 9"
    # counts: no unit, the thousands separator, what is counted after the number
    run "grade count" 0 lesson grade tp-allgather-elements 524,288
    same "grade count" "$tmp/out" "right: 524,288"
    run "grade count noun" 0 lesson grade allgather-steps 7 steps
    same "grade count noun" "$tmp/out" "right: 7 steps"
    run "grade fraction" 0 lesson grade pp-bubble 3/11
    # a variant is graded against its own numbers: compute its answer from its params
    run "variant 5" 0 lesson variant effective-bandwidth --seed 5 --format json
    want=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["params"]
print("%.6g" % (p["elements"]*4*2*(p["ranks"]-1)/(p["ranks"]*p["ms"]/1000)/1e9))' "$tmp/out")
    run "grade variant 5" 0 lesson grade effective-bandwidth --seed 5 "$want" --format json
    json "grade variant 5" 'd["seed"] == 5 and d["correct"] is True'
    run "grade variant 5 defaults" 1 lesson grade effective-bandwidth --seed 5 419.43

    # ---- variant: hints and solution with the variant's numbers ----------------------------
    run "variant texts" 0 lesson variant ddp-rows --seed 4 --format json
    python3 - "$tmp/out" <<'PY' || fail "variant texts: $(tr -d '\n\t' <"$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
b, w = d["params"]["b"], d["params"]["w"]
assert b % w == 0 and d["answer"] == b // w, d
assert d["solution"] == "%d / %d = %d rows per rank." % (b, w, b // w), d["solution"]
assert ("%d rows" % b) in d["prompt"] and ("%d data-parallel" % w) in d["prompt"], d["prompt"]
PY
    run "variant text" 0 lesson variant tree-steps --seed 2
    k=$(sed -n 's/^  k = //p' "$tmp/out")
    grep -q "^solution: log2 W = $k levels up, $k levels down: 2 × $k = $((2 * k)) on $((1 << k)) ranks.$" "$tmp/out" ||
        fail "variant text: $(cat "$tmp/out")"
done

# ---- check --strict: the shipped lessons, and a slide that gives its answer away ----------
run "check strict shipped" 0 lesson check --strict "$HERE/lessons"
[ -s "$tmp/err" ] && fail "check strict shipped: $(cat "$tmp/err")"
nshipped=$(find "$HERE/lessons" -maxdepth 1 -name '[0-9][0-9]-*.md' | wc -l)
[ "$(grep -c ': ok (lesson ' "$tmp/out")" -eq "$nshipped" ] || fail "check strict shipped: $(cat "$tmp/out")"

mkdir -p "$tmp/l"
cat >"$tmp/l/01-leak.md" <<'MD'
# Sizes

Each rank sends 24 MiB per step: see for yourself.

```exercise
id: leak
type: number
prompt: How many MiB does each rank send?
param: params = 4194304
param: w = 4
answer: params * 4 * 2 * (w - 1) / w / 1048576
units: MiB
```
MD
run "check warns" 0 lesson check "$tmp/l"
same "check warns" "$tmp/err" "$tmp/l/01-leak.md:3: warning: slide 1 shows the answer of its exercise leak before it is asked ('24 MiB')"
run "check strict fails" 2 lesson check --strict "$tmp/l"

# a choice whose wrong option says nothing of why it is wrong: a warning, an error with --strict
cat >"$tmp/l/01-leak.md" <<'MD'
# Pick one

```exercise
id: pick
type: choice
prompt: Which collective leaves every rank with the sum of all inputs?
option: all-gather | it concatenates the inputs; nothing is added
option: all-reduce
option: broadcast
correct: 2
```
MD
run "check why warns" 0 lesson check "$tmp/l"
same "check why warns" "$tmp/err" "$tmp/l/01-leak.md:3: warning: exercise pick: wrong option 3 has no why (write \`option: text | why it is wrong\`)"
run "check why strict fails" 2 lesson check --strict "$tmp/l"

# a slide that states the answer of an exercise asked on a later slide (lesson 05's first
# slide did: "the full result is 60 64 68 72", asked two slides on); a value in a sentence
# ("rank 2 gets 14,") is not a count's answer
cat >"$tmp/l/01-leak.md" <<'MD'
# Inputs

Rank r holds 10r .. 10r+3; every rank ends with `60 64 68 72`, and rank 2 gets 14, rank 3 18.

```scene
collective: all_reduce
count: 4
init: seq
```

---

# Steps

```exercise
id: steps
type: number
prompt: How many steps does the ring all-reduce take on {w} ranks?
param: w = 8
answer: 2 * (w - 1)
units:
```

---

# Predict

```scene
collective: all_reduce
count: 4
init: seq
```

```exercise
id: later
type: holds
prompt: What does rank 2 hold at the end?
rank: 2
step: end
```
MD
run "check later warns" 0 lesson check "$tmp/l"
same "check later warns" "$tmp/err" "$tmp/l/01-leak.md:3: warning: slide 1 shows the answer of exercise later, asked later on slide 3 ('60 64 68 72')"
run "check later strict fails" 2 lesson check --strict "$tmp/l"

# the same answer stated value by value, out of order and split over two paragraphs (lesson
# 05 did: "rank 0 has 60 in slot 0, rank 1 64 in slot 1, rank 2 68, rank 3 72"), is found;
# a slide that names only the inputs, or tiny values, is not
cat >"$tmp/l/01-leak.md" <<'MD'
# Inputs

Rank r holds 10r .. 10r+3: rank 1 has 10 11 12 13, rank 3 has 30 31 32 33. Rank 3 finishes
`72` in slot 3, rank 0 `60` in slot 0.

Rank 2 finishes 68 in slot 2 and rank 1 64 in slot 1.

```scene
collective: all_reduce
count: 4
init: seq
```

---

# Predict

```scene
collective: all_reduce
count: 4
init: seq
```

```exercise
id: later
type: holds
prompt: What does rank 2 hold at the end?
rank: 2
step: end
```

---

# Moved, not computed

The blocks are numbered 0 to 15: rank 0 holds 0 1 2 3, rank 1 4 5 6 7, rank 2 8 9 10 11,
rank 3 12 13 14 15.

```scene
collective: all_to_all
ranks: 4
step: end
```

```exercise
id: moved
type: holds
prompt: What does rank 2's box hold at the end (send half, then receive half)?
rank: 2
step: end
```
MD
run "check scattered warns" 0 lesson check "$tmp/l"
same "check scattered warns" "$tmp/err" "$tmp/l/01-leak.md:3: warning: slide 1 shows the answer of exercise later, asked later on slide 2 ('72 in slot 3, rank 0 60 in slot 0. Rank 2 finishes 68 in slo')"
run "check scattered strict fails" 2 lesson check --strict "$tmp/l"

# a solution that answers the next exercise of its slide (lesson 13 did: "exactly what one
# all-reduce leaves" before "which single collective is it?")
cat >"$tmp/l/01-leak.md" <<'MD'
# Two questions

```exercise
id: first
type: number
prompt: How many steps on 4 ranks?
param: w = 4
answer: 2 * (w - 1)
units:
solution: 6 steps: exactly what one all-reduce takes.
```

```exercise
id: second
type: choice
prompt: Which collective was it?
option: all-gather | it gathers the pieces; nothing is added
option: all-reduce
correct: 2
```
MD
run "check solution leak" 0 lesson check "$tmp/l"
same "check solution leak" "$tmp/err" "$tmp/l/01-leak.md:3: warning: the solution of exercise first answers exercise second, asked after it ('all-reduce')"

# across lessons (one course, the presenter's deck): an earlier lesson that states a later
# lesson's answer in its narration, or asks the very question a later lesson asks again
# (lesson 05 and lesson 13 did: the all-reduce of 10r+i, 60 64 68 72), is found; what a slide
# gives is not: its scene's inputs ("0 10 20 30" here), its scene's size ("64 MiB"), and a
# later ratio's number without its unit ("32 rows" for 32x)
cat >"$tmp/l/01-leak.md" <<'MD'
# First

Rank r starts with 10r, 10r+1, 10r+2, 10r+3 (rank 0 holds 0 1 2 3, rank 3 holds 30 31 32 33);
the size is 64 MiB, the batch 32 rows, and at the end every box reads 60 64 68 72.

```scene
collective: all_reduce
count: 4
init: seq
size: 64M
```

```exercise
id: first-end
type: holds
prompt: What does rank 1 hold at the end?
rank: 1
step: end
```
MD
cat >"$tmp/l/02-later.md" <<'MD'
# Later

```scene
collective: all_reduce
count: 4
init: seq
```

```exercise
id: again
type: holds
prompt: What does rank 0 hold at the end?
rank: 0
step: end
```

```exercise
id: ratio
type: number
prompt: How many times more?
param: l = 4
answer: l * 8
units: x
```

```exercise
id: bytes
type: number
prompt: How many MiB?
param: m = 64
answer: m
units: MiB
```

```exercise
id: first-input
type: holds
prompt: What does rank 0 hold before step 1?
rank: 0
step: 0
```
MD
run "check later lesson warns" 0 lesson check "$tmp/l"
same "check later lesson warns" "$tmp/err" "$tmp/l/01-leak.md:3: warning: slide 1 shows the answer of its exercise first-end before it is asked ('60 64 68 72')
$tmp/l/01-leak.md:3: warning: slide 1 states the answer of exercise again of the later lesson later ('60 64 68 72'): say it in other numbers
$tmp/l/01-leak.md:13: warning: exercise again of the later lesson later asks again what exercise first-end answered ('60 64 68 72'): ask it with other numbers"
run "check later lesson strict fails" 2 lesson check --strict "$tmp/l"
rm "$tmp/l/02-later.md"

cat >"$tmp/l/01-leak.md" <<'MD'
# Never

```exercise
id: never
type: number
prompt: p
param: a = 2 range 1..9 integer
where: a % 2 == 0
answer: a / 2
units:
integer: yes
```
MD
run "check variants ok" 0 lesson check "$tmp/l"
# a is drawn from 1..100000 (3 significant digits); where: keeps only the default, which no
# draw of seed 1 hits: the check says so at the exercise
sed -i 's/^param: a = 2 range 1..9 integer$/param: a = 2 range 1..100000/; s/^where: a % 2 == 0$/where: a == 2/' "$tmp/l/01-leak.md"
run "check variants bad" 2 lesson check "$tmp/l"
same "check variants bad" "$tmp/err" "$tmp/l/01-leak.md:3: exercise never, variant --seed 1: exercise never: no variant in 2000 draws (last: the condition 'where: a == 2' does not hold)"
run "check strict unknown option" 2 lesson check --sharp "$tmp/l"
run "show strict" 2 lesson show "$tmp/l/01-leak.md" --strict

if [ "$fails" -eq 0 ]; then
    echo "test_lesson_grade: all checks passed"
    exit 0
fi
echo "test_lesson_grade: $fails failure(s)"
exit 1

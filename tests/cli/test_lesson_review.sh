#!/usr/bin/env bash
# test_lesson_review.sh - `collviz lesson review --json`: the mistakes of a progress file
# written here (an exercise solved since, one not, one no longer in the lessons with an
# answer full of JSON's special characters, one tried without an answer kept) as a JSON list,
# each field checked for its exact value: lesson, slide, exercise, type, the answer given,
# its seed, what it was (graded again: message) and the slip's name (diagnosis), as
# `lesson grade --format json` names them; every distinct wrong try (tries: one at the
# lecture's numbers, one at a variant's), each with the prompt as it was asked, and the text
# review shows a variant's numbers beside its answer. `--format json` is the same
# document; an empty progress is []; a bad option or value is exit 2.
# Usage: test_lesson_review.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
export COLLVIZ_LESSONS="$TOP/lessons" XDG_STATE_HOME="$tmp/state"
mkdir -p "$tmp/state/collviz"
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
{
    echo "collviz-progress 3"
    echo "exercise broadcast-root-bytes lesson rooted-collectives attempts 3 solved 1"
    echo "mistake broadcast-root-bytes seed 0 answer $(hex 400)"
    echo "mistake broadcast-root-bytes seed 3 answer $(hex 4579)"
    echo "exercise effective-bandwidth lesson check-yourself attempts 1 solved 0"
    echo "mistake effective-bandwidth seed 0 answer $(hex '400 GB/s')"
    echo "exercise ghost-ex lesson old-lesson attempts 1 solved 0"
    echo "mistake ghost-ex seed 7 answer $(hex '4"\x</a>')"
    echo "exercise tried-ex lesson old-lesson attempts 3 solved 0"
    echo "exercise right-first lesson rooted-collectives attempts 1 solved 1"
} >"$tmp/state/collviz/progress"

for bin in $(cli_bins); do
    "$bin" lesson review --json >"$tmp/out.json" 2>"$tmp/err" || fail "review --json: exit $?: $(cat "$tmp/err")"
    "$bin" lesson review --format json >"$tmp/out2.json" 2>&1 || fail "review --format json: exit $?"
    cmp -s "$tmp/out.json" "$tmp/out2.json" || fail "--format json differs from --json"
    python3 - "$tmp/out.json" <<'EOF' || fail "review --json's values (see above)"
import json, sys
got = json.load(open(sys.argv[1]))
copy = "That counts a copy for the root itself, which already holds the buffer."
asked = ("In the direct broadcast, the root sends its whole %d MB buffer to each of the other "
         "ranks. With %d ranks, how many MB leave the root?")
want = [
    # seed 3: 241 MB on 19 ranks; 4579 = 241 x 19, the root's own copy counted
    {"lesson": "rooted-collectives", "slide": 2, "exercise": "broadcast-root-bytes",
     "type": "number", "in_lessons": True, "attempts": 3, "solved_since": True,
     "answer": "4579", "seed": 3, "message": "not right: 4579 MB. " + copy,
     "diagnosis": "listed",
     "tries": [{"answer": "400", "seed": 0, "question": asked % (100, 4),
                "message": "not right: 400 MB. " + copy, "diagnosis": "listed"},
               {"answer": "4579", "seed": 3, "question": asked % (241, 19),
                "message": "not right: 4579 MB. " + copy, "diagnosis": "listed"}]},
    {"lesson": "check-yourself", "slide": 2, "exercise": "effective-bandwidth",
     "type": "number", "in_lessons": True, "attempts": 1, "solved_since": False,
     "answer": "400 GB/s", "seed": 0,
     "message": "not right: 400 GB/s. Off by 1.049, the ratio of a MiB to a MB "
                  "(1 MiB = 1.04858 MB): a binary unit where a decimal one is meant, or the "
                  "reverse",
     "diagnosis": "gib-vs-gb",
     "tries": [{"answer": "400 GB/s", "seed": 0,
                "question": "You all-reduce 209715200 fp32 elements across 8 ranks, and each "
                            "rank measures 3.5 ms. What is the effective bandwidth by the "
                            "lecture's accounting, in GB/s (GB = 10⁹ bytes)?",
                "message": "not right: 400 GB/s. Off by 1.049, the ratio of a MiB to a MB "
                           "(1 MiB = 1.04858 MB): a binary unit where a decimal one is meant, "
                           "or the reverse",
                "diagnosis": "gib-vs-gb"}]},
    {"lesson": "old-lesson", "slide": None, "exercise": "ghost-ex", "type": None,
     "in_lessons": False, "attempts": 1, "solved_since": False, "answer": '4"\\x</a>',
     "seed": 7, "message": None, "diagnosis": None,
     "tries": [{"answer": '4"\\x</a>', "seed": 7, "question": None, "message": None,
                "diagnosis": None}]},
    {"lesson": "old-lesson", "slide": None, "exercise": "tried-ex", "type": None,
     "in_lessons": False, "attempts": 3, "solved_since": False, "answer": None, "seed": 0,
     "message": None, "diagnosis": None, "tries": []},
]
ok = isinstance(got, list) and len(got) == len(want)
if not ok:
    print("FAIL: want a list of %d mistakes, got %r" % (len(want), got))
for i, (g, w) in enumerate(zip(got if ok else [], want)):
    if g != w:
        ok = False
        for k in sorted(set(g) | set(w)):
            if g.get(k, "<none>") != w.get(k, "<none>"):
                print("FAIL: mistake %d, %s: got %r, want %r" % (i + 1, k, g.get(k, "<none>"),
                                                                w.get(k, "<none>")))
sys.exit(0 if ok else 1)
EOF
done

# the text review says the same diagnosis (one grading for both)
"$BIN" lesson review >"$tmp/out.txt" 2>&1 || fail "review: exit $?"
grep -qxF "  not right: 400 MB. That counts a copy for the root itself, which already holds the buffer." "$tmp/out.txt" ||
    fail "the text review's diagnosis differs: $(cat "$tmp/out.txt")"
# both tries, the variant's with its own numbers (241 MB, 19 ranks) just before its answer
grep -A1 -F "asked then: In the direct broadcast, the root sends its whole 241 MB buffer to each of the other ranks. With 19 ranks" "$tmp/out.txt" |
    grep -qxF "  you answered: 4579 (with other numbers than the lecture's)" ||
    fail "the variant's try is not shown with its own numbers: $(cat "$tmp/out.txt")"
grep -qF "whole 100 MB buffer" "$tmp/out.txt" || fail "the lecture's try lost its numbers: $(cat "$tmp/out.txt")"

# no mistakes: an empty list
rm "$tmp/state/collviz/progress"
[ "$("$BIN" lesson review --json)" = "[]" ] || fail "no progress: not []: $("$BIN" lesson review --json)"

# bad input: one line, exit 2
"$BIN" lesson review --format xml >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "--format xml: not exit 2"
grep -qF "xml" "$tmp/err" || fail "--format xml: the error does not name the value: $(cat "$tmp/err")"
"$BIN" lesson review --jsn >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "--jsn: not exit 2"
"$BIN" lesson review extra >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "an operand: not exit 2"

cli_finish test_lesson_review

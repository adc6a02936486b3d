#!/usr/bin/env bash
# test_handout_numbers.sh - "the same slide number everywhere": the presenter on lessons/
# (`g N Enter`) shows slide N's title (the lessons' own, from `lesson show`), its footer
# "slide N/T". Three slides: one of the collectives, the first of the pipeline lesson, the
# deck's last. That the PDF handout, the HTML handout and the speaker's copy give these
# slides the same title, with the lesson's own number beside it, is checked by
# tests/cli/test_handout_paper.sh, which exports them anyway.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
LESSONS=$HERE/../../lessons
xdg=$(mktemp -d)
chmod 700 "$xdg"
trap 'tm_cleanup_all; rm -rf "$xdg"' EXIT
export LANG=C.UTF-8 LC_ALL=C.UTF-8

mkdir "$xdg/shows"
for f in "$LESSONS"/[0-9][0-9]-*.md; do
    "$BIN" lesson show "$f" --format json >"$xdg/shows/$(basename "$f" .md).json"
done
# every slide's title in the deck's order: line N is slide N's
python3 -c 'import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    for s in json.load(open(f))["slides"]:
        print(s["title"])' "$xdg/shows" >"$xdg/titles"
total=$(wc -l <"$xdg/titles")
tm_start 120 40 "--present $LESSONS --backend cpu --no-measure --start 1" \
    "XDG_RUNTIME_DIR=$xdg" "XDG_STATE_HOME=$xdg/state" "XDG_DATA_HOME=$xdg/data"
tm_wait "slide 1/$total" 15 || fail "the presenter did not start at slide 1 of $total"
for n in 29 64 "$total"; do
    title=$(sed -n "${n}p" "$xdg/titles")
    [ -n "$title" ] || fail "slide $n: no title from lesson show"
    tm_keys g
    for d in $(echo "$n" | grep -o .); do tm_keys "$d"; done
    tm_keys Enter
    tm_wait "slide $n/$total" 10 || fail "the presenter did not go to slide $n"
    tm_wait "${title:0:40}" 5 || fail "slide $n: the presenter does not show '$title' ($(tm_screen | tail -1))"
done
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not end the presenter"

echo "ok: slide numbers: the presenter shows each slide's own title under its deck number ($total slides)"

#!/usr/bin/env bash
# test_handout_numbers.sh - "the same slide number everywhere": the presenter on lessons/
# (`g N Enter`), the PDF handout, the HTML handout and the speaker's copy give slide N the
# same title, the presenter's footer showing "slide N/T"; beside it the handouts print the
# lesson's own number. Three slides: one of the collectives, the first of the pipeline
# lesson, the deck's last.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
LESSONS=$HERE/../../lessons
xdg=$(mktemp -d)
chmod 700 "$xdg"
trap 'tm_cleanup_all; rm -rf "$xdg"' EXIT
export LANG=C.UTF-8 LC_ALL=C.UTF-8

"$BIN" lesson export "$LESSONS" --format pdf -o "$xdg/h.pdf" || fail "pdf export exit $?"
"$BIN" lesson export "$LESSONS" --format pdf --notes -o "$xdg/n.pdf" || fail "--notes export exit $?"
"$BIN" lesson export "$LESSONS" --format html -o "$xdg/h.html" || fail "html export exit $?"
pdftotext -q -layout "$xdg/h.pdf" "$xdg/h.txt"
pdftotext -q -layout "$xdg/n.pdf" "$xdg/n.txt"

# heading N FILE: slide N's heading in a handout's text, "TITLE|lesson L, slide S"
heading() {
    python3 - "$1" "$2" <<'PY'
import html, re, sys
n, f = sys.argv[1], sys.argv[2]
t = open(f, encoding="utf-8").read()
if f.endswith(".html"):
    m = re.search(r'<h2 id="slide-%s"><span class="n">%s</span>(.*?) <span class="own">'
                  r'(lesson \d+, slide \d+)</span>' % (n, n), t)
    print("%s|%s" % (html.unescape(m.group(1)), m.group(2)) if m else "")
else:  # a wrapped heading: its title goes on on the next line, the own number after it
    lines, out = t.splitlines(), ""
    for i, l in enumerate(lines):
        if not re.match(r"^ *%s +\S" % n, l):
            continue
        m = re.match(r"^ *%s +(.*?)\s+(lesson \d+, slide \d+)" % n, " ".join(lines[i:i + 3]))
        if m:
            out = "%s|%s" % (re.sub(r"\s+", " ", m.group(1)), m.group(2))
            break
    print(out)
PY
}

mkdir "$xdg/shows"
for f in "$LESSONS"/[0-9][0-9]-*.md; do
    "$BIN" lesson show "$f" --format json >"$xdg/shows/$(basename "$f" .md).json"
done
total=$(python3 -c 'import glob, json, sys
print(sum(len(json.load(open(f))["slides"]) for f in glob.glob(sys.argv[1] + "/*.json")))' \
    "$xdg/shows")
tm_start 120 40 "--present $LESSONS --backend cpu --no-measure --start 1" \
    "XDG_RUNTIME_DIR=$xdg" "XDG_STATE_HOME=$xdg/state" "XDG_DATA_HOME=$xdg/data"
tm_wait "slide 1/$total" 15 || fail "the presenter did not start at slide 1 of $total"
for n in 29 64 "$total"; do
    pdf=$(heading "$n" "$xdg/h.txt") notes=$(heading "$n" "$xdg/n.txt")
    web=$(heading "$n" "$xdg/h.html")
    [ -n "$pdf" ] || fail "slide $n: no heading in the PDF"
    [ "$pdf" = "$web" ] || fail "slide $n: the PDF says '$pdf', the HTML '$web'"
    [ "$pdf" = "$notes" ] || fail "slide $n: the PDF says '$pdf', the speaker's copy '$notes'"
    title=${pdf%%|*}
    tm_keys g
    for d in $(echo "$n" | grep -o .); do tm_keys "$d"; done
    tm_keys Enter
    tm_wait "slide $n/$total" 10 || fail "the presenter did not go to slide $n"
    tm_wait "${title:0:40}" 5 || fail "slide $n: the presenter does not show '$title' ($(tm_screen | tail -1))"
done
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not end the presenter"

echo "ok: slide numbers: presenter, PDF, HTML and the speaker's copy agree ($total slides)"

#!/usr/bin/env bash
# test_handout_paper.sh - the handouts as a lecturer prints them for a class of 200: every page
# of lessons/ as a PDF, one and two slides a page, and of the speaker's copy (--notes),
# rendered to grey once each (pdftoppm -gray -r 72: one pixel a point) and read back with its
# text layer (pdftotext -bbox-layout) by handout_paper_check.py: no text under 6 pt; every
# slide under the presenter's number (counted here from the lessons) with the lesson's own
# beside it; each parallelism slide with its scheme's picture (the Gantt chart and bubble, what
# each ZeRO rank keeps, the MoE blocks...), 0-based; every legend's rank swatches apart in
# grey (>= 3:1 side by side, hatchings apart two ranks apart); the marker where a scene points;
# no key on paper. Then the HTML handout: the same numbers, captions in words (never the scene
# string), no sentence that names a key; answers at paper's precision; the speaker's copy
# with notes, answers, the presenter's keys; three slides' headings the same in the PDF, the
# speaker's copy and the HTML (the presenter's half: tests/screen/test_handout_numbers.sh).
# Usage: test_handout_paper.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
LESSONS=$TOP/lessons
CHECK=$CLI_HERE/handout_paper_check.py
for t in pdftoppm pdftotext; do
    command -v $t >/dev/null || {
        echo "FAIL: $t missing (poppler-utils, in tools/deps.sh)"
        exit 1
    }
done

mkdir "$tmp/shows"
for f in "$LESSONS"/[0-9][0-9]-*.md; do
    "$BIN" lesson show "$f" --format json >"$tmp/shows/$(basename "$f" .md).json" || fail "lesson show $f"
done

# check NAME EXPORT-ARGS...: export, render every page in grey, read it back
check() {
    local name=$1
    shift
    "$BIN" lesson export "$LESSONS" --format pdf -o "$tmp/$name.pdf" "$@" 2>"$tmp/err" ||
        fail "export $* exit $? ($(head -1 "$tmp/err"))"
    mkdir "$tmp/$name"
    pdftoppm -q -gray -r 72 "$tmp/$name.pdf" "$tmp/$name/p" || fail "pdftoppm $name"
    pdftotext -q -bbox-layout "$tmp/$name.pdf" "$tmp/$name.bbox" || fail "pdftotext $name"
    echo "$name:"
    python3 "$CHECK" "$tmp/$name.bbox" "$tmp/$name/p" "$tmp/shows" \
        $([ "$name" = notes ] && echo --notes) || fail "$name: the pages (above)"
}
check one
check two --per-page 2
check notes --notes
p1=$(ls "$tmp/one" | wc -l) p2=$(ls "$tmp/two" | wc -l)
[ "$p2" -lt "$p1" ] || fail "two slides a page take $p2 pages, one a page $p1"

# Answers at paper's precision: the bubble's fraction as one, no six-digit decimals.
pdftotext -q "$tmp/one.pdf" "$tmp/one.txt"
grep -q "Answer: 3/11 ≈ 0.273" "$tmp/one.txt" || fail "the bubble's answer is not 3/11 ≈ 0.273"
grep -q "Answer: 83.3 x" "$tmp/one.txt" || fail "the trillion-parameter answer is not 83.3 x"
grep -nE "Answer: .*[0-9]\.[0-9]{4,}" "$tmp/one.txt" && fail "an answer with more than 3 significant digits"
# The speaker's copy: the notes and the answers, the presenter's keys in the notes (lesson
# 03's "before pressing `o`" is the presenter's `*`), no room to answer.
pdftotext -q "$tmp/notes.pdf" "$tmp/notes.txt"
grep -q "Speaker notes" "$tmp/notes.txt" || fail "the speaker's copy has no speaker notes"
grep -q "The replicas would" "$tmp/notes.txt" || fail "lesson 09's note is not in the speaker's copy"
grep -q "Answer: 3/11 ≈ 0.273" "$tmp/notes.txt" || fail "the speaker's copy lacks the answers"
grep -q 'pressing `\*`' "$tmp/notes.txt" || fail "the notes do not show the presenter's key for the operation"
grep -q "^Solutions$" "$tmp/notes.txt" && fail "the speaker's copy has a solutions section (its answers are inline)"

# ---- HTML --------------------------------------------------------------------------------
"$BIN" lesson export "$LESSONS" --format html -o "$tmp/h.html" || fail "html export exit $?"
python3 - "$tmp/h.html" "$tmp/shows" <<'PY' || fail "the HTML handout (above)"
import glob, html as H, json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
bad, no = [], 0
heads = re.findall(r'<h2 id="slide-(\d+)"><span class="n">(\d+)</span>(.*?) <span class="own">'
                   r'lesson (\d+), slide (\d+)</span></h2>', page)
want = []
for k, f in enumerate(sorted(glob.glob(sys.argv[2] + "/*.json"))):
    for i, s in enumerate(json.load(open(f, encoding="utf-8"))["slides"]):
        no += 1
        want.append((str(no), str(no), H.escape(s["title"], quote=True).replace("&#x27;", "&#39;"),
                     str(k + 1), str(i + 1)))
if len(heads) != len(want):
    bad.append("%d slide headings, %d slides" % (len(heads), len(want)))
for h, w in zip(heads, want):
    if h != w:
        bad.append("heading %r, wanted %r" % (h, w))
        break
if "screen=" in page or "size=67108864" in page:
    bad.append("a caption prints the raw scene string")
caps = re.findall(r"<figcaption>(.*?)</figcaption>", page)
if len(caps) < 60 or not all(c.startswith("Picture: ") for c in caps):
    bad.append("captions: %d, not all in words" % len(caps))
if "Picture: all-reduce, ring, 4 ranks, after step 3 of 6" not in page:
    bad.append("no caption says 'all-reduce, ring, 4 ranks, after step 3 of 6'")
prose = re.sub(r"<pre>.*?</pre>|<svg.*?</svg>", "", page, flags=re.S)
for m in re.finditer(r"\b[Pp]ress(es|ing|ed)?\b|<code>[!-~]</code>", prose):
    bad.append("a key on paper: %r" % prose[max(0, m.start() - 60):m.end() + 20])
for b in bad[:12]:
    print("  " + b)
sys.exit(1 if bad else 0)
PY

# The same slide number everywhere (the presenter's half: tests/screen/test_handout_numbers.sh):
# slides 29 (of the collectives), 64 (the pipeline lesson's first) and the deck's last have
# one heading in the PDF, the speaker's copy and the HTML: the title `lesson show` gives
# (the presenter's), with the lesson's own number.
python3 - "$tmp/one.txt" "$tmp/notes.txt" "$tmp/h.html" "$tmp/shows" <<'PY' || fail "slide numbers across the handouts (above)"
import glob, html, json, re, sys


def heading(n, f):
    """slide n's heading in a handout, "TITLE|lesson L, slide S" ("" when none)"""
    t = open(f, encoding="utf-8").read()
    if f.endswith(".html"):
        m = re.search(r'<h2 id="slide-%s"><span class="n">%s</span>(.*?) <span class="own">'
                      r'(lesson \d+, slide \d+)</span>' % (n, n), t)
        return "%s|%s" % (html.unescape(m.group(1)), m.group(2)) if m else ""
    lines = t.splitlines()  # a wrapped heading: its title goes on on the next line
    for i, l in enumerate(lines):
        if not re.match(r"^ *%s +\S" % n, l):
            continue
        m = re.match(r"^ *%s +(.*?)\s+(lesson \d+, slide \d+)" % n, " ".join(lines[i:i + 3]))
        if m:
            return "%s|%s" % (re.sub(r"\s+", " ", m.group(1)), m.group(2))
    return ""


pdf_txt, notes_txt, web_html, shows = sys.argv[1:5]
want = []
for k, f in enumerate(sorted(glob.glob(shows + "/*.json"))):
    for i, s in enumerate(json.load(open(f, encoding="utf-8"))["slides"]):
        want.append("%s|lesson %d, slide %d" % (s["title"], k + 1, i + 1))
bad = 0
for n in (29, 64, len(want)):
    pdf, notes, web = heading(n, pdf_txt), heading(n, notes_txt), heading(n, web_html)
    for what, ok in (("no heading in the PDF", pdf),
                     ("the PDF says %r, the HTML %r" % (pdf, web), pdf == web),
                     ("the PDF says %r, the speaker's copy %r" % (pdf, notes), pdf == notes),
                     ("the PDF says %r, lesson show %r" % (pdf, want[n - 1]), pdf == want[n - 1])):
        if not ok:
            print("  slide %d: %s" % (n, what))
            bad += 1
sys.exit(1 if bad else 0)
PY

cli_finish "test_handout_paper (lessons/ as PDF one and two a page and the speaker's copy, read in grey: sizes, numbers, scheme pictures, rank swatches, markers, keys; the HTML's numbers, captions, keys)"

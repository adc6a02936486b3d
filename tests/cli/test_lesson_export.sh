#!/usr/bin/env bash
# test_lesson_export.sh - `collviz lesson export FILE --format html -o OUT.html` on the test
# fixture (tests/lesson/present/01-present.md): the HTML parses with balanced tags, has every slide
# title and one inline <svg> per slide with a scene (the paper drawing, at the slide's own step,
# each picture's ids its own, the glyphs written once for all of them), no script and no
# remote reference, never a speaker note. Bad
# input: exit 2 with the reason. (The PDF handout: test_lesson_pdf.sh.)
# Usage: test_lesson_export.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
HERE=$CLI_HERE
FIX=$HERE/../lesson/present/01-present.md

"$BIN" lesson export "$FIX" --format html -o "$tmp/out.html" 2>"$tmp/err" ||
    fail "export exit $? ($(head -1 "$tmp/err"))"
"$BIN" lesson show "$FIX" --format json >"$tmp/show.json" || fail "lesson show failed"

python3 - "$tmp/out.html" "$tmp/show.json" <<'PY' || fail "HTML checks (above)"
import json, re, sys
from html.parser import HTMLParser

html = open(sys.argv[1], encoding="utf-8").read()
lesson = json.load(open(sys.argv[2], encoding="utf-8"))
VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col", "area", "base", "source"}
bad = []

class Balance(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.h2, self.in_h2, self.svgs = [], [], False, 0
    def handle_starttag(self, tag, attrs):
        if tag == "svg" and self.stack and self.stack[-1] == "figure":
            self.svgs += 1
        for k, v in attrs:
            if k in ("src", "href") or k.startswith("on"):
                bad.append("attribute %s=%r on <%s>" % (k, v, tag))
        if tag == "script":
            bad.append("a <script>")
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "h2":
            self.in_h2, self.cur = True, ""
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            bad.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
        else:
            self.stack.pop()
        if tag == "h2":
            self.in_h2 = False
            self.h2.append(self.cur)
    def handle_data(self, data):
        if self.in_h2:
            self.cur += data

p = Balance()
p.feed(html)
p.close()
if p.stack:
    bad.append("unclosed: %s" % p.stack)
titles = [s["title"] for s in lesson["slides"]]
for i, t in enumerate(titles):  # the deck's number, the title, the lesson's own number
    if "%d%s lesson 1, slide %d" % (i + 1, t, i + 1) not in p.h2:
        bad.append("slide title %r not among the <h2>s %r" % (t, p.h2))
nscene = sum(1 for s in lesson["slides"] if s.get("scene"))
if nscene != 2 or p.svgs != nscene:
    bad.append("%d <svg> for %d scene slides (the fixture has 2)" % (p.svgs, nscene))
for word in ("http://", "https://", "src=", "<script", "<link", "@import"):
    if word in html:
        bad.append("remote reference or script: %r" % word)
# url() and href only to a fragment of the page itself (cairo's glyphs and clips)
for m in re.finditer(r"url\(([^)]*)\)|href=\"([^\"]*)\"", html):
    ref = m.group(1) if m.group(1) is not None else m.group(2)
    if not ref.startswith("#"):
        bad.append("a reference out of the page: %r" % m.group(0))
ids = re.findall(r' id="([^"]*)"', html)
if len(ids) != len(set(ids)):
    bad.append("%d ids repeat: the pictures would share glyphs" % (len(ids) - len(set(ids))))
# every reference to a glyph or clip resolves in the page; each glyph's outline is written
# once for all the pictures (both use the same font), in one hidden <svg> after them
for ref in set(re.findall(r'href="#([^"]*)"|url\(#([^)]*)\)', html)):
    r = ref[0] or ref[1]
    if r not in set(ids):
        bad.append("a reference to no id: #%s" % r)
bodies = re.findall(r'<symbol[^>]*>(.*?)</symbol>', html, re.S)
if not bodies or len(bodies) != len(set(bodies)):
    bad.append("%d glyph symbols, %d distinct: glyphs are repeated per picture" %
               (len(bodies), len(set(bodies))))
if not re.search(r'</figure>.*<svg width="0" height="0"[^>]*><defs>\s*<symbol', html, re.S):
    bad.append("no shared glyph <svg> after the pictures")
for note in ("NOTE-ONE", "NOTE-TWO", "NOTE-THREE", "greet the room"):
    if note in html:
        bad.append("a speaker note is in the handout: %r" % note)
if "Raw &lt;b&gt;markup&lt;/b&gt; &amp; friends" not in html:
    bad.append("raw HTML in the narration was not escaped")
if "<strong>four numbers</strong>" not in html:
    bad.append("narration Markdown not rendered")
if "How many steps does the ring reduce-scatter take" not in html or "<li>3</li>" not in html:
    bad.append("exercise prompt or options missing")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY

# The pictures are at each slide's own step (the fixture: all-reduce step 0, reduce-scatter
# step 1), not the last, and are the paper drawing (no terminal text grid); their captions
# say so in words, never as the scene string.
grep -q "Picture: all-reduce, ring, 4 ranks, before the first of 6 steps." "$tmp/out.html" ||
    fail "the all-reduce picture is not at step 0 of 6"
grep -q "Picture: reduce-scatter, ring, 4 ranks, after step 1 of 3" "$tmp/out.html" ||
    fail "the reduce-scatter picture is not at step 1 of 3"
grep -q "screen=" "$tmp/out.html" && fail "a caption prints the scene string"
grep -q "<text" "$tmp/out.html" && fail "a picture is the terminal copy (SVG <text> cells)"
grep -q "Made without measuring" "$tmp/out.html" || fail "the handout does not say it was made without measuring"

# An image in the narration would load a remote file: it becomes its alt text.
cat >"$tmp/01-img.md" <<'MD'
# Pictures

Here is ![the ring diagram](https://example.com/ring.png) inline.
MD
"$BIN" lesson export "$tmp/01-img.md" --format html -o "$tmp/img.html" || fail "image lesson exit $?"
grep -q "\[image: the ring diagram\]" "$tmp/img.html" || fail "image not replaced by its alt text"
grep -qE "src=|example.com" "$tmp/img.html" && fail "the image's remote address is in the handout"

# A scene this build cannot draw (a screen still to come) does not stop the handout: the
# slide says why it has no picture. Once the screen exists, it gets its picture.
printf '# Tiers\n\nFrom HBM to ethernet.\n\n```scene\nscreen: hierarchy\n```\n' >"$tmp/01-h.md"
"$BIN" lesson export "$tmp/01-h.md" --format html -o "$tmp/h.html" || fail "hierarchy lesson exit $?"
if "$BIN" svg --scene "screen=hierarchy" >/dev/null 2>&1; then
    grep -q "<svg" "$tmp/h.html" || fail "the hierarchy scene has no picture"
else
    grep -q "No picture of this slide's scene: screen hierarchy is not in this build" "$tmp/h.html" ||
        fail "a scene without a screen is not explained"
fi

# A folder: its lessons in order. Standard output without -o.
"$BIN" lesson export "$HERE/../lesson/present" --format html >"$tmp/dir.html" || fail "folder export exit $?"
grep -q "<h1>Presenter fixture</h1>" "$tmp/dir.html" || fail "folder export lacks the fixture"

# Bad input: exit 2 and the reason, in one line.
bad() { expect_usage_error "$1" lesson export "${@:2}"; } # expected-text args...
bad "bad value 'odt'" "$FIX" --format odt
bad "--format pdf needs -o" "$FIX" --format pdf
bad "--notes needs --format pdf" "$FIX" --format html --notes
bad "which lesson" --format html
bad "unexpected argument 'extra'" "$FIX" extra
bad "no-such.md" "$tmp/no-such.md" --format html
printf '# A\n\n```scene\ncollective: nope\n```\n' >"$tmp/01-bad.md"
bad "01-bad.md:4:" "$tmp/01-bad.md" --format html

cli_finish "test_lesson_export (balanced HTML, numbered titles, one paper SVG per scene at its own step, captions in words, no remote reference, no notes)"

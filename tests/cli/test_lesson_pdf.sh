#!/usr/bin/env bash
# test_lesson_pdf.sh - the PDF handout (`collviz lesson export PATH --format pdf -o OUT.pdf`)
# and the paper pictures (`collviz svg --print`), read back with poppler (pdfinfo, pdftotext,
# pdftoppm):
#   - A4 and Letter page sizes; two slides a page takes fewer pages than one;
#   - every slide title and every exercise prompt of every lesson is in the text, and the
#     table of contents gives each slide the deck's number and the page it is on;
#   - lesson 05's "Inside the ring: stop after step 3" is drawn at step 3 of 6, with the
#     asked rank 1 hidden ("?"), never at the end (60 64 68 72); its solution's picture shows
#     rank 1 holding 10 64 46 16; --solutions inline/none move or drop the solutions;
#   - every text colour pair of every picture (8 collectives x their algorithms, the
#     parallelism and hierarchy scenes, light and dark) is >= 4.5:1, the ratio computed here
#     from the colours the drawing reports (--dump-colours);
#   - lesson text is escaped (markup shows as text), speaker notes never appear, a slide about
#     the measurement says it was made without measuring, or (--backend cpu) what was measured;
#   - bad options: one line, exit 2.
# Usage: test_lesson_pdf.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
LESSONS=$HERE/../../lessons
FIX=$HERE/../lesson/present/01-present.md
for t in pdfinfo pdftotext pdftoppm; do
    command -v $t >/dev/null || {
        echo "FAIL: $t missing (poppler-utils, in tools/deps.sh)"
        exit 1
    }
done

# ---- the whole deck, A4, one slide a page --------------------------------------------
"$BIN" lesson export "$LESSONS" --format pdf -o "$tmp/a4.pdf" 2>"$tmp/err" ||
    fail "export lessons/ exit $? ($(head -1 "$tmp/err"))"
pdfinfo "$tmp/a4.pdf" >"$tmp/a4.info" || fail "pdfinfo does not read the handout"
grep -q "^Page size: *595.276 x 841.89 pts (A4)" "$tmp/a4.info" || fail "not A4: $(grep 'Page size' "$tmp/a4.info")"
pages1=$(awk '/^Pages:/ {print $2}' "$tmp/a4.info")
mkdir "$tmp/shows"
for f in "$LESSONS"/[0-9][0-9]-*.md; do
    "$BIN" lesson show "$f" --format json >"$tmp/shows/$(basename "$f" .md).json" || fail "lesson show $f"
done
pdftotext -q "$tmp/a4.pdf" "$tmp/pages.txt" # pages end in a form feed
pdftotext -q -layout -f 1 -l 3 "$tmp/a4.pdf" "$tmp/toc.txt"
# (a contents that runs onto another page starts that page with a form feed)
sed -i 's/\f//g' "$tmp/toc.txt"

python3 - "$tmp" "$pages1" <<'PY' || fail "titles, prompts and contents (above)"
import glob, json, re, sys
tmp, pages = sys.argv[1], int(sys.argv[2])
# pdftotext joins a word broken at its hyphen ("all-" + "reduce" = "allreduce"): compare
# without hyphens
norm = lambda s: re.sub(r"\s+", " ", s.replace("-", "")).strip()
text = [norm(p) for p in open(tmp + "/pages.txt", encoding="utf-8").read().split("\f")]
lessons = [json.load(open(f, encoding="utf-8")) for f in sorted(glob.glob(tmp + "/shows/*.json"))]
toc = open(tmp + "/toc.txt", encoding="utf-8").read().replace("-", "")
bad, no = [], 0
for les in lessons:
    for s in les["slides"]:
        no += 1
        t = norm(s["title"])
        # the contents line: "  N Title ... PAGE"
        m = re.search(r"^\s*%d\s+%s\s+(\d+)\s*$" % (no, re.escape(t)), toc, re.M)
        if not m:
            bad.append("slide %d %r: no contents line with its number and page" % (no, t))
            continue
        page = int(m.group(1))
        if page < 2 or page > pages or ("%d %s" % (no, t)) not in text[page - 1]:
            bad.append("slide %d %r: not on page %d, where the contents say" % (no, t, page))
        for ex in s["exercises"]:
            if norm(ex["prompt"]) not in " ".join(text):
                bad.append("exercise %s: prompt not in the handout" % ex["id"])
if no < 40:
    bad.append("only %d slides read: the lesson JSON changed?" % no)
for b in bad[:20]:
    print("  " + b)
sys.exit(1 if bad else 0)
PY

# The ring slide "stop after step 3" (lesson 05): step 3 of 6, rank 1 asked, so hidden.
page=$(grep -E "^ *[0-9]+ +Inside the ring: stop after step 3 +[0-9]+ *$" "$tmp/toc.txt" | awk '{print $NF}')
if [ -z "$page" ]; then
    fail "the ring slide is not in the contents"
else
    pdftotext -q -layout -f "$page" -l "$page" "$tmp/a4.pdf" "$tmp/ring.txt"
    grep -q "step 3 of 6 · reduce-scatter 3/3" "$tmp/ring.txt" || fail "the ring slide is not drawn at step 3 of 6"
    grep -qE "^ *rank 1 +\? +\? +\? +\? *$" "$tmp/ring.txt" || fail "rank 1 (asked) is not hidden on the ring slide"
    grep -qE "rank [0-3] +60 +64 +68 +72" "$tmp/ring.txt" && fail "the ring slide shows the end (60 64 68 72)"
    grep -q "step 6 of 6" "$tmp/ring.txt" && fail "the ring slide shows step 6"
fi
# Its solution, at the end, draws the asked step with rank 1's values.
sol=$(grep -E "^ *Solutions +[0-9]+ *$" "$tmp/toc.txt" | awk '{print $NF}')
[ -n "$sol" ] || fail "no Solutions entry in the contents"
pdftotext -q -layout -f "${sol:-1}" "$tmp/a4.pdf" "$tmp/sol.txt"
python3 - "$tmp/sol.txt" <<'PY' || fail "the ring solution's picture (above)"
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
i = t.find("ar-seq-step3-rank1")
i = t.find("Inside the ring: stop after step 3", 0)
if i < 0:
    print("  no solution for the ring slide"); sys.exit(1)
rest = t[i:]
m = re.search(r"^ *(?:\u2605 )?rank 1 +(\S+) +(\S+) +(\S+) +(\S+) *$", rest, re.M)
if not m or m.groups() != ("10", "64", "46", "16"):
    print("  rank 1 in the solution picture: %r, wanted 10 64 46 16" % ((m.groups() if m else None),)); sys.exit(1)
if "step 3 of 6" not in rest[: m.start()]:
    print("  the solution picture is not at step 3 of 6"); sys.exit(1)
PY
# The same scene drawn by `collviz svg --print` (PDF): rank 1 at step 3, and at the end.
for st in 3 end; do
    "$BIN" svg --print --scene "collective=all_reduce algo=ring ranks=4 count=4 init=seq step=$st" \
        -o "$tmp/ring-$st.pdf" || fail "svg --print step=$st"
    pdftotext -q -layout "$tmp/ring-$st.pdf" "$tmp/ring-$st.txt"
done
grep -qE "^ *rank 1 +10 +64 +46 +16 *$" "$tmp/ring-3.txt" || fail "svg --print step=3: rank 1 is not 10 64 46 16"
grep -qE "^ *rank 1 +60 +64 +68 +72 *$" "$tmp/ring-end.txt" || fail "svg --print step=end: rank 1 is not 60 64 68 72"

# ---- options -------------------------------------------------------------------------
"$BIN" lesson export "$LESSONS" --format pdf --per-page 2 -o "$tmp/two.pdf" || fail "--per-page 2 exit $?"
pages2=$(pdfinfo "$tmp/two.pdf" | awk '/^Pages:/ {print $2}')
[ -n "$pages2" ] && [ "$pages2" -lt "$pages1" ] || fail "two a page: $pages2 pages, one a page: $pages1"
pdftotext -q "$tmp/two.pdf" - | grep -q "Inside the ring: stop after step 3" || fail "--per-page 2 lost a title"
# two a page, no picture's words shrink below 2 pt (an 8-rank picture beside its exercises
# once drew its digits 1.2 pt high): a picture keeps 0.4 of its frame
pdftotext -q -bbox "$tmp/two.pdf" "$tmp/two.html"
python3 - "$tmp/two.html" <<'PY' || fail "--per-page 2: words too small to read (above)"
import re, sys
h = [float(d) - float(b) for b, d in re.findall(r'<word xMin="[\d.]+" yMin="([\d.]+)" '
                                               r'xMax="[\d.]+" yMax="([\d.]+)">',
                                               open(sys.argv[1], encoding="utf-8").read())]
print("  smallest word: %.2f pt high" % min(h)) if min(h) < 2 else None
sys.exit(1 if not h or min(h) < 2 else 0)
PY
"$BIN" lesson export "$FIX" --format pdf --paper letter -o "$tmp/letter.pdf" || fail "--paper letter exit $?"
pdfinfo "$tmp/letter.pdf" | grep -q "^Page size: *612 x 792 pts (letter)" || fail "--paper letter is not Letter"
L05=$LESSONS/05-allreduce-is-rs-plus-ag.md
"$BIN" lesson export "$L05" --format pdf --solutions none -o "$tmp/none.pdf" || fail "--solutions none exit $?"
pdftotext -q "$tmp/none.pdf" - >"$tmp/none.txt"
grep -qE "^Solutions$|Answer:" "$tmp/none.txt" && fail "--solutions none still has solutions"
grep -q "What does rank 1's box hold after step 3" "$tmp/none.txt" || fail "--solutions none lost a prompt"
"$BIN" lesson export "$L05" --format pdf --solutions inline -o "$tmp/inline.pdf" || fail "--solutions inline exit $?"
pdftotext -q -layout "$tmp/inline.pdf" - >"$tmp/inline.txt"
grep -q "^ *Solutions *$" "$tmp/inline.txt" && fail "--solutions inline has a Solutions section"
python3 - "$tmp/inline.txt" <<'PY' || fail "--solutions inline: the answer is not after its exercise"
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
i = t.find("What does rank 1's box hold after step 3")
j = t.find("Answer: 10 64 46 16", i)
k = t.find("Steps 4 to 6: the all-gather phase", i)
sys.exit(0 if 0 <= i < j < k else 1)
PY

# ---- what a page looks like: pages render ----------------------------------------------
pdftoppm -png -r 50 -f 1 -l 3 "$tmp/a4.pdf" "$tmp/look" || fail "pdftoppm cannot render the handout"
[ "$(ls "$tmp"/look-*.png 2>/dev/null | wc -l)" -eq 3 ] || fail "pdftoppm rendered no pages"

# ---- contrast: every text colour pair the drawing used, both themes ----------------------
: >"$tmp/pairs"
scenes=()
for c in broadcast scatter gather reduce all_gather reduce_scatter all_reduce all_to_all; do
    for a in ring tree direct; do
        scenes+=("collective=$c algo=$a ranks=8 step=1 highlight=rank:1")
    done
done
scenes+=("collective=all_reduce algo=ring ranks=4 count=4 init=seq step=3 highlight=chunk:2")
scenes+=("screen=parallel scheme=ddp ranks=4" "screen=parallel scheme=pp ranks=4"
    "screen=parallel scheme=tp ranks=2" "screen=hierarchy")
drawn=0
for s in "${scenes[@]}"; do
    for theme in "" --dark; do
        "$BIN" svg --print $theme --dump-colours --scene "$s" >"$tmp/p" 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 0 ]; then
            sed "s|\$| $s $theme|" "$tmp/p" >>"$tmp/pairs"
            drawn=$((drawn + 1))
        elif [ $rc -eq 2 ] && grep -q "does not exist for" "$tmp/err"; then
            : # an algorithm the collective lacks: the scene is refused
        else
            fail "svg --print --dump-colours $theme --scene '$s': exit $rc $(head -1 "$tmp/err")"
        fi
    done
done
[ "$drawn" -ge 30 ] || fail "only $drawn pictures checked for contrast"
python3 - "$tmp/pairs" <<'PY' || fail "colour contrast (above)"
import sys
def lum(h):
    v = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    v = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in v]
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]
bad, n = [], 0
for line in open(sys.argv[1]):
    w = line.split()
    fg, bg, said = w[0], w[1], float(w[2])
    a, b = sorted((lum(fg), lum(bg)), reverse=True)
    r = (a + 0.05) / (b + 0.05)
    n += 1
    if r < 4.5:
        bad.append("%s on %s: %.2f:1 (%s)" % (fg, bg, r, " ".join(w[3:])))
    if abs(r - said) > 0.01:
        bad.append("%s on %s: the drawing says %.2f, WCAG gives %.2f" % (fg, bg, said, r))
if n < 200:
    bad.append("only %d colour pairs read" % n)
for b in sorted(set(bad))[:20]:
    print("  " + b)
sys.exit(1 if bad else 0)
PY

# ---- untrusted text, notes, measurement ---------------------------------------------
printf '# Markup <b>bold</b> & <span foreground="red">x</span>\n\nText with <i>tags</i> & an esc\033[31m sequence.\n\n<!-- note: SECRET-NOTE -->\n' >"$tmp/01-markup.md"
if "$BIN" lesson export "$tmp/01-markup.md" --format pdf -o "$tmp/markup.pdf" 2>"$tmp/err"; then
    pdftotext -q "$tmp/markup.pdf" - >"$tmp/markup.txt"
    grep -qF '<span foreground="red"></span>' "$tmp/markup.txt" ||
        fail "pango markup in the lesson was not shown as text"
    grep -qF 'Text with <i>tags</i> & an esc [31m sequence.' "$tmp/markup.txt" ||
        fail "markup or an escape in narration was not shown as text (ESC as a space)"
    grep -q "SECRET-NOTE" "$tmp/markup.txt" && fail "a speaker note is in the PDF"
    grep -q $'\033' "$tmp/markup.txt" && fail "a control character reached the PDF"
else
    grep -q "01-markup.md" "$tmp/err" || fail "markup lesson: exit without naming the file ($(head -1 "$tmp/err"))"
fi
pdftotext -q "$FIX" /dev/null 2>/dev/null # (the fixture is Markdown: nothing to read)
"$BIN" lesson export "$FIX" --format pdf -o "$tmp/fix.pdf" || fail "fixture export exit $?"
pdftotext -q "$tmp/fix.pdf" - | grep -qE "NOTE-ONE|NOTE-TWO|NOTE-THREE|greet the room" &&
    fail "a speaker note of the fixture is in the PDF"
cat >"$tmp/01-meas.md" <<'MD'
# Measure it

The panel measures this all-reduce on this machine.

```scene
collective: all_reduce
algo: ring
ranks: 2
size: 64K
```
MD
"$BIN" lesson export "$tmp/01-meas.md" --format pdf -o "$tmp/meas0.pdf" || fail "measurement lesson exit $?"
pdftotext -q "$tmp/meas0.pdf" - | tr '\n' ' ' | grep -q "This handout was made without measuring" ||
    fail "a measurement slide without --backend does not say it was not measured"
"$BIN" lesson export "$tmp/01-meas.md" --format pdf --backend cpu -o "$tmp/meas1.pdf" || fail "--backend cpu exit $?"
pdftotext -q "$tmp/meas1.pdf" - | tr '\n' ' ' >"$tmp/meas1.txt"
grep -qE "Measured on the machine that made this handout \(backend cpu: .*all-reduce ring on 2 ranks, 64 KiB: .* per operation, algbw [0-9.e+-]+ GB/s, busbw [0-9.e+-]+ GB/s, 0 wrong" "$tmp/meas1.txt" ||
    fail "--backend cpu: no measured figures on the slide ($(grep -o 'On this machine.\{0,160\}' "$tmp/meas1.txt"))"

# ---- bad options: one line, exit 2 ---------------------------------------------------
bad() { # expected-text args...
    local want=$1 b
    shift
    for b in "$BIN" ${ASAN_BIN:+"$ASAN_BIN"}; do
        [ -x "$b" ] || continue
        "$b" "$@" >"$tmp/out" 2>"$tmp/err"
        local rc=$?
        [ $rc -eq 2 ] || fail "$*: exit $rc, wanted 2"
        [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$*: not one line of error"
        grep -qF -- "$want" "$tmp/err" || fail "$*: stderr '$(cat "$tmp/err")' lacks '$want'"
    done
}
bad "--paper: bad value 'a5'" lesson export "$FIX" --format pdf --paper a5 -o "$tmp/x.pdf"
bad "--per-page: bad value '3'" lesson export "$FIX" --format pdf --per-page 3 -o "$tmp/x.pdf"
bad "--solutions: bad value 'later'" lesson export "$FIX" --format pdf --solutions later -o "$tmp/x.pdf"
bad "--backend: bad value 'gpu9'" lesson export "$FIX" --format pdf --backend gpu9 -o "$tmp/x.pdf"
bad "--format pdf needs -o" lesson export "$FIX" --format pdf
bad "--dark needs --print" svg --dark --scene "collective=all_reduce"
bad "--print and --text" svg --print --text --scene "collective=all_reduce"

# The paper picture of every parallelism scheme names that scheme and what each rank holds
# under it, 0-based as the screen (the ZeRO and MoE slides once got a picture that mixed
# DDP's, TP's and PP's words; every scheme once got four captioned boxes, 1-based)
for pair in "ddp:rank 0 · rows 0-1" "tp:rank 1 · column 1" "pp:ideal schedule (model)" \
    "zero1:AdamW state" "zero2:shard 0 of 4 + 1 layer" "zero3:shard 3 of 4 + 1 layer" \
    "moe:tokens per expert"; do
    sch=${pair%%:*} want=${pair#*:}
    "$BIN" svg --print --scene "screen=parallel scheme=$sch ranks=4" -o "$tmp/$sch.pdf" ||
        fail "svg --print scheme=$sch exit $?"
    pdftotext -q "$tmp/$sch.pdf" - | tr -s ' \n' '  ' >"$tmp/$sch.txt"
    grep -qF "$want" "$tmp/$sch.txt" || fail "scheme=$sch: no '$want' in its picture: $(head -c 300 "$tmp/$sch.txt")"
    grep -qE "(rank|stage|shard) 4\b" "$tmp/$sch.txt" && fail "scheme=$sch: a rank numbered 4 of 4"
    for other in "rank 1 · column 1" "ideal schedule (model)" "What each rank keeps" \
        "tokens per expert"; do
        [ "$other" = "$want" ] && continue
        case "$sch:$other" in zero*:"What each rank keeps") continue ;; esac
        grep -qF "$other" "$tmp/$sch.txt" && fail "scheme=$sch: its picture says '$other'"
    done
done
grep -qF "ZeRO stage 3" "$tmp/zero3.txt" || fail "zero3's picture does not name ZeRO stage 3"
grep -qF "mixture of experts" "$tmp/moe.txt" || fail "moe's picture does not name the mixture of experts"

# No word of a paper picture is drawn over another (pdftotext's word boxes): a list entry
# that wraps in its column once ran into the next ("reduced into it" over "rank 2 -> ...")
for sc in "collective=all_reduce algo=direct ranks=8 step=1" "collective=all_to_all ranks=16 step=1" \
    "collective=all_reduce algo=ring ranks=8 step=5" "collective=reduce algo=tree ranks=16 step=2" \
    "screen=hierarchy" "screen=parallel scheme=zero3 ranks=4"; do
    "$BIN" svg --print --scene "$sc" -o "$tmp/ov.pdf" || fail "svg --print $sc exit $?"
    pdftotext -q -bbox "$tmp/ov.pdf" "$tmp/ov.html"
    python3 - "$tmp/ov.html" <<'PY' || fail "$sc: words drawn over each other (above)"
import re, sys
w = [tuple(map(float, m.groups()[:4])) + (m.group(5),) for m in re.finditer(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
    open(sys.argv[1], encoding="utf-8").read())]
bad = ["%r over %r" % (a[4], b[4]) for i, a in enumerate(w) for b in w[i + 1:]
       if min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and
       min(a[3], b[3]) - max(a[1], b[1]) > 0.5 * min(a[3] - a[1], b[3] - b[1])]
print("\n".join("  " + x for x in bad[:5]))
sys.exit(1 if bad or not w else 0)
PY
done

# No page ends with an exercise's heading whose answer or prompt is overleaf
python3 - "$tmp/pages.txt" <<'PY' || fail "a heading is left alone at the foot of a page (above)"
import re, sys
pages = open(sys.argv[1], encoding="utf-8").read().split("\f")
bad = 0
for n, p in enumerate(pages, 1):
    lines = [l for l in p.splitlines() if l.strip()]
    # the running footer ("collviz lessons · page 99") is the last line
    while lines and re.search(r"page \d+\s*$", lines[-1]):
        lines.pop()
    if lines and re.match(r"\s*Exercise \d+\.\d+", lines[-1]):
        print("  page %d ends with %r" % (n, lines[-1].strip()))
        bad += 1
sys.exit(1 if bad else 0)
PY

# The solutions with their numbers: a shipped lesson whose solutions compute with {= ...}
"$BIN" lesson export "$HERE/../../lessons/13-check-yourself.md" --format pdf -o "$tmp/13.pdf" ||
    fail "lesson 13 export exit $?"
pdftotext -q "$tmp/13.pdf" "$tmp/13.txt"
grep -qF "Solutions" "$tmp/13.txt" || fail "lesson 13's handout has no solutions"
grep -nE "\{=|\{[a-z_]+\}" "$tmp/13.txt" && fail "a template is printed raw in lesson 13's handout"

[ $fails -eq 0 ] && echo "ok: lesson pdf ($pages1 pages A4, $pages2 two a page; titles, prompts, contents, ring step 3, $drawn pictures' contrast >= 4.5:1, options)"
[ $fails -eq 0 ]

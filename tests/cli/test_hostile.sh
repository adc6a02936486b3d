#!/usr/bin/env bash
# test_hostile.sh - what a hostile lesson file or argument cannot do (issue 17, sections 1
# and 2). The fixtures are tests/lesson/hostile/*.md.
#   Handouts: a link to anything but http:, https:, mailto: or an #anchor is text, not a
#     link (javascript:, JAVASCRIPT:, &#106;avascript:, javascript&colon;, a reference
#     link, vbscript:, data:, an autolink, a link around an image); `lesson check` warns at
#     each one's line and still passes.
#   Terminals: ESC, BEL and C1 controls in a lesson (bytes or &#27;) are errors at their
#     line; no raw control byte reaches stdout or stderr from a lesson, a file name or an
#     argument (shown as ^[, ^G, ^J, M-^[).
#   Nothing lost silently: an unclosed ``` fence (to the end, or "closed" by the next
#     slide's ```exercise) and an unclosed '<!-- note:' are errors at their opening line;
#     a handout is at most 32 MiB (a generated 200-slide lesson of 16-rank all-to-all
#     scenes is refused naming the slide, and leaves no file).
#   Messages and inputs: one line naming the value, exit 2 (sizes with upper-case K/M/G/T,
#     plain decimal numbers, exact collective names, a scene key once, answer: one value).
# Usage: test_hostile.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/../lesson/hostile
export XDG_STATE_HOME=$tmp/state XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

# No byte of out/err is a control character other than newline and tab.
no_controls() { # NAME FILE...
    local name=$1
    shift
    if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$@"; then
        fail "$name: a raw control character reached the output: $(LC_ALL=C grep -aoP '.{0,12}[\x00-\x08\x0b-\x1f\x7f].{0,12}' "$@" | head -1 | cat -v)"
    fi
}

# run NAME WANT_RC CMD...: run with out/err in $tmp/out, $tmp/err; check the exit status.
run() {
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq "$want" ] || fail "$name: exit $rc, wanted $want ($(head -c 300 "$tmp/err" | cat -v))"
    no_controls "$name" "$tmp/out" "$tmp/err"
}

# refused NAME PATTERN CMD...: exit 2, exactly one line on stderr, matching PATTERN (grep -E).
refused() {
    local name=$1 pat=$2
    shift 2
    run "$name" 2 "$@"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: $(wc -l <"$tmp/err") lines on stderr, wanted 1: $(cat -v "$tmp/err" | head -3)"
    grep -qE -- "$pat" "$tmp/err" || fail "$name: stderr lacks /$pat/: $(cat -v "$tmp/err")"
}

# ---- 1. handouts: links --------------------------------------------------------------

run "check links" 0 "$BIN" lesson check "$FIX/01-links.md"
grep -q "ok (lesson hostile-links" "$tmp/out" || fail "check links: no ok line"
# the warnings' lines, counted by hand from the fixture
got=$(grep -oE '01-links.md:[0-9]+: warning' "$tmp/err" | cut -d: -f2 | sort -n | uniq -c |
    awk '{printf "%s:%s ", $2, $1}')
[ "$got" = "8:3 10:3 12:1 13:2 15:1 16:1 " ] || fail "check links: warnings at '$got', wanted 8:3 10:3 12:1 13:2 15:1 16:1"
grep -q "warning: link to 'javascript&colon;\|warning: link to 'javascript:alert(1)'" "$tmp/err" ||
    fail "check links: the warning does not name the URL"

run "export links" 0 "$BIN" lesson export "$FIX/01-links.md" --format html -o "$tmp/links.html"
python3 - "$tmp/links.html" <<'PY' || fail "export links: HTML checks (above)"
import html, re, sys
from html.parser import HTMLParser
doc = open(sys.argv[1], encoding="utf-8").read()
bad, hrefs = [], []
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src", "action", "formaction", "xlink:href") or k.startswith("on"):
                if k != "href" or tag != "a":
                    bad.append("%s= on <%s>" % (k, tag))
                else:
                    hrefs.append(v)
P(convert_charrefs=True).feed(doc)
# the browser's view of each kept link: what it decodes, without the blanks it skips
for v in hrefs:
    seen = re.sub(r"[\x00-\x20]", "", v).lower()
    if not re.match(r"(https?:|mailto:|#)", seen):
        bad.append("a live link to %r" % v)
want = ["https://example.com/a?b=1&c=2", "#links", "mailto:teacher@example.com", "HTTP://example.org"]
if hrefs != want:
    bad.append("kept links %r, wanted %r" % (hrefs, want))
text = html.unescape(re.sub(r"<[^>]+>", "", doc))
for shown in ["a (javascript:alert(1))", "b (JAVASCRIPT:alert(1))", "c (javascript:alert(1))",
              "d (javascript:alert(1))", "e (javascript:alert(3))", "f (vbscript:msgbox(1))",
              "g (data:text/html;base64,", "javascript:alert(1) (javascript:alert(1))",
              "[image: pic] (javascript:alert(2))", "i (notes.html)"]:
    if shown not in text:
        bad.append("the text %r is not in the handout" % shown)
if "<script" in doc.lower():
    bad.append("a <script>")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY

# ---- 1. terminals: control characters --------------------------------------------------

run "check ESC title" 2 "$BIN" lesson check "$FIX/02-title-osc.md"
grep -q '02-title-osc.md:5: control character \^\[ (U+001B) at column 3' "$tmp/err" ||
    fail "check ESC title: $(cat -v "$tmp/err")"
run "show ESC title" 2 "$BIN" lesson show "$FIX/02-title-osc.md"
run "check entity ESC" 2 "$BIN" lesson check "$FIX/03-entity-esc.md"
for w in '\^\[ written as &#27;' '\^G written as &#7;' 'M-\^\[ written as &#x9b;'; do
    grep -qE "03-entity-esc.md:7: control character $w" "$tmp/err" || fail "check entity: no /$w/ at line 7"
done
run "export entity ESC" 2 "$BIN" lesson export "$FIX/03-entity-esc.md" --format html -o "$tmp/e.html"
[ ! -e "$tmp/e.html" ] || fail "export entity ESC: wrote a handout"
run "check C1" 2 "$BIN" lesson check "$FIX/04-c1.md"
grep -q '04-c1.md:7: control character M-^\[ (U+009B) at column 11' "$tmp/err" || fail "check C1: $(cat -v "$tmp/err")"
run "check link title" 2 "$BIN" lesson check "$FIX/08-link-title.md"
grep -q "08-link-title.md:7: control character \^\[ in a link's title" "$tmp/err" ||
    fail "check link title: $(cat -v "$tmp/err")"

# file names and arguments
run "show ESC file name" 2 "$BIN" lesson show "$tmp/$(printf 'x\033]0;PWNED\007.md')"
grep -q 'x^\[\]0;PWNED^G.md: cannot open' "$tmp/err" || fail "show ESC file name: $(cat -v "$tmp/err")"
esc_dir=$tmp/list/$(printf 'l\033[31m')
mkdir -p "$esc_dir/ok" "$esc_dir/bad"
cp "$FIX/01-links.md" "$esc_dir/ok/01-a.md"
cp "$FIX/02-title-osc.md" "$esc_dir/ok/02-b.md"
run "list ESC folder" 0 env COLLVIZ_LESSONS="$esc_dir/ok" "$BIN" lesson list
grep -q "^01-a.md" "$tmp/out" || fail "list ESC folder: the good lesson is not listed"
grep -q '1 problem in .*l^\[\[31m/ok (not listed)' "$tmp/err" || fail "list ESC folder: $(cat -v "$tmp/err")"
cp "$FIX/02-title-osc.md" "$esc_dir/bad/01-b.md"
run "list ESC folder (no lessons)" 2 env COLLVIZ_LESSONS="$esc_dir/bad" "$BIN" lesson list
refused "svg ESC scene" "unknown collective 'x\^\[\]0;T\^G'" "$BIN" svg --scene "$(printf 'collective=x\033]0;T\007')"
refused "bench newline size" "^collviz: -b 1\^JG: not a size" "$BIN" bench -b "$(printf '1\nG')" all_reduce
refused "trace ESC collective" "unknown collective" "$BIN" trace "$(printf 'all\033[2J')"

# ---- 2. nothing lost silently ----------------------------------------------------------

run "check open fence" 2 "$BIN" lesson check "$FIX/05-open-fence.md"
grep -q "05-open-fence.md:9: code block '\`\`\`' is still open at the \`\`\`exercise block of line 16" "$tmp/err" ||
    fail "check open fence: $(cat "$tmp/err")"
grep -q "ok (" "$tmp/out" && fail "check open fence: still says ok"
# a block that shows a lesson's blocks, with a longer fence, and a '---' in a code block: fine
printf -- '# One\n\n````markdown\n```exercise\nid: shown\n```\n````\n\n```text\n\n---\n```\n' >"$tmp/01-shown.md"
run "check a shown exercise block" 0 "$BIN" lesson check "$tmp/01-shown.md"
run "check fence to the end" 2 "$BIN" lesson check "$FIX/07-fence-to-end.md"
grep -q "07-fence-to-end.md:9: code block" "$tmp/err" || fail "check fence to the end: $(cat "$tmp/err")"
printf -- '# One\n\nText.\n\n```\nnever closed, no slide after\n' >"$tmp/01-end.md"
run "check fence at the end" 2 "$BIN" lesson check "$tmp/01-end.md"
grep -q "01-end.md:5: code block '\`\`\`' is never closed" "$tmp/err" || fail "check fence at the end: $(cat "$tmp/err")"
run "check open note" 2 "$BIN" lesson check "$FIX/06-open-note.md"
grep -q "06-open-note.md:9: speaker note '<!-- note:' is never closed" "$tmp/err" ||
    fail "check open note: $(cat "$tmp/err")"

# a 16 KB lesson of 200 slides, each a 16-rank all-to-all: bounded, refused, no file left
python3 - "$tmp/01-big.md" <<'PY'
import sys
out = ["---", "lesson: big", "title: Big", "---", ""]
for i in range(200):
    out += ["# Slide %d" % (i + 1), "", "Words.", "", "```scene", "collective: all_to_all",
            "ranks: 16", "step: end", "```", "", "---", ""]
open(sys.argv[1], "w").write("\n".join(out[:-2]) + "\n")
PY
refused "export bound" "the handout would pass 32 MiB .* at slide [0-9]+ of .*01-big.md \(line [0-9]+\)" \
    "$BIN" lesson export "$tmp/01-big.md" --format html -o "$tmp/big.html"
[ ! -e "$tmp/big.html" ] || fail "export bound: left $tmp/big.html"
run "export lessons/ under the bound" 0 "$BIN" lesson export "$HERE/../../lessons" --format html -o "$tmp/all.html"
[ "$(stat -c %s "$tmp/all.html" 2>/dev/null || echo 0)" -lt $((32 << 20)) ] || fail "lessons/ handout over 32 MiB"

# messages
refused "export to a folder" "cannot write $tmp: Is a directory" \
    "$BIN" lesson export "$HERE/../lesson/present/01-present.md" --format html -o "$tmp"
refused "svg to a folder" "cannot write $tmp: Is a directory" "$BIN" svg -o "$tmp"
run "lesson --help" 0 "$BIN" lesson --help
grep -qE "^  export PATH" "$tmp/out" || fail "lesson --help does not list export"
python3 - "$tmp/02-msg.md" <<'PY'
import sys
t = "# T\n\n```exercise\nid: e1\ntype: number\nprompt: p\nparam: %s = 3\nanswer: 1\nunits: x\n```\n" % ("x" * 900)
t += "\n```exercise\nid: e2\ntype: number\nprompt: p\nparam: a =  1e309\nanswer: a\nunits: x\n```\n"
t += "\n```exercise\nid: e3\ntype: number\nprompt: p\nanswer: 1,2\nunits: x\n```\n"
open(sys.argv[1], "w").write(t)
PY
run "lesson messages" 2 "$BIN" lesson check "$tmp/02-msg.md"
grep -q "02-msg.md:7: param: name 'xxxxxxxxxxxxxxxxxxxxxxxx...' too long (at most 31 characters)" "$tmp/err" ||
    fail "900-character param name: $(cut -c1-200 "$tmp/err" | head -1)"
grep -q "02-msg.md:16: param a: bad value '1e309' (a plain number)" "$tmp/err" || fail "leading space kept: $(grep ':16:' "$tmp/err")"
grep -q "02-msg.md:25: answer: '1,2' is more than one value" "$tmp/err" || fail "answer 1,2: $(grep ':25:' "$tmp/err")"
mkdir -p "$XDG_STATE_HOME/collviz/progress"
run "corrupt progress" 0 env COLLVIZ_LESSONS="$HERE/../lesson/ok" "$BIN" lesson list
grep -q "is corrupt (a directory, not a regular file)" "$tmp/err" || fail "corrupt progress: $(cat "$tmp/err")"
grep -q "line 0" "$tmp/err" && fail "corrupt progress names line 0"
rm -rf "$XDG_STATE_HOME/collviz/progress"

# ---- inputs are exact ------------------------------------------------------------------

refused "ranks +4" "^collviz: --ranks \+4: must be 1\.\.16" "$BIN" trace all_reduce --ranks +4
refused "ranks ' 4'" "^collviz: --ranks  4: must be 1\.\.16" "$BIN" trace all_reduce --ranks ' 4'
refused "bench ranks +4" "^collviz: --ranks \+4: need a whole number" "$BIN" bench --ranks +4 all_reduce
refused "bench -f 0x10" "^collviz: -f 0x10: need a factor" "$BIN" bench -f 0x10 -b 1K -e 4K all_reduce
refused "bench -b 1k" "^collviz: -b 1k: not a size" "$BIN" bench -b 1k all_reduce
refused "bench -b 64MB" "^collviz: -b 64MB: not a size" "$BIN" bench -b 64MB all_reduce
refused "collective all-reduce-" "unknown collective 'all-reduce-'" "$BIN" bench -b 1K all-reduce-
refused "collective ALL_REDUCE" "ALL_REDUCE: unknown collective" "$BIN" trace ALL_REDUCE
run "collective all-reduce" 0 "$BIN" trace all-reduce
refused "scene key twice" "key 'ranks' given twice" "$BIN" svg --scene "ranks=4 ranks=8"
refused "bench -b 17G" "^collviz: -b 17G: at most 16G" "$BIN" bench -b 17G all_reduce
refused "bench -e 64G" "^collviz: -e 64G: at most 16G" "$BIN" bench -b 1K -e 64G all_reduce
# the whole range is checked before the first size: 16 ranks of 16G all-reduce is 256 GiB
avail=$(awk '/MemAvailable/ {printf "%d", $2 * 1024}' /proc/meminfo)
if [ "${avail:-0}" -gt 0 ] && [ "$avail" -lt $((256 << 30)) ]; then
    refused "bench range memory" "^collviz: -e 16G: 16 GiB all_reduce on 16 ranks needs 256 GiB of memory; .* available \(nothing was run\)" \
        "$BIN" bench --backend cpu --ranks 16 -b 1K -e 16G -n 1 -w 0 all_reduce
    [ -s "$tmp/out" ] && fail "bench range memory: printed results: $(head -3 "$tmp/out")"
else
    echo "SKIP: bench range memory (this machine has 256 GiB free)"
fi
run "bench -b 1K" 0 "$BIN" bench --backend cpu -b 1K -n 1 -w 0 all_reduce

if [ -n "$ASAN_BIN" ]; then
    for f in "$FIX"/*.md; do
        "$ASAN_BIN" lesson check "$f" >/dev/null 2>"$tmp/asan" ||
            ! grep -q "Sanitizer" "$tmp/asan" || fail "ASan: lesson check $f: $(grep -m1 Sanitizer "$tmp/asan")"
        "$ASAN_BIN" lesson export "$f" --format html -o "$tmp/a.html" >/dev/null 2>"$tmp/asan" ||
            ! grep -q "Sanitizer" "$tmp/asan" || fail "ASan: lesson export $f: $(grep -m1 Sanitizer "$tmp/asan")"
    done
fi

if [ "$fails" -eq 0 ]; then
    echo "test_hostile: all passed"
else
    echo "test_hostile: $fails failed"
    exit 1
fi

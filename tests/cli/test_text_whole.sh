#!/usr/bin/env bash
# test_text_whole.sh - no text is lost or broken on its way out (issue 29, item 6). The
# fixture tests/lesson/hostile2/06-long-text.md has a prompt of ~2,770 bytes of CJK text
# (cut at 2,047 bytes before, mid-character), a long hint and solution, a long accented
# title, and character references to surrogates and past U+10FFFF in its narration.
#   - every output (show text and json, variant text and json, the HTML handout) is valid
#     UTF-8 and holds the whole prompt, hint and solution;
#   - in the HTML each reference that names no character is one U+FFFD;
#   - a file named 01-<0x9b>31m.md: show --format json writes valid UTF-8 (U+FFFD for the
#     byte) in "path";
#   - the PDF: pango takes every string without a warning, and every page's footer ends in
#     its page number after the title cut on a character boundary with an ellipsis.
# Usage: test_text_whole.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
FIX=$TOP/tests/lesson/hostile2
mkdir -p "$tmp/l"
cp "$FIX/06-long-text.md" "$tmp/l/"
export COLLVIZ_LESSONS=$tmp/l

# out NAME FILE ARGS...: collviz ARGS > FILE, exit 0 wanted, nothing on stderr
out() {
    local name=$1 file=$2
    shift 2
    "$BIN" "$@" >"$file" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq 0 ] || fail "$name: exit $rc ($(head -c 300 "$tmp/err"))"
    [ -s "$tmp/err" ] && fail "$name: stderr: $(head -c 300 "$tmp/err")"
}

out "show text" "$tmp/show.txt" lesson show "$FIX/06-long-text.md"
out "show json" "$tmp/show.json" lesson show "$FIX/06-long-text.md" --format json
out "variant text" "$tmp/variant.txt" lesson variant long-prompt --seed 3
out "variant json" "$tmp/variant.json" lesson variant long-prompt --seed 3 --format json
out "variant 0 json" "$tmp/variant0.json" lesson variant long-prompt --format json
out "export html" "$tmp/x.html" lesson export "$FIX/06-long-text.md" --format html -o "$tmp/out.html"
cp "$tmp/out.html" "$tmp/x.html"

python3 - "$FIX/06-long-text.md" "$tmp" <<'PY' || fail "text checks (above)"
import json, re, sys
src, tmp = sys.argv[1], sys.argv[2]
lines = open(src, encoding="utf-8").read().splitlines()
prompt = " ".join(l[len("prompt: "):] for l in lines if l.startswith("prompt: "))
hint = next(l[len("hint: "):] for l in lines if l.startswith("hint: "))
sol = "\n".join(l[len("solution: "):] for l in lines if l.startswith("solution: "))
bad = 0
def check(what, cond):
    global bad
    if not cond:
        print("FAIL: " + what)
        bad += 1
docs = {}
for f in ("show.txt", "show.json", "variant.txt", "variant.json", "variant0.json", "x.html"):
    b = open(tmp + "/" + f, "rb").read()
    try:
        docs[f] = b.decode("utf-8")
    except UnicodeDecodeError as e:
        check("%s is not valid UTF-8: %s" % (f, e), False)
        docs[f] = b.decode("utf-8", "replace")
for f, t in docs.items():
    check("%s lacks the prompt's end" % f, "QUESTION-END" in t)
show = json.loads(docs["show.json"])
ex = show["slides"][0]["exercises"][0]
check("show json: prompt is not the whole prompt (%d of %d bytes)" %
      (len(ex["prompt"].encode()), len(prompt.replace("{n}", "4").encode())),
      ex["prompt"] == prompt.replace("{n}", "4"))
check("show json: hint not whole", ex["hints"] == [hint])
check("show json: solution not whole", ex["solution"] == sol)
v0 = json.loads(docs["variant0.json"])
check("variant 0: prompt not whole", v0["prompt"] == prompt.replace("{n}", "4"))
v = json.loads(docs["variant.json"])
n = v["params"]["n"]
check("variant 3: prompt not whole", v["prompt"] == prompt.replace("{n}", "%g" % n))
check("variant text: the whole prompt", prompt.replace("{n}", "%g" % n) in docs["variant.txt"])
check("show text: the whole prompt", prompt.replace("{n}", "4") in docs["show.txt"])
# the HTML: the prompt whole, each of the four references one U+FFFD, no encoded surrogate
h = docs["x.html"]
check("html: the whole prompt", prompt.replace("{n}", "4") in h)
m = re.search(r"Character references that name no character: (.*?) end\.", h)
check("html: the narration line is missing", m is not None)
if m:
    check("html: the references are %r, want four U+FFFD" % m.group(1),
          m.group(1) == "\ufffd \ufffd \ufffd \ufffd")
sys.exit(1 if bad else 0)
PY

# a file name with a raw 0x9b (a C1 CSI on a terminal, not UTF-8): JSON stays valid
cp "$FIX/06-long-text.md" "$tmp/01-"$'\x9b'"31m.md"
out "show json 9b" "$tmp/p.json" lesson show "$tmp/01-"$'\x9b'"31m.md" --format json
python3 - "$tmp/p.json" <<'PY' || fail "show json of 01-<9b>31m.md (above)"
import json, sys
b = open(sys.argv[1], "rb").read()
try:
    d = json.loads(b.decode("utf-8"))
except UnicodeDecodeError as e:
    print("FAIL: not valid UTF-8: %s" % e)
    sys.exit(1)
if not d["path"].endswith("/01-\ufffd31m.md"):
    print("FAIL: path %r" % d["path"])
    sys.exit(1)
PY

# the PDF: no pango warning (invalid UTF-8), a footer with its page number on every page
if command -v pdftotext >/dev/null 2>&1; then
    "$BIN" lesson export "$FIX/06-long-text.md" --format pdf -o "$tmp/x.pdf" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "export pdf: exit $rc"
    [ -s "$tmp/err" ] && fail "export pdf: stderr: $(head -c 300 "$tmp/err")"
    pdftotext -layout "$tmp/x.pdf" "$tmp/x.txt"
    python3 - "$tmp/x.txt" <<'PY' || fail "PDF footers (above)"
import re, sys
pages = open(sys.argv[1], encoding="utf-8").read().split("\f")
pages = [p for p in pages if p.strip()]
bad = 0
for i, p in enumerate(pages, 1):
    m = re.search(r"(Bandbreite f\u00fcr Gr\u00f6\u00dfen[^\n]*?)\u2026 \u00b7 page (\d+)\s*$", p)
    if not m or int(m.group(2)) != i:
        print("FAIL: page %d: no footer 'title\u2026 \u00b7 page %d': %r" % (i, i, p.strip()[-160:]))
        bad += 1
sys.exit(1 if bad or not pages else 0)
PY
else
    echo "SKIP: the PDF footer (no pdftotext)"
fi

cli_finish "test_text_whole (every output whole and valid UTF-8)"

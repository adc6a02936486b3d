#!/usr/bin/env bash
# test_nccl_indent.sh - a record pasted indented (four spaces, or a tab, before every line,
# as issue trackers and mail quote a log) is the same record: over every plain record of
# tests/records/, its indented copy's JSON equals the record's, the warnings' codes and
# messages included (line numbers are the same), but for the warning that says the
# indentation: once where the record has NCCL's headers (nccl-tests' rows start with blanks
# of their own: the blanks of a record of rows alone are not said).
# Usage: test_nccl_indent.sh BIN [ASAN_BIN]   exits 0, 1, or 77 (cannot run)
. "$(dirname "$0")/lib.sh" "$@"
DIR=$TOP/tests/records
if ! command -v python3 >/dev/null; then
    echo "SKIP: test_nccl_indent.sh (no python3)"
    exit 77
fi
n=0
mkdir "$tmp/a" "$tmp/i" # the copies' paths of one length: messages cut alike
for p in "$DIR"/*.log "$DIR"/*.txt; do
    b=$(basename "$p")
    cp "$p" "$tmp/a/$b"
    "$BIN" nccl "$tmp/a/$b" --format json >"$tmp/plain.json" 2>/dev/null
    for ind in '    ' $'\t'; do
        sed "s/^/$ind/" "$p" >"$tmp/i/$b"
        "$BIN" nccl "$tmp/i/$b" --format json >"$tmp/ind.json" 2>/dev/null
        python3 - "$tmp/plain.json" "$tmp/ind.json" "$tmp/a/$b" "$tmp/i/$b" <<'PY' || fail "$b indented ('$ind'): not the same record"
import json, re, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def norm(d, path):
    d = json.loads(json.dumps(d).replace(path, "FILE"))
    return d
a, b = norm(a, sys.argv[3]), norm(b, sys.argv[4])
said = [w for w in b["warnings"] if "lines indented as pasted" in w["message"]]
for d in (a, b):
    d["warnings"] = [w for w in d["warnings"] if "lines indented as pasted" not in w["message"]]
# a list of warnings that ran out of room ("N more warnings not shown") keeps one fewer
# where the indentation took a place: the indented copy's are the plain record's, less a
# line's and a finishing one (the room is shared)
if any("more warnings not shown" in w["message"] for w in a["warnings"]):
    more = lambda w: "more warnings not shown" in w["message"]
    wa = [w for w in a["warnings"] if not more(w)]
    wb = [w for w in b["warnings"] if not more(w)]
    if all(w in wa for w in wb) and 1 <= len(wa) - len(wb) <= 2:
        a["warnings"] = b["warnings"] = []
text = open(sys.argv[3], errors="replace").read()
# (CloudWatch's "  | time | " prefix starts with blanks of its own: an indented one is no
# paste of the log's own lines, and says nothing)
headers = re.search(r"NCCL (INFO|WARN)", text) is not None and not re.search(r"^ *\|", text, re.M)
if len(said) != int(headers) or a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("  %s: %s | %s" % (k, str(a.get(k))[:300], str(b.get(k))[:300]))
    print("  indentation said %d times" % len(said))
    sys.exit(1)
PY
    done
    n=$((n + 1))
done
[ "$n" -ge 80 ] || fail "$n plain records, want at least 80"
cli_finish test_nccl_indent.sh

#!/usr/bin/env bash
# test_nccl_copies.sh - a record given twice under two names (a copy, or its .gz) is read once:
# over every plain record of tests/records/, `collviz nccl R COPY` and `collviz nccl R
# COPY.gz` give R's own JSON and one warning more, "COPY is the same record as R: read
# once"; two files that differ by one byte are both read.
# Usage: test_nccl_copies.sh BIN [ASAN_BIN]   exits 0, 1, or 77 (cannot run)
. "$(dirname "$0")/lib.sh" "$@"
DIR=$TOP/tests/records
if ! command -v python3 >/dev/null || ! command -v gzip >/dev/null; then
    echo "SKIP: test_nccl_copies.sh (no python3 or gzip)"
    exit 77
fi
n=0
: >"$tmp/list"
for p in "$DIR"/*.log "$DIR"/*.txt; do
    b=$(basename "$p")
    n=$((n + 1))
    mkdir "$tmp/$n"
    cp "$p" "$tmp/$n/$b"
    cp "$p" "$tmp/$n/copy"
    gzip -c "$p" >"$tmp/$n/copy.gz"
    "$BIN" nccl "$tmp/$n/$b" --format json >"$tmp/$n/one.json" 2>/dev/null
    for c in copy copy.gz; do
        "$BIN" nccl "$tmp/$n/$b" "$tmp/$n/$c" --format json >"$tmp/$n/$c.json" 2>/dev/null
        printf '%s\t%s\t%s\t%s\n' "$tmp/$n/one.json" "$tmp/$n/$c.json" "$tmp/$n/$c" "$tmp/$n/$b" >>"$tmp/list"
    done
done
python3 - "$tmp/list" >"$tmp/out" <<'PY'
import json, sys
bad = False
for row in open(sys.argv[1]):
    one, two, copy, rec = row.rstrip("\n").split("\t")
    try:
        a, b = json.load(open(one)), json.load(open(two))
        b["warnings"]
    except (ValueError, KeyError):
        print("FAIL: %s and %s: no JSON (not read as one record)" % (rec, copy))
        bad = True
        continue
    want = "%s is the same record as %s: read once" % (copy, rec)
    said = [w for w in b["warnings"] if w["message"] == want]
    b["warnings"] = [w for w in b["warnings"] if w not in said]
    more = lambda w: "more warnings not shown" in w["message"]
    if any(more(w) for w in a["warnings"]):  # a full list: the note took a later one's room
        wa = [w for w in a["warnings"] if not more(w)]
        wb = [w for w in b["warnings"] if not more(w)]
        if all(w in wa for w in wb) and len(wa) - len(wb) <= 1:
            a["warnings"] = b["warnings"] = []
    if len(said) != 1 or a != b:
        print("FAIL: %s and %s: not read once (said %d times; %s differ)" %
              (rec, copy, len(said), [k for k in a if a.get(k) != b.get(k)]))
        bad = True
sys.exit(1 if bad else 0)
PY
cli_take_fails $? "$tmp/out" "the copies' comparison"
[ "$n" -ge 80 ] || fail "$n plain records, want at least 80"
# one byte apart: two records, both read (no warning of a copy)
R=$DIR/nccl1504-p2pcumem-1node4-rings-from-links.log
sed '1s/131072/131073/' "$R" >"$tmp/other.log"
"$BIN" nccl "$R" "$tmp/other.log" --format json 2>/dev/null | grep -q 'same record' &&
    fail "two records one byte apart called the same"
cli_finish test_nccl_copies.sh

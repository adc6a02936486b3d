#!/usr/bin/env bash
# test_nccl_corpus.sh - `collviz nccl --format json` on every record of tests/records/ that has an
# expectation (tests/records/expect/<record>.json, written by hand from reading the record:
# library, version, launcher, line prefixes, hosts, communicators with their ranks, rings,
# channels, trees and transports, nccl-tests tables, TUNING/GRAPH output, the warnings a
# careful reader owes). The comparison is tests/cli/nccl_corpus_check.py; the JSON it expects
# of the reader is the contract in tests/records/expect/README.md. Also scores today's JSON
# fields (nccl_version, nranks, nnodes, hosts, rings, trees, tests) for information.
#
# In the suite (run.sh takes test_*.sh): every record must be read right.
# Usage: test_nccl_corpus.sh BIN [ASAN_BIN]   exits 0 (all records right), 1, or 77 (cannot run)
. "$(dirname "$0")/lib.sh" "$@"
DIR=$TOP/tests/records
CHECK=$CLI_HERE/nccl_corpus_check.py

if ! command -v python3 >/dev/null; then
    echo "SKIP: test_nccl_corpus.sh (no python3)"
    exit 77
fi
if [ ! -x "$BIN" ]; then
    echo "SKIP: test_nccl_corpus.sh ($BIN is not an executable)"
    exit 77
fi

# Every record has an expectation and every expectation a record: a record nobody described
# is not tested, and a description of nothing tests nothing.
n=0
for p in "$DIR"/*; do
    b=$(basename "$p")
    case $b in README.md | expect) continue ;; esac
    [ -f "$DIR/expect/$b.json" ] || fail "$b: no expect/$b.json"
done
for e in "$DIR"/expect/*.json; do
    b=$(basename "$e" .json)
    [ -e "$DIR/$b" ] || fail "expect/$b.json: no record $b"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d['record'] != sys.argv[2])" \
        "$e" "$b" || fail "expect/$b.json: its \"record\" is not $b"
done

# The comparison itself: a perfect answer passes it, and one wrong in any single place fails.
python3 "$CHECK" --selftest "$DIR"/expect/*.json || fail "nccl_corpus_check.py --selftest"

right=0
old_right=0
old_bad=()
for e in "$DIR"/expect/*.json; do
    b=$(basename "$e" .json)
    [ -e "$DIR/$b" ] || continue
    n=$((n + 1))
    "$BIN" nccl "$DIR/$b" --format json >"$tmp/d.json" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "$b: exit status $rc ($(head -1 "$tmp/err"))"
        echo "OLD bad: exit $rc" >"$tmp/out"
    elif python3 "$CHECK" "$e" "$tmp/d.json" >"$tmp/out"; then
        right=$((right + 1))
    else
        fail "$b: differs from expect/$b.json:"
        grep -v '^OLD ' "$tmp/out"
    fi
    # The text names the library and version the JSON does, whole (both come from the same
    # banner line; the JSON is checked against the hand-written expectation above), and never
    # calls a record of an unnamed library "NCCL".
    "$BIN" nccl "$DIR/$b" >"$tmp/t.txt" 2>/dev/null
    python3 - "$tmp/d.json" "$tmp/t.txt" >"$tmp/lib" 2>&1 <<'PY' || fail "$b: text: $(cat "$tmp/lib")"
import json, sys
d = json.load(open(sys.argv[1]))
head = open(sys.argv[2]).readline().rstrip("\n")
lib, ver = d.get("library"), d.get("version")
want = (lib or "library not named") + " " + (ver or "(version not in the records)")
if not head.startswith(want):
    sys.exit("first line %r, want it to start %r" % (head, want))
if lib is None and ("NCCL" in head or "RCCL" in head):
    sys.exit("first line %r names a library the record does not" % head)
PY
    if grep -q '^OLD ok' "$tmp/out"; then
        old_right=$((old_right + 1))
    else
        old_bad+=("$b: $(sed -n 's/^OLD bad: //p' "$tmp/out")")
    fi
    # Under ASan+UBSan: no finding, whatever the exit status.
    if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
        "$ASAN_BIN" nccl "$DIR/$b" --format json >/dev/null 2>"$tmp/asan"
        grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$tmp/asan" &&
            fail "asan: $b: $(grep -m1 "runtime error\|Sanitizer" "$tmp/asan")"
    fi
done
[ "$n" -ge 30 ] || fail "corpus: $n records with expectations, want at least 30"

echo "new contract: $right of $n records right"
echo "today's fields (nccl_version, nranks, nnodes, hosts, rings, trees, tests): $old_right of $n right"
for x in "${old_bad[@]}"; do echo "  old: $x"; done
cli_finish test_nccl_corpus.sh

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
done

# The comparison itself: a perfect answer passes it, and one wrong in any single place fails.
python3 "$CHECK" --selftest "$DIR"/expect/*.json || fail "nccl_corpus_check.py --selftest"

# The reader on every record, JSON and text; then every comparison in one python3 run
# (nccl_corpus_check.py --corpus: each expectation's "record" is its name, the JSON against
# the expectation, the text's first line against the JSON's library and version).
mkdir "$tmp/out"
: >"$tmp/list"
for e in "$DIR"/expect/*.json; do
    b=$(basename "$e" .json)
    if [ ! -e "$DIR/$b" ]; then
        printf '%s\t%s\t-\n' "$b" "$e" >>"$tmp/list"
        continue
    fi
    n=$((n + 1))
    "$BIN" nccl "$DIR/$b" --format json >"$tmp/out/$b.json" 2>"$tmp/err"
    rc=$?
    [ "$rc" -ne 0 ] && fail "$b: exit status $rc ($(head -1 "$tmp/err"))"
    # The text names the library and version the JSON does, whole (both come from the same
    # banner line; the JSON is checked against the hand-written expectation), and never
    # calls a record of an unnamed library "NCCL".
    "$BIN" nccl "$DIR/$b" >"$tmp/out/$b.txt" 2>/dev/null
    printf '%s\t%s\t%s\t%s\t%s\n' "$b" "$e" "$rc" "$tmp/out/$b.json" "$tmp/out/$b.txt" >>"$tmp/list"
done
python3 "$CHECK" --corpus "$tmp/list" >"$tmp/checked"
cli_take_fails $? "$tmp/checked" "nccl_corpus_check.py --corpus"
grep -q '^new contract: ' "$tmp/checked" || fail "nccl_corpus_check.py --corpus: no summary"

# Under ASan+UBSan: no finding, whatever the exit status.
if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
    for e in "$DIR"/expect/*.json; do
        b=$(basename "$e" .json)
        [ -e "$DIR/$b" ] || continue
        "$ASAN_BIN" nccl "$DIR/$b" --format json >/dev/null 2>"$tmp/asan"
        grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$tmp/asan" &&
            fail "asan: $b: $(grep -m1 "runtime error\|Sanitizer" "$tmp/asan")"
    done
fi
[ "$n" -ge 30 ] || fail "corpus: $n records with expectations, want at least 30"
cli_finish test_nccl_corpus.sh

#!/usr/bin/env bash
# test_nccl_pairs.sh - records of different jobs given together (`collviz nccl A B`) are never
# read as one record: over the corpus of tests/records/, every record paired with a record
# that its hand-written expectation shows is another job's (different library, version,
# commIds, communicator sizes or launcher), one pair per record and kind of evidence. The
# pairing and the check: tests/cli/nccl_pairs_check.py.
# Usage: test_nccl_pairs.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
if ! command -v python3 >/dev/null; then
    echo "SKIP: test_nccl_pairs.sh (no python3)"
    exit 77
fi
python3 "$CLI_HERE/nccl_pairs_check.py" "$BIN" "$TOP/tests/records" >"$tmp/out"
cli_take_fails $? "$tmp/out" "nccl_pairs_check.py"
grep -q "pairs of different jobs' records, 0 read as one" "$tmp/out" || fail "$(tail -1 "$tmp/out")"
cli_finish test_nccl_pairs.sh

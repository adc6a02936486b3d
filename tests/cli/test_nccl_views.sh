#!/usr/bin/env bash
# test_nccl_views.sh - every view of a record names the same facts: `collviz nccl` on every
# record of tests/records/ (and the fixtures below), its JSON and text checked by
# tests/cli/nccl_views_check.py against what each record's own text says (the invariants
# are listed there: nccl-tests' device list and the NCCL lines of its processes are one
# communicator; one host for a rank in the JSON's top level, its communicators, the text).
#
# Usage: test_nccl_views.sh BIN [ASAN_BIN]   exits 0, 1, or 77 (cannot run)
. "$(dirname "$0")/lib.sh" "$@"
DIR=$TOP/tests/records
if ! command -v python3 >/dev/null; then
    echo "SKIP: test_nccl_views.sh (no python3)"
    exit 77
fi
: >"$tmp/list"
for p in "$DIR"/* "$CLI_HERE"/views/*; do
    b=$(basename "$p")
    case $b in README.md | expect | '*') continue ;; esac
    "$BIN" nccl "$p" --format json >"$tmp/$b.json" 2>/dev/null
    "$BIN" nccl "$p" >"$tmp/$b.txt" 2>/dev/null
    printf '%s\t%s\t%s\t%s\n' "$b" "$p" "$tmp/$b.json" "$tmp/$b.txt" >>"$tmp/list"
done
python3 "$CLI_HERE/nccl_views_check.py" "$tmp/list" >"$tmp/out"
cli_take_fails $? "$tmp/out" "nccl_views_check.py"
cli_finish test_nccl_views.sh

#!/usr/bin/env bash
# Golden screens: the whole screen of a deterministic scene, compared with a committed
# capture under tests/screen/golden/. What depends on the machine (the backend's
# description: core counts, GPU names) is masked: in the measured panel, from the
# "backend" line's column to the right edge. No measurement runs (--no-measure), so the
# panel's left column is deterministic too ("not measured yet") once the check is done.
# Regenerate after an intended change with:  UPDATE_GOLDEN=1 bash tests/screen/test_golden.sh build/collviz
. "$(dirname "$0")/lib.sh" "$1"
GOLDEN_DIR="$(dirname "$0")/golden"

mask() {
    python3 -c '
import re, sys
lines = sys.stdin.read().rstrip("\n").split("\n")
start, col = None, None
for y, line in enumerate(lines):
    m = re.search(r"backend \w+: ", line)
    if m:
        start, col = y, m.start()
        break
for y, line in enumerate(lines):
    # From the backend line to the panel bottom border (the last two rows are the border
    # and the key bar), everything right of the backend column is machine-dependent.
    if start is not None and start <= y < len(lines) - 2:
        line = line[:col] + "<masked>"
    print(line.rstrip())
'
}

check() { # name cols rows args keys...
    local name=$1 cols=$2 rows=$3 args=$4 wait_text=$5
    shift 5
    tm_cleanup
    tm_start "$cols" "$rows" "--backend cpu --no-measure $args"
    tm_wait "step " || fail "$name: the screen never came up"
    [ $# -gt 0 ] && tm_keys "$@"
    tm_wait "$wait_text" 20 || fail "$name: '$wait_text' never appeared"
    tm_stable
    local got
    got=$(tm_screen | mask)
    local file="$GOLDEN_DIR/$name.txt"
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        mkdir -p "$GOLDEN_DIR"
        printf '%s\n' "$got" >"$file"
        echo "updated $file"
        return
    fi
    [ -f "$file" ] || fail "$name: no golden file $file (run with UPDATE_GOLDEN=1)"
    if ! diff -u "$file" <(printf '%s\n' "$got") >/tmp/collviz-golden-$$.diff; then
        cat /tmp/collviz-golden-$$.diff
        rm -f /tmp/collviz-golden-$$.diff
        fail "$name: screen differs from $file"
    fi
    rm -f /tmp/collviz-golden-$$.diff
    grep -qF "<masked>" "$file" || fail "$name: the backend line was not found to mask"
}

check allreduce_end_100x32 100 32 "--collective all_reduce --step end" "✓ animation = cpu ranks (bit for bit)"
check alltoall_step2_80x24_ascii 80 24 "--collective all_to_all --step 2 --ascii" "OK animation = cpu ranks (bit for bit)"
check broadcast_tree_120x36 120 36 "--collective broadcast --algo tree --step 1" "✓ animation = cpu ranks (bit for bit)"
echo "ok: golden screens match"

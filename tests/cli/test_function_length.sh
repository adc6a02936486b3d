#!/usr/bin/env bash
# test_function_length.sh - no C function in src/ is longer than 120 lines (pmccabe counts
# them), except those listed in tools/long-functions.txt with a reason; a listed function
# that is short again must leave the list. Usage: test_function_length.sh [BIN [ASAN_BIN]]
. "$(dirname "$0")/lib.sh" --no-bin
LIMIT=120
command -v pmccabe >/dev/null || {
    echo "SKIP: no pmccabe (tools/deps.sh installs it)"
    exit 77
}
cd "$TOP" || exit 1
allowed=$(grep -v '^#' tools/long-functions.txt | awk 'NF { print $1 " " $2 }' | sort)
# pmccabe: columns 5 (lines) and 6 ("file(line): name").
long=$(find src -name '*.c' -print0 | sort -z | xargs -0 pmccabe 2>/dev/null |
    awk -v lim="$LIMIT" -F'\t' '$5 > lim { split($6, a, "[(]"); n = $6; sub(/^.*: /, "", n); print a[1] " " n " " $5 }' |
    sort)
while read -r f fn lines; do
    [ -n "$f" ] || continue
    grep -qxF "$f $fn" <<<"$allowed" && continue
    fail "$f: $fn is $lines lines (limit $LIMIT): split it, or list it with a reason in tools/long-functions.txt"
done <<<"$long"
while read -r f fn; do
    [ -n "$f" ] || continue
    if ! awk '{ print $1 " " $2 }' <<<"$long" | grep -qxF "$f $fn"; then
        fail "tools/long-functions.txt lists $f $fn, which is no longer over $LIMIT lines (or is gone): remove its line"
    fi
done <<<"$allowed"
n=$(grep -cv '^#' tools/long-functions.txt)
cli_finish "test_function_length (every function in src/ at most $LIMIT lines but the $n listed)"

#!/usr/bin/env bash
# test_backend_names.sh - above backend/ (the rooms over it in the "layers:" line of
# docs/architecture.md), code decides by a backend's capabilities and operations, never by
# its name: no identifier spells NCCL or MPI there (BACKEND_NCCL, HAVE_MPI, ...) outside
# comments and strings (tests/cli/backend_names.py finds them). Prints the count; a file
# that compares kinds by name must be found, so the check can fail.
# Usage: test_backend_names.sh [BIN [ASAN_BIN]] (runs no collviz)
. "$(dirname "$0")/lib.sh" --no-bin
cd "$TOP" || exit 1
command -v python3 >/dev/null || {
    echo "SKIP: no python3"
    exit 77
}
layers=$(sed -n 's/^layers: //p' docs/architecture.md)
[ -n "$layers" ] || {
    echo "FAIL: docs/architecture.md has no line \"layers: top → ... → bottom\""
    exit 1
}
# The rooms above backend, as paths under src/.
rooms=()
for r in $(sed 's/ → backend → .*//; s/ → / /g; s| / | |g' <<<"$layers"); do
    [ -e "src/$r" ] && rooms+=("src/$r")
done
[ "${#rooms[@]}" -gt 3 ] || fail "found only ${#rooms[@]} rooms above backend/ in: $layers"
names=$(find "${rooms[@]}" -name '*.[ch]' | sort | xargs python3 tests/cli/backend_names.py)
count=0
[ -n "$names" ] && count=$(wc -l <<<"$names")
while read -r l; do
    [ -n "$l" ] && fail "$l: a backend's name above backend/ (ask its capabilities instead)"
done <<<"$names"
echo "$count backend names in the code of ${#rooms[@]} rooms above backend/"

# The check can fail: a decision by name is found, one in a comment or a string is not.
printf '%s\n' '/* BACKEND_NCCL in a comment */' 'int f(int k) { return k == BACKEND_NCCL; }' \
    'const char *s = "MPI";' >"$tmp/by_name.c"
[ "$(python3 tests/cli/backend_names.py "$tmp/by_name.c")" = "$tmp/by_name.c:2: BACKEND_NCCL" ] ||
    fail "backend_names.py does not find exactly the one name in code of $tmp/by_name.c"
cli_finish "test_backend_names (above backend/, no backend is named in code)"

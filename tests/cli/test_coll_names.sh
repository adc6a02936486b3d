#!/usr/bin/env bash
# test_coll_names.sh - a collective added to the table is named wherever the program lists
# the collectives, with no text to edit: `trace --help` and `bench --help` (their
# COLLECTIVE lines), and the usage errors of trace (no collective, an unknown one), bench
# and model, each name every collective of tests/oracle/coll_answers.h (the tests' own
# list, written by hand: one `.name = "..."` an entry). And the prose that introduces
# collviz (README.md, docs/collviz.1.scd) does not count the collectives or their number
# keys ("the eight collectives", "`1`–`8`"), which a new one would make false.
# Usage: test_coll_names.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"

mapfile -t names < <(sed -n 's/.*\.name = "\([a-z_0-9]*\)".*/\1/p' "$TOP/tests/oracle/coll_answers.h")
[ "${#names[@]}" -ge 8 ] || fail "tests/oracle/coll_answers.h: ${#names[@]} names read, want 8 or more"

# has_every WHAT FILE: FILE names every collective as a whole word.
has_every() {
    local n
    for n in "${names[@]}"; do
        grep -qE "(^|[ (,])$n([ ,)]|$)" "$2" || fail "$1 does not name $n: $(tr '\n' ' ' <"$2")"
    done
}

while read -r b; do
    for cmd in trace bench; do
        "$b" "$cmd" --help >"$tmp/help" 2>&1 || fail "$cmd --help: exit $?"
        # the COLLECTIVE paragraph: its line and the indented ones after it
        awk '/^COLLECTIVE:/ { on = 1; print; next } on && /^ +[^ ]/ { print; next } { on = 0 }' \
            "$tmp/help" >"$tmp/list"
        [ -s "$tmp/list" ] || fail "$cmd --help has no COLLECTIVE line"
        has_every "$(basename "$b") $cmd --help" "$tmp/list"
    done
    for args in "trace" "trace no_such" "bench no_such" "model no_such"; do
        # shellcheck disable=SC2086 # the words of args are the arguments
        "$b" $args >/dev/null 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 2 ] || fail "$(basename "$b") $args: exit $rc, want 2"
        has_every "$(basename "$b") $args's error" "$tmp/err"
    done
done < <(cli_bins)

for f in README.md docs/collviz.1.scd; do
    grep -noiE '\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[0-9]+) collectives' \
        "$TOP/$f" >"$tmp/count" && fail "$f counts the collectives: $(tr '\n' ' ' <"$tmp/count")"
    grep -noE '`1`(–|-|\.\.)`[0-9]`' "$TOP/$f" >"$tmp/keys" &&
        fail "$f counts the number keys: $(tr '\n' ' ' <"$tmp/keys")"
done

cli_finish test_coll_names

#!/usr/bin/env bash
# test_type_names.sh - outside src/lesson/, code does what differs per exercise type through
# the type's operations (lesson/types/types.h: ex_type, ex_answer_form, ex_paper_note, ...),
# never by naming a type: no enum value of EX_TYPES (LEX_NUMBER, ...) and no type's name
# compared as a string ("number", ...) in src/ outside src/lesson/, where the types and their
# own support code live. The names come from EX_TYPES itself, so a new type is covered.
# Prints the count; a file that compares a type must be found, so the check can fail.
# Usage: test_type_names.sh [BIN [ASAN_BIN]] (runs no collviz)
. "$(dirname "$0")/lib.sh" --no-bin
cd "$TOP" || exit 1

types=src/lesson/types/types.h
mapfile -t enums < <(sed -n 's/^ *X(\(LEX_[A-Z_0-9]*\), *"[a-z_0-9]*",.*/\1/p' "$types")
mapfile -t words < <(sed -n 's/^ *X(LEX_[A-Z_0-9]*, *"\([a-z_0-9]*\)",.*/\1/p' "$types")
[ "${#enums[@]}" -ge 3 ] && [ "${#enums[@]}" -eq "${#words[@]}" ] ||
    fail "$types: read ${#enums[@]} enum values and ${#words[@]} names from EX_TYPES"

enum_re=$(IFS='|'; echo "${enums[*]}")
word_re=$(IFS='|'; echo "${words[*]}")
found=$(grep -rnE --include='*.c' --include='*.h' \
    -e "\\b($enum_re)\\b" \
    -e "(strcmp|strncmp|strcasecmp)\\([^;]*type[^;]*\"($word_re)\"" src |
    grep -v '^src/lesson/')
count=0
[ -n "$found" ] && count=$(wc -l <<<"$found")
while read -r l; do
    [ -n "$l" ] && fail "$l: an exercise type named outside src/lesson/ (ask its operations)"
done <<<"$found"

# the check itself: a line that names a type is found
probe=$(printf 'if (ex->type == %s) x();\n' "${enums[0]}" | grep -cE "\\b($enum_re)\\b")
[ "$probe" -eq 1 ] || fail "the pattern does not find ${enums[0]}"

echo "$count exercise type names outside src/lesson/"
cli_finish test_type_names

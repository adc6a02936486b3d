#!/usr/bin/env bash
# test_roommap.sh - the room map is whole: docs/architecture.md names every folder and
# every .c file under src/. A folder is named by its path under src/ with a slash
# ("ui/screens/topology/"), or by its own name with a slash ("topology/") when no other
# folder has that name; a file by its path under src/ ("cli/lesson.c"), or by its own name
# ("refine.c") when no other .c file has that name. A room of one file per entry of a table
# is named with its table on a line of the map,
#   one file each: lesson/types/ in lesson/types/types.h
# and a .c file right in that folder is named when the table's header names it as a string
# ("choice" for choice.c): a new exercise type is its file and its table line, and a file
# there that is no entry of the table must still be named. Prints how many are missing; a
# name the map lacks on purpose must make it fail, so the check can fail.
# Usage: test_roommap.sh [BIN [ASAN_BIN]] (runs no collviz)
. "$(dirname "$0")/lib.sh" --no-bin
cd "$TOP" || exit 1
doc=docs/architecture.md

# The folders and .c files under src/, one a line (src/x/ and src/x/y.c).
listing() { find src -mindepth 1 -type d | sed 's|$|/|'; find src -name '*.c'; }

# missing DOCFILE: of the paths read (listing's), those DOCFILE does not name, one a line.
missing() {
    sort | awk -v docfile="$1" '
        BEGIN {
            while ((getline l < docfile) > 0) {
                text = text "\n" l
                if (l ~ /^one file each: [^ ]+\/ in [^ ]+$/) { # a room of one file per entry
                    split(substr(l, 16), w, / in /)
                    h = ""
                    while ((getline hl < ("src/" w[2])) > 0) h = h "\n" hl
                    close("src/" w[2])
                    table[w[1]] = h
                }
            }
            text = text "\n"
        }
        { p[NR] = substr($0, 5); b = p[NR]; sub(/\/$/, "", b); sub(/.*\//, "", b)
          if (p[NR] ~ /\/$/) b = b "/"; base[NR] = b; count[b]++ }
        END {
            for (i = 1; i <= NR; i++) {
                if (index(text, p[i])) continue
                d = p[i]; sub(/[^\/]*$/, "", d); e = base[i]; sub(/[.]c$/, "", e)
                if (p[i] ~ /[.]c$/ && (d in table) && index(table[d], "\"" e "\"")) continue
                b = base[i]
                if (count[b] == 1) {
                    re = b; gsub(/[.]/, "[.]", re)
                    if (match(text, "[^A-Za-z0-9_.]" re "($|[^A-Za-z0-9_])")) continue
                }
                print (p[i] ~ /\/$/ ? "folder " : "file ") p[i]
            }
        }'
}

miss=$(listing | missing "$doc")
count=0
[ -n "$miss" ] && count=$(wc -l <<<"$miss")
while read -r m; do
    [ -n "$m" ] && fail "$doc does not name the $m"
done <<<"$miss"
total=$(($(find src -mindepth 1 -type d | wc -l) + $(find src -name '*.c' | wc -l)))
echo "$count of $total folders and .c files under src/ are missing from $doc"

# The check can fail: the map without its lines that name refine.c must miss it.
grep -v 'refine\.c' "$doc" >"$tmp/cut.md"
grep -qx 'file core/refine.c' <<<"$(listing | missing "$tmp/cut.md")" ||
    fail "a map without refine.c was not found to miss it: the check cannot fail"
# A room of one file per entry: a file there that its table does not name is missed, one
# that it names is not (the map's own words about it cut), and without the room's line
# such a file is missed again.
rooms=$(sed -n 's|^one file each: \([^ ]*/\) in .*|\1|p' "$doc")
for r in $rooms; do
    stray=$(missing "$doc" <<<"src/${r}not_an_entry.c")
    [ "$stray" = "file ${r}not_an_entry.c" ] ||
        fail "a file in $r that its table does not name was not missed (got: $stray)"
    f=$(find "src/$r" -maxdepth 1 -name '*.c' | sort | head -1)
    [ -n "$f" ] || { fail "the room $r has no .c file"; continue; }
    n=$(basename "$f")
    grep -vF "$n" "$doc" >"$tmp/entry.md"
    got=$(missing "$tmp/entry.md" <<<"$f")
    [ -z "$got" ] ||
        fail "$f, an entry of its room's table, was missed: $got"
    grep -v "^one file each: $r " "$tmp/entry.md" >"$tmp/noroom.md"
    [ "$(missing "$tmp/noroom.md" <<<"$f")" = "file ${f#src/}" ] ||
        fail "without the line of room $r, $f was not missed: the room's line is not what names it"
done
cli_finish "test_roommap (docs/architecture.md names every folder and .c file under src/)"

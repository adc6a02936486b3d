#!/usr/bin/env bash
# test_roommap.sh - the room map is whole: docs/architecture.md names every folder and
# every .c file under src/. A folder is named by its path under src/ with a slash
# ("ui/screens/topology/"), or by its own name with a slash ("topology/") when no other
# folder has that name; a file by its path under src/ ("cli/lesson.c"), or by its own name
# ("refine.c") when no other .c file has that name. Prints how many are missing; a name the
# map lacks on purpose must make it fail, so the check can fail.
# Usage: test_roommap.sh [BIN [ASAN_BIN]] (runs no collviz)
. "$(dirname "$0")/lib.sh" --no-bin
cd "$TOP" || exit 1
doc=docs/architecture.md

# missing DOCFILE: the folders and .c files under src/ it does not name, one a line.
missing() {
    { find src -mindepth 1 -type d | sed 's|$|/|'; find src -name '*.c'; } | sort |
        awk -v docfile="$1" '
        BEGIN { while ((getline l < docfile) > 0) text = text "\n" l; text = text "\n" }
        { p[NR] = substr($0, 5); b = p[NR]; sub(/\/$/, "", b); sub(/.*\//, "", b)
          if (p[NR] ~ /\/$/) b = b "/"; base[NR] = b; count[b]++ }
        END {
            for (i = 1; i <= NR; i++) {
                if (index(text, p[i])) continue
                b = base[i]
                if (count[b] == 1) {
                    re = b; gsub(/[.]/, "[.]", re)
                    if (match(text, "[^A-Za-z0-9_.]" re "($|[^A-Za-z0-9_])")) continue
                }
                print (p[i] ~ /\/$/ ? "folder " : "file ") p[i]
            }
        }'
}

miss=$(missing "$doc")
count=0
[ -n "$miss" ] && count=$(wc -l <<<"$miss")
while read -r m; do
    [ -n "$m" ] && fail "$doc does not name the $m"
done <<<"$miss"
total=$(($(find src -mindepth 1 -type d | wc -l) + $(find src -name '*.c' | wc -l)))
echo "$count of $total folders and .c files under src/ are missing from $doc"

# The check can fail: the map without its lines that name refine.c must miss it.
grep -v 'refine\.c' "$doc" >"$tmp/cut.md"
grep -qx 'file core/refine.c' <<<"$(missing "$tmp/cut.md")" ||
    fail "a map without refine.c was not found to miss it: the check cannot fail"
cli_finish "test_roommap (docs/architecture.md names every folder and .c file under src/)"

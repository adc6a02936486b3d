#!/usr/bin/env bash
# test_stale_names.sh - the comments name files that exist: every file name written in
# src/ and kernels/ (outside #include <...>) is one of ours, and a path ("sys/usock.h") is
# the end of one of ours. A name with a slash is checked as a path; a bare name is checked
# when it ends in .c or .cu (a bare "r.h" is a struct member, not a file). The files of other
# projects that comments cite on purpose are listed below with whose they are. Header
# guards spell their own path (COLLVIZ_SYS_USOCK_H for src/sys/usock.h).
# Usage: test_stale_names.sh [BIN [ASAN_BIN]] (runs no collviz)
. "$(dirname "$0")/lib.sh" --no-bin
cd "$TOP" || exit 1

# Other projects' files, cited: redis (ae.c, bio.c), NCCL (src/device/all_reduce.h,
# graph/topo.h), tig (request.h), and screens.h's NAME placeholder.
foreign='^(ae\.c|bio\.c|src/device/all_reduce\.h|graph/topo\.h|request\.h|NAME\.c/NAME\.h)$'

find src kernels tests tools -type f | sort >"$tmp/ours"
stale=$(grep -rnE '[A-Za-z0-9_./-]+\.(c|h|cu)\b' src kernels |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*<' |
    awk -F: -v foreign="$foreign" -v ours="$tmp/ours" '
    BEGIN { while ((getline p < ours) > 0) { path[++np] = p; b = p; sub(/.*\//, "", b); base[b] = 1 } }
    function known(n,   i, m) {
        if (n ~ foreign) return 1
        if (index(n, "/")) {
            sub(/^(\.\.?\/)+/, "", n); m = length(n)
            for (i = 1; i <= np; i++)
                if (substr(path[i], length(path[i]) - m + 1) == n &&
                    (length(path[i]) == m || substr(path[i], length(path[i]) - m, 1) == "/"))
                    return 1
            return 0
        }
        return n !~ /\.(c|cu)$/ || (n in base)
    }
    { f = $1; l = $2; t = $0; sub(/^[^:]+:[0-9]+:/, "", t)
      while (match(t, /[A-Za-z0-9_.\/-]+\.(c|h|cu)([^A-Za-z0-9_]|$)/)) {
          n = substr(t, RSTART, RLENGTH); sub(/[^A-Za-z0-9_]$/, "", n)
          if (!known(n)) print f ":" l " names " n ", which is not a file here"
          t = substr(t, RSTART + RLENGTH) } }')
count=0
while read -r m; do
    [ -n "$m" ] || continue
    fail "$m"
    count=$((count + 1))
done <<<"$stale"

# Header guards: COLLVIZ_ and the path under src/ (or kernels/) in capitals.
while read -r h; do
    rel=${h#src/}
    want=COLLVIZ_$(tr 'a-z/.' 'A-Z__' <<<"$rel")
    got=$(grep -m1 -oE '^#ifndef [A-Z0-9_]+' "$h" | cut -d' ' -f2)
    if [ "$got" != "$want" ]; then
        fail "$h: its guard is ${got:-missing}, want $want"
        count=$((count + 1))
    fi
done < <(find src kernels -name '*.h' | sort)
echo "$count stale file names and guards"
cli_finish "test_stale_names (comments name files that exist; guards spell their path)"

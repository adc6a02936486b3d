#!/usr/bin/env bash
# test_layers.sh - the layers hold: no #include in src/ (or kernels/) goes from a lower room
# to a higher one, nor between two rooms written side by side, using the order written in
# docs/architecture.md, on two lines of the room map:
#   layers: main.c → cli → ui → ... → core / version.h     (top to bottom)
#   apart: backend/cpu / backend/nccl / backend/mpi
# Rooms in one step of "layers:" (" / " between them) are at the same height and include
# none of one another; the "apart:" rooms sit at the height of the room they are in and
# include none of one another either. A file belongs to the longest room name that holds it;
# a file in no room fails too. Prints the count; the order read backwards must find
# includes upward, so the check can fail.
# Screens apart: a file of one screen (src/ui/screens/X/) includes no header of another
# (src/ui/screens/Y/), whatever the screens are called: what two screens share lives in ui/
# or reaches the other screen through its screen_ops.
# The collectives screen's state (collstate.h) is its own: struct app holds none of its
# fields and no file outside the screen (but its unit tests) includes that header.
# Usage: test_layers.sh [BIN [ASAN_BIN]] (runs no collviz)
. "$(dirname "$0")/lib.sh" --no-bin
cd "$TOP" || exit 1
doc=docs/architecture.md
layers=$(sed -n 's/^layers: //p' "$doc")
apart=$(sed -n 's/^apart: //p' "$doc")
[ -n "$layers" ] || {
    echo "FAIL: $doc has no line \"layers: top → ... → bottom\""
    exit 1
}

# Every quoted #include as "file<TAB>included path", the path resolved as the compiler
# does (-Isrc -I.: rooted at src/, else at the top; relative to the file when it starts
# with ./ or ../); includes of files that are not ours (md4c.h) are left out.
includes() {
    grep -rnH --include='*.[ch]' --include='*.cu' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' src kernels |
        sed -E 's/^([^:]+):([0-9]+):[^"]*"([^"]*)".*/\1:\2\t\3/' | sort |
        while IFS=$'\t' read -r at inc; do
            case $inc in
            ./* | ../*) p=$(realpath -m --relative-to=. "$(dirname "${at%%:*}")/$inc") ;;
            *) if [ -f "src/$inc" ]; then p=src/$inc; elif [ -f "$inc" ]; then p=$inc; else continue; fi ;;
            esac
            printf '%s\t%s\n' "$at" "$p"
        done
}

# check LAYERS APART: one line per include that breaks the order, on stdout.
check() {
    awk -F'\t' -v layers="$1" -v apart="$2" '
    function room(p,   q, best) { # the longest room name holding path p ("" for none)
        sub(/^src\//, "", p)
        best = ""
        for (q in height)
            if ((p == q || index(p, q "/") == 1) && length(q) > length(best)) best = q
        return best
    }
    BEGIN {
        n = split(layers, step, / → /)
        for (i = 1; i <= n; i++) {
            m = split(step[i], r, / \/ /)
            for (j = 1; j <= m; j++) { height[r[j]] = i; group[r[j]] = "step" i }
        }
        m = split(apart, r, / \/ /)
        for (j = 1; j <= m; j++) if (r[j] != "") { height[r[j]] = -1; group[r[j]] = "apart" }
        for (q in height) if (height[q] < 0) { # the height of the room it is in
            h = 0
            for (o in height) if (height[o] > 0 && index(q, o "/") == 1) h = height[o]
            height[q] = h
        }
    }
    {
        split($1, fl, ":")
        a = room(fl[1]); b = room($2)
        if (a == "") { print $1 " is in no room of the layer order"; next }
        if (b == "") { print $1 " includes " $2 ", in no room of the layer order"; next }
        if (a == b) next
        if (height[b] < height[a])
            print $1 " includes " $2 ": " a " is below " b
        else if (height[b] == height[a] && group[a] == group[b])
            print $1 " includes " $2 ": " a " and " b " are side by side"
    }'
}

all=$(includes)
bad=$(check "$layers" "$apart" <<<"$all")
count=0
[ -n "$bad" ] && count=$(wc -l <<<"$bad")
while read -r l; do
    [ -n "$l" ] && fail "$l"
done <<<"$bad"
echo "$count includes break the layer order of $doc ($(wc -l <<<"$all") includes read)"

# screens_apart: one line per include from one screen's folder into another's, on stdout.
screens_apart() {
    awk -F'\t' '{
        split($1, fl, ":")
        if (match(fl[1], /^src\/ui\/screens\/[^\/]+\//) == 0) next
        a = substr(fl[1], 1, RLENGTH)
        if (match($2, /^src\/ui\/screens\/[^\/]+\//) == 0) next
        b = substr($2, 1, RLENGTH)
        if (a != b) print $1 " includes " $2 ": one screen includes another screen'"'"'s header"
    }'
}
sbad=$(screens_apart <<<"$all")
scount=0
[ -n "$sbad" ] && scount=$(wc -l <<<"$sbad")
while read -r l; do
    [ -n "$l" ] && fail "$l"
done <<<"$sbad"
echo "$scount includes go from one screen's folder into another's"
# That check can fail: a screen's include of its own header, read as another screen's, is
# found.
probe=$(printf 'src/ui/screens/a/x.c:1\tsrc/ui/screens/b/y.h\n' | screens_apart)
[ -n "$probe" ] || fail "the screens check found no include between two screens: it cannot fail"

# The collectives screen's state is its own: the members of struct coll_screen (its state
# header) are none of struct app's (ui/app.h), and no file outside the screen's folder
# includes that header but the screen's own unit tests below; other files ask through
# screen_ops (screen_plan, screen_trace, screen_meas) or collectives.h.
coll_state_h=src/ui/screens/collectives/collstate.h
coll_state_tests="tests/unit/test_panel_stale.c tests/unit/test_panel_fit.c"
# members STRUCT < file: the member names of "struct STRUCT {" ... "};", one a line.
members() {
    perl -0777 -ne 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g;
        if (/^struct \Q'"$1"'\E \{(.*?)^\};/ms) {
            for my $d (split /;/, $1) {
                $d =~ s/\[[^\]]*\]//g;
                for my $n (split /,/, $d) { print "$1\n" if $n =~ /(\w+)\s*$/ }
            }
        }'
}
coll_fields=$(members coll_screen 2>/dev/null <"$coll_state_h")
[ -n "$coll_fields" ] || fail "$coll_state_h declares no struct coll_screen"
app_fields=$(members app <src/ui/app.h)
held=0
for f in $coll_fields; do
    grep -qxF "$f" <<<"$app_fields" || continue
    fail "src/ui/app.h: struct app holds $f, the collectives screen's own ($coll_state_h)"
    held=$((held + 1))
done
while read -r f; do
    [ -n "$f" ] && fail "$f includes $coll_state_h: only the collectives screen's own files do"
done < <(grep -rlE --include='*.[ch]' '#[[:space:]]*include[[:space:]]*"ui/screens/collectives/collstate\.h"' src tests |
    grep -v '^src/ui/screens/collectives/' | grep -vxF -f <(tr ' ' '\n' <<<"$coll_state_tests"))
echo "struct app holds $held of the collectives screen's $(wc -w <<<"$coll_fields") fields"
# That check can fail: a struct holding a plan and a measurement is read as holding them.
probe=$(printf 'struct app {\n    bool have_plan, x; /* plan; */\n    struct meas m;\n    float *send[4];\n};\n' | members app | tr '\n' ' ')
[ "$probe" = "have_plan x m send " ] || fail "the members check reads \"$probe\": it cannot fail"

# The check can fail: the same order bottom to top must find includes upward.
backwards=$(awk -F' → ' '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? " → " : "\n") }' <<<"$layers")
[ -n "$(check "$backwards" "" <<<"$all")" ] || fail "the order read backwards found no include upward: the check cannot fail"
cli_finish "test_layers (no include upward: $layers)"

#!/usr/bin/env bash
# A scene's highlight is drawn (colour mode: black on yellow, checked in the escape codes
# tmux captures): highlight=rank:1 on rank 1's box frame only, chunk:2 on element 2 of every
# rank, transfer:1 on the second entry of the step's list; without a highlight no box,
# value or transfer has that colour. The parallelism screen draws rank highlights too.
. "$(dirname "$0")/lib.sh" "$1"
HL=$'\e[43m' # the highlight's background (TH_HL in colour mode)

S=""
shot() { # scene words, text to wait for -> $S, the screen with its escape codes
    tm_cleanup
    tm_start 100 32 "--backend cpu --no-measure --scene '$1'"
    tm_wait "$2" 10 || fail "'$1' never came up"
    tm_stable tm_screen_ansi
    S=$(tm_screen_ansi)
}
line_of() { # ANSI screen, text -> the ANSI line whose plain text contains text
    local plain n
    plain=$(sed 's/\x1b\[[0-9;]*m//g' <<<"$1")
    n=$(grep -n -F -- "$2" <<<"$plain" | head -1 | cut -d: -f1)
    [ -n "$n" ] && sed -n "${n}p" <<<"$1"
}

shot "step=0" "step 0/6"
none=$S
box=$(line_of "$none" "rank 1")
grep -qF -- "$HL" <<<"$box" && fail "without a highlight rank 1's frame is highlighted"
vals=$(line_of "$none" "  0   1   2   3")
grep -qF -- "$HL" <<<"$vals" && fail "without a highlight a value is highlighted"

shot "step=0 highlight=rank:1" "step 0/6"
s=$S
line=$(line_of "$s" "rank 1")
[ "$(grep -o -F -- "$HL" <<<"$line" | wc -l)" -ge 1 ] || fail "rank:1 is not drawn on rank 1's frame"
# only one box is highlighted: its frame's left and right edges on a value row
vrow=$(line_of "$s" "  0   1   2   3")
[ "$(grep -o -F -- "$HL" <<<"$vrow" | wc -l)" -eq 2 ] || fail "rank:1 highlights more than one box"

shot "step=0 highlight=chunk:2" "step 0/6"
s=$S
vrow=$(line_of "$s" "  0   1   2   3")
[ "$(grep -o -F -- "$HL" <<<"$vrow" | wc -l)" -eq 4 ] || fail "chunk:2 is not element 2 of each of the 4 ranks"

shot "step=2 highlight=transfer:1" "step 2/6"
s=$S
x=$(line_of "$s" "r1 ─▶ r2")
grep -qF -- "$HL" <<<"$x" || fail "transfer:1 (r1 ─▶ r2) is not highlighted in the list"

shot "screen=parallel scheme=tp highlight=rank:2" "frame "
s=$S
grep -qF -- "$HL" <<<"$(line_of "$s" "rank 2 ·")" || fail "rank:2 is not drawn on the parallelism screen"
echo "ok: rank, chunk and transfer highlights drawn, nothing without one"

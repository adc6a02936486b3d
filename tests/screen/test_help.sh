#!/usr/bin/env bash
# ? opens the help overlay, generated from the key table (so it names every action), with
# the colour legend; at 80x24 it has pages (PgDn / PgUp) and every key row of docs/guide.md's
# table (generated from the same table) for the collectives, parallelism and hierarchy
# screens is on some page, uncut; Esc closes it, ? toggles it, and q quits from inside it.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 80 24 "--backend cpu --no-measure"
tm_wait "step 0/" || fail "the screen never came up"
GUIDE=$(dirname "$0")/../../docs/guide.md
# all_pages SCREEN: every page of the open help, one after the other (PgDn until the page
# number stops growing), then back to page 1 with PgUp.
all_pages() {
    local out="" n m
    tm_wait "or Esc closes" 5 || fail "no help open ($1)"
    n=$(tm_screen | grep -oE 'help [0-9]+/[0-9]+' | head -1 | sed 's|.*/||')
    [ -n "$n" ] || n=1
    [ "$n" -ge 1 ] && [ "$n" -le 9 ] || fail "help page count '$n' ($1)"
    for ((m = 1; m <= n; m++)); do
        [ "$n" -eq 1 ] || tm_wait "help $m/$n:" 5 || fail "help page $m/$n not shown ($1)"
        out+=$(tm_screen)$'\n'
        tm_keys NPage
    done
    for ((m = 1; m < n; m++)); do tm_keys PPage; done
    [ "$n" -eq 1 ] || tm_wait "help 1/$n:" 5 || fail "PgUp did not go back to page 1 ($1)"
    printf '%s' "$out"
}
# every_row SCREEN "PAGES": each guide row naming SCREEN has its text, uncut, on a page.
every_row() {
    local rows=0 text
    while IFS= read -r text; do
        rows=$((rows + 1))
        printf '%s' "$2" | grep -qF -- "$text" || fail "$1: the help at 80x24 lacks '$text'"
    done < <(sed -n '/keys:start/,/keys:end/p' "$GUIDE" | grep -E "^\| \`.*\| .*$1" |
        awk -F' \\| ' '{ print $2 }')
    [ "$rows" -ge 10 ] || fail "$1: only $rows key rows in docs/guide.md"
}
tm_keys '?'
pages=$(all_pages collectives)
every_row collectives "$pages"
for text in "PgDn" "Home" "partial reduction" "send/receive buffer" "10^9 B/s"; do
    printf '%s' "$pages" | grep -qF -- "$text" || fail "help lacks '$text'"
done
tm_keys Escape
tm_keys p
tm_wait "parallel" 5 || fail "p did not open the parallelism screen"
tm_keys '?'
every_row parallelism "$(all_pages parallelism)"
tm_keys Escape
tm_keys y
tm_wait "collviz · hierarchy" 5 || fail "y did not open the hierarchy screen"
tm_keys '?'
every_row hierarchy "$(all_pages hierarchy)"
tm_keys Escape
tm_keys y
tm_wait "step 0/6" 5 || fail "y did not go back to the collectives screen"
tm_keys p
tm_wait "collviz · parallelism" 5 || fail "p did not open the parallelism screen again"
tm_keys Escape
tm_wait_gone "or Esc closes" 5 || fail "Esc did not close the help"
tm_keys '?'
tm_wait "or Esc closes" || fail "? did not reopen the help"
tm_keys 7 # other actions are ignored while the help is open
sleep 0.3
tm_screen | grep -qF "or Esc closes" || fail "a key other than Esc/?/q closed the help"
tm_keys '?'
tm_wait_gone "or Esc closes" 5 || fail "? did not close the help"
tm_keys '?'
tm_wait "or Esc closes" || fail "? did not reopen the help"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q inside the help did not quit"
echo "ok: help overlay opens, lists the key table and closes"

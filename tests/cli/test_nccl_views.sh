#!/usr/bin/env bash
# test_nccl_views.sh - every view of a record names the same facts: `collviz nccl` on every
# record of tests/records/ (and the fixtures below), its JSON and text checked by
# tests/cli/nccl_views_check.py against what each record's own text says (the invariants
# are listed there: nccl-tests' device list and the NCCL lines of its processes are one
# communicator; one host for a rank in the JSON's top level, its communicators, the text;
# one size in the text, the JSON and the topology screen's title, read from a tmux pane
# where tmux is there).
#
# Usage: test_nccl_views.sh BIN [ASAN_BIN]   exits 0, 1, or 77 (cannot run)
. "$(dirname "$0")/lib.sh" "$@"
DIR=$TOP/tests/records
if ! command -v python3 >/dev/null; then
    echo "SKIP: test_nccl_views.sh (no python3)"
    exit 77
fi
# title P OUT: the topology screen's first line on record P (--nccl-log), in a detached tmux
# pane wide enough for every title; false when it never came up.
SOCK=collviz-views-$$
title() {
    tmux -L "$SOCK" new-session -d -x 400 -y 30 "$(printf '%q' "$BIN") --no-measure --nccl-log $(printf '%q' "$1")" || return 1
    local i t=
    for i in $(seq 100); do
        t=$(tmux -L "$SOCK" capture-pane -p 2>/dev/null | head -n 1)
        case $t in *"topology "*) break ;; esac
        t=
        sleep 0.05
    done
    tmux -L "$SOCK" kill-server 2>/dev/null
    [ -n "$t" ] && printf '%s\n' "$t" >"$2"
}
screens=0
command -v tmux >/dev/null && screens=1
: >"$tmp/list"
for p in "$DIR"/* "$CLI_HERE"/views/*; do
    b=$(basename "$p")
    case $b in README.md | expect | '*') continue ;; esac
    "$BIN" nccl "$p" --format json >"$tmp/$b.json" 2>/dev/null
    "$BIN" nccl "$p" >"$tmp/$b.txt" 2>/dev/null
    t=
    if [ "$screens" = 1 ] && head -n 1 "$tmp/$b.txt" | grep -q ' ranks\? ' &&
        ! head -n 1 "$tmp/$b.txt" | grep -q ' communicators'; then
        title "$p" "$tmp/$b.title" && t=$tmp/$b.title || fail "$b: the topology screen never came up"
    fi
    printf '%s\t%s\t%s\t%s%s\n' "$b" "$p" "$tmp/$b.json" "$tmp/$b.txt" "${t:+	$t}" >>"$tmp/list"
done
[ "$screens" = 1 ] || echo "note: no tmux: the screen's title not compared"
python3 "$CLI_HERE/nccl_views_check.py" "$tmp/list" >"$tmp/out"
cli_take_fails $? "$tmp/out" "nccl_views_check.py"
cli_finish test_nccl_views.sh

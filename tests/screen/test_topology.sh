#!/usr/bin/env bash
# The topology screen (collviz --nccl-log) on a real two-node record of the corpus: at
# 80x24, 100x30 and 120x40 channel 0's ring is drawn in NCCL's order, } switches to channel
# 1 and its (different) ring, d shows the trees and back, Enter steps a ring all-reduce in
# that order on the collectives screen whose first transfer is r0 -> the rank after 0 in
# NCCL's order, t comes back to the same channel, q restores the terminal. The rings
# expected are read from the log's "Channel 0N/08 :" lines here, not by collviz's parser.
# Bad files: one line, exit 2, before the terminal is taken.
. "$(dirname "$0")/lib.sh" "$1"

LOG=tests/records/nccl1412-ib-2node16-nccl2xx-partial.log
ring_of() { grep -oE "Channel 0$1/[0-9]+ :( +[0-9]+)+" "$LOG" | head -n 1 | sed 's/.*: *//' | tr -s ' '; }
R0=$(ring_of 0)
R1=$(ring_of 1)
[ -n "$R0" ] && [ -n "$R1" ] && [ "$R0" != "$R1" ] || fail "corpus: want two different rings in $LOG"
# the rank after rank 0 in a ring
after0() { echo "$1" | tr ' ' '\n' | awk 'NR == 1 { first = $0 } f { print; f = 0; done = 1; exit } $0 == "0" { f = 1 } END { if (f && !done) print first }'; }
# the ring the screen draws: the rows from its heading to the crossings line, the hops'
# "-class->" dropped: "0 5 4 ... 9 0"
drawn_ring() {
    tm_screen | sed -n "/^ channel $1's ring, NCCL's order/,/node crossings/p" | sed '1d;$d' |
        tr -s ' \n' '  ' | sed 's/-[^ ]*->//g' | tr -s ' ' | sed 's/^ //; s/ $//'
}

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    tm_start "$1" "$2" "--no-measure --nccl-log $LOG"
    tm_wait "channel 0 (1 of 5)" 10 || fail "$1x$2: the topology screen never came up"
    tm_screen | grep -qF "16 ranks on 2 nodes" || fail "$1x$2: no ranks and nodes in the title"
    tm_screen | grep -qF "swat1-04" || fail "$1x$2: the host is not drawn"
    [ "$(drawn_ring 0)" = "$R0 ${R0%% *}" ] || fail "$1x$2: channel 0's ring is '$(drawn_ring 0)', want '$R0 ${R0%% *}'"
    tm_screen | grep -qF "node crossings: unknown" || fail "$1x$2: crossings of a partial record"
    tm_screen | grep -qF "NCCL orders each ring to leave a node as few times as it can" ||
        fail "$1x$2: no why"
    tm_keys '}'
    tm_wait "channel 1 (2 of 5)" 5 || fail "$1x$2: } did not switch to channel 1"
    [ "$(drawn_ring 1)" = "$R1 ${R1%% *}" ] || fail "$1x$2: channel 1's ring is '$(drawn_ring 1)', want '$R1 ${R1%% *}'"
    tm_keys d
    tm_wait "channel 1's tree:" 5 || fail "$1x$2: d did not show the tree"
    tm_screen | grep -qF "the other half, channel 5:" || fail "$1x$2: no other half (8 tree channels: 1 + 4)"
    tm_screen | grep -qF "r1: up 0, down none (a leaf)" || fail "$1x$2: rank 1's tree (Trees [1] -1/-1/-1->1->0)"
    tm_keys d
    tm_wait "channel 1's ring, NCCL's order" 5 || fail "$1x$2: d did not go back to the ring"
    tm_keys Enter
    tm_wait "ring all-reduce in channel 1's order" 5 || fail "$1x$2: Enter did not open the all-reduce"
    tm_screen | grep -qF "W=16" || fail "$1x$2: not 16 ranks"
    tm_keys Right
    tm_wait "step 1/" 5 || fail "$1x$2: no step 1"
    first=$(tm_squeezed | grep -oE "r[0-9]+ ─▶ r[0-9]+" | head -n 1)
    [ "$first" = "r0 ─▶ r$(after0 "$R1")" ] || fail "$1x$2: first transfer '$first', want r0 ─▶ r$(after0 "$R1")"
    tm_keys t
    tm_wait "channel 1 (2 of 5)" 5 || fail "$1x$2: t did not come back to channel 1"
    tm_keys q
    tm_wait "EXITED:0" 5 || fail "$1x$2: q did not quit"
    tm_screen | grep -qF "icanon echo" || fail "$1x$2: terminal modes not restored"
    tm_cleanup
done

# A two-node record whose hosts are all known: two ranks on two hosts cross out and back.
tm_start 80 24 "--no-measure --nccl-log tests/records/04-socket-2node-p40-nccl248.log"
tm_wait "node crossings: 2" 10 || fail "04-socket: 2 ranks on node01 and node02 cross twice"
tm_screen | grep -qF "0 -socket-> 1 -socket-> 0" || fail "04-socket: hops over NET/Socket"
tm_keys q
tm_wait "EXITED:0" 5 || fail "04-socket: q"
tm_cleanup

# Bad files: one line naming the file, exit 2, nothing drawn.
# (a folder is a record of its files: one with none is bad)
emptydir=$(mktemp -d)
for bad in /nonexistent/x.log README.md "$emptydir"; do
    err=$("$BIN" --nccl-log "$bad" 2>&1 >/dev/null)
    rc=$?
    [ "$rc" = 2 ] || fail "--nccl-log $bad: exit $rc, want 2"
    [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "--nccl-log $bad: not one line: $err"
    case "$err" in "collviz: --nccl-log $bad: "*) ;; *) fail "--nccl-log $bad: '$err'" ;; esac
done
rmdir "$emptydir"
echo "PASS ($TEST)"

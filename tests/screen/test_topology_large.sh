#!/usr/bin/env bash
# The topology screen of a job as large as labs run (issue 32, part 7): bench/gen_nccl_log.py
# writes the INFO log of 8,192 ranks on 1,024 nodes (8 GPUs each, 16 channels). At 80x24 and
# 120x40 the nodes are a strip (a cell a node), one node is open with its 8 GPU boxes, and
# the ring's pass through that node is drawn: what is drawn is bounded by the terminal, so
# the screen holds exactly 9 frames (the open node and its 8 GPUs), never a frame a node.
# Expected values come from the generator's own ring order (gen_nccl_log.ring_order), not
# from collviz: the pass through node k in channel c, the strip's window numbers (the cells
# between them are as many as they say: nothing cut mid-number), the crossings (1 a node).
# d shows the channel's tree from the open node's first rank. Then a record with several
# communicators: u cycles them, each named, never two in one
# picture (vLLM's TP 8 x PP 2 over two nodes: its PP group's ring crosses both nodes over
# IB; its TP group on node 0 draws no host of node 1).
. "$(dirname "$0")/lib.sh" "$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; tm_cleanup_all' EXIT
TOP=$(cd "$(dirname "$0")/../.." && pwd)
python3 "$TOP/bench/gen_nccl_log.py" 8192 --out "$tmp/job.log" || fail "the generator failed"

# the ranks of channel C's ring pass through node K: the rank before, the node's, the one after
want_pass() {
    python3 - "$TOP/bench" "$1" "$2" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import gen_nccl_log as g
c, k = int(sys.argv[2]), int(sys.argv[3])
o = g.ring_order(c, 8192, 8)
n = len(o)
inn = lambda r: r // 8 == k
i = next(i for i in range(n) if not inn(o[i]) and inn(o[(i + 1) % n]))
out = [o[i]]
j = (i + 1) % n
while inn(o[j]):
    out.append(o[j])
    j = (j + 1) % n
out.append(o[j])
print(" ".join(map(str, out)))
PY
}
# the pass the screen draws: the flow rows after its heading, "-class->" dropped
drawn_pass() {
    tm_screen | sed -n "/^ channel $1's ring (8192 ranks) through node $2: 1 pass/,/node crossings/p" |
        sed '1d;$d' | tr -s ' \n' '  ' | sed 's/-[^ ]*->//g' | tr -s ' ' | sed 's/^ //; s/ $//'
}
# the strip's row: "   0 |111...1| 65": its numbers and cells agree
check_strip() {
    local row first last cells
    row=$(tm_screen | grep -E '^ +[0-9]+ \|[0-9.+?]+\| [0-9]+$' | head -n 1)
    [ -n "$row" ] || fail "$1: no strip row"
    first=$(echo "$row" | sed -E 's/^ +([0-9]+) .*/\1/')
    last=$(echo "$row" | sed -E 's/.*\| ([0-9]+)$/\1/')
    cells=$(echo "$row" | sed -E 's/^[^|]*\|([^|]*)\|.*/\1/')
    [ "${#cells}" = $((last - first + 1)) ] || fail "$1: ${#cells} cells for nodes $first..$last"
    [ "$cells" = "$(printf '1%.0s' $(seq "${#cells}"))" ] || fail "$1: cells '$cells', want all 1"
    [ "$first" -le "$2" ] && [ "$last" -ge "$2" ] || fail "$1: node $2 not in the window $first..$last"
}

for size in "80 24" "120 40"; do
    set -- $size
    tm_start "$1" "$2" "--no-measure --nccl-log $tmp/job.log"
    tm_wait "channel 0 (1 of 16)" 60 || fail "$1x$2: the topology screen never came up"
    tm_screen | grep -qF "8192 ranks on 1024 nodes" || fail "$1x$2: title"
    tm_screen | grep -qF "1024 nodes; a cell a node: hops leaving it" || fail "$1x$2: no strip"
    tm_screen | grep -qF "node 0 of 1024: 8 ranks" || fail "$1x$2: node 0 not open"
    frames=$(tm_count "┌")
    [ "$frames" = 9 ] || fail "$1x$2: $frames frames, want 9 (one node, its 8 GPUs)"
    check_strip "$1x$2" 0
    [ "$(drawn_pass 0 0)" = "$(want_pass 0 0)" ] ||
        fail "$1x$2: node 0's pass '$(drawn_pass 0 0)', want '$(want_pass 0 0)'"
    tm_screen | grep -qF "node crossings: 1024 of 8192 hops" || fail "$1x$2: crossings"
    tm_keys ')' ')' ')'
    tm_wait "node 3 of 1024: 8 ranks" 5 || fail "$1x$2: ) did not open node 3"
    for r in 24 25 26 27 28 29 30 31; do
        tm_screen | grep -qE "r$r d[0-7]" || fail "$1x$2: node 3's GPU r$r not drawn"
    done
    tm_keys '}'
    tm_wait "channel 1 (2 of 16)" 5 || fail "$1x$2: } did not switch to channel 1"
    tm_wait "through node 3: 1 pass" 5 || fail "$1x$2: no pass through node 3"
    [ "$(drawn_pass 1 3)" = "$(want_pass 1 3)" ] ||
        fail "$1x$2: channel 1, node 3's pass '$(drawn_pass 1 3)', want '$(want_pass 1 3)'"
    check_strip "$1x$2 channel 1" 3
    [ "$(tm_count "┌")" = 9 ] || fail "$1x$2: not 9 frames on node 3"
    tm_keys d
    tm_wait "channel 1's tree, from r24:" 5 || fail "$1x$2: d: no tree from node 3's first rank"
    tm_screen | grep -qE "^ r24: (up [0-9]+|root), down" || fail "$1x$2: d: no line of r24"
    tm_keys d
    tm_wait "through node 3: 1 pass" 5 || fail "$1x$2: d did not go back to the ring"
    tm_keys '('
    tm_wait "node 2 of 1024" 5 || fail "$1x$2: ( did not open node 2"
    tm_keys q
    tm_wait "EXITED:0" 10 || fail "$1x$2: q did not quit"
    tm_cleanup
done

# Several communicators: one at a time, named; u the next.
LOG=tests/records/llmk8s-vllm-ray-tp8pp2-2node-ib-nccl2215.log
for size in "80 24" "120 40"; do
    set -- $size
    tm_start "$1" "$2" "--no-measure --nccl-log $LOG"
    tm_wait "comm 1/4: 8 ranks on 1 node, TP group" 10 || fail "$1x$2: comm 1 not named"
    tm_screen | grep -qF "deepseek-v2-5-0 " || fail "$1x$2: comm 1's host"
    tm_screen | grep -qF "deepseek-v2-5-0-1" && fail "$1x$2: node 1's host in node 0's TP group"
    tm_squeezed | grep -qF "0 -nvlink-> 1" || fail "$1x$2: comm 1's ring"
    tm_keys u
    tm_wait "comm 2/4: 8 ranks on 1 node, TP group" 5 || fail "$1x$2: u did not go to comm 2"
    tm_screen | grep -qF "deepseek-v2-5-0-1" || fail "$1x$2: comm 2's host"
    tm_keys u
    tm_wait "comm 3/4: 2 ranks on 2 nodes, PP group" 5 || fail "$1x$2: comm 3"
    tm_squeezed | grep -qF "0 -ib-> 1 -ib-> 0" || fail "$1x$2: the PP group's ring over IB"
    tm_squeezed | grep -qF "node crossings: 2" || fail "$1x$2: the PP ring's crossings"
    tm_keys u u
    tm_wait "comm 1/4" 5 || fail "$1x$2: u did not wrap around"
    tm_keys q
    tm_wait "EXITED:0" 10 || fail "$1x$2: q did not quit"
    tm_cleanup
done
echo "PASS ($TEST)"

#!/usr/bin/env bash
# The hierarchy screen with a record read (--nccl-log, then y): at 80x24, 100x30 and
# 120x40 the record's links stand under the tiers their class names (one H800 node: 240
# NVLink connections under NVLink; a two-node RoCE log of rank 0: its shared-memory link
# under PCIe, its RoCE links under InfiniBand), and the record's largest busbw, read here
# from its nccl-tests table with awk, beside the slowest of them, labelled measured (from
# the file). The counts are the log's "via" lines, counted here with grep.
. "$(dirname "$0")/lib.sh" "$1"

H800=tests/records/07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log
ROCE=tests/records/nccl392-roce-2node16-nccl257-rank0.log
# NCCL prints each P2P connection once per rank that sets it up: distinct (channel, from,
# to) of the "via P2P" lines
nv=$(grep -oE "Channel [0-9]+/[0-9]+ : [0-9]+\[[0-9a-f]+\] -> [0-9]+\[[0-9a-f]+\] via P2P" "$H800" | sort -u | wc -l)
max=$(awk '!/^#/ && NF == 13 && $1 ~ /^[0-9]+$/ { for (i = 8; i <= 12; i += 4) if ($i + 0 > m) m = $i + 0 } END { print m }' "$H800")
want_bus="the record, busbw: $(printf '%.3g' "$max") GB/s measured (from the file)"

# A record of several communicators: the ladder counts the links of the one the topology
# screen shows (u cycles them), never the largest's in its place: the vLLM TP8 x PP2 log's
# third communicator (commId 0x9bdf58487a45133a, the PP pair across the nodes) has only
# InfiniBand links, the first (a TP group of one node) only NVLink ones.
VLLM=tests/records/llmk8s-vllm-ray-tp8pp2-2node-ib-nccl2215.log
PP=0x9bdf58487a45133a
grep -q "commId $PP" "$VLLM" || fail "corpus: no commId $PP in $VLLM"

# the line after the first line starting with tier name $1
under() { tm_screen | awk -v t="$1" 'f { print; exit } index($0, " " t) == 1 { f = 1 }'; }

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    tm_start "$1" "$2" "--no-measure --nccl-log $H800"
    tm_wait "channel 0" 10 || fail "$1x$2: the topology screen never came up"
    tm_keys y
    tm_wait "The hierarchy, fastest first" 5 || fail "$1x$2: y did not open the hierarchy"
    tm_wait "◀ the record's links: nvlink $nv" 5 || fail "$1x$2: no 'nvlink $nv' under a tier"
    under "NVLink 5" | grep -qF "◀ the record's links: nvlink $nv" ||
        fail "$1x$2: the NVLink links are not under NVLink: $(under 'NVLink 5')"
    tm_screen | grep -qF "$want_bus" || fail "$1x$2: no '$want_bus'"
    tm_screen | grep -A2 "^ NVLink 5" | tail -1 | grep -qF "the record, busbw" ||
        fail "$1x$2: the record's busbw is not beside NVLink, its slowest tier"
    tm_keys q
    tm_wait "EXITED:0" 5 || fail "$1x$2: q did not quit"
    tm_cleanup

    tm_start "$1" "$2" "--no-measure --nccl-log $ROCE"
    tm_wait "channel 0" 10 || fail "$1x$2: RoCE: the topology screen never came up"
    tm_keys y
    tm_wait "The hierarchy, fastest first" 5 || fail "$1x$2: RoCE: y did not open the hierarchy"
    under "PCIe 7.0" | grep -qF "◀ the record's links: shm 1 (through host memory)" ||
        fail "$1x$2: RoCE: the SHM link is not under PCIe: $(under 'PCIe 7.0')"
    under "InfiniBand" | grep -qF "◀ the record's links: roce 2 (RDMA over Ethernet)" ||
        fail "$1x$2: RoCE: the RoCE links are not under InfiniBand: $(under InfiniBand)"
    tm_screen | grep -qF "the record, busbw" && fail "$1x$2: RoCE: a busbw from a record with no nccl-tests rows"
    tm_keys q
    tm_wait "EXITED:0" 5 || fail "$1x$2: RoCE: q did not quit"
    tm_cleanup

    tm_start "$1" "$2" "--no-measure --nccl-log $VLLM"
    tm_wait "comm 1/" 10 || fail "$1x$2: vLLM: the topology screen never came up"
    tm_keys u u
    tm_wait "comm 3/" 5 || fail "$1x$2: vLLM: u u did not reach the third communicator"
    tm_screen | grep -qF "${PP:0:10}" || fail "$1x$2: vLLM: the third communicator is not $PP"
    tm_keys y
    tm_wait "The hierarchy, fastest first" 5 || fail "$1x$2: vLLM: y did not open the hierarchy"
    tm_wait "◀ the record's links: ib 4" 5 ||
        fail "$1x$2: vLLM: the chosen communicator's 4 IB links are not on the ladder"
    tm_screen | grep -qF "links: nvlink" && fail "$1x$2: vLLM: NVLink links of another communicator"
    tm_keys q
    tm_wait "EXITED:0" 5 || fail "$1x$2: vLLM: q did not quit"
    tm_cleanup
done
echo "PASS ($TEST)"

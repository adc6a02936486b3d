#!/usr/bin/env bash
# test_nccl_job.sh - what `collviz nccl` says of a record as a whole, on real records of
# tests/records/: the job and its groups of ranks ("job" in JSON, the "job:" line in text),
# what NCCL's tuner chose per collective ("tuning.chose", one line each in text), and files
# of different jobs refused together (exit 2, one line naming both files and why), the
# same for the topology screen's --nccl-log. Every expected value was written by reading
# the record (the line it comes from is named beside it), never by running collviz.
# Usage: test_nccl_job.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
R=$TOP/tests/records

if ! command -v python3 >/dev/null; then
    echo "SKIP: test_nccl_job.sh (no python3)"
    exit 77
fi

# job REC EXPR: the JSON of record REC satisfies EXPR (d the document, j its "job").
job() {
    local b
    while read -r b; do
        "$b" nccl "$R/$1" --format json >"$tmp/j.json" 2>/dev/null ||
            fail "$(basename "$b") nccl $1: exit $?"
        json_expect "$1" "$tmp/j.json" "(lambda j: $2)(d.get('job') or {})"
    done < <(cli_bins)
}

# text REC WANT: the text output of REC says WANT, whole, from a line's start (line breaks
# and indents aside: long lines are wrapped at 80 columns); no text line is wider than 80.
text() {
    "$BIN" nccl "$R/$1" >"$tmp/t.txt" 2>/dev/null
    python3 - "$tmp/t.txt" "$2" <<'PYEOF' || fail "$1: does not say '$2': $(head -4 "$tmp/t.txt")"
import re, sys
t = open(sys.argv[1]).read()
flat = re.sub(r"\s*\n\s*", " ", "\n" + t)
sys.exit(0 if (" " + sys.argv[2] + " ") in flat + " " else 1)
PYEOF
    case $2 in job:* | *"NCCL chose"*)
        awk 'length > 80 && /^(job|[A-Za-z]+|tuning [^:]*): / { bad = 1 } END { exit bad }' "$tmp/t.txt" ||
            fail "$1: a sentence line wider than 80 columns" ;;
    esac
}

# vLLM TP8 x PP2 over IB: line 240 "rank 0 in world size 16 ... DP rank 0, PP rank 0, TP
# rank 0", line 232 "rank 15 ... PP rank 1, TP rank 7": world 16 = TP 8 x PP 2 x DP 1.
# Two 8-rank communicators, one host each (commIds 0xc13f..., 0xc9d8...): the TP groups;
# 2-rank ones across the two hosts ("nRanks 2 nNodes 2"): the PP pairs, 8 in the job, at
# least 0x9bdf... among them.
J='j["world_size"] == 16 and j["world_size_from"] == "vLLM" and j["processes"] is None'
TP='any(g["role"] == "TP" and g["nranks"] == 8 and g["span"] == "one-node" and g["seen"] == 2 and g["expected"] == 2 for g in j["groups"])'
PP='any(g["role"] == "PP" and g["nranks"] == 2 and g["span"] == "across-nodes" and g["nnodes"] == 2 and 1 <= g["seen"] <= 8 and g["expected"] == 8 for g in j["groups"])'
for r in llmk8s-vllm-ray-tp8pp2-2node-ib-nccl2215.log llmk8s-vllm-ray-tp8pp2-2node-socket-ansi-nccl2215.log; do
    job $r "$J and $TP and $PP and len(j['groups']) == 2"
    job $r "j['summary'].startswith('world size 16 (vLLM says so); TP 8 x 2 (one node each); PP 2 x 8 (across 2 nodes, one rank on each')"
done
# The socket run's PP pairs: rank 1 of a 2-rank communicator on devices 1, 2, 3 and 5 of
# deepseek-v2-5-0-1 (lines 160-178): four pairs seen.
job llmk8s-vllm-ray-tp8pp2-2node-socket-ansi-nccl2215.log "[g['seen'] for g in j['groups'] if g['role'] == 'PP'] == [4]"
text llmk8s-vllm-ray-tp8pp2-2node-socket-ansi-nccl2215.log \
    "job: world size 16 (vLLM says so); TP 8 x 2 (one node each); PP 2 x 8 (across 2 nodes, one rank on each; 4 of the 8 seen)"

# Two pipeline communicators of 2 ranks on one host, no framework line: no role named.
job chimera2-two-comms-one-host-ranks-reused.log \
    "j['world_size'] is None and j['groups'] == [{'role': None, 'nranks': 2, 'span': 'one-node', 'nnodes': 1, 'seen': 2, 'expected': None}]"
text chimera2-two-comms-one-host-ranks-reused.log "job: 2 communicators of 2 ranks (one node each)"
# node01 and node02, one P40 each: 2 ranks across 2 nodes.
text 04-socket-2node-p40-nccl248.log "job: 1 communicator of 2 ranks (across 2 nodes, one rank on each)"
# one H800 node, 8 ranks ("nranks 8", one host)
text 07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log "job: 1 communicator of 8 ranks (on one node)"
# the SGLang TP16 folder: "nRanks 16 nNodes 2", 8 a node
job slurmv4-sglang-tp16-2node-pxn-nccl2275 \
    "j['groups'] == [{'role': None, 'nranks': 16, 'span': 'several-nodes', 'nnodes': 2, 'seen': 1, 'expected': None}]"
# line 1: "mpirun --allow-run-as-root -np 40 ...": 40 processes, no world size said
job nccl1368-timestamp-output-table-40rank.log "j['processes'] == 40 and j['world_size'] is None and j['groups'] == []"
text nccl1368-timestamp-output-table-40rank.log "job: mpirun -np 40"

# ---- what NCCL chose -------------------------------------------------------------------
# 13 lines "Broadcast: N Bytes -> Algo RING proto SIMPLE", N = 32768 .. 134217728
text ncclebpf-tuning-choices-broadcast-rtx5090.log \
    "Broadcast: NCCL chose Ring/Simple at every size logged (32 KiB to 128 MiB, 13 sizes logged)"
# "8589934592 Bytes -> Algo 1 proto 2": no collective named; algorithm 1 is NCCL_ALGO_RING,
# protocol 2 NCCL_PROTO_SIMPLE (NCCL's src/include/nccl_common.h); 8589934592 = 8 GiB
text nccl1453-mpich-rankprefix-24rank-algo-choice.log \
    "tuning (collective not named): NCCL chose Ring/Simple for 8 GiB (the one size logged)"
# no choice lines, no sentence (the table alone)
"$BIN" nccl "$R/nccl1154-tuning-table-header-h800.log" >"$tmp/t.txt" 2>/dev/null
grep -q "NCCL chose" "$tmp/t.txt" && fail "nccl1154: a choice said where no choice line is"

# ---- files of different jobs -----------------------------------------------------------
# NCCL 2.18.3 (line 1 of 07-h800...) and 2.21.5 (the vLLM run): NCCL refuses to mix
expect_usage_error "07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log and $R/llmk8s-vllm-ray-tp8pp2-2node-ib-nccl2215.log are not one job's record (NCCL versions 2.18.3 vs 2.21.5)" \
    nccl "$R/07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log" "$R/llmk8s-vllm-ray-tp8pp2-2node-ib-nccl2215.log"
# two 2-rank communicators vs one of 8 ranks, no version said in chimera2
expect_usage_error "(no communicator size in common: 2 vs 8 ranks)" \
    nccl "$R/chimera2-two-comms-one-host-ranks-reused.log" "$R/07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log"
# three files: the third is the odd one
expect_usage_error "and $R/lumi-rccl-mi250-1rank-rccl2205-socket.log are not one job's record (NCCL vs RCCL)" \
    nccl "$R/slurmv4-sglang-tp16-2node-pxn-nccl2275/tpgds-aihub0007.log" \
    "$R/slurmv4-sglang-tp16-2node-pxn-nccl2275/tpgds-aihub0008.log" "$R/lumi-rccl-mi250-1rank-rccl2205-socket.log"
# the topology screen refuses the same way: NCCL 2.18.3 (07-h800) with RCCL (LUMI's)
expect_usage_error "(NCCL vs RCCL)" --nccl-log "$R/07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log" \
    "$R/lumi-rccl-mi250-1rank-rccl2205-socket.log"
# one job's per-node files (both print commId 0x45a3a89de169ea18) are one record
"$BIN" nccl "$R"/slurmv4-sglang-tp16-2node-pxn-nccl2275/*.log --format json >"$tmp/s.json" 2>"$tmp/s.err" ||
    fail "slurmv4's two node files: exit $? ($(head -1 "$tmp/s.err"))"
json_expect slurmv4-files "$tmp/s.json" "[c['id'] for c in d['communicators']] == ['0x45a3a89de169ea18']"

cli_finish test_nccl_job.sh

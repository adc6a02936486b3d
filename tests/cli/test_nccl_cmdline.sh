#!/usr/bin/env bash
# test_nccl_cmdline.sh - a shell command line (environment assignments, then a program) is
# never taken for NCCL's text without its header: every combination below of assignments
# (one to three; bare, quoted, with '=' or ',' in the value) and programs (nccl-tests, mpirun,
# srun, torchrun, python3, a path) put before a whole NCCL line is read with no such warning.
# The control: NCCL's own "NCCL_ALGO set by environment to Tree" with no header before it is
# still said to be NCCL's text without its header.
# Usage: test_nccl_cmdline.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
WHOLE='h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 busId 1000 - Init COMPLETE'
sets=(
    'NCCL_ALGO=TREE'
    'NCCL_DEBUG=INFO'
    'NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH'
    'NCCL_IB_HCA=mlx5_0,mlx5_1 NCCL_SOCKET_IFNAME==eth0 CUDA_VISIBLE_DEVICES=0,1,2,3'
    "NCCL_ALGO='Tree,Ring'"
    'NCCL_TOPO_DUMP_FILE="/tmp/topo dump.xml" NCCL_P2P_LEVEL=NVL'
    '_X=1 NCCL_PROTO=Simple'
)
progs=(
    './all_reduce_perf -g 8 -b 8 -e 128M -f 2'
    'mpirun -np 2 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1'
    'srun -N 2 --ntasks-per-node=8 ./build/all_gather_perf -b 1G -e 1G'
    'torchrun --nproc_per_node=8 train.py'
    'python3 -m torch.distributed.run --nproc_per_node 2 t.py'
    '/opt/nccl-tests/build/all_reduce_perf'
    'all_reduce_perf'
)
n=0
for b in $(cli_bins); do
    for s in "${sets[@]}"; do
        for p in "${progs[@]}"; do
            printf '%s %s\n%s\n' "$s" "$p" "$WHOLE" >"$tmp/c.log"
            "$b" nccl "$tmp/c.log" >"$tmp/out" 2>&1 || fail "'$s $p': exit $?"
            grep -q "without its header" "$tmp/out" &&
                fail "'$s $p': called NCCL's text without its header"
            n=$((n + 1))
        done
    done
    printf '%s\nNCCL_ALGO set by environment to Tree\n' "$WHOLE" >"$tmp/c.log"
    "$b" nccl "$tmp/c.log" >"$tmp/out" 2>&1
    grep -q "NCCL's text without its header" "$tmp/out" ||
        fail "control: NCCL's headerless text not said"
done
[ "$n" -ge 49 ] || fail "only $n command lines tried"

cli_finish test_nccl_cmdline.sh

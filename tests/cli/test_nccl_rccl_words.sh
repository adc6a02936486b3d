#!/usr/bin/env bash
# test_nccl_rccl_words.sh - RCCL keeps NCCL's "NCCL INFO" header, so where it prints no
# "RCCL version" only its own words name it: each line below, written from a format string
# only ROCm/rccl's src/ has (not NVIDIA/nccl's of 2.18-2.30), makes a record of one line
# RCCL's; each of NCCL's own lines beside them (the same messages as NCCL prints them) keeps
# it NCCL's.
# Usage: test_nccl_rccl_words.sh BIN [ASAN_BIN]   exits 0, 1, or 77 (cannot run)
. "$(dirname "$0")/lib.sh" "$@"
H="e05r3n09:929:929 [2] NCCL INFO"
rccl=(
    "$H NET/Plugin : No plugin found (librccl-net.so), using internal implementation"
    "$H NET/Plugin: Plugin load returned 2 : librccl-net.so: cannot open shared object file"
    "$H Not performing bootstrap root for clique kernels as clique mode not enabled."
    "$H Clique kernels disabled"
    "$H Clique-based kernels enabled (mode 1) [GCN 906]"
    "$H Disabling clique-based kernels (did not find env var RCCL_ENABLE_CLIQUE)"
    "$H ROCr version 1.14"
    "$H initialized internal alternative rsmi functionality"
    "$H rocm_smi_lib: version 7.0.0.0"
    "$H RCCL enabled same node P2P over network"
    "$H RCCL force disabled same node P2P over network"
    "$H RCCL_DUMP_ROME_MODEL_FILE set by environment to /tmp/rome.xml"
)
nccl=(
    "$H NET/Plugin : No plugin found (libnccl-net.so), using internal implementation"
    "$H NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin."
    "$H NCCL_P2P_LEVEL set by environment to SYS"
    "$H NET/IB : Using [0]mlx5_3:1/IB [1]mlx5_2:1/IB ; OOB ib0:11.5.5.50<0>"
)
library() { # LINE: the library the record of that line is read as
    printf '%s\n' "$1" >"$tmp/one.log"
    "$BIN" nccl "$tmp/one.log" --format json 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["library"])' 2>/dev/null
}
for l in "${rccl[@]}"; do
    got=$(library "$l")
    [ "$got" = RCCL ] || fail "'$l': library $got, want RCCL"
done
for l in "${nccl[@]}"; do
    got=$(library "$l")
    [ "$got" = NCCL ] || fail "'$l': library $got, want NCCL"
done
cli_finish test_nccl_rccl_words.sh

#!/usr/bin/env bash
# test_mpi_proc_stall.sh - a proc_* collective that times out never writes its caller's
# memory afterwards. MPI cannot cancel a collective: when a rank is late, the others' waits
# in the combining of the records (comm.h's proc_*, MPI_Ibcast / MPI_Iallreduce /
# MPI_Iallgather(v)) pass their deadline and return, and the late rank's data still arrive
# later. Test hook CV_TEST_PROC_STALL=RANK:CALL:SECONDS:TIMEOUT (the ASan build): rank RANK
# sleeps before its CALLth proc_* call, every wait's deadline is TIMEOUT s, and the other
# process, before it closes the communicator, waits for the requests its failed waits left
# open, so that the late rank's data land while it lives (it says so on stderr: "N of N
# requests left open completed"). Under ASan (stack-use-after-return on), nothing may then be
# written where the caller's buffers or frames were. Cases: a 2-process `train ddp`, rank 0
# late at its 1st call (a broadcast into a caller's local) and at its 12th (the gather of
# the events: sizes and counts). Each job must end, naming rank 0, with no ASan report.
# Skips (77) when mpirun is missing, the binary was built without MPI, or no ASan binary.
# Usage: test_mpi_proc_stall.sh BIN ASAN_BIN
. "$(dirname "$0")/lib.sh" "$@"

if [ -z "$ASAN_BIN" ]; then
    echo "SKIP: no ASan binary (the stall is its test hook)"
    exit 77
fi
env -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK -u PMI_RANK -u PMI_SIZE -u MPI_LOCALNRANKS \
    "$ASAN_BIN" bench all_reduce --backend mpi >"$tmp/out" 2>"$tmp/err"
if grep -q "not built" "$tmp/err"; then
    echo "SKIP: mpi backend not built into $ASAN_BIN ($(cat "$tmp/err"))"
    exit 77
fi
if ! command -v mpirun >/dev/null; then
    echo "SKIP: no mpirun (apt-get install openmpi-bin)"
    exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none

# late CALL WHAT: rank 0 sleeps 8 s before its CALLth proc_* call; deadline 2 s.
late() {
    local call=$1 what=$2 rc
    env ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=1 \
        CV_TEST_PROC_STALL="0:$call:8:2" timeout 150 \
        mpirun --oversubscribe --bind-to none -x ASAN_OPTIONS -x CV_TEST_PROC_STALL -np 2 \
        "$ASAN_BIN" train ddp --backend mpi --ranks 2 --layers 2 --dim 64 --batch 8 --steps 2 \
        >"$tmp/late.out" 2>"$tmp/late.err"
    rc=$?
    [ "$rc" -eq 124 ] && fail "$what: the job ran past 150 s"
    [ "$rc" -eq 0 ] && fail "$what: the job succeeded, though rank 0 was late"
    grep -q "AddressSanitizer" "$tmp/late.err" &&
        fail "$what: ASan: $(grep -m3 -E "ERROR: AddressSanitizer|^    #[0-9] .* in (mc_|train|combine)" "$tmp/late.err" | tr '\n' ' ')"
    grep -q "rank 0 stalled" "$tmp/late.err" "$tmp/late.out" ||
        fail "$what: rank 0 not named: $(head -c 400 "$tmp/late.err")"
    grep -qE "test hook: ([1-9][0-9]*) of \1 requests left open completed" "$tmp/late.err" ||
        fail "$what: the requests left open did not complete (the case tests nothing): $(grep "test hook" "$tmp/late.err")"
}
late 1 "a broadcast into a caller's local"
late 12 "the gather of the events"

cli_finish "test_mpi_proc_stall (a timed-out proc_* collective writes no caller's memory)"

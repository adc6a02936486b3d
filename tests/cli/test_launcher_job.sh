#!/usr/bin/env bash
# test_launcher_job.sh - under a launcher, collviz does what the launcher meant (issue 32 §6):
# mpirun -np N starting bench, trace, train or serve without --backend makes them one N-process
# job on the launcher's backend (mpi here: no GPU), with one table from rank 0; a backend that
# runs in one process (--backend cpu), a launcher whose job no backend joins (torchrun's
# WORLD_SIZE, srun without PMI) and a size that is not a count are refused: exit 2, one line
# naming the launcher's variable. A batch script's SLURM_NTASKS, and a job of 1, change
# nothing. The environment-only checks run everywhere; the mpirun ones skip (77) without
# mpirun or an MPI build.
# Usage: test_launcher_job.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"

# No launcher's variable may leak in from the caller.
clean() { env -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK -u PMI_RANK -u PMI_SIZE -u MPI_LOCALNRANKS \
    -u SLURM_STEP_NUM_TASKS -u SLURM_NTASKS -u WORLD_SIZE "$@"; }
refused() { # words, command...: exit 2, one line holding the words, nothing on stdout
    local want=$1
    shift
    clean "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ $rc -eq 2 ] || fail "$*: exit $rc, want 2 ($(head -c 300 "$tmp/err"))"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$*: not one line: $(head -c 600 "$tmp/err")"
    grep -qF -- "$want" "$tmp/err" || fail "$*: '$(cat "$tmp/err")' lacks '$want'"
    [ -s "$tmp/out" ] && fail "$*: wrote to stdout: $(head -c 300 "$tmp/out")"
    return 0
}
SMALL=(-b 4K --iters 2 --warmup 1)

for cmd in "bench all_reduce ${SMALL[*]}" "trace all_reduce" "train ddp --steps 1" "serve"; do
    # shellcheck disable=SC2086
    refused "torchrun as one of 4 processes (WORLD_SIZE=4)" env WORLD_SIZE=4 "$BIN" $cmd
    # shellcheck disable=SC2086
    refused "srun as one of 3 processes (SLURM_STEP_NUM_TASKS=3)" env SLURM_STEP_NUM_TASKS=3 "$BIN" $cmd
    # shellcheck disable=SC2086
    refused "OMPI_COMM_WORLD_SIZE=four: not a number of processes" \
        env OMPI_COMM_WORLD_SIZE=four "$BIN" $cmd
    # shellcheck disable=SC2086
    refused "--backend cpu runs in one process: under Open MPI's mpirun's 4 processes" \
        env OMPI_COMM_WORLD_SIZE=4 "$BIN" $cmd --backend cpu
done

# A batch script's SLURM_NTASKS and a job of one process: the usual single run.
for v in SLURM_NTASKS=4 WORLD_SIZE=1; do
    clean env $v "$BIN" bench all_reduce "${SMALL[@]}" --ranks 2 --backend cpu --format json \
        >"$tmp/out" 2>"$tmp/err" || fail "$v bench --backend cpu: exit $? ($(cat "$tmp/err"))"
    python3 "$CLI_HERE/launcher_job_check.py" "$tmp/out" cpu 2 1 || fail "$v bench (above)"
done

if ! command -v mpirun >/dev/null; then
    echo "SKIP: mpirun sections (no mpirun: apt-get install openmpi-bin)"
    cli_finish "test_launcher_job (the environment's launcher checks)"
fi
clean "$BIN" bench all_reduce --backend mpi >"$tmp/out" 2>"$tmp/err"
if grep -q "not built" "$tmp/err"; then
    echo "SKIP: mpirun sections (the mpi backend is not built into $BIN)"
    cli_finish "test_launcher_job (the environment's launcher checks)"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
MPIRUN=(mpirun --oversubscribe --bind-to none -np 3)

# bench without --backend: one 3-process job on mpi, one table (rank 0's), 3 ranks.
timeout 120 "${MPIRUN[@]}" "$BIN" bench all_reduce "${SMALL[@]}" --format json \
    >"$tmp/out" 2>"$tmp/err" || fail "mpirun bench: exit $? ($(tail -3 "$tmp/err"))"
python3 "$CLI_HERE/launcher_job_check.py" "$tmp/out" mpi 3 1 || fail "mpirun bench (above)"

# trace without --backend: the MPI ranks' buffers compared with the trace's.
timeout 120 "${MPIRUN[@]}" "$BIN" trace all_reduce --count 6 >"$tmp/out" 2>"$tmp/err" ||
    fail "mpirun trace: exit $? ($(tail -3 "$tmp/err"))"
grep -qi "mpi" "$tmp/out" || fail "mpirun trace: no backend compared: $(tail -5 "$tmp/out")"

# --backend cpu under mpirun: every process refuses, the job fails, nothing runs.
timeout 120 "${MPIRUN[@]}" "$BIN" bench all_reduce "${SMALL[@]}" --backend cpu \
    >"$tmp/out" 2>"$tmp/err" && fail "mpirun bench --backend cpu: exit 0"
grep -q "runs in one process" "$tmp/err" || fail "mpirun bench --backend cpu: $(head -3 "$tmp/err")"
[ -s "$tmp/out" ] && fail "mpirun bench --backend cpu: printed $(head -c 200 "$tmp/out")"

cli_finish "test_launcher_job (under a launcher: the launcher's job, or exit 2)"

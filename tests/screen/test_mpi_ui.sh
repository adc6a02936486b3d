#!/usr/bin/env bash
# The UI on an MPI job it starts itself: --mpi "mpirun --oversubscribe -np 4" runs
# `collviz serve --backend mpi` as 4 processes; rank 0 talks to the UI. The panel says
# what the ranks are, a measurement and the display-scale check run on the 4 processes,
# and q ends the whole job: no process and no socket is left behind. Then a rank killed
# under the UI is reported ("rank 2 lost") and the UI goes on measuring on local CPU ranks.
# A sweep cancelled on the job stops every process at the same size. A rank that stalls
# (test hook, ASan build) is named ("rank 2 stalled: no answer for 3 s"), and the UI goes
# on on local CPU ranks, leaving nothing behind.
# Skips (77) without mpirun or without the mpi backend in this build.
ASAN_BIN=${2:-}
. "$(dirname "$0")/lib.sh" "$1"
if ! command -v mpirun >/dev/null; then
    echo "SKIP: no mpirun (apt-get install openmpi-bin)"
    exit 77
fi
if ! "$BIN" serve --backend mpi --help >/dev/null 2>&1 ||
    "$BIN" bench all_reduce --backend mpi 2>&1 | grep -q "not built"; then
    echo "SKIP: the mpi backend is not built into $BIN"
    exit 77
fi
run=$(mktemp -d)
chmod 700 "$run"
export XDG_RUNTIME_DIR="$run"
# As root, Open MPI's mpirun needs these; harmless otherwise.
envs="XDG_RUNTIME_DIR=$run OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
# the serve processes (not mpirun, whose command line holds the same words)
job_procs() { pgrep -f "^[^ ]*collviz serve --backend mpi --socket $run/collviz/" || true; }
all_procs() { pgrep -f "serve --backend mpi --socket $run/collviz/" || true; }
cleanup() {
    tm_cleanup_all
    for p in $(all_procs); do kill -9 "$p" 2>/dev/null; done
    rm -rf "$run"
}
trap cleanup EXIT

LAUNCH='mpirun --oversubscribe -np 4'
tm_start 200 50 "--mpi '$LAUNCH' --size 1M" $envs
tm_wait "measured on mpi: all-reduce 1 MiB, W=4" 120 || fail "no measurement on the MPI job: $(tm_screen | head -5)"
tm_wait "✓ animation = mpi" 30 || fail "no display-scale check on the MPI job"
tm_screen | grep -q "mpi: 4 processes on 1 host" || fail "the panel does not say what the ranks are"
# every rank box is labelled by its host (the facts rank 0 sent)
[ "$(tm_screen | grep -o "rank [0-3] · $(hostname) process" | sort -u | wc -l)" -eq 4 ] ||
    fail "rank boxes not labelled by host: $(tm_screen | grep -m1 'rank 0')"
tm_screen | grep -qE "#wrong 0 +algo ring" || fail "no #wrong 0 on the MPI job"
n=$(job_procs | wc -l)
[ "$n" -eq 4 ] || fail "expected 4 serve processes, found $n"
# A sweep cancelled on the job: rank 0 fans the cancel out between two sizes, so every
# process stops at the same size (the others say so in the job's log), and the job is
# free at once for the next measurement instead of running the remaining sizes. The sweep
# is 4K..64M (8 sizes, x4): cancelled at its 6th, 16 and 64 MiB are left, several seconds
# of the 4 processes' work on a quiet machine (a sweep to 256 MiB took 4 times as long).
tm_keys ']' ']' ']' ']' ']' ']'
tm_wait "size 64 MiB" 5 || fail "] did not reach 64 MiB"
tm_wait "measured on mpi: all-reduce 64 MiB, W=4" 180 || fail "no 64 MiB measurement on the job"
tm_keys s
tm_wait "sweeping 6/8" 120 || fail "the sweep never reached its 6th size: $(tm_screen | grep -m1 sweep)"
tm_keys x
tm_wait "measurement cancelled" 10 || fail "the UI does not say the sweep was cancelled"
log=$(ls "$run"/collviz/job-*.log 2>/dev/null | head -1)
end=$(($(date +%s) + 60))
until [ "$(grep -c 'cancelled after' "$log" 2>/dev/null)" -ge 3 ]; do
    [ "$(date +%s)" -le "$end" ] || break
    sleep 0.2
done
stops=$(grep -o "rank [1-3]: cancelled after [0-9]* of 8 sizes" "$log" | sort)
[ "$(echo "$stops" | grep -c .)" -eq 3 ] || fail "not every other rank stopped the sweep: '$stops' ($(tail -3 "$log"))"
[ "$(echo "$stops" | sed 's/rank [1-3]: //' | sort -u | wc -l)" -eq 1 ] ||
    fail "the ranks stopped at different sizes: $stops"
at=$(echo "$stops" | head -1 | sed -n 's/.*after \([0-9]*\) of 8.*/\1/p')
[ -n "$at" ] && [ "$at" -ge 6 ] && [ "$at" -lt 8 ] || fail "the sweep stopped after ${at:-?} of 8 sizes, want 6 or 7"
tm_keys '['
tm_wait "measured on mpi: all-reduce 32 MiB, W=4" 180 || fail "the job did not measure again after the cancel"
tm_keys q
tm_wait "EXITED:0" 30 || fail "q did not exit"
# the job's processes end with the UI; one left behind would wait on its socket for good
end=$((SECONDS + 10))
while [ -n "$(all_procs)" ] && [ "$SECONDS" -lt "$end" ]; do tm_sleep 0.05; done
left=$(all_procs)
[ -z "$left" ] || fail "processes left behind after q: $left"
pgrep -f "mpirun --oversubscribe -np 4 .*collviz serve" >/dev/null && fail "mpirun left behind"
[ -z "$(ls -A "$run/collviz")" ] || fail "socket or log left behind: $(ls "$run/collviz")"
tm_cleanup

# A rank dies under the UI.
tm_start 120 40 "--mpi '$LAUNCH' --size 1M" $envs
tm_wait "measured on mpi: all-reduce 1 MiB, W=4" 120 || fail "no measurement before the kill"
victim=""
for p in $(job_procs); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=2 && victim=$p
done
[ -n "$victim" ] || fail "no rank 2 found"
kill -9 "$victim"
tm_wait "rank 2 lost" 20 || fail "the dead rank was not named: $(tm_screen | head -3)"
tm_wait "on local CPU ranks now" 5 || fail "no word of the fallback"
tm_keys ']'
tm_wait "measured on cpu: all-reduce 2 MiB, W=4" 60 || fail "no measurement on local CPU ranks after the loss"
left=$(all_procs)
[ -z "$left" ] || fail "processes of the lost job left behind: $left"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit after the loss"
tm_cleanup

# A rank that stalls (alive, not answering) under the UI: test hook of the ASan build
# (CV_TEST_STALL=RANK:SECONDS:TIMEOUT: rank 2 sleeps 30 s in its first run, every wait's
# deadline is 3 s). The job names it, the UI goes on on local CPU ranks, nothing is left.
if [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ]; then
    BIN=$(readlink -f "$ASAN_BIN")
    tm_start 120 40 "--mpi '$LAUNCH' --size 1M" $envs CV_TEST_STALL=2:30:3 ASAN_OPTIONS=detect_leaks=0
    tm_wait "rank 2 stalled: no answer for 3 s" 90 || fail "the stalled rank was not named: $(tm_screen | head -3)"
    tm_wait "on local CPU ranks now" 5 || fail "no word of the fallback after the stall"
    tm_screen | grep -q "rank [013] stalled" && fail "a rank that answered was named: $(tm_screen | grep stalled)"
    left=$(all_procs)
    [ -z "$left" ] || fail "processes of the stalled job left behind: $left"
    tm_keys ']'
    tm_wait "measured on cpu: all-reduce 2 MiB, W=4" 60 || fail "no measurement on local CPU ranks after the stall"
    tm_keys q
    tm_wait "EXITED:0" 15 || fail "q did not exit after the stall"
    [ -z "$(ls -A "$run/collviz")" ] || fail "socket or log left behind after the stall: $(ls "$run/collviz")"
    # Rank 0 itself stalls: it cannot say so, the others name it in the job's output, end
    # the job, and the UI reads it there. Rank 0 sleeps 600 s: the UI hears of it within 40 s,
    # before serve's own watchdog (60 s) and long before rank 0 would wake (the others used
    # to wait for its next job).
    tm_cleanup
    tm_start 120 40 "--mpi '$LAUNCH' --size 1M" $envs CV_TEST_STALL=0:600:3 ASAN_OPTIONS=detect_leaks=0
    tm_wait "rank 0 stalled" 40 || fail "a stalled rank 0 was not named within 40 s: $(tm_screen | head -3)"
    tm_wait "on local CPU ranks now" 5 || fail "no word of the fallback after rank 0 stalled"
    tm_screen | grep -q "rank [123] stalled" && fail "a rank that answered was named: $(tm_screen | grep stalled)"
    tm_keys q
    tm_wait "EXITED:0" 15 || fail "q did not exit after rank 0 stalled"
    left=$(all_procs)
    [ -z "$left" ] || fail "processes of the job whose rank 0 stalled left behind: $left"
else
    echo "SKIP: a stalled rank under the UI (needs the ASan build's test hooks)"
fi
echo "ok: --mpi with 4 MPI processes measures and checks, a cancelled sweep stops every process at one size, q leaves nothing; a killed or stalled rank (rank 0 too) is named and the UI goes on on CPU ranks"

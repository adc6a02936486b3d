#!/usr/bin/env bash
# test_mpi_stuck.sh - MPI jobs with a stuck rank end, naming it (mpirun --oversubscribe,
# the ASan binary's test hooks): a rank that stalls is named by the others within the
# deadline ("rank 2 stalled: no answer for 3 s") and the job ends, leaving no process; the
# same when the others wait inside MPI's own MPI_Allreduce (--algo mpi: "rank 2 stalled: did
# not join MPI_Allreduce for 3 s"), rank 0 too; when every rank is inside it and answers, MPI
# itself is blamed and nobody named; without MPI_THREAD_MULTIPLE (test hook) the ranks line
# warns and a stall still ends the job, unnamed; a rank late by less than the deadline is
# not named; a process stopped by SIGSTOP is named ("no answer"). The seven jobs run at
# once (their time is deadlines waited out). Timing-sensitive: part of `make test-loaded`
# (tests/loaded.sh).
# Skips (77) when mpirun is missing, the binary was built without MPI, or no ASan binary.
# Usage: test_mpi_stuck.sh BIN ASAN_BIN
. "$(dirname "$0")/lib.sh" "$@"

if [ -z "$ASAN_BIN" ]; then
    echo "SKIP: no ASan binary (the stalls are its test hooks)"
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
MPIRUN=(mpirun --oversubscribe --bind-to none)

# A rank that stalls (alive, not answering; test hook CV_TEST_STALL=RANK:SECONDS:TIMEOUT in
# the ASan build: rank 2 sleeps 60 s in its first run, every wait's deadline is 3 s) is
# named by the others after the deadline and a grace, not when it wakes, and the job ends
# with nothing left behind. On a busy machine the job's start and the waits take longer
# than on a quiet one (a wait of 3 s was measured as 13 s beside busy loops): the checks
# are that the job ends well before the sleeper wakes and names the right rank, not how
# many seconds the wait took.
# gone PATTERN: no process's command line matches PATTERN, or none does within 10 s (the
# job's processes end as mpirun does; a rank left behind sleeps on for tens of seconds).
gone() {
    local end=$((SECONDS + 10))
    while pgrep -f "$1" >/dev/null; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.05
    done
}

# A job of an all-reduce with algorithm ALGO, ITERS timed iterations and the test hooks in
# VAR=VALUE (passed to every process) that must fail, not time out, within MAX seconds and
# leave no process behind. Its output is in $tmp/$label.out and .err. The cases run at
# once (below), so each gives its own ITERS: its processes' command line is its own, and
# gone waits for them alone (the stall comes in the first run, before any timed one).
stuck_job() { # label max algo iters VAR=VALUE...
    local label=$1 max=$2 algo=$3 iters=$4 xs=() a
    shift 4
    for a in "$@"; do xs+=(-x "${a%%=*}"); done
    local t0
    t0=$(date +%s)
    env ASAN_OPTIONS=detect_leaks=0 "$@" timeout 150 "${MPIRUN[@]}" -x ASAN_OPTIONS "${xs[@]}" \
        -np 4 "$ASAN_BIN" bench all_reduce -b 64K -n "$iters" -w 1 --algo "$algo" --backend mpi \
        >"$tmp/$label.out" 2>"$tmp/$label.err"
    local rc=$? took=$(($(date +%s) - t0))
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "$label: exit $rc, want a failure before the timeout"
    [ "$took" -lt "$max" ] || fail "$label: the job took $took s (it waited for the sleeper)"
    gone "$ASAN_BIN bench all_reduce -b 64K -n $iters -w 1 --algo $algo" ||
        fail "$label: processes left behind: $(pgrep -af "$ASAN_BIN bench all_reduce -b 64K -n $iters ")"
}

# The ring: rank 3 waits for rank 2, then 0 for 3, 1 for 0; each times out a deadline after
# its own wait began and asks the others, waiting a grace (half the deadline, 2 s at
# least) for the ranks whose waits timed out too. Beside busy loops the ranks' waits began
# more than 2 s apart (run 8 of 10: "ranks 1, 2, 3 stalled"), so this case gives a deadline
# of 8 s: a grace of 4 s, and the job still ends long before the sleeper wakes.
case_ring() {
    stuck_job stall 50 ring 2 CV_TEST_STALL=2:60:8
    grep -q "rank 2 stalled: no answer for [0-9]* s" "$tmp/stall.err" ||
        fail "stalled rank not named: $(head -5 "$tmp/stall.err")"
    grep -q "rank [013] stalled" "$tmp/stall.err" &&
        fail "a rank that answered was named: $(grep stalled "$tmp/stall.err")"
}

# The same under MPI's own blocking collective: the others wait inside MPI_Allreduce,
# where no wait of ours runs; each process's watchdog thread asks the others where they
# are and names the rank that did not join. Rank 2, and rank 0.
case_stall_mpi() { # who
    local who=$1 others
    others=$(echo 0 1 2 3 | tr -d "$who" | tr -d ' ')
    stuck_job "stall$who" 45 mpi $((3 + who)) "CV_TEST_STALL=$who:60:3"
    grep -q "rank $who stalled: did not join MPI_Allreduce for [0-9]* s (the others wait in it)" \
        "$tmp/stall$who.err" ||
        fail "rank $who stalled in MPI_Allreduce, not named: $(head -5 "$tmp/stall$who.err")"
    grep -q "rank [$others] stalled" "$tmp/stall$who.err" &&
        fail "--algo mpi: a rank that answered was named: $(grep stalled "$tmp/stall$who.err")"
}

# Every rank inside MPI_Allreduce and answering, yet no progress (CV_TEST_STALL=-1: each
# process sleeps inside its first native call, as if MPI itself were stuck): nobody is
# named; MPI is blamed after a second roll call, a deadline after the first.
case_mpi_stuck() {
    stuck_job stuck 60 mpi 4 CV_TEST_STALL=-1:80:3
    grep -q "MPI_Allreduce: no progress for [0-9]* s, yet every rank is in it and answers (MPI itself is stuck; no rank to name)" \
        "$tmp/stuck.err" || fail "MPI stuck: not said: $(grep -v '^ *$' "$tmp/stuck.err" | head -5)"
    grep -q "stalled" "$tmp/stuck.err" && fail "MPI stuck: a rank was named: $(grep stalled "$tmp/stuck.err")"
}

# An MPI library without MPI_THREAD_MULTIPLE (CV_TEST_MPI_THREAD=serialized): the
# watchdog may not ask the others, so nobody is named, but the job still ends soon after
# the deadline, saying why, rather than wait for the sleeper; the ranks line warns first.
case_serialized() {
    stuck_job serialized 60 mpi 6 CV_TEST_MPI_THREAD=serialized CV_TEST_STALL=2:80:3
    grep -q "ranks:   mpi: 4 processes on 1 host .*(no MPI_THREAD_MULTIPLE: a rank that stalls in MPI's own collectives is not named)" \
        "$tmp/serialized.out" || fail "no MPI_THREAD_MULTIPLE: the ranks line does not say so: $(grep ranks: "$tmp/serialized.out")"
    grep -q "MPI_Allreduce: no progress for [0-9]* s; which rank stalled cannot be asked (the MPI library does not provide MPI_THREAD_MULTIPLE)" \
        "$tmp/serialized.err" || fail "no MPI_THREAD_MULTIPLE: not said: $(grep -v '^ *$' "$tmp/serialized.err" | head -5)"
    grep -q "stalled:" "$tmp/serialized.err" &&
        fail "no MPI_THREAD_MULTIPLE: a rank was named: $(grep stalled: "$tmp/serialized.err")"
}

# A rank late by less than the deadline (1 s of 10: far apart, so a busy machine's delays
# do not close the gap) is no stall: every collective of MPI's
# own runs to the end with #wrong 0, nobody is named.
case_late() {
    ASAN_OPTIONS=detect_leaks=0 CV_TEST_STALL=2:1:10 timeout 240 "${MPIRUN[@]}" -x ASAN_OPTIONS \
        -x CV_TEST_STALL -np 4 "$ASAN_BIN" bench all -b 64K -e 256K -n 2 -w 1 --algo mpi \
        --backend mpi --format json >"$tmp/late.json" 2>"$tmp/late.err"
    local rc=$?
    [ "$rc" -eq 0 ] || fail "a rank late by 1 s of a 10 s deadline: exit $rc: $(tail -3 "$tmp/late.err")"
    grep -q "stalled" "$tmp/late.err" && fail "a late rank was named: $(grep stalled "$tmp/late.err")"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"]; sys.exit(0 if len(r)==24 and all(x["wrong"]==0 and x["algorithm"]=="mpi" for x in r) else 1)' \
        "$tmp/late.json" 2>/dev/null || fail "a late rank: want 24 rows of MPI's own collectives, #wrong 0: $(head -c 300 "$tmp/late.json")"
}

# A process that stops outright (SIGSTOP: its watchdog thread stops too) while the
# others wait in MPI_Allreduce: it answers nobody, and is named as such. CV_TEST_STALL
# names no rank of the job here (9), only the 3 s deadline.
case_stop() {
    local job victim pids n p rc t0 took left
    ASAN_OPTIONS=detect_leaks=0 CV_TEST_STALL=9:0:3 timeout 150 "${MPIRUN[@]}" -x ASAN_OPTIONS \
        -x CV_TEST_STALL -np 4 "$ASAN_BIN" bench all_reduce -b 16M -n 2000 -w 1 --algo mpi \
        --backend mpi >"$tmp/stop.out" 2>"$tmp/stop.err" &
    job=$!
    victim=""
    for _ in $(seq 1 300); do # until every process runs its watchdog (MPI's own calls began)
        pids=$(pgrep -f "$ASAN_BIN bench all_reduce -b 16M -n 2000")
        n=0
        for p in $pids; do
            grep -qx collviz-mpi-wd /proc/"$p"/task/*/comm 2>/dev/null || continue
            n=$((n + 1))
            tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=2 && victim=$p
        done
        [ "$n" -eq 4 ] && [ -n "$victim" ] && break
        victim=""
        sleep 0.1
    done
    if [ -z "$victim" ]; then
        kill "$job" 2>/dev/null
        wait "$job" 2>/dev/null
        fail "SIGSTOP case: the 4 processes never all ran MPI's own collective"
    else
        sleep 0.5
        t0=$(date +%s)
        kill -STOP "$victim"
        wait "$job"
        rc=$?
        took=$(($(date +%s) - t0))
        kill -CONT "$victim" 2>/dev/null
        [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a stopped rank: exit $rc, want a failure before the timeout"
        grep -q "rank 2 stalled: no answer for [0-9]* s (MPI_Allreduce)" "$tmp/stop.err" ||
            fail "a stopped rank 2 was not named: $(grep collviz "$tmp/stop.err" | head -5)"
        grep -q "rank [013] stalled" "$tmp/stop.err" &&
            fail "a stopped rank: a rank that answered was named: $(grep stalled "$tmp/stop.err")"
        grep -q "no rank to name" "$tmp/stop.err" &&
            fail "a stopped rank: a rank blamed MPI itself: $(grep "no rank to name" "$tmp/stop.err")"
        [ "$took" -lt 60 ] || fail "a stopped rank: the job took $took s to end"
        if ! gone "$ASAN_BIN bench all_reduce -b 16M -n 2000"; then
            left=$(pgrep -af "$ASAN_BIN bench all_reduce -b 16M -n 2000")
            pkill -KILL -f "$ASAN_BIN bench all_reduce -b 16M -n 2000"
            fail "processes of the job with a stopped rank left behind: $left"
        fi
    fi
}

# The cases at once, each in a subshell with its own failure count (its exit status), its
# output kept and printed in this order: their time is mostly the deadlines and graces,
# waited out side by side (3 s of CPU in all; one after another they took 47 s).
names=(ring stall_mpi_2 stall_mpi_0 mpi_stuck serialized late stop)
cases=(case_ring "case_stall_mpi 2" "case_stall_mpi 0" case_mpi_stuck case_serialized case_late
    case_stop)
pids=()
for i in "${!cases[@]}"; do
    # shellcheck disable=SC2086
    (
        fails=0
        ${cases[$i]}
        exit "$fails"
    ) >"$tmp/case.${names[$i]}" 2>&1 &
    pids+=($!)
done
for i in "${!cases[@]}"; do
    wait "${pids[$i]}"
    fails=$((fails + $?))
    cat "$tmp/case.${names[$i]}"
done

cli_finish test_mpi_stuck

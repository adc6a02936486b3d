#!/usr/bin/env bash
# The UI on a job it does not run itself: --connect to a `collviz serve` started beside it
# (CPU backend, private Unix socket) measures and checks as the in-process worker does;
# q ends that job too (shutdown message). --mpi "LAUNCH" starts the job as its child
# (here plainly, LAUNCH = "env" with --backend cpu: no MPI needed), and q leaves no process behind. A job
# that dies under the UI is reported and the UI goes on with local CPU ranks.
. "$(dirname "$0")/lib.sh" "$1"
run=$(mktemp -d)
trap 'tm_cleanup_all; pkill -P $$ 2>/dev/null; rm -rf "$run"' EXIT
chmod 700 "$run"

# --connect to a job started elsewhere
"$BIN" serve --socket "$run/job.sock" >"$run/serve.out" 2>"$run/serve.err" &
spid=$!
for _ in $(seq 100); do [ -S "$run/job.sock" ] && break; sleep 0.1; done
[ -S "$run/job.sock" ] || fail "serve never listened: $(cat "$run/serve.err")"
grep -q "listening on unix:$run/job.sock (backend cpu)" "$run/serve.out" || fail "serve did not say where it listens"
tm_start 120 40 "--connect unix:$run/job.sock --size 1M"
tm_wait "step 0/6" || fail "the screen never came up"
tm_wait "measured on cpu: all-reduce 1 MiB, W=4" 30 || fail "no measurement through the job"
tm_wait "✓ animation = cpu ranks" 20 || fail "no check through the job"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit"
for _ in $(seq 50); do kill -0 $spid 2>/dev/null || break; sleep 0.1; done
kill -0 $spid 2>/dev/null && fail "q did not end the job it was connected to"
wait $spid; [ $? -eq 0 ] || fail "serve did not end cleanly"
grep -q "shutdown asked by the UI" "$run/serve.err" || fail "serve did not log the shutdown"
[ -e "$run/job.sock" ] && fail "serve left its socket behind"
tm_cleanup

# --mpi: the UI starts the job itself; q ends it and every process of it
export XDG_RUNTIME_DIR="$run/xdg"
mkdir -m 700 "$XDG_RUNTIME_DIR"
tm_start 120 40 "--mpi env --backend cpu --size 1M" "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"
tm_wait "measured on cpu: all-reduce 1 MiB, W=4" 60 || fail "no measurement through --mpi"
pane=$(tm display -p -t main '#{pane_pid}')
jobs=$(pgrep -f "collviz serve --backend cpu --socket $XDG_RUNTIME_DIR/collviz/" | wc -l)
[ "$jobs" -ge 1 ] || fail "no serve process under --mpi"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit under --mpi"
# the job's processes end (5 s at most, as for the job above), not a guessed 0.5 s later
for _ in $(seq 50); do
    pgrep -f "serve --backend cpu --socket $XDG_RUNTIME_DIR/collviz/" >/dev/null || break
    tm_sleep 0.1
done
pgrep -f "serve --backend cpu --socket $XDG_RUNTIME_DIR/collviz/" && fail "a job process was left behind"
ls "$XDG_RUNTIME_DIR/collviz" | grep -q . && fail "socket or log left behind: $(ls "$XDG_RUNTIME_DIR/collviz")"
tm_cleanup

# The job dies under the UI: one line says so, and m measures on local CPU ranks.
tm_start 120 40 "--mpi env --backend cpu --size 1M" "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"
tm_wait "measured on cpu: all-reduce 1 MiB, W=4" 60 || fail "no measurement before the kill"
pkill -KILL -f "serve --backend cpu --socket $XDG_RUNTIME_DIR/collviz/" || fail "no job to kill"
tm_wait "the job is over; on local CPU ranks now" 15 || fail "the lost job was not reported"
tm_screen >"$run/lost.txt"
tm_keys ']'
tm_wait "measured on cpu: all-reduce 2 MiB, W=4" 30 || fail "no measurement on local CPU ranks after the loss"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit after the loss"
echo "ok: --connect measures and q ends the job; --mpi leaves nothing behind; a lost job falls back to local CPU ranks"

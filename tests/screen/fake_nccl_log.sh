#!/usr/bin/env bash
# The NCCL backend's own INFO log on the topology screen (t without --nccl-log), on the
# fakegpu build (tests/fakegpu: CUDA and NCCL emulated on the host, 4 emulated devices) -
# run by tests/run.sh when `make test` built it. First with the test hook
# COLLVIZ_TEST_NCCL_LOG (test builds only): a record of the corpus stands in for the
# backend's log, and the screen names it as such in its title, never as this machine's;
# its ring of channel 0 (read here from the file's "Channel 00/NN :" line) is drawn in that
# order. Then without it: the emulation's own INFO lines, named as the emulation's. Then
# the same over a job's socket (collviz serve): the job's log, named as the job's.
. "$(dirname "$0")/lib.sh" "$1"

LOG=tests/records/07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log
R0=$(grep -oE "Channel 00/[0-9]+ :( +[0-9]+)+" "$LOG" | head -n 1 | sed 's/.*: *//' | tr -s ' ')
[ -n "$R0" ] || fail "corpus: no ring line in $LOG"
drawn_ring() {
    tm_screen | sed -n "/^ channel 0's ring, NCCL's order/,/node crossings/p" | sed '1d;$d' |
        tr -s ' \n' '  ' | sed 's/-[^ ]*->//g' | tr -s ' ' | sed 's/^ //; s/ $//'
}

tm_start 150 44 "--no-measure" FAKEGPU_DEVICES=4 "COLLVIZ_TEST_NCCL_LOG=$PWD/$LOG"
tm_wait "step 0/" 20 || fail "the screen never came up"
tm_screen | grep -qF "backend: nccl" || fail "auto did not pick nccl with 4 devices"
tm_keys t
tm_wait "test hook: ${LOG##*/} stands in for NCCL's log" 20 ||
    fail "t did not show the hook's file, named as such"
tm_screen | grep -qF "this machine's NCCL INFO log" && fail "the hook's file is called this machine's log"
[ "$(drawn_ring)" = "$R0 ${R0%% *}" ] || fail "channel 0's ring is '$(drawn_ring)', want '$R0 ${R0%% *}'"
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit"
tm_cleanup

# Without the hook: the emulation's own INFO lines (it writes NCCL's INIT|SHM connection
# lines for the 4 devices), labelled as the emulation's, never as this machine's.
tm_start 150 44 "--no-measure" FAKEGPU_DEVICES=4
tm_wait "step 0/" 20 || fail "no hook: the screen never came up"
tm_keys t
tm_wait "the emulated NCCL's INFO log (tests/fakegpu host emulation, not a GPU)" 20 ||
    fail "no hook: t did not show the emulation's log, named as such"
tm_screen | grep -qF "this machine's NCCL INFO log" && fail "no hook: the emulation's log is called this machine's"
tm_screen | grep -qF "4 ranks on 1 node" || fail "no hook: not the 4 emulated devices"
tm_screen | grep -qF "0 -shm-> 1 -shm-> 2 -shm-> 3 -shm-> 0" || fail "no hook: the emulation's SHM ring"
tm_keys q
tm_wait "EXITED:0" 5 || fail "no hook: q did not quit"
tm_cleanup
# On a job the UI connects to (collviz serve, the NCCL backend on the 4 emulated devices):
# t asks the job for its log, which comes over the socket and is named as the job's rank
# 0's, never as this machine's; the hook's record stands in for it there, ring and all.
run=$(mktemp -d)
chmod 700 "$run"
FAKEGPU_DEVICES=4 COLLVIZ_TEST_NCCL_LOG="$PWD/$LOG" "$BIN" serve --backend nccl \
    --socket "$run/job.sock" >"$run/serve.out" 2>"$run/serve.err" &
spid=$!
for _ in $(seq 100); do [ -S "$run/job.sock" ] && break; sleep 0.1; done
[ -S "$run/job.sock" ] || fail "serve never listened: $(cat "$run/serve.err")"
tm_start 150 44 "--no-measure --connect unix:$run/job.sock"
tm_wait "step 0/" 20 || fail "remote: the screen never came up"
tm_keys t
tm_wait "the job's rank 0: test hook: ${LOG##*/}" 20 ||
    fail "remote: t did not show the job's log, named as the job's"
tm_screen | grep -qF "this machine's NCCL INFO log" && fail "remote: the job's log is called this machine's"
[ "$(drawn_ring)" = "$R0 ${R0%% *}" ] || fail "remote: channel 0's ring is '$(drawn_ring)', want '$R0 ${R0%% *}'"
tm_keys q
tm_wait "EXITED:0" 15 || fail "remote: q did not quit"
tm_cleanup
for _ in $(seq 50); do kill -0 $spid 2>/dev/null || break; sleep 0.1; done
kill $spid 2>/dev/null
wait $spid 2>/dev/null
rm -rf "$run"
echo "PASS ($TEST)"

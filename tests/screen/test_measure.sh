#!/usr/bin/env bash
# The measured panel end to end: measurement size keys, a sweep that fills the
# busbw-vs-size plot, a scene change that re-measures at the new world size, and x
# cancelling a measurement in flight; a result of another scene is marked stale.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 40 "--backend cpu --size 1M"
tm_wait "step 0/6" || fail "the screen never came up"
tm_wait "measured on cpu: all-reduce 1 MiB, W=4" 30 || fail "no 1 MiB measurement"
tm_screen | grep -qE "time +[0-9.]+ (us|ms|s) +algbw [0-9.]+ GB/s" || fail "no time/algbw line"
tm_keys ']'
tm_wait "size 2 MiB" 5 || fail "] did not double the size"
tm_wait "measured on cpu: all-reduce 2 MiB, W=4" 30 || fail "no 2 MiB measurement"
tm_screen | grep -qF "stale:" && fail "the current scene's result is marked stale"
tm_keys s
tm_wait "busbw GB/s vs size: all-reduce, W=4" 60 || fail "the sweep never finished"
for lab in 4K 16K 64K 256K 1M; do
    tm_screen | grep -qE "(^|[ │])$lab( |$)" || fail "size axis lacks $lab"
done
tm_keys +
tm_wait "W=5 · count=5" 5 || fail "+ did not add a rank"
tm_wait "measured on cpu: all-reduce 2 MiB, W=5" 30 || fail "no re-measurement at W=5"
tm_wait "✓ animation = cpu ranks" 20 || fail "no check at W=5"
tm_keys 5
# S is rounded to a whole number of elements per rank: "2.0 MiB" here.
end=$(($(date +%s) + 30))
until tm_screen | grep -qE "measured on cpu: all-gather [0-9.]+ MiB, W=5"; do
    [ "$(date +%s)" -le "$end" ] || fail "no re-measurement for all-gather"
    sleep 0.1
done
tm_screen | grep -qE "busbw = algbw·\(W−1\)/W" || fail "all-gather's busbw formula missing"
# A big measurement, cancelled while it runs.
tm_keys ']' ']' ']' ']' ']' ']' ']' ']' ']'
tm_wait "size 1 GiB" 5 || fail "] did not reach 1 GiB"
tm_wait "measuring 1 GiB" 10 || fail "no measurement in flight"
tm_screen | grep -qF "stale: the previous result" ||
    fail "the previous scene's result is not marked stale during a new measurement"
tm_keys x
tm_wait "measurement cancelled" 5 || fail "x did not cancel"
tm_wait "stale: measured for another scene" 5 || fail "the 2 MiB result is not stale at 1 GiB"
tm_wait "measurement: cancelled" 5 || fail "the panel does not say the measurement was cancelled"
tm_wait_gone "measuring 1 GiB" 10 || fail "still measuring after x"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit"
echo "ok: size keys, sweep plot, re-measure on scene change, cancel"

#!/usr/bin/env bash
# Idle (nothing playing, nothing measuring) the program sleeps in poll(): it may use at
# most 1% of a CPU over a few seconds.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 40 "--backend cpu --no-measure"
tm_wait "step 0/6" || fail "the screen never came up"
tm_wait "✓ animation = cpu ranks" 20 || fail "the check did not finish"
pid=$(tm_pid)
[ -n "$pid" ] || fail "no collviz process"
sleep 1
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; } # utime + stime, all threads
hz=$(getconf CLK_TCK)
t0=$(ticks)
sleep 4
t1=$(ticks)
used=$((t1 - t0))
limit=$((hz * 4 / 100)) # 1% of 4 s
[ "$used" -le "$limit" ] || fail "idle used $used ticks in 4 s (limit $limit at $hz Hz)"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit"
echo "ok: idle CPU $used ticks in 4 s (limit $limit)"

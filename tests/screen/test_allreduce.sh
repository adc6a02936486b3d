#!/usr/bin/env bash
# After 7 (all-reduce) and End, every rank box holds the lecture's [6, 10, 14, 18]; the
# badge reports that the CPU ranks computed the same, and the measured panel fills in with
# a busbw that came from the backend.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 40 "--backend cpu"
tm_wait "step 0/6" || fail "the screen never came up"
tm_keys 7 End
tm_wait "step 6/6" || fail "End did not go to the last step"
tm_wait "all-gather 3/3" || fail "no phase label at the last step"
n=$(tm_count " 6 10 14 18 ")
[ "$n" -eq 4 ] || fail "expected 4 rank boxes with 6 10 14 18, found $n"
for r in 0 1 2 3; do
    tm_screen | grep -qE "rank $r\b" || fail "no box for rank $r"
done
tm_screen | grep -qF "all-reduce" || fail "title lacks the collective"
tm_wait "✓ animation = cpu ranks" 20 || fail "the check badge never passed"
# A measurement at the default 64 MiB: the panel shows figures the backend measured.
tm_wait "measured on cpu: all-reduce 64 MiB, W=4" 60 || fail "no measurement arrived"
tm_screen | grep -qE "busbw [0-9.]+ GB/s" || fail "no busbw figure"
tm_screen | grep -qE "= 67.1 MB·2·3/\(4·[0-9.]+ m?s\) = [0-9.]+ GB/s" ||
    fail "the lecture's formula is not filled in"
tm_screen | grep -qE "#wrong 0" || fail "#wrong is not 0"
# Step back to the start: the inputs [0,1,2,3] + rank.
tm_keys Home
tm_wait "step 0/6" || fail "Home did not go to step 0"
for row in " 0 1 2 3 " " 1 2 3 4 " " 2 3 4 5 " " 3 4 5 6 "; do
    [ "$(tm_count "$row")" -eq 1 ] || fail "input row '$row' missing at step 0"
done
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit with status 0"
echo "ok: all-reduce shows 6 10 14 18 on 4 ranks, check passed, busbw measured"

#!/usr/bin/env bash
# Space plays the plan at about one step a second and stops at the last step; the keys
# that change the scene (ranks, algorithm, op, count) rebuild it and restart at step 0.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 40 "--backend cpu --no-measure"
tm_wait "step 0/6" || fail "the screen never came up"
start=$(date +%s.%N)
tm_keys Space
tm_wait "playing" 3 || fail "Space did not start playing"
tm_wait "step 1/6" 3 || fail "play did not advance"
tm_wait "step 6/6" 10 || fail "play did not reach the last step"
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
# Six steps at one per second: at least 5 s, and not much more (a loaded machine is slower).
echo "$took" | awk '{ exit !($1 >= 5 && $1 <= 12) }' || fail "six steps took ${took}s"
tm_wait_gone "playing" 3 || fail "play did not stop at the end"
[ "$(tm_count " 6 10 14 18 ")" -eq 4 ] || fail "the played result is not 6 10 14 18"

tm_keys +
tm_wait "W=5" || fail "+ did not add a rank"
tm_wait "step 0/8" || fail "5-rank ring all-reduce should have 8 steps"
tm_screen | grep -qE "rank 4|r4 " || fail "no fifth rank"
tm_keys - -
tm_wait "W=3" || fail "- did not remove ranks"
tm_keys a
tm_wait "algo=tree" || fail "a did not switch to the tree"
tm_keys o
tm_wait "op=prod" || fail "o did not change the op"
tm_keys End
tm_wait_gone "step 0/" || fail "End did not move"
# prod over 3 ranks of [r, r+1, r+2]: element j is j(j+1)(j+2): 0 6 24.
[ "$(tm_count " 0 6 24 ")" -eq 3 ] || fail "prod all-reduce on 3 ranks should give 0 6 24"
tm_keys c
tm_wait "count=4" || fail "c did not grow the count"
tm_keys 3
tm_wait "gather" || fail "3 did not pick gather"
tm_keys r
tm_wait "root=1" || fail "r did not move the root"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit"
echo "ok: play advances about 1 step/s and stops; scene keys rebuild the plan"

#!/usr/bin/env bash
# 1 (broadcast) and End: every rank holds rank 0's [0, 1, 2, 3], with the ring (chain) and
# with the tree algorithm; before the first step only the root has data.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 40 "--backend cpu --no-measure"
tm_wait "step 0/" || fail "the screen never came up"
tm_keys 1
tm_wait "broadcast" || fail "1 did not pick broadcast"
[ "$(tm_count " 0 1 2 3 ")" -eq 1 ] || fail "at step 0 only the root should hold 0 1 2 3"
[ "$(tm_count "· · · ·")" -eq 3 ] || fail "at step 0 the other 3 ranks should be empty"
tm_keys End
tm_wait_gone "step 0/" || fail "End did not move"
n=$(tm_count " 0 1 2 3 ")
[ "$n" -eq 4 ] || fail "ring broadcast: expected 4 ranks with 0 1 2 3, found $n"
tm_wait "✓ animation = cpu ranks" 20 || fail "the check badge never passed (ring)"
tm_keys a
tm_wait "algo=tree" || fail "a did not switch to the tree"
tm_keys End
tm_wait_gone "step 0/" || fail "End did not move (tree)"
n=$(tm_count " 0 1 2 3 ")
[ "$n" -eq 4 ] || fail "tree broadcast: expected 4 ranks with 0 1 2 3, found $n"
tm_wait "✓ animation = cpu ranks" 20 || fail "the check badge never passed (tree)"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit with status 0"
echo "ok: broadcast ends with 0 1 2 3 on every rank (ring and tree)"

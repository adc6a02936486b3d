#!/usr/bin/env bash
# Labels that must not say more than is true (issue 12): with one rank nothing is
# transferred, so the panel shows no algbw/busbw "rate"; a reduction other than sum names
# its op in the transfer list instead of "Σn"; the help says one chunk per rank per step is
# the teaching model and how NCCL really splits the work; a highlight that names a chunk
# the plan lacks is reported, not silently dropped.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 36 "--backend cpu --ranks 1"
tm_wait "#wrong" 30 || fail "the W=1 measurement never finished"
tm_screen | grep -qF "nothing crosses between ranks" || fail "W=1 does not say nothing is transferred"
tm_screen | grep -qE "(algbw|busbw) +[0-9]" && fail "W=1 still shows algbw/busbw as a rate"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

tm_start 120 36 "--backend cpu --no-measure --scene 'op=max step=3'"
tm_wait "step 3/6" 10 || fail "the max scene never came up"
tm_screen | grep -qF "chunk 0 (max) max of 4" || fail "a max transfer does not name its op"
tm_screen | grep -qF "Σ4" && fail "a max transfer still shows Σ4"
tm_keys '?'
tm_wait "help: keys" 5 || fail "? did not open the help"
tm_screen | grep -qF "one chunk a step is the teaching model" || fail "the help does not call it a teaching model"
tm_screen | grep -qF "NCCL pipelines slices (v)" || fail "the help does not say NCCL slices chunks"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

tm_start 100 32 "--backend cpu --no-measure --scene 'highlight=chunk:7 step=1'"
tm_wait "step 1/6" 10 || fail "the highlight scene never came up"
tm_screen | grep -qF "this plan has no chunk 7" || fail "a missing highlighted chunk is not reported"
tm_screen | grep -qF "NCCL's numbering" && fail "the summary still says \"NCCL's numbering\""
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
echo "ok: W=1 shows no rate, ops named, teaching model said, missing highlight reported"

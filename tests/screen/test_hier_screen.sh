#!/usr/bin/env bash
# The hierarchy screen end to end on the CPU ranks: on entry it measures this machine (memcpy
# in host memory beside HBM, the CPU ranks' all-reduce beside NVLink), each figure with how
# it was measured and its ratio to the lecture's tier; + re-measures the all-reduce at the
# new world size; x cancels and says so; the napkin page's inputs move with the keys and its
# figures follow; other screens' keys say where they belong; p, 1 and y leave it; and the
# collectives panel, after a measurement and a sweep, shows the model beside the measured
# figures, the fit, the model's points and the what-if table.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 120 40 "--backend cpu --size 1M --scene screen=hierarchy"
tm_wait "step 0/1" || fail "the hierarchy screen never came up"
tm_wait "how: memcpy of 64 MiB in host memory on the backend thread, best of 5" 30 ||
    fail "no memcpy figure"
tm_screen | grep -qE "this machine, memcpy: [0-9.]+ [MG]B/s measured; it reads and writes [0-9.]+ [MGT]B/s;" ||
    fail "the memcpy line lacks value or ratio"
tm_wait "how: all-reduce of 1 MiB on 4 ranks" 60 || fail "no all-reduce figure"
tm_screen | grep -qE "CPU ranks' all-reduce busbw: [0-9.]+ [kMG]B/s measured" ||
    fail "the all-reduce line lacks its value"
tm_screen | grep -qF "What if: all-reduce, ring, 4 ranks, 1 MiB on each link (model)" ||
    fail "no what-if table for the scene's collective"
tm_keys +
tm_wait "how: all-reduce of 1 MiB on 5 ranks" 60 || fail "+ did not re-measure at W=5"
# A big all-reduce, cancelled while it runs.
tm_keys ']' ']' ']' ']' ']' ']' ']' ']' ']' ']'
tm_wait "measuring" 10 || fail "no measurement in flight at 1 GiB"
tm_keys x
tm_wait "measurement cancelled" 5 || fail "x did not cancel"
tm_wait "measurement failed: cancelled (m measures again)" 10 ||
    fail "the ladder does not say the measurement was cancelled"
# Keys of another screen.
tm_keys a
tm_wait "that key is for the collectives screen" 5 || fail "a did not say where it belongs"
# The napkin page: the selection moves, the value changes, the figures follow.
tm_keys Right
tm_wait "step 1/1: napkin math" 5 || fail "-> did not turn to the napkin page"
tm_screen | grep -qF "= size·2(W−1)/(W·duration) = 419 GB/s" || fail "napkin: not 419 GB/s"
tm_keys j j '<'
tm_wait "duration [1.75 ms]" 5 || fail "j j < did not halve the duration"
tm_screen | grep -qF "= size·2(W−1)/(W·duration) = 839 GB/s" ||
    fail "napkin: halving the duration did not double the bandwidth"
tm_keys k k k '>'
tm_wait "micro-batches [5]" 5 || fail "k k k > did not raise the micro-batches (wrapping)"
tm_keys Left
tm_wait "step 0/1: the ladder" 5 || fail "<- did not turn back"
tm_keys p
tm_wait "collviz · parallelism" 10 || fail "p did not open the parallelism screen"
tm_keys y
tm_wait "The hierarchy, fastest first" 10 || fail "y did not open the hierarchy screen again"
tm_wait "memcpy: " 5
tm_screen | grep -qE "this machine, memcpy: [0-9.]+ [MG]B/s measured" ||
    fail "the memcpy figure was not kept"
tm_keys 7
tm_wait "collviz · all-reduce" 10 || fail "7 did not go to the collectives screen"
tm_keys '[' '[' '[' '[' '[' '[' '[' '['
tm_wait "size 4 MiB" 10 || fail "[ did not come down to 4 MiB"
tm_wait "measured on cpu: all-reduce 4 MiB" 60 || fail "no 4 MiB measurement"
tm_wait "model time " 5 || fail "no model beside the measured figures"
tm_screen | grep -qF "measured memcpy" || fail "the model does not say its beta is the memcpy's"
tm_keys s
# The panel wraps its lines where the numbers' widths put the breaks: look for pieces. A
# busy machine can time a sweep the model does not fit (alpha < 0): then it must say so.
end=$(($(date +%s) + 120))
until tm_screen | grep -qE "model: the fit through these points|not physical"; do
    [ "$(date +%s)" -le "$end" ] || fail "no fit after the sweep"
    sleep 0.2
done
# The panel's text as one line (what lies between the last two box edges of each screen
# line), so a figure the wrap put on the next line still follows its label.
panel_text() { tm_screen | sed -n 's/.*│\(.*\)│ *$/\1/p' | tr -s ' \n' '  '; }
if ! tm_screen | grep -qF "not physical"; then
    panel_text | grep -qF "fit of the" || fail "the model does not say it is the sweep's fit"
    panel_text | grep -qE "R² [0-9.]+" || fail "the fit lacks R²: $(panel_text)"
fi
tm_screen | grep -qF "What if: the same on each link (model)" || fail "no what-if in the panel"
tm_keys q
tm_wait "EXITED:0" 15 || fail "q did not exit"
echo "ok: hierarchy screen measures, cancels, edits the napkin math; the panel's model and fit"

#!/usr/bin/env bash
# The slice view (v): a broadcast chain cut into 2 slices per chunk becomes links x ticks;
# the pipeline fills (ticks 1-2: fewer links busy) and drains; the status line and the
# sentence say which view is shown, the summary says which view is the teaching model and
# which is how NCCL runs it. Golden screen at tick 3; then v steps through 4 and 8 slices
# and 4 slices x 2 channels, and back to the chunk view. Regenerate the golden file with
#   UPDATE_GOLDEN=1 bash tests/screen/test_slice_view.sh build/collviz
. "$(dirname "$0")/lib.sh" "$1"
GOLDEN="$(dirname "$0")/golden/slice_broadcast_120x36.txt"

# The machine-dependent part of the measured panel (as in test_golden.sh): from the
# "backend" line's column to the right edge, down to the panel's bottom border.
mask() {
    python3 -c '
import re, sys
lines = sys.stdin.read().rstrip("\n").split("\n")
start, col = None, None
for y, line in enumerate(lines):
    m = re.search(r"backend \w+: ", line)
    if m:
        start, col = y, m.start()
        break
for y, line in enumerate(lines):
    if start is not None and start <= y < len(lines) - 2:
        line = line[:col] + "<masked>"
    print(line.rstrip())
'
}

tm_start 120 36 "--backend cpu --no-measure --collective broadcast"
tm_wait "step 0/" || fail "the screen never came up"
tm_keys v
tm_wait "slice view: 2 slices x 1 channel" || fail "v did not open the slice view"
tm_wait "tick 0/10" || fail "2 slices x 4 chunks on a chain of 4: 8 + 2 ticks"
tm_keys Right Right Right
tm_wait "tick 3/10" || fail "Right did not advance the ticks"
tm_wait "✓ animation = cpu ranks (bit for bit)" 20 || fail "the check badge never passed"
tm_wait "Slice view, tick 3 of 10: 3 of 3 links carry a slice" || fail "no tick narration"
tm_stable
got=$(tm_screen | mask)
if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    printf '%s\n' "$got" >"$GOLDEN"
    echo "updated $GOLDEN"
else
    [ -f "$GOLDEN" ] || fail "no golden file $GOLDEN (run with UPDATE_GOLDEN=1)"
    diff -u "$GOLDEN" <(printf '%s\n' "$got") || fail "the slice view differs from $GOLDEN"
fi
# Tick 1: the pipeline is filling (one of three links busy).
tm_keys Home
tm_keys Right
tm_wait "tick 1 of 10: 1 of 3 links carry a slice" || fail "tick 1: one link busy"
tm_wait "filling: the first slices are still on their way" || fail "tick 1 should show the fill"
tm_keys End
tm_wait "tick 10 of 10: 1 of 3 links carry a slice" || fail "tick 10: one link busy"
tm_wait "drains: the last slices are finishing" || fail "the last tick should show the drain"
tm_keys v
tm_wait "slice view: 4 slices x 1 channel" || fail "v did not go on to 4 slices"
tm_wait "tick 0/18" || fail "4 slices x 4 chunks on a chain of 4: 16 + 2 ticks"
tm_keys v
tm_wait "slice view: 8 slices x 1 channel" || fail "v did not go on to 8 slices"
tm_keys v
tm_wait "slice view: 4 slices x 2 channels" || fail "v did not go on to 2 channels"
tm_keys v
tm_wait "step 0/" || fail "v did not go back to the chunk view"
tm_wait_gone "slice view" || fail "the chunk view still says slice view"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit with status 0"
tm_cleanup
# The picture stands for NCCL: what forces NCCL's protocol or algorithm is shown beside it.
tm_start 120 36 "--backend cpu --no-measure --scene 'view=slice'" NCCL_PROTO=LL128
tm_wait "tick 0/" || fail "the slice scene never came up"
tm_wait "NCCL_PROTO=LL128" || fail "NCCL_PROTO is not shown in the slice view"
tm_screen | grep -qF "depend on its protocol (LL, LL128, Simple)" ||
    fail "the summary does not say NCCL's sizes depend on the protocol"
echo "ok: slice view (fill, drain, keys, golden, NCCL_PROTO)"

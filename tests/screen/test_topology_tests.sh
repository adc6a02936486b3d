#!/usr/bin/env bash
# The topology screen's nccl-tests view (T): at 80x24, 100x30 and 120x40 a record of
# nccl-tests output alone (2 nodes, 16 H100s, all-reduce 8 B..8 GiB) opens on its plot:
# busbw against size on a log axis from 8 B to 8 GiB, the largest size's out-of-place
# point on the top row at the right end, the points labelled measured (from the file), and
# the alpha-beta fit labelled model with the alpha, beta and R^2 that
# tests/cli/nccl_fit_ref.py fits from the file's text by itself. On a record with rings
# (one H800 node), T goes from the ring to the tests and back. Without a record on the CPU
# backend, t says there is no NCCL log (not a GPU run).
. "$(dirname "$0")/lib.sh" "$1"

LOG=tests/records/nccltests-h100-2node16-allreduce.log
want=$(python3 tests/cli/nccl_fit_ref.py "$LOG" | python3 -c 'import json,sys; w=json.load(sys.stdin)
print("model: \u03b1 %.4g us/step, \u03b2 %.4g GB/s, R\u00b2 %.4f" % (w["alpha_us"], w["beta_gbps"], w["r2"]))')
[ -n "$want" ] || fail "the reference fit failed"
# the largest busbw of the table (either column): the plot's scale
max=$(awk '!/^#/ && NF == 13 { for (i = 8; i <= 12; i += 4) if ($i + 0 > m) m = $i + 0 } END { print m }' "$LOG")

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    tm_start "$1" "$2" "--no-measure --nccl-log $LOG"
    tm_wait "nccl-tests all_reduce, float sum (test 1 of 1)" 10 ||
        fail "$1x$2: a record of nccl-tests alone did not open on its plot"
    # the fit is drawn once it is made (a frame after the plot): waited for, not looked at once
    tm_wait "$want" 5 || fail "$1x$2: no '$want': $(tm_screen | grep model)"
    tm_wait "fit of the 31 measured out-of-place rows" 5 ||
        fail "$1x$2: the fit is not said to be of the measured rows"
    tm_wait "measured (from the file)" 5 || fail "$1x$2: the points are not labelled"
    # the scale: the table's largest busbw at the top, and the top row's last point at the
    # plot's right end, over the 8 GiB label
    top=$(tm_screen | grep -m1 -E "^ *[0-9.]+│")
    [ "$(echo "$top" | sed 's/│.*//' | tr -d ' ')" = "$(printf '%.4g' "$max")" ] ||
        fail "$1x$2: scale '$top', want $max"
    axis=$(tm_screen | grep -m1 -E "^ +8 B .* 8 GiB *$")
    [ -n "$axis" ] || fail "$1x$2: no size axis from 8 B to 8 GiB"
    tcol=$(echo "$top" | sed 's/ *$//' | wc -m)
    acol=$(echo "$axis" | sed 's/ *$//' | wc -m)
    [ "$tcol" = "$acol" ] || fail "$1x$2: the largest size's point ends at column $tcol, the axis at $acol"
    case "$(echo "$top" | sed 's/ *$//' | tail -c 2)" in "o" | "*") ;; *) fail "$1x$2: top row '$top'" ;; esac
    tm_keys q
    tm_wait "EXITED:0" 5 || fail "$1x$2: q did not quit"
    tm_cleanup
done

# Rings and tests in one record: s shows the tests, s again the ring.
tm_start 100 30 "--no-measure --nccl-log tests/records/07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log"
tm_wait "channel 0's ring" 10 || fail "07-h800: no ring"
tm_keys T
tm_wait "nccl-tests: test 1 of 1 (T: back to the ring)" 5 || fail "07-h800: T did not show the tests"
tm_screen | grep -qF "no fit: the record does not name the collective" ||
    fail "07-h800: a test of no named collective should say why it has no fit"
tm_keys T
tm_wait "channel 0's ring" 5 || fail "07-h800: T did not come back to the ring"
tm_keys q
tm_wait "EXITED:0" 5 || fail "07-h800: q"
tm_cleanup
# No record and no GPU: t says plainly that there is no NCCL log, and t goes back.
tm_start 100 30 "--no-measure --backend cpu"
tm_wait "step 0/" 10 || fail "cpu: the collectives screen never came up"
tm_keys t
tm_wait "no NCCL log: not a GPU run (backend cpu)" 5 || fail "cpu: t did not say there is no log"
tm_screen | grep -qF "collviz --nccl-log FILE... reads a real cluster's record" ||
    fail "cpu: no word on how to read a record"
tm_keys t
tm_wait "step 0/" 5 || fail "cpu: t did not go back"
tm_keys q
tm_wait "EXITED:0" 5 || fail "cpu: q"
tm_cleanup
# nccl-tests' table alone, without its device lines (derived from the record above: its
# "Rank" lines dropped): the screen opens on the tests, not a refusal.
tables=$(mktemp)
grep -v 'Rank ' "$LOG" >"$tables"
tm_start 100 30 "--no-measure --nccl-log $tables"
tm_wait "nccl-tests all_reduce, float sum (test 1 of 1)" 10 ||
    fail "a table without device lines: not shown ($(tm_screen | head -3))"
tm_keys q
tm_wait "EXITED:0" 5 || fail "tables alone: q"
tm_cleanup
rm -f "$tables"
echo "PASS ($TEST)"

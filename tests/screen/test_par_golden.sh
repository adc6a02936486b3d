#!/usr/bin/env bash
# Golden screens of the parallelism screen: deterministic scenes (the display-scale step is
# trained with fixed seeds; --no-measure keeps the lecture-scale run, whose times vary, out
# of the panel) compared with captures under tests/screen/golden/.
# Regenerate after an intended change with:
#   UPDATE_GOLDEN=1 bash tests/screen/test_par_golden.sh build/collviz
. "$(dirname "$0")/lib.sh" "$1"
GOLDEN_DIR="$(dirname "$0")/golden"

check() { # name cols rows args wait-text
    local name=$1 cols=$2 rows=$3 args=$4 wait_text=$5
    tm_cleanup
    tm_start "$cols" "$rows" "--backend cpu --no-measure $args"
    tm_wait "$wait_text" 20 || fail "$name: '$wait_text' never appeared"
    tm_stable
    local got file="$GOLDEN_DIR/$name.txt"
    got=$(tm_screen | sed -e 's/[[:space:]]*$//')
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        printf '%s\n' "$got" >"$file"
        echo "updated $file"
        return
    fi
    [ -f "$file" ] || fail "$name: no golden file $file (run with UPDATE_GOLDEN=1)"
    if ! diff -u "$file" <(printf '%s\n' "$got") >/tmp/collviz-par-golden-$$.diff; then
        cat /tmp/collviz-par-golden-$$.diff
        rm -f /tmp/collviz-par-golden-$$.diff
        fail "$name: screen differs from $file"
    fi
    rm -f /tmp/collviz-par-golden-$$.diff
}

check par_tp_allgather_100x30 100 30 "--scene 'screen=parallel scheme=tp step=5'" \
    "frame 6/19"
check par_pp_1f1b_120x36 120 36 "--scene 'screen=parallel scheme=pp schedule=1f1b step=7'" \
    "frame 8/16"
check par_ddp_reduce_80x24_ascii 80 24 "--ascii --scene 'screen=parallel scheme=ddp step=9'" \
    "frame 10/23"
echo "ok: parallelism golden screens"

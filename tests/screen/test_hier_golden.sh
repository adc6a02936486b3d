#!/usr/bin/env bash
# Golden screens of the hierarchy screen: the ladder page (the lecture's tiers, figures and
# ratios; this machine's figures "not measured yet" since --no-measure keeps the measurement
# out; the what-if table of the scene's collective, model) and the napkin-math page after
# moving the selection and changing a value with the keys, in ASCII at 80x24. Nothing on
# either depends on the machine (the NCCL line says only "no GPU in use here").
# Regenerate after an intended change with:
#   UPDATE_GOLDEN=1 bash tests/screen/test_hier_golden.sh build/collviz
. "$(dirname "$0")/lib.sh" "$1"
GOLDEN_DIR="$(dirname "$0")/golden"

check() { # name cols rows args wait-text [keys after-text]
    local name=$1 cols=$2 rows=$3 args=$4 wait_text=$5 keys=${6:-} after=${7:-}
    tm_cleanup
    tm_start "$cols" "$rows" "--backend cpu --no-measure $args"
    tm_wait "$wait_text" 20 || fail "$name: '$wait_text' never appeared"
    if [ -n "$keys" ]; then
        local k
        for k in $keys; do tm_keys "$k"; done
        tm_wait "$after" 10 || fail "$name: '$after' never appeared after keys $keys"
    fi
    tm_stable
    local got file="$GOLDEN_DIR/$name.txt"
    got=$(tm_screen | sed -e 's/[[:space:]]*$//')
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        printf '%s\n' "$got" >"$file"
        echo "updated $file"
        return
    fi
    [ -f "$file" ] || fail "$name: no golden file $file (run with UPDATE_GOLDEN=1)"
    if ! diff -u "$file" <(printf '%s\n' "$got") >/tmp/collviz-hier-golden-$$.diff; then
        cat /tmp/collviz-hier-golden-$$.diff
        rm -f /tmp/collviz-hier-golden-$$.diff
        fail "$name: screen differs from $file"
    fi
    rm -f /tmp/collviz-hier-golden-$$.diff
}

check hier_ladder_100x32 100 32 "--scene 'screen=hierarchy size=64M'" "step 0/1"
# j moves the selection to W, > raises it to 9: the effective bandwidth and the per-link
# table follow (W=9 ranks in the model).
check hier_napkin_80x24_ascii 80 24 "--ascii --scene 'screen=hierarchy step=1'" "step 1/1" \
    "j >" "W [9]"
# y from the collectives screen opens it, and again goes back.
tm_cleanup
tm_start 100 30 "--backend cpu --no-measure"
tm_wait "step 0/" || fail "the collectives screen never came up"
tm_keys y
tm_wait "The hierarchy, fastest first" 10 || fail "y did not open the hierarchy screen"
tm_keys y
tm_wait "step 0/6" 10 || fail "y did not go back to the collectives screen"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
echo "ok: hierarchy golden screens"

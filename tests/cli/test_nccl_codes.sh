#!/usr/bin/env bash
# test_nccl_codes.sh - every warning code the reader of NCCL's records can give (the names
# of rec_wcode_name in src/records/records.c, and the command's "not_read") is documented:
# in the JSON's description (docs/records.md) and in the corpus's expectation schema
# (tests/records/expect/README.md), each as `code`. A code added to the source without its
# meaning fails here.
# Usage: test_nccl_codes.sh [BIN [ASAN_BIN]]   (runs no collviz)
. "$(dirname "$0")/lib.sh" --no-bin
SRC=$TOP/src/records/records.c

# the string literals between rec_wcode_name's "names[REC_W_N] = {" and its "};"
codes=$(sed -n '/names\[REC_W_N\] = {/,/};/p' "$SRC" | grep -o '"[a-z_]*"' | tr -d '"')
grep -q '"not_read"' "$TOP/src/cli/nccl.c" && codes="$codes not_read"
n=$(echo "$codes" | wc -w)
[ "$n" -ge 18 ] || fail "found $n codes in $SRC: the names list was not found whole ($codes)"
for c in $codes; do
    for doc in docs/records.md tests/records/expect/README.md; do
        grep -qF "\`$c\`" "$TOP/$doc" || fail "warning code $c is not documented in $doc"
    done
done
cli_finish "test_nccl_codes.sh ($n warning codes, each documented)"

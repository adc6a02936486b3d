#!/usr/bin/env bash
# test_refuse_ignored.sh - what was accepted and silently ignored is refused (issue 29, item
# 10): an option that applies to another train scheme (--schedule, --microbatches off pp)
# or to PDF only (--paper, --per-page, --solutions with --format html); a lesson's where:
# or wrong: value with two values ("1,2", as answer: already is); and the limit of a record's
# ranks is named as the last rank (16777215), never one past it. Each: exit 2, one line naming
# the value. The protocol's NaN learning rates and timeouts: tests/unit/test_proto.c.
# Usage: test_refuse_ignored.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
FIX=$TOP/tests/lesson/hostile2

small="--steps 1 --dim 16 --batch 8 --layers 2"
# shellcheck disable=SC2086
{
    expect_usage_error "--schedule applies to pp, not zero3" train zero3 --schedule 1f1b $small
    expect_usage_error "--schedule applies to pp, not ddp" train ddp --schedule gpipe $small
    expect_usage_error "--microbatches applies to pp, not ddp" train ddp --microbatches 2 $small
    expect_usage_error "--microbatches applies to pp, not moe" train moe --microbatches 2 $small
}
# the same options where they apply still run
"$BIN" train pp --schedule 1f1b --microbatches 2 --steps 1 --dim 16 --batch 8 --layers 4 \
    >/dev/null 2>"$tmp/pp.err" || fail "train pp --schedule 1f1b: $(head -1 "$tmp/pp.err")"

lesson=$TOP/tests/lesson/ok/01-ring.md
expect_usage_error "--paper needs --format pdf" lesson export "$lesson" --format html --paper a4
expect_usage_error "--paper needs --format pdf" lesson export "$lesson" --paper letter
expect_usage_error "--per-page needs --format pdf" lesson export "$lesson" --format html --per-page 2
expect_usage_error "--solutions needs --format pdf" lesson export "$lesson" --format html --solutions none
"$BIN" lesson export "$lesson" --format html -o "$tmp/ok.html" 2>"$tmp/html.err" ||
    fail "export html without pdf options: $(head -1 "$tmp/html.err")"

# where: and wrong: hold one value each, as answer: does
for f in 10-where-comma.md:14:"where: '1,2' is more than one value" \
    10-wrong-comma.md:13:"wrong: '1,2' is more than one value"; do
    file=${f%%:*} rest=${f#*:}
    line=${rest%%:*} want=${rest#*:}
    "$BIN" lesson check "$FIX/$file" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "check $file: exit $rc, want 2"
    grep -qF "$file:$line: $want" "$tmp/err" || fail "check $file: no '$file:$line: $want' in: $(cat "$tmp/err")"
done

# a record's ranks end at REC_MAX_RANKS - 1 in a message that says where they end
"$BIN" nccl "$TOP/tests/hostile-records/ranks-past-limit.log" >"$tmp/out" 2>"$tmp/err"
# (a record past the reader's limits is refused whole, exit 2, naming what it holds)
rc=$?
[ "$rc" -eq 2 ] || fail "nccl ranks past the limit: exit $rc, want 2"
grep -q "larger than this reader holds (ranks 0..16777215 and what memory holds" "$tmp/err" ||
    fail "nccl ranks past the limit: the limit is not named: $(cat "$tmp/err")"
grep "ranks 0\.\." "$tmp/err" | grep -v "ranks 0\.\.16777215 " | while read -r l; do
    fail "nccl: the limit named wrongly: $l"
done

cli_finish "test_refuse_ignored (ignored options and values refused in one line)"

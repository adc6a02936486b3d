#!/usr/bin/env bash
# test_nccl_messages.sh - every message of `collviz nccl` has one form: "collviz: nccl: ..."
# (as every command's usage errors have, "collviz: CMD: ..."), and a line of a record that
# could not be read is "FILE:LINE: ..." (or "FILE: ..." for a file). Over the source: every
# format string src/cli/nccl.c and src/cli/runcmp.c print to stderr begins so. Over the
# program: each refusal and error below, and the compare's, says each line once, in that form.
# Usage: test_nccl_messages.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
R=$TOP/tests/records

# the source: cv_eprintf's formats start "collviz: nccl", "%s\n" (a record's own message,
# FILE:LINE: first) or "(" (a count of more); cli_usage_error's start "nccl" (it puts
# "collviz: " before)
# (--ring-order-from, in nccl.c, is an option of trace and bench: their messages)
for f in "$TOP/src/cli/nccl.c" "$TOP/src/cli/runcmp.c"; do
    while read -r l; do
        fail "$(basename "$f"): a message not in the form 'collviz: nccl: ': $l"
    done < <(grep -n 'cv_eprintf("' "$f" |
        grep -v 'cv_eprintf("collviz: nccl\|cv_eprintf("%s\\n"\|cv_eprintf("(')
    while read -r l; do
        fail "$(basename "$f"): a usage error not 'nccl...': $l"
    done < <(grep -n 'cli_usage_error("' "$f" | grep -v 'cli_usage_error("nccl\|--ring-order-from')
done

# the program: FILE... -> each stderr line once, "collviz: nccl" or "PATH:"
printf '   1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n' >"$tmp/rows.log"
cat "$R/nccltests-h100-2node16-allreduce.log" "$tmp/rows.log" >"$tmp/a.log"
check() { # check ARGS...
    "$BIN" nccl "$@" >/dev/null 2>"$tmp/err"
    local d
    d=$(sort "$tmp/err" | uniq -d | head -1)
    [ -z "$d" ] || fail "nccl $*: a line said twice: $d"
    while IFS= read -r l; do
        case $l in
        "collviz: nccl"* | "$TOP"/* | "$tmp"/*) ;;
        *) fail "nccl $*: a line in no known form: $l" ;;
        esac
    done <"$tmp/err"
}
check "$tmp/a.log" "$R/nccltests-h100-2node16-allreduce.log"
check "$tmp/a.log" "$R/nccltests82-broadcast-oldtable-nccl296.log"
check "$tmp/a.log" "$R/nccl583-nccltests-hash-stripped-oldtable.log" --compare
check "$tmp/a.log" "$R/04-socket-2node-p40-nccl248.log"
check "$tmp/rows.log"
check "$tmp/none.log"
check "$tmp/none.log" "$R/04-socket-2node-p40-nccl248.log"
check /etc/hostname
check "$TOP/tests/hostile-records/ranks-past-limit.log"
check --bogus "$R/04-socket-2node-p40-nccl248.log"
check
cli_finish "test_nccl_messages.sh (one form for every message of collviz nccl)"

#!/usr/bin/env bash
# test_manpage.sh - the man page: docs/collviz.1.scd renders with scdoc, `man -l` reads the
# result, and every option of every --help is in the man page's section for that part of
# collviz and the other way round (tests/tools/man_options.py compares the texts). A
# deliberately dropped option must make the comparison fail, so the check can fail.
# Usage: test_manpage.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$HERE/../..
command -v scdoc >/dev/null || {
    echo "SKIP: no scdoc (tools/deps.sh installs it)"
    exit 77
}

scdoc <"$TOP/docs/collviz.1.scd" >"$tmp/collviz.1" || fail "scdoc cannot render docs/collviz.1.scd"
if command -v man >/dev/null; then
    MANWIDTH=80 man -l "$tmp/collviz.1" >"$tmp/man.txt" 2>"$tmp/man.err" || fail "man -l: $(head -1 "$tmp/man.err")"
    grep -q "^SYNOPSIS" "$tmp/man.txt" || fail "man -l shows no SYNOPSIS"
    grep -q "collviz bench" "$tmp/man.txt" || fail "man -l shows no bench section"
fi

# One file per part of collviz, as man_options.py expects.
h=$tmp/help
mkdir -p "$h"
"$BIN" --help 2>&1 | sed '/^usage: collviz --present/,$d' >"$h/interactive"
"$BIN" --present x --help >"$h/present" 2>&1
for s in trace bench train model svg notes serve nccl; do
    "$BIN" "$s" --help >"$h/$s" 2>&1 || fail "$s --help exit $?"
done
{
    "$BIN" lesson --help
    for v in check show variant list export review; do "$BIN" lesson "$v" --help; done
} >"$h/lesson" 2>&1
python3 "$TOP/tests/tools/man_options.py" "$TOP/docs/collviz.1.scd" "$h" >"$tmp/diff" ||
    fail "the man page and --help disagree: $(tr '\n' ';' <"$tmp/diff")"

# The comparison can fail: the man page without bench's --within-node entry is caught.
sed '/^\*--within-node\*/,+1d' "$TOP/docs/collviz.1.scd" >"$tmp/short.scd"
python3 "$TOP/tests/tools/man_options.py" "$tmp/short.scd" "$h" >"$tmp/diff2" &&
    fail "a man page missing --within-node passed the comparison"
grep -q "bench: --within-node is in --help but not in the man page" "$tmp/diff2" ||
    fail "the missing option is not named: $(head -1 "$tmp/diff2")"

[ "$fails" -eq 0 ] && echo "man page: renders, and agrees with every --help"
exit $((fails > 0))

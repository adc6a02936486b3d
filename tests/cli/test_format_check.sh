#!/usr/bin/env bash
# test_format_check.sh - `make format-check` (one suite of tests/run.sh) can fail: in a
# throw-away git repository with the project's Makefile and .clang-format, one file badly
# formatted and one well formatted, it exits non-zero naming the bad file only; once the
# bad file is formatted it passes. Usage: test_format_check.sh [BIN [ASAN_BIN]] (unused)
. "$(dirname "$0")/lib.sh" --no-bin
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v clang-format >/dev/null || {
    echo "SKIP: test_format_check: no clang-format (make deps installs it)"
    exit 77
}

cp "$ROOT/Makefile" "$ROOT/.clang-format" "$tmp/"
mkdir -p "$tmp/src"
printf '/* good.c - formatted. */\nint good(int a);\nint good(int a) { return a + 1; }\n' >"$tmp/src/good.c"
clang-format -i "$tmp/src/good.c"
printf '/* bad.c - not formatted. */\nint bad(int a);\nint   bad( int a ){return a+1;}\n' >"$tmp/src/bad.c"
(cd "$tmp" && git init -q && git add -A) || fail "git init"

(cd "$tmp" && make -s format-check) >"$tmp/out" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "format-check passed with src/bad.c unformatted"
grep -q "not clang-formatted (run make format): src/bad.c$" "$tmp/out" ||
    fail "format-check does not name src/bad.c alone: $(cat "$tmp/out")"

clang-format -i "$tmp/src/bad.c"
(cd "$tmp" && make -s format-check) >"$tmp/out" 2>&1 || fail "format-check fails on formatted files: $(cat "$tmp/out")"

[ "$fails" -eq 0 ] && echo "test_format_check: ok"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# test_wrong.sh - the measured panel's #wrong can fail on screen: the ASan+UBSan test build
# (-DCV_TEST_HOOKS) started with CV_TEST_CORRUPT=1:3 has one element of rank 1's result
# changed before the check, and the panel must read "#wrong 1"; the normal binary ignores
# the variable and reads "#wrong 0". Usage: test_wrong.sh BIN [ASAN_BIN]; without ASAN_BIN it is skipped (77).
set -u
NORMAL=${1:?usage: test_wrong.sh BIN [ASAN_BIN]}
HOOKS=${2:-}
if [ -z "$HOOKS" ] || [ ! -x "$HOOKS" ]; then
    echo "SKIP: #wrong seen failing on screen (no ASan+UBSan test build given)"
    exit 77
fi
. "$(dirname "$0")/lib.sh" "$HOOKS"
grep -aq 'collviz-test-hooks:''built-in' "$BIN" || fail "$BIN has no test hooks (-DCV_TEST_HOOKS)"

tm_start 120 40 "--backend cpu --size 64K" CV_TEST_CORRUPT=1:3
tm_wait "step 0/6" 30 || fail "the screen never came up"
tm_wait "measured on cpu: all-reduce 64 KiB, W=4" 60 || fail "no measurement"
tm_squeezed | grep -qE "#wrong 1 +algo" || fail "one corrupted element: the panel does not read #wrong 1"
tm_keys q
tm_wait "EXITED:0" 20 || fail "q did not exit"
tm_cleanup

BIN=$(readlink -f "$NORMAL")
tm_start 120 40 "--backend cpu --size 64K" CV_TEST_CORRUPT=1:3
tm_wait "measured on cpu: all-reduce 64 KiB, W=4" 60 || fail "no measurement (normal build)"
tm_squeezed | grep -qE "#wrong 0 +algo" || fail "CV_TEST_CORRUPT reached the normal build's panel"
tm_keys q
tm_wait "EXITED:0" 20 || fail "q did not exit (normal build)"
echo "ok: #wrong 1 with one corrupted element (test build), 0 in the normal build"

#!/usr/bin/env bash
# test_progress_files.sh - `collviz lesson list` and the progress file (issue 29, item 7).
# list only reads: a progress file it cannot parse is named in one line and left where and
# as it is (it was renamed to progress.corrupt-<time>); a file from a newer collviz (format
# version 3) is refused with a line saying both versions and left alone; a file with CR LF
# line ends is read like its LF twin. The fixtures are tests/lesson/progress/*; the player's
# backups (never one over another) are tests/unit/test_lesson_progress.c's.
# Usage: test_progress_files.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
FIX=$TOP/tests/lesson/progress
export XDG_STATE_HOME=$tmp/state COLLVIZ_LESSONS=$TOP/tests/lesson/ok
P=$XDG_STATE_HOME/collviz/progress
mkdir -p "$XDG_STATE_HOME/collviz"

# list NAME FIXTURE: run `lesson list` over a copy of FIXTURE; exit 0 wanted
list() {
    rm -f "$P".*
    cp "$2" "$P"
    "$BIN" lesson list >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq 0 ] || fail "$1: exit $rc, want 0 ($(head -1 "$tmp/err"))"
}

# untouched NAME FIXTURE: the file is still there, byte for byte, and nothing was set aside
untouched() {
    cmp -s "$2" "$P" || fail "$1: the progress file was moved or changed"
    local aside
    aside=$(find "$XDG_STATE_HOME/collviz" -name 'progress.*' | head -3)
    [ -z "$aside" ] || fail "$1: a read-only command set files aside: $aside"
}

list "corrupt" "$FIX/corrupt"
untouched "corrupt" "$FIX/corrupt"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "corrupt: $(wc -l <"$tmp/err") lines on stderr, want 1: $(cat "$tmp/err")"
grep -q "line 2: bad current slide 'x'" "$tmp/err" || fail "corrupt: the line is not named: $(cat "$tmp/err")"
grep -q "left as it is" "$tmp/err" || fail "corrupt: does not say the file is left: $(cat "$tmp/err")"

list "newer version" "$FIX/newer"
untouched "newer version" "$FIX/newer"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "newer: $(wc -l <"$tmp/err") lines on stderr, want 1: $(cat "$tmp/err")"
grep -q "version 4.*reads version 3" "$tmp/err" || fail "newer: both versions not said: $(cat "$tmp/err")"
grep -q "seen 0/2 slides" "$tmp/out" || fail "newer: progress was shown from a file it cannot read: $(cat "$tmp/out")"

list "CRLF" "$FIX/crlf"
untouched "CRLF" "$FIX/crlf"
[ -s "$tmp/err" ] && fail "CRLF: $(cat "$tmp/err")"
grep -qE '^01-ring\.md .*seen 2/2 slides, solved 1/2 exercises' "$tmp/out" ||
    fail "CRLF: the progress was not read: $(cat "$tmp/out")"
tr -d '\r' <"$FIX/crlf" >"$tmp/lf"
cp "$tmp/out" "$tmp/crlf.out"
list "LF twin" "$tmp/lf"
cmp -s "$tmp/out" "$tmp/crlf.out" || fail "CRLF and LF files list differently"

cli_finish "test_progress_files (list never moves a progress file; CRLF read; newer refused)"

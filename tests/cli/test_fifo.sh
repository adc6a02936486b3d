#!/usr/bin/env bash
# test_fifo.sh - a file named from outside that is not a regular file (issue 29, item 8):
# `collviz nccl FIFO`, `collviz --nccl-log FIFO` and `--ring-order-from FIFO` blocked in
# open() forever. Every reader opens non-blocking and refuses what is not a regular file
# (a FIFO, a directory, a character device) within seconds: exit 2, one line naming the
# path, as lessons and the progress file already were.
# Usage: test_fifo.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
mkfifo "$tmp/log.fifo" || exit 1
mkdir "$tmp/dir.log"

# refused_fast NAME WANT CMD...: within 10 s, exit 2, exactly one line on stderr holding WANT
refused_fast() {
    local name=$1 want=$2 b rc
    shift 2
    while read -r b; do
        timeout 10 "$b" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 124 ] && {
            fail "$name: still blocked after 10 s"
            continue
        }
        [ "$rc" -eq 2 ] || fail "$name: exit $rc, want 2 ($(head -1 "$tmp/err"))"
        [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: $(wc -l <"$tmp/err") lines on stderr, want 1: $(head -3 "$tmp/err")"
        grep -qF -- "$want" "$tmp/err" || fail "$name: stderr lacks '$want': $(cat "$tmp/err")"
    done < <(cli_bins)
}

for f in "$tmp/log.fifo" "$tmp/dir.log" /dev/zero; do
    what="not a regular file"
    # a folder is read as one file per rank or node: this one has none
    [ -d "$f" ] && what="a folder with no file that could be read"
    refused_fast "nccl $f" "$f: $what" nccl "$f"
    refused_fast "--nccl-log $f" "--nccl-log $f: $what" --nccl-log "$f"
    refused_fast "--ring-order-from $f" "$what" trace all_reduce --ring-order-from "$f"
done
# a folder's FIFO is passed over, never opened to wait: the folder's record is read
mkfifo "$tmp/dir.log/0.fifo"
cp "$TOP/tests/records/04-socket-2node-p40-nccl248.log" "$tmp/dir.log/1.log"
timeout 10 "$BIN" nccl "$tmp/dir.log" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "nccl folder with a FIFO: exit $rc, want 0 ($(cat "$tmp/err"))"
grep -q "ranks" "$tmp/out" || fail "nccl folder with a FIFO: the record was not read"
# one unreadable file among readable ones: its line, and the rest is read (exit 0)
timeout 10 "$BIN" nccl "$tmp/log.fifo" "$TOP/tests/records/04-socket-2node-p40-nccl248.log" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "nccl FIFO and a record: exit $rc, want 0"
grep -qF "$tmp/log.fifo: not a regular file" "$tmp/err" || fail "nccl FIFO and a record: $(cat "$tmp/err")"
grep -q "ranks" "$tmp/out" || fail "nccl FIFO and a record: the record was not read"

cli_finish "test_fifo (no reader blocks on a FIFO or reads a device)"

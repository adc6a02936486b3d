#!/usr/bin/env bash
# test_nccl_hostile.sh - the reader of NCCL's records (`collviz nccl`) on every hostile record
# (tests/hostile-records/: inputs built to break it, some found by the fuzzer) and on the
# fuzzer's seed corpus (tests/fuzz/corpus_records/), in text and JSON: it reads the record
# (exit 0) or refuses it (exit 2, nothing on stdout, stderr ending with the refusal), and never crashes,
# hangs or trips ASan/UBSan. A new hostile record is covered by being added to the folder.
# Usage: test_nccl_hostile.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"

n=0
for f in "$TOP"/tests/hostile-records/* "$TOP"/tests/fuzz/corpus_records/*; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    n=$((n + 1))
    while read -r bin; do
        for fmt in text json; do
            timeout 20 "$bin" nccl "$f" --format "$fmt" >"$tmp/out" 2>"$tmp/err"
            rc=$?
            case $rc in
            0) ;;
            2)
                [ -s "$tmp/out" ] && fail "$b ($fmt): refused (exit 2) but wrote to stdout"
                # (the lines it could not read may come first; the refusal is said last)
                tail -1 "$tmp/err" | grep -q "^collviz: nccl: " ||
                    fail "$b ($fmt): refused (exit 2), but stderr does not end saying why: $(tail -1 "$tmp/err")"
                ;;
            *) fail "$(basename "$bin") nccl $b ($fmt): exit $rc, want 0 or 2 ($(grep -m1 . "$tmp/err"))" ;;
            esac
            grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$tmp/err" &&
                fail "$(basename "$bin") $b ($fmt): $(grep -m1 "runtime error\|Sanitizer" "$tmp/err")"
        done
    done < <(cli_bins)
done
[ "$n" -ge 2 ] || fail "only $n hostile records found"
cli_finish "test_nccl_hostile.sh ($n hostile records: read or refused, never a crash)"

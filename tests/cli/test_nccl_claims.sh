#!/usr/bin/env bash
# test_nccl_claims.sh - what a record costs the reader follows what it holds, not what it
# claims: on every hostile record (tests/hostile-records/) and fuzz seed
# (tests/fuzz/corpus_records/), some a line or two naming a communicator of millions of
# ranks or a rank number in the millions, `collviz nccl` keeps at most REC_KEEP_FLOOR (32 MiB)
# + 16 bytes a byte of text (records.h), so its peak memory (max RSS, its own, measured by
# the kernel) stays under 64 MiB + 20 x the file and it ends within 5 s: the record is read,
# or refused (exit 2) when what it names would need more. Before the floor was 32 MiB a
# 130-byte line claiming 1,000,000 ranks took 180 MB (and seconds under ASan).
# Usage: test_nccl_claims.sh BIN [ASAN_BIN]   (the optimized BIN only: ASan's shadow memory
# is no measure of the reader's)
. "$(dirname "$0")/lib.sh" "$@"
command -v python3 >/dev/null || {
    echo "SKIP: test_nccl_claims.sh (no python3)"
    exit 77
}
n=0
for f in "$TOP"/tests/hostile-records/* "$TOP"/tests/fuzz/corpus_records/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    for fmt in text json; do
        r=$(python3 - "$BIN" "$f" "$fmt" <<'PY'
import os, subprocess, sys, time
binp, f, fmt = sys.argv[1:]
t0 = time.monotonic()
p = subprocess.Popen([binp, "nccl", f, "--format", fmt], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
_, st, ru = os.wait4(p.pid, 0)
print(os.waitstatus_to_exitcode(st), ru.ru_maxrss * 1024, "%.2f" % (time.monotonic() - t0))
PY
)
        read -r rc rss secs <<<"$r"
        size=$(stat -c %s "$f")
        limit=$((64 * 1024 * 1024 + 20 * size))
        b=$(basename "$f")
        [ "$rc" = 0 ] || [ "$rc" = 2 ] || fail "$b ($fmt): exit $rc, want 0 or 2"
        [ "$rss" -le "$limit" ] ||
            fail "$b ($fmt): max RSS $((rss >> 20)) MiB for $size bytes of text (at most $((limit >> 20)) MiB)"
        python3 -c "import sys; sys.exit(0 if float('$secs') <= 5 else 1)" ||
            fail "$b ($fmt): $secs s for $size bytes of text (at most 5 s)"
    done
done
[ "$n" -ge 4 ] || fail "only $n hostile records found"
cli_finish "test_nccl_claims.sh ($n hostile records: memory and time follow the text)"

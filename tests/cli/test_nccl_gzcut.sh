#!/usr/bin/env bash
# test_nccl_gzcut.sh - a cut record is always said. A gzipped record cut at every byte
# offset (and a second one at a stride): the archive's early end is warned ("FILE: the gzip
# data ends early (cut?)"), or, when nothing could be read, the error names the damaged
# archive (exit 2), never a crash and never silence; where the text zlib gives back of the
# cut archive (inflated here by python3's zlib, independently) has a last line with no
# newline, that line is warned as cut. The same for plain records cut inside a line, and the
# whole archives as the control: no such warning.
# Usage: test_nccl_gzcut.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
REC=$TOP/tests/records
cp "$REC/nccl224-horovod-ompi-2node8-ib-ring-initfail.log.gz" "$tmp/a.gz"
gzip -9nc "$REC/nccl1412-ib-2node16-nccl2xx-partial.log" >"$tmp/b.gz"

# The cuts, made once: GZ cut at its first 24 offsets (inside the header and the first
# block), about 60 more spread over the rest, and its last 8 (the trailer: the text is whole,
# the archive is not); each listed as "FILE STATE", STATE "cut" when the text inflated from
# it (as far as it goes) has a last line with no newline, "nl" otherwise.
python3 - "$tmp" >"$tmp/cuts" <<'PY'
import sys, zlib
tmp = sys.argv[1]
for src in ("a", "b"):
    data = open("%s/%s.gz" % (tmp, src), "rb").read()
    n = len(data)
    ks = set(range(2, 26)) | set(range(26, n, max(1, n // 60))) | set(range(n - 8, n))
    for k in sorted(ks):
        d = zlib.decompressobj(31)
        try:
            t = d.decompress(data[:k])
        except zlib.error:
            t = b""
        f = "%s/%s-%d.gz" % (tmp, src, k)
        open(f, "wb").write(data[:k])
        print(f, "cut" if t and not t.endswith(b"\n") else "nl")
PY
[ "$(wc -l <"$tmp/cuts")" -gt 150 ] || fail "only $(wc -l <"$tmp/cuts") cuts made"

# check BIN FILE STATE: FILE (a cut archive) read by BIN says so.
check() {
    local b=$1 f=$2 state=$3 rc
    "$b" nccl "$f" >"$tmp/out" 2>&1
    rc=$?
    case $rc in
    0)
        grep -qF "$f: the gzip data ends early (cut?)" "$tmp/out" ||
            fail "$(basename "$f"): read, the archive's early end not said"
        if [ "$state" = cut ] && ! grep -q "cut: the last line is incomplete" "$tmp/out"; then
            fail "$(basename "$f"): the last line (no newline) not said to be cut"
        fi
        ;;
    2)
        grep -qF "$f: the gzip data ends early (cut?): nothing could be read" "$tmp/out" ||
            fail "$(basename "$f"): exit 2 without naming the damaged archive: $(head -1 "$tmp/out")"
        ;;
    *) fail "$(basename "$f"): exit $rc" ;;
    esac
}

for b in $(cli_bins); do
    for whole in "$tmp/a.gz" "$tmp/b.gz"; do
        "$b" nccl "$whole" >"$tmp/out" 2>&1 || fail "$(basename "$whole") whole: exit $?"
        grep -q "gzip data ends early\|last line is incomplete" "$tmp/out" &&
            fail "$(basename "$whole") whole: said to be cut"
    done
    while read -r f state; do
        check "$b" "$f" "$state"
    done <"$tmp/cuts"
    # A plain record cut inside each of its lines, and at each line's end (only the newline
    # missing): the last line is said to be cut, read or not.
    p=$REC/nccl1412-ib-2node16-nccl2xx-partial.log
    mapfile -t ends < <(LC_ALL=C awk '{ o += length($0) + 1; print o - 1 }' "$p")
    [ "${#ends[@]}" -gt 5 ] || fail "plain: only ${#ends[@]} lines"
    for e in "${ends[@]}"; do
        for k in $((e - 3)) "$e"; do
            [ "$k" -gt 10 ] || continue
            head -c "$k" "$p" >"$tmp/plain.log"
            tail -c 1 "$tmp/plain.log" | grep -q . || continue # a blank line's end
            "$b" nccl "$tmp/plain.log" >"$tmp/out" 2>&1
            rc=$?
            case $rc in 0 | 2) ;; *) fail "plain cut at $k: exit $rc" ;; esac
            grep -q "cut: the last line is incomplete" "$tmp/out" ||
                fail "plain cut at $k: the last line (no newline) not said to be cut"
        done
    done
done

cli_finish test_nccl_gzcut.sh

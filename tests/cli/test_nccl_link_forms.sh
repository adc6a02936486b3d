#!/usr/bin/env bash
# test_nccl_link_forms.sh - "mixed_forms" (link lines in two NCCL versions' forms) holds
# exactly where no one NCCL prints every link form a record holds, over the whole space: each
# non-empty set of the five forms NCCL prints (P2P and NET links as "Channel 00 :" and as
# "Channel 00/0 :", SHM links as "Channel 00 :") is a record of one host, and the warning
# must be there iff no NCCL 2.7-2.30 prints them all. What each version prints is written here from NCCL's format
# strings (src/transport/shm.cc, p2p.cc, net.cc of every tag v2.7.3-1 .. v2.30.7-1): SHM
# links never carry the connection index, P2P links from 2.14, NET links from 2.12.
# Usage: test_nccl_link_forms.sh BIN [ASAN_BIN]   exits 0, 1, or 77 (cannot run)
. "$(dirname "$0")/lib.sh" "$@"
if ! command -v python3 >/dev/null; then
    echo "SKIP: test_nccl_link_forms.sh (no python3)"
    exit 77
fi
python3 - "$tmp" >"$tmp/list" <<'PY'
import itertools, sys
LINES = {  # (family, with "/0"): one link line of that form
    ("SHM", False): "Channel 00 : 0[1000] -> 1[2000] via SHM/direct/direct",
    ("P2P", False): "Channel 01 : 1[2000] -> 2[3000] via P2P/IPC",
    ("P2P", True): "Channel 01/0 : 1[2000] -> 2[3000] via P2P/IPC",
    ("NET", False): "Channel 02 : 2[3000] -> 3[1000] [send] via NET/IB/0",
    ("NET", True): "Channel 02/0 : 2[3000] -> 3[1000] [send] via NET/IB/0",
}


def prints(minor):
    """The link forms NCCL 2.<minor> prints."""
    return {("SHM", False), ("P2P", minor >= 14), ("NET", minor >= 12)}


keys = sorted(LINES)
for n in range(1, len(keys) + 1):
    for sub in itertools.combinations(keys, n):
        one = any(set(sub) <= prints(v) for v in range(7, 31))
        name = "+".join("%s%s" % (f, "/0" if s else "") for f, s in sub)
        path = "%s/%s.log" % (sys.argv[1], name.replace("/", "_"))
        with open(path, "w") as f:
            for k in sub:
                f.write("h1:10:11 [0] NCCL INFO %s\n" % LINES[k])
        print("%s\t%s\t%d" % (name, path, 0 if one else 1))
PY
n=0
while IFS=$'\t' read -r name path want; do
    n=$((n + 1))
    for b in $(cli_bins); do
        "$b" nccl "$path" --format json >"$tmp/out.json" 2>/dev/null || fail "$b: $name: exit $?"
        got=$(python3 -c 'import json,sys
print(int(any(w.get("code") == "mixed_forms" for w in json.load(open(sys.argv[1]))["warnings"])))' "$tmp/out.json")
        [ "$got" = "$want" ] || fail "$b: $name: mixed_forms $got, want $want"
    done
done <"$tmp/list"
[ "$n" -eq 31 ] || fail "$n sets of link forms, want 31"
cli_finish test_nccl_link_forms.sh

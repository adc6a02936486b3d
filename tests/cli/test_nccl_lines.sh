#!/usr/bin/env bash
# test_nccl_lines.sh - no line of NCCL's is lost without a word, over the whole corpus
# (tests/cli/nccl_lines_check.py: a line alone, a line whose header was cut off, two
# processes' lines spliced with the first one's text on the next line), and the spliced
# record of NVIDIA/nccl#147 read whole: its facts counted by hand from the file.
# Usage: test_nccl_lines.sh BIN [ASAN_BIN]   exits 0, 1, or 77 (cannot run)
. "$(dirname "$0")/lib.sh" "$@"
DIR=$TOP/tests/records
if ! command -v python3 >/dev/null; then
    echo "SKIP: test_nccl_lines.sh (no python3)"
    exit 77
fi

python3 "$CLI_HERE/nccl_lines_check.py" "$BIN" "$DIR" "$tmp" >"$tmp/checked"
cli_take_fails $? "$tmp/checked" "nccl_lines_check.py"

# NVIDIA/nccl#147: 17 lines, one link each (two of them after a spliced line, headerless);
# channel 5's eight links 0->4 4->7 7->6 6->5 5->1 1->2 2->3 3->0 make one ring.
rec=$DIR/nccl147-spliced-headers-orphan-text-8gpu-p2pipc.log
for b in $(cli_bins); do
    "$b" nccl "$rec" --format json >"$tmp/147.json" 2>/dev/null || fail "$b: #147: exit $?"
    python3 - "$tmp/147.json" <<'PY' || fail "$b: #147 not read whole"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["links"]) == 17, len(d["links"])
assert d["rings"].get("5") == [0, 4, 7, 6, 5, 1, 2, 3], d["rings"]
ws = [w["message"] for w in d["warnings"]]
for n in (7, 9):
    assert any(":%d: " % n in w and "without its header" in w for w in ws), (n, ws)
PY
done

# NVIDIA/nccl#1232: only bootstrap lines: said so, with the hosts, never "no NCCL lines"
rec=$DIR/nccl1232-mpi-rankprefix-bootstrap-only-2host.log
out=$("$BIN" nccl "$rec" 2>&1)
case $out in *"no NCCL"*) fail "#1232: called a record with no NCCL lines" ;; esac
echo "$out" | tr '\n' ' ' | grep -q "none that show ranks, rings or links (hosts: node0, *node2)" ||
    fail "#1232: does not say no line shows ranks, rings or links, with its hosts"
# NVIDIA/nccl#1189: NCCL_GRAPH's "Tree N : up -> me -> d/d/d" lines are rank 3's trees
# (channels 1 and 3: under 1, child 2; channel 5: root, children 2 and 1)
rec=$DIR/nccl1189-h20-neighbour-ring-and-tree-lines-2node4.log
"$BIN" nccl "$rec" --format json >"$tmp/1189.json" 2>/dev/null || fail "#1189: exit $?"
python3 - "$tmp/1189.json" <<'PY' || fail "#1189: rank 3's Tree lines not read"
import json, sys
t = json.load(open(sys.argv[1]))["trees"]
for c, up, down in (("1", 1, [2]), ("3", 1, [2]), ("5", -1, [2, 1])):
    assert t[c]["3"] == {"up": up, "down": down}, (c, t.get(c))
PY
cli_finish test_nccl_lines.sh

#!/usr/bin/env bash
# test_mpi.sh - the mpi backend across processes (mpirun --oversubscribe, small sizes):
#   - without a launcher, --backend mpi says how to launch it in one line and exits 2 (the
#     screens refuse it the same way);
#   - `trace --backend mpi` under mpirun gives every rank's receive buffer bit for bit equal
#     to `trace --backend cpu` (JSON compared), for every collective and algorithm, refined
#     plans and uneven world sizes too;
#   - `bench --backend mpi` gives the CPU ranks' rows (collectives, sizes, counts, algorithms,
#     #wrong 0, "link" null), MPI's own collectives (--algo mpi) with #wrong 0, --within-node
#     on one host; only rank 0 prints; a corrupted element (test hook, ASan binary) is
#     counted as 1 wrong in each group (out of place, in place), said once, and rank 0's JSON
#     is whole though it ends last;
#   - (stalled and stopped ranks: test_mpi_stuck.sh)
#   - `train ddp|tp|pp --backend mpi --check` equals one device, as on the CPU ranks.
# The mpirun jobs run 4 at a time (each mostly waits on mpirun's start and end), all started
# before the checks, which then read their output in order.
# Skips (77) when mpirun is missing or the binary was built without MPI.
# Usage: test_mpi.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"

# The launcher's own variables must not leak into the "no launcher" checks.
nolaunch() { env -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK -u PMI_RANK -u PMI_SIZE \
    -u MPI_LOCALNRANKS "$@"; }

# --- without a launcher: one line, exit 2 ----------------------------------------------
nolaunch "$BIN" bench all_reduce --backend mpi >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q "not built" "$tmp/err"; then
    echo "SKIP: mpi backend not built into $BIN ($(cat "$tmp/err"))"
    exit 77
fi
if ! command -v mpirun >/dev/null; then
    echo "SKIP: no mpirun (apt-get install openmpi-bin)"
    exit 77
fi
for cmd in "bench all_reduce" "trace all_reduce" "train ddp --steps 1"; do
    # shellcheck disable=SC2086
    nolaunch "$BIN" $cmd --backend mpi >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$cmd --backend mpi without mpirun: exit $rc, want 2"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$cmd without mpirun: want one line, got: $(cat "$tmp/err")"
    grep -q "mpirun -np N collviz" "$tmp/err" || fail "$cmd without mpirun: no launch hint: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && fail "$cmd without mpirun: printed on stdout"
done

# The visualizer never runs as MPI ranks: one line, exit 2, before it touches the terminal.
nolaunch "$BIN" --backend mpi </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "collviz --backend mpi (screens): exit $rc, want 2"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "the screens do not run as MPI ranks" "$tmp/err" ||
    fail "collviz --backend mpi (screens): $(cat "$tmp/err")"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
# Components a job on one host does not use, left unloaded (a tenth of each start's CPU,
# 0.33 s for 4 processes): ob1 is the point-to-point layer Open MPI picks here anyway, the
# one-sided layer is not used, and hwloc's OpenGL and OpenCL probes load X11 and OpenCL.
export OMPI_MCA_pml=ob1 OMPI_MCA_osc=sm,pt2pt HWLOC_COMPONENTS=-gl,-opencl
MPIRUN=(mpirun --oversubscribe --bind-to none)

# The jobs run in the background, MPI_AT_ONCE at a time: a job is mostly waiting (mpirun's
# start and end, the ranks' handshakes), not computing. Every job is started first; the
# checks below read their files, in the order of this script, once all have ended.
# mpi_job NAME CMD...: CMD's stdout in $tmp/NAME.out, stderr in .err, exit status in .rc.
MPI_AT_ONCE=4
mpi_job() {
    local name=$1
    shift
    while [ "$(jobs -rp | wc -l)" -ge "$MPI_AT_ONCE" ]; do wait -n; done
    (
        "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
        echo $? >"$tmp/$name.rc"
    ) &
}
rc_of() { cat "$tmp/$1.rc"; }

# --- the jobs ---------------------------------------------------------------------------
# trace: the MPI ranks hold the CPU ranks' bits (collective, algorithm, np, extra options)
cases=(
    "all_reduce ring 4 --op sum"
    "all_reduce ring 3 --op avg --count 7"
    "all_reduce owner 4 --op max"
    "all_reduce tree 4 --op sum"
    "all_reduce ring 4 --slices 3 --channels 2"
    "reduce_scatter ring 4 --op prod"
    "all_gather ring 3"
    "broadcast tree 4 --root 2"
    "reduce ring 4 --root 1 --op min"
    "gather direct 3 --root 2"
    "scatter direct 4 --root 3"
    "all_to_all direct 4"
)
for i in "${!cases[@]}"; do
    read -r coll algo np extra <<<"${cases[$i]}"
    # shellcheck disable=SC2086
    mpi_job "trace$i" "${MPIRUN[@]}" -np "$np" "$BIN" trace "$coll" --algo "$algo" --init random \
        --seed 7 $extra --backend mpi --format json
done
# bench: the CPU ranks' rows, only rank 0 prints
small=(-b 4K -e 64K -f 4 -n 2 -w 1)
for algo in ring direct mpi; do
    mpi_job "b$algo" "${MPIRUN[@]}" -np 4 "$BIN" bench all "${small[@]}" --backend mpi \
        --algo $algo --format json
done
mpi_job within "${MPIRUN[@]}" -np 3 "$BIN" bench all_reduce -b 12K -n 2 -w 1 --backend mpi \
    --within-node --algo auto
mpi_job badranks "${MPIRUN[@]}" -np 2 "$BIN" bench all_reduce --backend mpi --ranks 3
if [ -n "$ASAN_BIN" ]; then # the corrupting test hook is only in the ASan build
    mpi_job corrupt env ASAN_OPTIONS=detect_leaks=0 CV_TEST_CORRUPT=2:5 CV_TEST_LINGER=1 \
        "${MPIRUN[@]}" -x ASAN_OPTIONS -x CV_TEST_CORRUPT -x CV_TEST_LINGER -np 4 "$ASAN_BIN" \
        bench all_reduce -b 64K -n 1 -w 0 --backend mpi --format json
fi
# training: every scheme with --check, tp in JSON (its losses compared with the CPU ranks')
for scheme in ddp tp pp zero1 zero2 zero3; do
    fmt=text
    [ "$scheme" = tp ] && fmt=json
    mpi_job "train_$scheme" "${MPIRUN[@]}" -np 4 "$BIN" train $scheme --backend mpi --check \
        --layers 4 --dim 64 --batch 16 --steps 2 --format $fmt
done
mpi_job batch3 "${MPIRUN[@]}" -np 3 "$BIN" train ddp --backend mpi --batch 33 --dim 64 \
    --layers 2 --steps 1
mpi_job batch2 "${MPIRUN[@]}" -np 2 "$BIN" train ddp --backend mpi --batch 33 --dim 64 --steps 1
for scheme in zero1 zero3; do
    mpi_job "zm_$scheme" "${MPIRUN[@]}" -np 3 "$BIN" train $scheme --backend mpi --check \
        --layers 3 --dim 37 --batch 12 --steps 2 --format json
done
mpi_job overlap "${MPIRUN[@]}" -np 2 "$BIN" train ddp --backend mpi --overlap --dim 64 --batch 16
mpi_job prefetch "${MPIRUN[@]}" -np 2 "$BIN" train zero3 --backend mpi --prefetch --dim 64 \
    --batch 16

# The CPU ranks' runs to compare with, while the last jobs run.
for i in "${!cases[@]}"; do
    read -r coll algo np extra <<<"${cases[$i]}"
    # shellcheck disable=SC2086
    "$BIN" trace "$coll" --algo "$algo" --ranks "$np" --init random --seed 7 $extra \
        --backend cpu --format json >"$tmp/cpu$i.json" 2>"$tmp/cpu$i.err"
    echo $? >"$tmp/cpu$i.rc"
done
"$BIN" bench all "${small[@]}" --backend cpu --algo ring --slices 1 --format json \
    >"$tmp/bcpu.json" 2>"$tmp/err" || fail "bench all on cpu: $(cat "$tmp/err")"
"$BIN" bench all "${small[@]}" --backend cpu --algo direct --slices 1 --format json \
    >"$tmp/bcpud.json" 2>"$tmp/err" || fail "bench all --algo direct on cpu: $(cat "$tmp/err")"
"$BIN" train tp --check --layers 4 --dim 64 --batch 16 --steps 2 --format json >"$tmp/tcpu.json" 2>"$tmp/err" ||
    fail "train tp on cpu: $(cat "$tmp/err")"
for scheme in zero1 zero3; do
    "$BIN" train $scheme --layers 3 --dim 37 --batch 12 --steps 2 --ranks 3 --format json \
        >"$tmp/zc_$scheme.json" 2>"$tmp/err" || fail "train $scheme on cpu: $(cat "$tmp/err")"
done
wait

# --- trace: every case bit for bit as on the CPU ranks ---------------------------------
# (one python run compares them all and names each case that differs)
pairs=()
for i in "${!cases[@]}"; do
    c=${cases[$i]}
    if [ "$(cat "$tmp/cpu$i.rc")" -ne 0 ]; then
        fail "trace $c on cpu: exit $(cat "$tmp/cpu$i.rc") $(cat "$tmp/cpu$i.err")"
    elif [ "$(rc_of "trace$i")" -ne 0 ]; then
        fail "trace $c on mpi: exit $(rc_of "trace$i") $(cat "$tmp/trace$i.err")"
    else
        pairs+=("$tmp/cpu$i.json" "$tmp/trace$i.out" "$c")
    fi
done
python3 - "${pairs[@]}" >"$tmp/differ" <<'EOF' || fail "trace: the comparison did not run to its end"
import json, struct, sys
bits = lambda rows: [[struct.pack("<f", v).hex() for v in row] for row in rows]
args = sys.argv[1:]
def same(cpu, mpi, name):
    ok = True
    for k in ("output", "steps", "input", "ranks", "count", "root", "check"):
        if cpu[k] != mpi[k]:
            print("  %s: %s differs" % (name, k), file=sys.stderr); ok = False
    if mpi["backend"]["name"] != "mpi" or cpu["backend"]["name"] != "cpu":
        print("  backend names", mpi["backend"]["name"], cpu["backend"]["name"], file=sys.stderr); ok = False
    if not mpi["backend"]["trace_equal"] or not mpi["backend"]["bitwise_expected"]:
        print("  mpi trace_equal false", file=sys.stderr); ok = False
    if bits(mpi["backend"]["output"]) != bits(cpu["backend"]["output"]):
        print("  per-rank outputs differ:", mpi["backend"]["output"], cpu["backend"]["output"], file=sys.stderr); ok = False
    if bits(mpi["backend"]["output"]) != bits(mpi["output"]):
        print("  mpi output is not the trace's", file=sys.stderr); ok = False
    if "processes on 1 host" not in mpi["backend"]["ranks"]:
        print("  describe:", mpi["backend"]["ranks"], file=sys.stderr); ok = False
    return ok
for n in range(0, len(args), 3):
    try:
        ok = same(*(json.load(open(f)) for f in args[n:n + 2]), args[n + 2])
    except Exception as e:
        print("  %s: %r" % (args[n + 2], e), file=sys.stderr); ok = False
    if not ok:
        print(args[n + 2])
EOF
while IFS= read -r c; do
    fail "trace $c: mpi differs from cpu (see above)"
done <"$tmp/differ"

# --- bench -------------------------------------------------------------------------------
for algo in ring direct mpi; do
    [ "$(rc_of "b$algo")" -eq 0 ] || fail "bench all --algo $algo on mpi: exit $(rc_of "b$algo") $(cat "$tmp/b$algo.err")"
done
python3 - "$tmp/bcpu.json" "$tmp/bring.out" "$tmp/bcpud.json" "$tmp/bdirect.out" "$tmp/bmpi.out" <<'EOF' || fail "bench json (see above)"
import json, sys
cpu, ring, cpud, direct, native = (json.load(open(f)) for f in sys.argv[1:6])
ok = True
def key(r):
    return (r["collective"], r["size"], r["count"], r["redop"], r["root"], r["algorithm"], r["wrong"])
for name, c, m in (("ring", cpu, ring), ("direct", cpud, direct)):
    if m["backend"] != "mpi" or m["ranks"] != 4:
        print("  %s: backend/ranks %r %r" % (name, m["backend"], m["ranks"])); ok = False
    if [key(r) for r in c["rows"]] != [key(r) for r in m["rows"]]:
        print("  %s rows differ:\n   cpu %r\n   mpi %r" % (name, [key(r) for r in c["rows"]], [key(r) for r in m["rows"]])); ok = False
    if any(r["wrong"] != 0 or not r["busbw"] > 0 for r in m["rows"]):
        print("  %s: wrong or busbw:" % name, m["rows"]); ok = False
# Both of nccl-tests' groups checked: out of place (the fields above) and in place.
for name, d in (("cpu", cpu), ("ring", ring), ("direct", direct), ("mpi", native)):
    bad = [(r["collective"], r["size"], r["in_place"]) for r in d["rows"]
           if (r["in_place"] is None) != (r["collective"] == "all_to_all")
           or (r["in_place"] is not None and (r["in_place"]["wrong"] != 0 or not r["in_place"]["busbw"] > 0))]
    if bad:
        print("  %s: in-place group:" % name, bad); ok = False
# MPI reports no links: every row's "link" is null, as on the CPU ranks.
if any(r.get("link", "absent") is not None for d in (ring, direct, native) for r in d["rows"]):
    print("  link not null:", sorted({str(r.get("link", "absent")) for d in (ring, direct, native) for r in d["rows"]})); ok = False
if len(native["rows"]) != 8 * 3 or any(r["algorithm"] != "mpi" or r["wrong"] != 0 for r in native["rows"]):
    print("  --algo mpi rows:", [(r["collective"], r["algorithm"], r["wrong"]) for r in native["rows"]]); ok = False
sys.exit(0 if ok else 1)
EOF

# Text: one header (rank 0 only), --within-node spans this host's 3 ranks.
[ "$(rc_of within)" -eq 0 ] || fail "bench --within-node: exit $(rc_of within) $(cat "$tmp/within.err")"
[ "$(grep -c '^# collviz bench' "$tmp/within.out")" -eq 1 ] || fail "bench text: header not printed exactly once: $(cat "$tmp/within.out")"
grep -q "ranks:   mpi: 3 processes on 1 host" "$tmp/within.out" || fail "bench text: ranks line: $(grep ranks: "$tmp/within.out")"
grep -q "3 MPI processes of 1 node" "$tmp/within.out" || fail "bench --within-node: not said: $(cat "$tmp/within.out")"
# nccl-tests' row: both groups checked; algo auto: the fastest of a short trial
# (backend/run.c), whichever won here, said after the rows
grep -Eq '^ +12288 +3072 +float +sum +-1( +[0-9.]+){3} +0( +[0-9.]+){3} +0$' "$tmp/within.out" || fail "bench --within-node row: $(cat "$tmp/within.out")"
grep -Eq '^# all_reduce: algo auto chose \(size: out-of-place/in-place\): 12288:(ring|tree|direct|owner)/(ring|tree|direct|owner)$' "$tmp/within.out" ||
    fail "bench --within-node: auto's choice not said: $(cat "$tmp/within.out")"
grep -q "algo auto: the fastest in a trial" "$tmp/within.out" || fail "bench --within-node: the auto trial not said: $(cat "$tmp/within.out")"
[ -s "$tmp/within.err" ] && fail "bench: something on stderr: $(cat "$tmp/within.err")"

# Bad input under mpirun: one line (rank 0 says it), exit 2.
[ "$(rc_of badranks)" -ne 0 ] || fail "bench --ranks 3 under -np 2: exit 0"
[ "$(grep -c 'collviz: --ranks 3: the mpi backend runs on the 2 processes' "$tmp/badranks.err")" -eq 1 ] ||
    fail "bench --ranks 3 under -np 2: want one line, got: $(cat "$tmp/badranks.err")"

# #wrong counts a corrupted element: 1 in each of nccl-tests' groups (out of place, in
# place), said once by rank 0, whose JSON is whole though it ends last.
if [ -n "$ASAN_BIN" ]; then
    [ "$(rc_of corrupt)" -eq 1 ] || fail "corrupted element: exit $(rc_of corrupt), want 1 ($(tail -3 "$tmp/corrupt.err"))"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"]; sys.exit(0 if [(x["wrong"], x["in_place"]["wrong"]) for x in r]==[(1, 1)] else 1)' \
        "$tmp/corrupt.out" 2>/dev/null || fail "corrupted element: #wrong not 1 in each group: $(cat "$tmp/corrupt.out")"
    [ "$(grep -c '^collviz: bench: 2 wrong elements$' "$tmp/corrupt.err")" -eq 1 ] ||
        fail "corrupted element: want rank 0's one line on stderr, got: $(grep collviz "$tmp/corrupt.err")"
fi

# --- training across processes equals one device --------------------------------------
for scheme in ddp pp zero1 zero2 zero3; do
    t=$tmp/train_$scheme
    [ "$(cat "$t.rc")" -eq 0 ] || fail "train $scheme --backend mpi --check: exit $(cat "$t.rc"): $(tail -5 "$t.err")"
    grep -Eq "check against the single-device reference: .*: ok$" "$t.out" ||
        fail "train $scheme: no check line: $(tail -3 "$t.out")"
    [ "$(grep -c '^collviz train' "$t.out")" -eq 1 ] || fail "train $scheme: not printed by rank 0 alone"
    grep -q "backend mpi: mpi: 4 processes on 1 host" "$t.out" || fail "train $scheme: backend line: $(grep backend "$t.out")"
    [ -s "$t.err" ] && fail "train $scheme: stderr: $(cat "$t.err")"
done
# tp, the same in JSON (one document: rank 0 alone printed; the check within its
# tolerance; the backend the job's 4 processes). Across processes the run is the CPU
# ranks' run: same losses, bit for bit (same plans, same order of additions).
[ "$(rc_of train_tp)" -eq 0 ] || fail "train tp --backend mpi --check: exit $(rc_of train_tp): $(tail -5 "$tmp/train_tp.err")"
[ -s "$tmp/train_tp.err" ] && fail "train tp: stderr: $(cat "$tmp/train_tp.err")"
python3 - "$tmp/tcpu.json" "$tmp/train_tp.out" <<'EOF' || fail "train tp: mpi differs from cpu ranks (see above)"
import json, sys
c, m = (json.load(open(f)) for f in sys.argv[1:3])
ok = m["backend"] == "mpi" and c["backend"] == "cpu" and m["ranks"] == 4
def losses(d): return [s["loss"] for s in d["steps"]]
if losses(c) != losses(m): print("  losses", losses(c), losses(m)); ok = False
if len(m["steps"]) != 2: ok = False
if not m["max_deviation"]["within"]: print("  check:", m["max_deviation"]); ok = False
if "mpi: 4 processes on 1 host" not in m["description"]: print("  backend:", m["description"]); ok = False
sys.exit(0 if ok else 1)
EOF
# Under the launcher the world is the job's, not --ranks' default 4 (issue 17): --batch 33
# on 3 processes trains; on 2 it is refused in one line that names the job's 2 processes.
[ "$(rc_of batch3)" -eq 0 ] || fail "train ddp --batch 33 on -np 3: $(cat "$tmp/batch3.err")"
grep -q "batch 33" "$tmp/batch3.out" || fail "train ddp --batch 33 on -np 3: $(cat "$tmp/batch3.out")"
[ "$(grep -c 'batch 33 is not divisible by the job.s 2 processes (mpirun -np 2)' "$tmp/batch2.err")" -eq 1 ] ||
    fail "train ddp --batch 33 on -np 2: want one line naming the job's 2 processes: $(cat "$tmp/batch2.err")"
grep -q -- "--ranks 4" "$tmp/batch2.err" && fail "train ddp under -np 2 speaks of --ranks 4: $(cat "$tmp/batch2.err")"

# ZeRO at a padded shape (D² = 1369 is not divisible by 3): the same losses as on CPU
# ranks, memory equal to the model's, stage 3's bytes 1.5x stage 1's.
for scheme in zero1 zero3; do
    [ "$(rc_of "zm_$scheme")" -eq 0 ] ||
        fail "train $scheme --backend mpi --check (D=37, 3 processes): $(cat "$tmp/zm_$scheme.err")"
done
python3 - "$tmp"/zc_zero1.json "$tmp"/zm_zero1.out "$tmp"/zc_zero3.json "$tmp"/zm_zero3.out <<'EOF' ||
import json, sys
c1, m1, c3, m3 = (json.load(open(f)) for f in sys.argv[1:5])
ok = True
for c, m in ((c1, m1), (c3, m3)):
    if [s["loss"] for s in c["steps"]] != [s["loss"] for s in m["steps"]]:
        print("  losses differ", m["scheme"]); ok = False
    if not m["max_deviation"]["within"]: ok = False
    for r in m["memory_per_rank"]:
        for k in ("params", "grads", "optimizer", "activations"):
            if r[k] != r["model"][k] or r["peak"][k] != r["peak_model"][k]:
                print("  memory", m["scheme"], r["rank"], k, r[k], r["model"][k]); ok = False
if 2 * m3["napkin"]["wire_measured_bytes_per_rank"] != 3 * m1["napkin"]["wire_measured_bytes_per_rank"]:
    print("  bytes", m1["napkin"], m3["napkin"]); ok = False
sys.exit(0 if ok else 1)
EOF
    fail "train zero1/zero3 across processes: see above"
# Refused across processes: --overlap, --prefetch (one line, from rank 0).
[ "$(grep -c 'overlap: not on the mpi backend' "$tmp/overlap.err")" -eq 1 ] || fail "train --overlap on mpi: $(cat "$tmp/overlap.err")"
[ "$(grep -c 'prefetch: not on the mpi backend' "$tmp/prefetch.err")" -eq 1 ] || fail "train --prefetch on mpi: $(cat "$tmp/prefetch.err")"

cli_finish test_mpi

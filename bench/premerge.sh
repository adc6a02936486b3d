#!/usr/bin/env bash
# premerge.sh - `make bench` section 6 (also alone): today's CPU runtime beside the build
# from before the runtime merge (commit 9b21375), built into a temporary folder in the
# same run, and beside Open MPI and PyTorch, in interleaved rounds; medians of the rounds,
# with the per-round ratios.
#
# Every round runs, one after the other (the order of the two builds alternating between
# rounds, so neither always runs first), at 64 MiB fp32 on 4 CPU ranks:
#   - all_reduce with the ring plan (--algo ring) on both builds;
#   - every collective with each build's default algorithm (--algo auto) on both builds;
#   - Open MPI's MPI_Allreduce on 4 processes (bench/mpi_allreduce.c, when mpicc exists);
#   - the DDP step and one device's step at the lecture's scale (L=4, D=1024, B=128, W=4;
#     median of the steps after the first) on both builds;
#   - PyTorch's DDP on gloo (bench/torch_ddp.py), only when python3-torch is installed.
# Targets (from issue 17), printed PASS or MISS, never failing the bench:
#   ring all_reduce busbw >= 1.0 x the pre-merge build's, >= 4 x MPI_Allreduce's;
#   DDP step <= 1.15 x one device's, <= 0.4 x PyTorch gloo DDP's;
#   no collective at 64 MiB slower than before the merge (ratio >= 1.0).
# The machine may be shared: medians of interleaved rounds cancel slow drifts of the
# neighbours' load, not its spikes; the load average is printed with the figures, each
# ratio's spread over the rounds, and the algorithm auto picked in each round (a trial
# on a loaded machine can pick differently from round to round and build to build).
# Beside the wall times, today's rank threads' CPU ms per step (train's cpu_s) and the
# cores they got (CPU / wall): what DDP costs in work, independent of the neighbours.
# The MPI ratio is printed with its memory-traffic model (what is compared: collviz's 4
# threads in one address space against 4 MPI processes on the same cores) and with the
# ring's traffic ceiling 4M/(5W), M the memcpy rate measured in every round.
#
# usage: bash bench/premerge.sh build/collviz
# env:   PREMERGE_ROUNDS (default 5), PREMERGE_BIN=path (a pre-merge binary already built:
#        skips the build), PREMERGE_COMMIT (default 9b21375)
set -u
BIN=${1:?usage: bash bench/premerge.sh path/to/collviz}
ROUNDS=${PREMERGE_ROUNDS:-5}
COMMIT=${PREMERGE_COMMIT:-9b21375}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$BIN" ] || {
    echo "premerge: $BIN: not built"
    exit 1
}

echo "== 6. today's CPU runtime vs the pre-merge build ($COMMIT), $ROUNDS interleaved rounds"
echo "   machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
OLD=${PREMERGE_BIN:-}
if [ -z "$OLD" ]; then
    if ! git -C "$repo" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
        echo "   skipped: commit $COMMIT is not in $repo's history (not a git checkout?)"
        exit 0
    fi
    mkdir -p "$tmp/old"
    git -C "$repo" archive "$COMMIT" | tar -x -C "$tmp/old" || {
        echo "   skipped: git archive $COMMIT failed"
        exit 0
    }
    echo "   building $COMMIT in $tmp/old (make HAVE_NCCL=: the CPU backend is the same)"
    if ! make -C "$tmp/old" -j"$(nproc)" HAVE_NCCL= build/collviz >"$tmp/old.log" 2>&1; then
        echo "   skipped: the pre-merge build failed: $(tail -3 "$tmp/old.log")"
        exit 0
    fi
    OLD=$tmp/old/build/collviz
fi
echo "   pre-merge: $OLD; today: $BIN"

# The memory's own rate, for the ring's traffic ceiling (bench/run.sh derives it): memcpy
# over the all-reduce's footprint (4 buffers of 64 MiB, source and destination together).
have_memcpy=0
${CC:-cc} -O2 -pthread -o "$tmp/memcpy_bw" "$here/memcpy_bw.c" 2>/dev/null && have_memcpy=1
have_mpi=0
if command -v mpicc >/dev/null && command -v mpirun >/dev/null &&
    mpicc -O2 -o "$tmp/mpi_allreduce" "$here/mpi_allreduce.c" 2>/dev/null; then
    have_mpi=1
fi
MPI_TUNABLES="glibc.malloc.mmap_threshold=4294967296:glibc.malloc.trim_threshold=4294967296:glibc.malloc.hugetlb=1"
MPIRUN=(mpirun -np 4 --oversubscribe --bind-to none -x GLIBC_TUNABLES)
[ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)
# Debian's python3-torch lives in /usr/bin/python3's dist-packages; the python3 first on
# PATH may be another interpreter (pyenv, venv). tools/deps.sh names it (BENCH_OPTIONAL).
have_torch=0 torch_py=
for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null && "$py" -c 'import torch' 2>/dev/null; then
        have_torch=1 torch_py=$py
        break
    fi
done

COLLS="all_reduce all_gather reduce_scatter broadcast reduce scatter gather all_to_all"
SIZE=(--ranks 4 --layers 4 --dim 1024 --batch 128)

# busbw KEY BIN COLL ALGO: one 64 MiB row, "KEY busbw algorithm" (busbw 0 when it failed
# or #wrong != 0; the algorithm is the one auto picked, so a ratio can be read against it).
# The in-place group where there is one: what every collviz measured before bench had
# nccl-tests' two groups (older builds' rows are in place), so two builds compare alike.
busbw() {
    local v
    v=$("$2" bench "$3" --backend cpu --ranks 4 -b 64M -n 20 -w 5 --algo "$4" --format json 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["rows"][0]; g=r.get("in_place") or r; print(g["busbw"] if g["wrong"]==0 else 0, r["algorithm"])' 2>/dev/null)
    echo "$1 ${v:-0 -}"
}
# step KEY BIN SCHEME: median step time in ms (the steps after the first), "KEY ms", and
# when the build reports it (cpu_s: its rank threads' CPU time in the step), the median CPU
# ms per step as a second row with kind "cpu"; single is one device (no --ranks)
step() {
    local v size=("${SIZE[@]}")
    [ "$3" = single ] && size=("${SIZE[@]:2}")
    v=$("$2" train "$3" "${size[@]}" --steps 6 --format json 2>/dev/null |
        python3 -c 'import json,statistics,sys; s=json.load(sys.stdin)["steps"][1:]; print(statistics.median(x["time_s"] for x in s)*1e3, statistics.median(x["cpu_s"] for x in s)*1e3 if "cpu_s" in s[0] else "")' 2>/dev/null)
    set -- $1 $v
    echo "$1 $2 $3 $4 ${5:-0}"
    [ -n "${6:-}" ] && echo "$1 $2 cpu $4 $6"
}

rows=$tmp/rows
: >"$rows"
for i in $(seq "$ROUNDS"); do
    if [ $((i % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
    for who in $order; do
        b=$BIN
        [ "$who" = old ] && b=$OLD
        busbw "$i $who ring all_reduce" "$b" all_reduce ring >>"$rows"
        for c in $COLLS; do busbw "$i $who auto $c" "$b" "$c" auto >>"$rows"; done
        step "$i $who step ddp" "$b" ddp >>"$rows"
        step "$i $who step single" "$b" single >>"$rows"
    done
    if [ "$have_memcpy" = 1 ]; then
        v=$("$tmp/memcpy_bw" 256 3 total 2>/dev/null |
            awk -F= '/^memcpy_[24]t_gbs=/ { if ($2 > m) m = $2 } END { print m + 0 }')
        echo "$i mem memcpy copy ${v:-0}" >>"$rows"
    fi
    if [ "$have_mpi" = 1 ]; then
        v=$(GLIBC_TUNABLES=$MPI_TUNABLES "${MPIRUN[@]}" "$tmp/mpi_allreduce" $((64 << 20)) 20 5 2>/dev/null |
            sed -n 's/^mpi_busbw_gbs=//p')
        echo "$i mpi ring all_reduce ${v:-0}" >>"$rows"
    fi
    if [ "$have_torch" = 1 ]; then
        v=$("$torch_py" "$here/torch_ddp.py" --ranks 4 --layers 4 --dim 1024 --batch 128 --steps 5 \
            --warmup 1 --variants ddp 2>/dev/null |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["median_step_s"]*1e3)' 2>/dev/null)
        echo "$i torch step ddp ${v:-0}" >>"$rows"
    fi
    echo "   round $i done (load $(cut -d' ' -f1 /proc/loadavg))"
done

python3 - "$rows" "$ROUNDS" "$COLLS" <<'EOF'
import statistics, sys
rows, R, colls = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
v, algo = {}, {}
for line in open(rows):
    f = line.split()
    if len(f) not in (5, 6):
        continue
    i, who, kind, name, x = f[:5]
    v[(int(i), who, kind, name)] = float(x)
    if len(f) == 6:
        algo[(int(i), who, kind, name)] = f[5]
def series(who, kind, name):
    return [v[(i, who, kind, name)] for i in range(1, R + 1) if (i, who, kind, name) in v]
def med(s):
    return statistics.median(s) if s else float("nan")
def ratios(a, b, kind, name):
    return [v[(i, a, kind, name)] / v[(i, b, kind, name)] for i in range(1, R + 1)
            if v.get((i, b, kind, name), 0) > 0 and (i, a, kind, name) in v]
def spread(rs):
    return "%.2f..%.2f" % (min(rs), max(rs)) if rs else "-"
def picks(who, kind, name):
    # auto's choice per round, in one word when it never changed
    p = [algo.get((i, who, kind, name), "-") for i in range(1, R + 1)]
    return p[0] if len(set(p)) == 1 else "/".join(p)
def target(label, rs, want, higher=True):
    m = med(rs)
    ok = m >= want if higher else m <= want
    print("   %-46s median %6.3f (rounds: %s)  target %s %.2f  %s" % (
        label, m, " ".join("%.2f" % r for r in rs), ">=" if higher else "<=", want,
        "PASS" if ok and rs else "MISS"))
print()
print("   64 MiB, 4 CPU ranks, busbw GB/s, median of %d rounds: pre-merge | today | today/pre-merge"
      " (rounds' spread) | algorithm per round, pre-merge ; today" % R)
for kind, name in [("ring", "all_reduce")] + [("auto", c) for c in colls]:
    o, n = series("old", kind, name), series("new", kind, name)
    rs = ratios("new", "old", kind, name)
    print("   %-8s %-15s %7.3f | %7.3f | %5.2f (%s) | %s ; %s" % (
        kind, name, med(o), med(n), med(rs), spread(rs), picks("old", kind, name),
        picks("new", kind, name)))
print()
print("   step at the lecture's scale, ms, median of %d rounds: pre-merge | today" % R)
for name in ("ddp", "single"):
    print("   %-8s %8.1f | %8.1f" % (name, med(series("old", "step", name)), med(series("new", "step", name))))
cpu = {n: series("new", "cpu", n) for n in ("ddp", "single")}
if cpu["ddp"] and cpu["single"]:
    # Measured: the rank threads' CPU time per step (CLOCK_THREAD_CPUTIME_ID, summed over
    # ranks); cores = CPU ms / wall ms, what the ranks actually had on this machine.
    print("   today's CPU ms per step (rank threads, summed) and the cores that gave them:")
    for n in ("ddp", "single"):
        cores = [v[(i, "new", "cpu", n)] / v[(i, "new", "step", n)] for i in range(1, R + 1)
                 if v.get((i, "new", "step", n), 0) > 0 and (i, "new", "cpu", n) in v]
        print("   %-8s %8.1f CPU ms, %.2f cores (rounds: %s)" % (
            n, med(cpu[n]), med(cores), " ".join("%.2f" % c for c in cores)))
    work = med(cpu["ddp"]) / med(cpu["single"])
    print("   DDP does %.2f x one device's CPU work per step (its 4 ranks each run AdamW on all"
          " the weights, multiply 32-row pieces, and all-reduce); so its step is <= 1.15 x one"
          " device's only when its ranks get >= %.2f x the cores one device gets: on 2 free"
          " cores (model: CPU work / cores) %.2f x." % (work, work / 1.15, work / 2))
print()
target("ring all_reduce busbw today / pre-merge", ratios("new", "old", "ring", "all_reduce"), 1.0)
mpi = series("mpi", "ring", "all_reduce")
if mpi:
    rs = [v[(i, "new", "ring", "all_reduce")] / v[(i, "mpi", "ring", "all_reduce")]
          for i in range(1, R + 1) if v.get((i, "mpi", "ring", "all_reduce"), 0) > 0]
    print("   Open MPI MPI_Allreduce busbw: median %.3f GB/s (4 processes on the same cores,"
          " in place, sum)" % med(mpi))
    target("ring all_reduce busbw today / MPI_Allreduce", rs, 4.0)
    # Model of memory traffic per rank in chunks of S/W (read + write), both memory bound:
    # collviz's ring reads the neighbour's chunk where it lies (one address space):
    # reduce 2 reads + 1 write, copy 1 + 1, so 3(W-1) + 2(W-1) = 15 at W = 4. MPI's ring or
    # Rabenseifner between processes receives into a scratch buffer first (single copy,
    # 1 + 1) and then reduces it in (2 + 1): 5(W-1) + 2(W-1) = 21.
    print("   (model: MPI moves 21 chunk-units of memory per rank to collviz's 15 at W = 4, so"
          " at equal memory speed the ratio is 1.4; x4 would need MPI to lose ~65% of its"
          " time to something else, e.g. polling on oversubscribed cores)")
    mem = series("mem", "memcpy", "copy")
    if mem and med(mem) > 0:
        # bench/run.sh derives it: per rank W-1 reductions (read 2 chunks, write 1) and
        # W-1 copies (read 1, write 1: streamed stores, exec.c) of S/W bytes; memcpy at M
        # moves 2M bytes/s (memcpy_bw's 256 MiB copies are above glibc's streaming
        # threshold, so its stores stream too); whole 16 MiB chunks (4 ranks on 2 cores
        # run unsliced) cannot wait in an 8 MiB cache.
        M, W = med(mem), 4
        ceil = 4 * M / (5 * W)
        need = 4 * med(mpi)
        print("   the ring's traffic ceiling (model, M = memcpy %.2f GB/s measured in these rounds):"
              " busbw <= 4M/(5W) = %.2f GB/s; today's ring reaches %.2f of it" % (
                  M, ceil, med(series("new", "ring", "all_reduce")) / ceil))
        if need > ceil:
            print("   4 x MPI = %.2f GB/s is %.2f x that ceiling: no ring can meet this target"
                  " against this MPI figure on this memory" % (need, need / ceil))
else:
    print("   (no mpicc/mpirun: the MPI ratio is not measured)")
d = [v[(i, "new", "step", "ddp")] / v[(i, "new", "step", "single")] for i in range(1, R + 1)
     if v.get((i, "new", "step", "single"), 0) > 0 and (i, "new", "step", "ddp") in v]
target("DDP step / one device's step (today)", d, 1.15, higher=False)
d = [v[(i, "old", "step", "ddp")] / v[(i, "old", "step", "single")] for i in range(1, R + 1)
     if v.get((i, "old", "step", "single"), 0) > 0 and (i, "old", "step", "ddp") in v]
print("   %-46s median %6.3f (rounds: %s)  (for reference)" % (
    "DDP step / one device's step (pre-merge)", med(d), " ".join("%.2f" % r for r in d)))
torch = series("torch", "step", "ddp")
if torch:
    rs = [v[(i, "new", "step", "ddp")] / v[(i, "torch", "step", "ddp")] for i in range(1, R + 1)
          if v.get((i, "torch", "step", "ddp"), 0) > 0]
    print("   PyTorch gloo DDP step: median %.1f ms" % med(torch))
    target("DDP step today / PyTorch gloo DDP's", rs, 0.4, higher=False)
    rs = [v[(i, "old", "step", "ddp")] / v[(i, "torch", "step", "ddp")] for i in range(1, R + 1)
          if v.get((i, "torch", "step", "ddp"), 0) > 0 and (i, "old", "step", "ddp") in v]
    print("   %-46s median %6.3f (rounds: %s)  (for reference)" % (
        "DDP step pre-merge / PyTorch gloo DDP's", med(rs), " ".join("%.2f" % r for r in rs)))
else:
    print("   (python3-torch not installed: the PyTorch gloo ratio is not measured)")
slower = [c for c in colls if med(ratios("new", "old", "auto", c)) < 1.0]
print("   %-46s %s" % ("collectives at 64 MiB slower than pre-merge:",
                        ", ".join("%s (%.2f)" % (c, med(ratios("new", "old", "auto", c))) for c in slower)
                        if slower else "none  PASS"))
# A sign test on the same rounds: a build that is no slower loses all R interleaved rounds
# with probability 2^-R (1 in 32 at 5 rounds), so "below 1.0 in every round" is a loss
# the machine's noise does not explain; a median below 1.0 with rounds on both sides is not.
lost = [c for c in colls + ["ring all_reduce"] if (lambda rs: rs and max(rs) < 1.0)(
    ratios("new", "old", *(("ring", "all_reduce") if c == "ring all_reduce" else ("auto", c))))]
print("   %-46s %s" % ("slower in every one of the %d rounds (sign test):" % R,
                        ", ".join(lost) if lost else "none"))
EOF

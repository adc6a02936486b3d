#!/usr/bin/env python3
"""nccl_scale.py - how `collviz nccl` reads the log of a job as large as labs run.

Usage: nccl_scale.py BIN [RANKS ...]   (default 4096 16384; REPEAT=N rounds, default 5)

For each size, bench/gen_nccl_log.py writes the INFO log of a job of that many ranks (8 GPUs a
node, 16 channels, NCCL 2.18's line forms; 16,384 ranks make about 48 MB). Then, once, the
record is checked whole and right: `collviz nccl --format json` must give the generator's
nranks, nodes, 16 full rings in its order and its link count. Then REPEAT interleaved rounds
of `grep -c 'NCCL INFO' FILE` and `collviz nccl FILE` (text to /dev/null), each process
timed alone (os.wait4: its own wall time, CPU time and max RSS), writing to a file (not
/dev/null, where GNU grep stops at its first match). Printed: the medians, the
ratio collviz / grep of wall time and of CPU time (user + system), and max RSS / file size,
against the targets (30x, 3x). A missed target prints MISS; nothing here fails `make bench`.
"""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_nccl_log  # noqa: E402  (the generator's own ring order: independent of collviz)

TIME_TARGET, RSS_TARGET = 30.0, 3.0


def run(argv, out):
    """(wall s, cpu s, max RSS bytes) of one process, its output written to the file out.
    Not /dev/null: GNU grep, seeing its output is /dev/null, stops at the first match (as
    -q does), even with -c; so both write to a file and grep counts the whole log."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1):  # grep -c says 1 for no match
        sys.exit("nccl_scale: %s exited with %d" % (argv[0], p.returncode))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024


def check(binp, log, n, gpus=8, channels=16):
    out = subprocess.run([binp, "nccl", "--format", "json", log], capture_output=True, text=True)
    if out.returncode != 0:
        return "exit %d: %s" % (out.returncode, out.stderr.strip()[:200])
    d = json.loads(out.stdout)
    want_links = n * channels
    if d.get("nranks") != n or d.get("nnodes") != n // gpus:
        return "nranks %s nnodes %s, want %d %d" % (d.get("nranks"), d.get("nnodes"), n,
                                                     n // gpus)
    if len(d.get("links", [])) != want_links:
        return "%d links, want %d" % (len(d.get("links", [])), want_links)
    rings = d.get("rings", {})
    for c in range(channels):
        o = gen_nccl_log.ring_order(c, n, gpus)
        k = o.index(0)
        if rings.get(str(c)) != o[k:] + o[:k]:
            return "channel %d's ring differs from the generator's" % c
    return None


def main():
    if sys.argv[1] == "--check":  # in its own process: the parsed JSON is hundreds of MB, and
        # a child forked from a process that large inherits its max RSS and pays its unmapping
        print(check(sys.argv[2], sys.argv[3], int(sys.argv[4])) or "yes")
        return
    binp = sys.argv[1]
    sizes = [int(a) for a in sys.argv[2:]] or [4096, 16384]
    rounds = int(os.environ.get("REPEAT", "5"))
    work = os.path.join(os.path.dirname(os.path.abspath(binp)), "bench")
    os.makedirs(work, exist_ok=True)
    print("== NCCL logs of large jobs: collviz nccl against grep -c 'NCCL INFO' "
          "(%d interleaved rounds, medians)" % rounds)
    print("%7s %8s %10s %10s %9s %9s %9s %9s" % ("ranks", "MB", "grep s", "collviz s",
                                                "wall x", "cpu x", "RSS MB", "RSS/file"))
    for n in sizes:
        log = os.path.join(work, "nccl_%d.log" % n)
        if not os.path.exists(log):
            subprocess.run([sys.executable, os.path.join(HERE, "gen_nccl_log.py"), str(n),
                            "--out", log], check=True)
        size = os.path.getsize(log)
        ok = subprocess.run([sys.executable, os.path.abspath(__file__), "--check", binp, log,
                             str(n)], capture_output=True, text=True).stdout.strip()
        g, c = [], []
        with open(os.path.join(work, "out.txt"), "w") as out:
            for _ in range(rounds):
                g.append(run(["grep", "-c", "NCCL INFO", log], out))
                c.append(run([binp, "nccl", log], out))
        gw, gc = statistics.median(x[0] for x in g), statistics.median(x[1] for x in g)
        cw, cc = statistics.median(x[0] for x in c), statistics.median(x[1] for x in c)
        rss = max(x[2] for x in c)
        wall_x, cpu_x, mem_x = cw / gw, cc / max(gc, 0.005), rss / size
        print("%7d %8.1f %10.3f %10.3f %9.1f %9.1f %9.1f %9.2f" % (n, size / 1e6, gw, cw, wall_x,
                                                                   cpu_x, rss / 1e6, mem_x))
        print("        read whole and right: %s" % (ok if ok == "yes" else "NO: " + ok))
        print("        time: %s (wall %.1fx, target <= %.0fx); memory: %s (%.2fx the file, "
              "target <= %.0fx)" % ("ok" if wall_x <= TIME_TARGET else "MISS", wall_x,
                                    TIME_TARGET, "ok" if mem_x <= RSS_TARGET else "MISS",
                                    mem_x, RSS_TARGET))
    print("  (cpu x: grep's CPU time is floored at 5 ms, the clock's grain; on a busy machine "
          "wall time includes waiting for a core)")


if __name__ == "__main__":
    main()

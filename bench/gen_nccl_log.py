#!/usr/bin/env python3
"""gen_nccl_log.py - write the NCCL_DEBUG=INFO log of a large job, deterministically.

Usage: gen_nccl_log.py NRANKS [--gpus 8] [--channels 16] [--out FILE] [--expect FILE]

The lines are NCCL 2.18's forms, as the real 2.18 records in tests/records/ print them:
the "host:pid:tid [dev] NCCL INFO" prefix; "comm 0x... rank r nranks N cudaDev d nvmlDev d
busId b commId 0x... - Init START" and "... - Init COMPLETE"; rank 0's "Channel 00/16 :"
ring lines, cut as NCCL's dumpLine cuts them (a 128-byte buffer, src/graph/rings.cc); one
"Trees [0] d/-1/-1->r->u [1] ..." line a rank; a link line a rank and channel, sent by the
sender ("Channel 00/0 : a[d] -> b[d] via P2P/IPC/read" inside a node, "[send] via
NET/IB/0/GDRDMA" between nodes, whose receiver also prints its "[receive]" line); and the
lines between ("Using network IB", "NET/IB : Using ...", "Setting affinity", "P2P
Chunksize", "Connected all rings", "threadThresholds"). Hosts are gpu-NNNNN, GPUS_PER_NODE
ranks a host, one process a rank.

The rings: channel c visits the nodes in order and, inside a node, the local ranks rotated
by c; the trees: inside a node a chain from local rank 0, across nodes a binary tree of the
nodes' local rank 0 (the mirrored tree on odd channels, as NCCL's double binary tree).

--expect FILE writes what the log holds, counted here from the same structures and not by
collviz: {"nranks", "nnodes", "hosts", "channels", "links", "ring0_head"}, links being the
distinct connections (a NET link's send and receive lines are one).
"""
import argparse
import json
import sys


def ring_order(c, nranks, gpus):
    nnodes = nranks // gpus
    return [n * gpus + (i + c) % gpus for n in range(nnodes) for i in range(gpus)]


def tree_of(c, r, nranks, gpus):
    """(up, [down]) of rank r in channel c's tree."""
    nnodes = nranks // gpus
    node, local = divmod(r, gpus)
    down = []
    if local + 1 < gpus:
        down.append(r + 1)
    if local > 0:
        return r - 1, down
    # the node-level binary tree over local rank 0s (mirrored on odd channels)
    m = node if c % 2 == 0 else nnodes - 1 - node

    def back(k):
        return (k if c % 2 == 0 else nnodes - 1 - k) * gpus

    up = back((m - 1) // 2) if m > 0 else -1
    for k in (2 * m + 1, 2 * m + 2):
        if k < nnodes:
            down.append(back(k))
    return up, down


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nranks", type=int)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--channels", type=int, default=16)
    ap.add_argument("--out", default="-")
    ap.add_argument("--expect")
    a = ap.parse_args()
    N, G, C = a.nranks, a.gpus, a.channels
    if N < G or N % G:
        sys.exit("gen_nccl_log: NRANKS must be a multiple of --gpus")
    out = sys.stdout if a.out == "-" else open(a.out, "w")
    w = out.write
    nnodes = N // G
    commid = 0x5D3A9C0FE1B27744
    bus = ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"]
    rings = [ring_order(c, N, G) for c in range(C)]
    nxt, prv = [], []
    for c in range(C):
        o = rings[c]
        nx, pv = [0] * N, [0] * N
        for i, r in enumerate(o):
            nx[r] = o[(i + 1) % N]
            pv[r] = o[i - 1]
        nxt.append(nx)
        prv.append(pv)

    def pre(r):
        node, local = divmod(r, G)
        pid = 100000 + (node * 7919 + local * 13) % 800000
        return "gpu-%05d:%d:%d [%d] NCCL INFO " % (node, pid, pid + 61, local)

    def comm(r):
        return "0x%012x" % (0x55D0C0000000 + r * 0x1F40)

    w("%sNCCL version 2.18.3+cuda12.2\n" % pre(0))
    for r in range(N):
        p, local = pre(r), r % G
        w("%scomm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%x - Init START\n"
          % (p, comm(r), r, N, local, local, bus[local % len(bus)], commid))
    for r in range(N):
        p, local = pre(r), r % G
        w("%sUsing network IB\n" % p)
        w("%sNET/IB : Using [0]mlx5_%d:1/IB [RO]; OOB ib0:10.%d.%d.%d<0>\n"
          % (p, local, (r // G) >> 8 & 255, (r // G) & 255, local + 1))
        w("%sSetting affinity for GPU %d to ffff,00000000\n" % (p, local))
        if r == 0:
            for c in range(C):
                line = "Channel %02d/%02d :" % (c, C)
                o = rings[c]
                k = o.index(0)
                for x in o[k:] + o[:k]:
                    if len(line) >= 127:
                        break
                    line += " %3d" % x
                w("%s%s\n" % (p, line[:127]))
        t = []
        for c in range(C):
            up, down = tree_of(c, r, N, G)
            d = (down + [-1, -1, -1])[:3]
            t.append("[%d] %d/%d/%d->%d->%d" % (c, d[0], d[1], d[2], r, up))
        w("%sTrees %s\n" % (p, " ".join(t)))
        w("%sP2P Chunksize set to 524288\n" % p)
        for c in range(C):
            n = nxt[c][r]
            if n // G == r // G:
                w("%sChannel %02d/0 : %d[%d] -> %d[%d] via P2P/IPC/read\n"
                  % (p, c, r, r % G, n, n % G))
            else:
                w("%sChannel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/0/GDRDMA\n"
                  % (p, c, r, r % G, n, n % G))
        for c in range(C):  # the receive side of a connection from another node
            v = prv[c][r]
            if v // G != r // G:
                w("%sChannel %02d/0 : %d[%d] -> %d[%d] [receive] via NET/IB/0/GDRDMA\n"
                  % (p, c, v, v % G, r, local))
        w("%sConnected all rings\n" % p)
        w("%sthreadThresholds 8/8/64 | 128/8/64 | 512 | 512\n" % p)
    for r in range(N):
        local = r % G
        w("%scomm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%x - "
          "Init COMPLETE\n" % (pre(r), comm(r), r, N, local, local, bus[local % len(bus)], commid))
    if out is not sys.stdout:
        out.close()
    if a.expect:
        links = C * N
        with open(a.expect, "w") as f:
            json.dump({"nranks": N, "nnodes": nnodes, "hosts": nnodes, "channels": C,
                       "links": links, "ring0_head": rings[0][:8]}, f)
            f.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""nccl_views_check.py - invariants of `collviz nccl` over every record of the corpus, each
derived here from the record's own text (no code shared with the reader), never from a
list of records:

  one-comm   nccl-tests' list of devices and the NCCL lines of the same processes (a device
             line's `Pid P on HOST` is a process that prints `HOST:P:tid [d] NCCL ...`) are
             one communicator: no second one made of the list alone.
  one-host   every view names one host for a rank: the JSON's top-level ranks are its main
             communicator's (`rings_of`) own; a device line's host is its rank's host in the
             communicator holding the list; the text's rank lines say the JSON's hosts; a
             P2P/SHM link line places both its ranks on its line's host, in the JSON as on
             the screen.
  machines   two processes of one host name on one GPU (a device line's bus id) are two
             machines (NCCL puts one rank on a GPU): as many nodes as the name has machines
             (the text's first line, the JSON's nnodes), a warning "K machines named HOST",
             and the JSON's ranks of those processes in different machines.
  launcher   a job's processes as its launcher's command line starts them, whichever the
             launcher: mpirun's -np/--np/-n, srun's -n/--ntasks or -N/--nodes times
             --ntasks-per-node (one a node when not said): the JSON's job.processes.
  size       the text's first line states the JSON's size: "N ranks" where nranks is N,
             "at least N ranks" where nranks_at_least is N (one communicator), "on N nodes"
             where nnodes is N; and the topology screen's title (a fifth column, where the
             list has it) states the text's words.
  pieced     a ring pieced from link lines is said alike: a communicator's JSON
             rings_from_links is true exactly where the text says its ring was read from
             link lines (one communicator: a warning "... read from its link lines" or
             "... pieced from the link lines"; several: its line's "rings read from its link
             lines").
  graph      NCCL_DEBUG_SUBSYS=GRAPH's patterns are in the text as in the JSON: each of the
             JSON's graph patterns has a text line "pattern P ...: N channels at A/B GB/s
             ..., paths X/Y", and the text names no pattern the JSON lacks.
  channels   a communicator that states N channels ("Channel 00/04 :") and prints ring-order
             lines for some of them: the others are said, "channels 2 of 0-3 have no ring
             line (cut?)", exactly those.

Usage: nccl_views_check.py LIST   (LIST: lines "name<TAB>record<TAB>json<TAB>text[<TAB>title]",
title: the topology screen's first line)
Prints one FAIL line per broken invariant and a summary; exits 1 on any failure.
"""
import gzip
import json
import os
import re
import sys

DEV = re.compile(r"Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(-?\d+)")
HDR = re.compile(r"(?:^|[\s\]>|:])([A-Za-z0-9][A-Za-z0-9_.\-]*):(\d+):(\d+) \[\d+\] NCCL (?:INFO|WARN)")
LINK = re.compile(
    r"([A-Za-z0-9][A-Za-z0-9_.\-]*):\d+:\d+ \[\d+\] NCCL INFO (?:Channel|Ring) \d+(?:/\d+)? : "
    r"(\d+)(?:\[[0-9a-fA-Fx]*\])? -> (\d+)(?:\[[0-9a-fA-Fx]*\])?(?: \[(?:send|receive)\])? "
    r"via (P2P/\S+|SHM/\S+|direct shared memory)")


def record_text(path):
    """The record's lines: a file (gzip read), or a folder's files in name order."""
    paths = [path]
    if os.path.isdir(path):
        paths = [os.path.join(path, f) for f in sorted(os.listdir(path))]
    lines, firsts = [], set()
    for p in paths:
        raw = open(p, "rb").read()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        firsts.add(len(lines))
        lines += raw.decode("utf-8", "replace").splitlines()
    return lines, firsts


def device_list(lines):
    """The first list of devices: {rank: (host, pid)}; None when a rank is claimed twice
    (separate runs, each its own communicator) or there is none."""
    out = {}
    for ln in lines:
        m = DEV.search(ln)
        if not m:
            continue
        r, pid, host = int(m.group(1)), int(m.group(2)), m.group(3)
        if r in out:
            return None
        out[r] = (host, pid)
    return out or None


RING = re.compile(r"NCCL INFO Channel (\d+)/(\d+) :((?:\s+\d+)+)\s*$")


def ranges(text):
    """ "0, 6..15" -> {0, 6, ..., 15}"""
    out = set()
    for part in text.split(","):
        a, _, b = part.strip().partition("..")
        out |= set(range(int(a), int(b or a) + 1))
    return out


def check_channels(name, lines, j, fail):
    stated, present = set(), set()
    for ln in lines:
        m = RING.search(ln)
        if m and ln.count(" NCCL ") == 1:
            stated.add(int(m.group(2)))
            present.add(int(m.group(1)))
    said = []
    for w in j.get("warnings", []):
        m = re.search(r"channels? ([0-9., ]+) of 0-(\d+) ha(?:s|ve) no ring line \(cut\?\)",
                      w.get("message", ""))
        if m:
            said.append((ranges(m.group(1)), int(m.group(2)) + 1))
    if len(stated) != 1 or len(j.get("communicators", [])) > 1:
        return
    n = stated.pop()
    missing = set(range(n)) - present
    want = [(missing, n)] if missing else []
    if said != want:
        fail("channels", "channels %s of %d have no ring line; the warnings say %s" %
             (sorted(missing), n, said))


BUS = re.compile(r"Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(-?\d+)\s+\[(0x[0-9a-fA-F]+)\]")


def check_machines(lines, j, text, fail):
    on_bus = {}  # (host, device, bus id) -> {pid: rank}, of the first list of devices
    seen, started = set(), False
    for ln in lines:
        m = BUS.search(ln)
        if not m:
            if started and ln.strip():
                break  # the first list ends at its first other line
            continue
        started = True
        if int(m.group(1)) in seen:
            return  # a rank claimed twice: separate runs, no job to prove machines by
        seen.add(int(m.group(1)))
        on_bus.setdefault((m.group(3), m.group(5), m.group(4)), {}).setdefault(
            int(m.group(2)), int(m.group(1)))
    most = {}
    for (host, _, _), procs in on_bus.items():
        most[host] = max(most.get(host, 1), len(procs))
    top = {k["rank"]: k for k in j.get("ranks", [])}
    for host, k in most.items():
        if k < 2:
            continue
        if not any(re.search(r"\b%d machines named %s\b" % (k, re.escape(host)), w["message"])
                   for w in j.get("warnings", [])):
            fail("machines", "%d machines named %s: no warning says so" % (k, host))
        m = re.search(r"on\s+(?:at\s+least\s+)?(\d+)\s+nodes?", " ".join(text[:2]))
        if (j.get("nnodes") or 0) < k and (not m or int(m.group(1)) < k):
            fail("machines", "%d machines named %s: nnodes %s, the text %r" %
                 (k, host, j.get("nnodes"), text[:2]))
        # a ring through the machines crosses between them: its node crossings count
        # (host, machine) changes; a process's machine is its place among those on its GPU
        machine = {}
        for procs in on_bus.values():
            for k, r in enumerate(procs.values()):
                machine[r] = max(machine.get(r, 0), k)
        node = {r: (h, machine.get(r, 0)) for (h, _, _), procs in on_bus.items()
                for r in procs.values()}
        said = [int(x) for x in re.findall(r"(\d+)\s+node\s+crossings?", " ".join(text))]
        for ln in lines:
            m = RING.search(ln)
            ring = [int(x) for x in m.group(3).split()] if m else []
            if not ring or any(r not in node for r in ring):
                continue
            x = sum(node[a] != node[b] for a, b in zip(ring, ring[1:] + ring[:1]))
            if x not in said:
                fail("machines", "a ring through %s crosses nodes %d times; the text says %s" %
                     (host, x, said))
            break
        for (h, _, _), procs in on_bus.items():
            ranks = list(procs.values())
            if h != host or len(ranks) < 2:
                continue
            ms = [top.get(r, {}).get("machine") for r in ranks]
            if None in ms or len(set(ms)) != len(ms):
                fail("machines", "ranks %s share a GPU of %s: machines %s" % (ranks, host, ms))


def opt(words, names):
    """The number after one of the option names ("-n 8", "--ntasks=8"), None."""
    for i, w in enumerate(words):
        k, eq, v = w.partition("=")
        if k in names:
            v = v if eq else (words[i + 1] if i + 1 < len(words) else "")
            if v.isdigit() and int(v) > 0:
                return int(v)
    return None


def check_launcher(lines, j, fail):
    want = None
    for ln in lines:
        words = ln.split()
        for i, w in enumerate(words):
            base = w.rsplit("/", 1)[-1]
            if base in ("mpirun", "mpiexec"):
                want = opt(words[i:], ("-np", "--np", "-n", "--n"))
            elif base == "srun":
                rest = words[i:]
                want = opt(rest, ("-n", "--ntasks"))
                nodes = opt(rest, ("-N", "--nodes"))
                if want is None and nodes:
                    want = nodes * (opt(rest, ("--ntasks-per-node",)) or 1)
            else:
                continue
            break
        if want is not None:
            break
    got = (j.get("job") or {}).get("processes")
    if want is not None and got != want:
        fail("launcher", "the launcher starts %d processes; the JSON's job says %s" % (want, got))


SIZE_WORDS = re.compile(r"(at least )?(\d+) ranks?(?: on (at least )?(\d+) nodes?)?|"
                        r"\bon (at least )?(\d+) nodes?")


def said_size(line):
    """(floor, nranks, node_floor, nnodes) a line states, None for each part not said."""
    m = SIZE_WORDS.search(line)
    if not m:
        return None
    if m.group(2):
        return (bool(m.group(1)), int(m.group(2)),
                bool(m.group(3)) if m.group(4) else None, int(m.group(4)) if m.group(4) else None)
    return (None, None, bool(m.group(5)), int(m.group(6)))


def check_size(j, text, title, fail):
    comms = j.get("communicators", [])
    if not text or len(comms) > 1:
        return
    head = text[0]
    for ln in text[1:]:  # the first line, wrapped
        if not ln.startswith("  "):
            break
        head += " " + ln.strip()
    got = said_size(head)
    n, least, nodes = j.get("nranks"), j.get("nranks_at_least"), j.get("nnodes")
    want_r = (False, n) if n is not None else (True, least) if least is not None else (None, None)
    if (got[:2] if got else (None, None)) != want_r:
        fail("size", "text %r, JSON nranks %s, nranks_at_least %s" % (head, n, least))
    if nodes is not None and (not got or got[2:] != (False, nodes)):
        fail("size", "text %r, JSON nnodes %s" % (head, nodes))
    if title is not None and said_size(title) != got:
        fail("size", "screen title %r, text %r" % (title.strip(), head))


PIECED = re.compile(r"read from its link lines|pieced from the link lines")


def check_pieced(j, text, fail):
    comms = j.get("communicators", [])
    flags = [bool(c.get("rings_from_links")) for c in comms]
    if len(comms) <= 1:
        said = any(PIECED.search(ln) for ln in text)
        if said != any(flags):
            fail("pieced", "text %s a ring read from link lines, JSON rings_from_links %s" %
                 ("says" if said else "does not say", flags))
        return
    said, cur = [], None  # a communicator's line, with the lines it wraps onto
    for ln in text + [""]:
        if cur is not None and ln.startswith("    "):
            cur += " " + ln.strip()
            continue
        if cur is not None:
            said.append("rings read from its link lines" in cur)
            cur = None
        if ln.startswith("  (no commId)") or re.match(r"  0x[0-9a-f]+", ln):
            cur = ln
    if said != flags[:len(said)] or len(said) != len(flags):
        fail("pieced", "text's communicator lines say %s, JSON rings_from_links %s" %
             (said, flags))


GRAPH_SAID = re.compile(r"pattern (\d+)(?: \([^)]*\))?: (\d+) channels? at ([\d.]+)/([\d.]+) "
                        r"GB/s \(intra/inter\), paths (\S+)/(\S+),")


def check_graph(j, text, fail):
    said = set()
    joined = " ".join(ln.strip() for ln in text)
    for m in GRAPH_SAID.finditer(joined):
        said.add((int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4)),
                  m.group(5), m.group(6)))
    want = {(p["pattern"], p["nchannels"], round(p["bw_intra"], 6), round(p["bw_inter"], 6),
             p["type_intra"], p["type_inter"])
            for p in (j.get("graph") or {}).get("patterns", [])}
    said = {(a, b, round(c, 6), round(d, 6), e, f) for a, b, c, d, e, f in said}
    if said != want:
        fail("graph", "text's patterns %s, JSON's %s" % (sorted(said), sorted(want)))


def comm_ranks(c):
    return {k["rank"]: k for k in c.get("ranks", [])}


def check(name, record, j, text, fails, title=None):
    lines, firsts = record
    def fail(inv, msg):
        fails.append("%s: %s: %s" % (name, inv, msg))

    comms = j.get("communicators", [])
    check_size(j, text, title, fail)
    check_pieced(j, text, fail)
    check_graph(j, text, fail)
    check_channels(name, lines, j, fail)
    check_machines(lines, j, text, fail)
    check_launcher(lines, j, fail)
    # one-host: the top-level ranks are the main communicator's own
    main = j.get("rings_of")
    top = {k["rank"]: k.get("host") for k in j.get("ranks", [])}
    if main is not None and main < len(comms):
        mine = {r: k.get("host") for r, k in comm_ranks(comms[main]).items()}
        if top != mine:
            diff = sorted(r for r in set(top) | set(mine) if top.get(r) != mine.get(r))[:4]
            fail("one-host", "top-level ranks differ from communicator %d's at ranks %s" %
                 (main, diff))
    # one-host: the text's rank lines ("rank    3  host  ...") say the JSON's hosts
    for ln in text:
        m = re.match(r"\s*rank\s+(\d+)\s+(\S+)", ln)
        if not m or len(comms) > 1:
            continue
        r, h = int(m.group(1)), m.group(2)
        if top.get(r, None) != (None if h == "?" else h):
            fail("one-host", "text says rank %d on %s, the JSON %s" % (r, h, top.get(r)))
    dl = device_list(lines)
    infos = set()
    for ln in lines:
        for m in HDR.finditer(ln):
            infos.add((m.group(1), int(m.group(2))))
    if dl:
        holders = [i for i, c in enumerate(comms)
                   if any(k.get("gpu") for k in c.get("ranks", []))]
        shared = {hp for hp in dl.values() if hp in infos}
        for i in holders:
            cr = comm_ranks(comms[i])
            for r, (host, _) in dl.items():
                if r in cr and cr[r].get("host") not in (None, host):
                    fail("one-host", "rank %d: device line on %s, communicator %d says %s" %
                         (r, host, i, cr[r].get("host")))
        # one-comm: a communicator of the list alone while another holds its processes
        for i, c in enumerate(comms):
            alone = not (c.get("ring_orders") or c.get("tree_nodes") or c.get("links") or
                         c.get("transports") or c.get("id") or c.get("trees") or
                         c.get("rings")) and set(c.get("ranks_seen", [])) <= set(dl)
            if not alone or not shared:
                continue
            hosts = {h for h, _ in shared}
            top_rank = max(dl)
            for k, o in enumerate(comms):
                if k == i or not hosts & set(o.get("hosts", [])):
                    continue
                n = o.get("nranks")
                if n is not None and n <= top_rank:
                    continue
                orr = comm_ranks(o)
                if any(r in orr and orr[r].get("host") not in (None, dl[r][0]) for r in dl):
                    continue
                fail("one-comm", "communicator %d is the list of devices alone; its processes "
                     "%s print communicator %d's lines" % (i, sorted(shared)[:2], k))
    # one-host: a P2P/SHM link places both ends on its line's host (one communicator: the
    # record's own ranks; several: some communicator places both there)
    for i, ln in enumerate(lines):
        m = LINK.search(ln)
        if not m or ln.count(" NCCL ") != 1 or "<" in m.group(1):
            continue
        host, a, b = m.group(1), int(m.group(2)), int(m.group(3))
        if i in firsts and m.start(1) == 0:  # a file's first line may start inside its host
            host = next((h for h in j.get("hosts", []) if h.endswith(host)), host)
        if len(comms) <= 1:
            got = (top.get(a), top.get(b))
            if got != (host, host):
                fail("one-host", "%s -> %s via %s on %s: the JSON places them on %s" %
                     (a, b, m.group(4), host, got))
        elif not any(comm_ranks(c).get(a, {}).get("host") == host and
                     comm_ranks(c).get(b, {}).get("host") == host for c in comms):
            fail("one-host", "%s -> %s via %s on %s: no communicator places both there" %
                 (a, b, m.group(4), host))


def main():
    fails = []
    n = 0
    for row in open(sys.argv[1]):
        name, rec, jpath, tpath, *rest = row.rstrip("\n").split("\t")
        title = open(rest[0], errors="replace").readline() if rest else None
        n += 1
        try:
            j = json.load(open(jpath))
        except ValueError as e:
            fails.append("%s: no JSON (%s)" % (name, e))
            continue
        check(name, record_text(rec), j, open(tpath, errors="replace").read().splitlines(),
              fails, title)
    bad = {f.split(":")[0] for f in fails}
    for f in fails:
        print("FAIL: " + f)
    print("views: %d of %d records keep every invariant" % (n - len(bad), n))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

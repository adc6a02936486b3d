#!/usr/bin/env python3
"""nccl_corpus_check.py - the reader's JSON for one record against its hand-written expectation.

Usage: nccl_corpus_check.py EXPECT.json READER.json
       nccl_corpus_check.py --selftest EXPECT.json...   (the check can pass and can fail)
       nccl_corpus_check.py --corpus LIST               (every record in one run)
Prints one line per disagreement (new contract: tests/records/expect/README.md), then a line
"OLD ok" or "OLD bad: ..." scoring today's fields, for information. Exit status 0 when the new
contract holds, 1 when it does not. No code is shared with src/: everything here is read from
the expectation, which was written by reading the record.

--corpus (tests/cli/test_nccl_corpus.sh; python starts slowly, and the corpus has ~50 records):
LIST has a line per expectation, tab-separated: the record's name, EXPECT.json, then the
reader's exit status, its JSON and its text output (or "-" alone where the record is missing).
For each: its "record" is its name; then, where the reader ran, the check above, and the text's
first line names the JSON's library and version. Prints "FAIL: ..." per failure (details
indented below it), then "new contract: R of N records right" and today's fields' score; exit
status 1 when any FAIL line was printed.
"""
import gzip
import json
import math
import os
import re
import sys


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    except (TypeError, ValueError):
        return False


def xyz(v):
    """The leading x.y.z of a version string, or None."""
    if not isinstance(v, str):
        return None
    m = re.match(r"\s*(\d+\.\d+\.\d+)", v)
    return m.group(1) if m else None


def table_facts(t):
    """collective, row count, largest size, average bus bandwidth of one table of the JSON."""
    rows = t.get("rows") or []
    sizes = [r.get("size") for r in rows if isinstance(r, dict) and r.get("size") is not None]
    return (t.get("collective"), len(rows), max(sizes) if sizes else None, t.get("avg_busbw"))


def same_value(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return close(a, b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return a == b


def check_new(e, d, bad):
    for key in ("library", "launcher"):
        if d.get(key) != e[key]:
            bad.append("%s: got %r, want %r" % (key, d.get(key), e[key]))
    if xyz(d.get("version")) != e["version"]:
        bad.append("version: got %r, want %r" % (d.get("version"), e["version"]))
    if "version_string" in e and d.get("version") != e["version_string"]:
        bad.append("version (whole): got %r, want %r" % (d.get("version"), e["version_string"]))
    if sorted(d.get("prefixes") or []) != e["prefixes"]:
        bad.append("prefixes: got %r, want %r" % (d.get("prefixes"), e["prefixes"]))
    if sorted(d.get("hosts") or []) != e["hosts"]:
        bad.append("hosts: got %r, want %r" % (d.get("hosts"), e["hosts"]))
    check_comms(e, d.get("communicators"), bad)
    tests = d.get("tests") or []
    if len(tests) != len(e["nccl_tests"]):
        bad.append("tables: got %d, want %d" % (len(tests), len(e["nccl_tests"])))
    for i, (t, w) in enumerate(zip(tests, e["nccl_tests"])):
        got = table_facts(t)
        want = (w["collective"], w["rows"], w["max_size_bytes"], w["avg_busbw"])
        if not (got[:3] == want[:3] and close(got[3], want[3])):
            bad.append("table %d (collective, rows, max size, avg busbw): got %r, want %r" % (i, got, want))
    for key in ("tuning", "graph"):
        want = e[key]
        got = d.get(key)
        if want is None:
            if got:
                bad.append("%s: got %r, want none" % (key, got))
            continue
        if not isinstance(got, dict):
            bad.append("%s: got %r, want %r" % (key, got, want))
            continue
        for k, v in want.items():
            if not same_value(got.get(k), v):
                bad.append("%s.%s: got %r, want %r" % (key, k, got.get(k), v))
    codes = set()
    for w in d.get("warnings") or []:
        if isinstance(w, dict) and isinstance(w.get("code"), str):
            codes.add(w["code"])
    missing = [c for c in e["warnings_expected"] if c not in codes]
    if missing:
        bad.append("warnings: missing codes %r (got %r)" % (missing, sorted(codes)))


COMM_KEYS = ("nranks", "nnodes", "hosts", "ranks_seen", "rings", "channels", "trees",
             "transports", "features")


def comm_view(c):
    v = {k: c.get(k) for k in COMM_KEYS}
    for k in ("hosts", "ranks_seen", "transports", "features"):
        v[k] = sorted(v[k] or [])
    v["trees"] = bool(v["trees"])
    return v


def check_comms(e, comms, bad):
    if not isinstance(comms, list):
        bad.append("communicators: got %r, want a list of %d" % (comms, len(e["communicators"])))
        return
    if e["communicators_complete"] and len(comms) != len(e["communicators"]):
        bad.append("communicators: got %d, want %d" % (len(comms), len(e["communicators"])))
    if len(comms) < len(e["communicators"]):
        bad.append("communicators: got %d, want at least %d" % (len(comms), len(e["communicators"])))
    free = list(range(len(comms)))
    for w in e["communicators"]:
        want = {k: w[k] for k in COMM_KEYS}
        pick = None
        for i in free:
            c = comms[i]
            if not isinstance(c, dict):
                continue
            if w["id"] is not None:
                if c.get("id") == w["id"]:
                    pick = i
                    break
            elif comm_view(c) == want:
                pick = i
                break
        if pick is None:
            # the nearest one, to say what differs
            cands = [comms[i] for i in free if isinstance(comms[i], dict)]
            if w["id"] is not None:
                bad.append("communicator %s: not reported" % w["id"])
                continue
            if not cands:
                bad.append("communicator %r: not reported" % want)
                continue
            near = max(cands, key=lambda c: sum(comm_view(c)[k] == want[k] for k in COMM_KEYS))
            diff = {k: (comm_view(near)[k], want[k]) for k in COMM_KEYS if comm_view(near)[k] != want[k]}
            bad.append("communicator (no id): nearest differs in %r (got, want)" % diff)
            continue
        free.remove(pick)
        got = comm_view(comms[pick])
        for k in COMM_KEYS:
            if got[k] != want[k]:
                bad.append("communicator %s %s: got %r, want %r" % (w["id"] or "(no id)", k, got[k], want[k]))


def check_old(e, d):
    """Today's fields: which of them agree with the expectation."""
    bad = []
    want_v = e["version"]
    got_v = d.get("nccl_version")
    if xyz(got_v) != want_v:
        bad.append("nccl_version %r vs %r" % (got_v, want_v))
    if sorted(d.get("hosts") or []) != e["hosts"]:
        bad.append("hosts %r vs %r" % (d.get("hosts"), e["hosts"]))
    comms = e["communicators"]
    if len(comms) > 1:
        bad.append("%d communicators (one nranks/nnodes cannot say it)" % len(comms))
    else:
        c = comms[0] if comms else {"nranks": None, "nnodes": None, "rings": None, "trees": False}
        for k in ("nranks", "nnodes"):
            if d.get(k) != c[k]:
                bad.append("%s %r vs %r" % (k, d.get(k), c[k]))
        if c["rings"] is not None and len(d.get("rings") or {}) != c["rings"]:
            bad.append("rings %d vs %d" % (len(d.get("rings") or {}), c["rings"]))
        if bool(d.get("trees")) != c["trees"]:
            bad.append("trees %s vs %s" % (bool(d.get("trees")), c["trees"]))
    tests = d.get("tests") or []
    want_t = [(w["collective"], w["rows"], w["max_size_bytes"], w["avg_busbw"]) for w in e["nccl_tests"]]
    got_t = [table_facts(t) for t in tests]
    if len(got_t) != len(want_t) or any(g[:3] != w[:3] or not close(g[3], w[3]) for g, w in zip(got_t, want_t)):
        bad.append("tables %r vs %r" % (got_t, want_t))
    return bad


def perfect(e):
    """The JSON a reader that gets everything right would print for this expectation."""
    d = {k: e[k] for k in ("library", "launcher", "prefixes", "hosts", "tuning", "graph")}
    d["version"] = None if e["version"] is None else e.get("version_string", e["version"] + "+build")
    d["communicators"] = [dict(c) for c in e["communicators"]]
    if not e["communicators_complete"]:
        d["communicators"].append({"id": None, "nranks": 2})
    d["tests"] = []
    for t in e["nccl_tests"]:
        rows = [{"size": 1}] * max(t["rows"] - 1, 0)
        if t["rows"]:
            rows.append({"size": t["max_size_bytes"]})
        d["tests"].append({"collective": t["collective"], "rows": rows, "avg_busbw": t["avg_busbw"]})
    d["warnings"] = [{"code": c, "message": "x"} for c in e["warnings_expected"]] + [{"code": "extra"}]
    return d


def mutations(e, d):
    """Copies of d, each wrong in one place."""
    def copy():
        return json.loads(json.dumps(d))
    m = copy()
    m["hosts"] = m["hosts"] + ["launcher-prefix"]
    yield "an extra host", m
    m = copy()
    m["library"] = "RCCL" if d["library"] != "RCCL" else "NCCL"
    yield "the library", m
    if "version_string" in e:
        m = copy()
        m["version"] = m["version"][:-1]
        yield "a version cut short", m
    if e["communicators"]:  # (an extra one a partial list allows is no mutation)
        for key, bump in (("nranks", lambda v: (v or 0) + 1), ("rings", lambda v: (v or 0) + 1),
                          ("trees", lambda v: not v), ("ranks_seen", lambda v: v + [9999])):
            m = copy()
            m["communicators"][0][key] = bump(m["communicators"][0][key])
            yield "communicator " + key, m
    if d["tests"]:
        m = copy()
        m["tests"][0]["rows"] = m["tests"][0]["rows"] + [{"size": 1}]
        yield "a table's rows", m
    if d["warnings"][:-1]:
        m = copy()
        m["warnings"] = m["warnings"][1:]
        yield "a warning", m


def selftest(paths):
    fails = 0
    for path in paths:
        e = json.load(open(path))
        d = perfect(e)
        bad = []
        check_new(e, d, bad)
        if bad:
            print("selftest %s: a perfect answer fails: %s" % (path, bad))
            fails += 1
        for what, m in mutations(e, d):
            bad = []
            check_new(e, m, bad)
            if not bad:
                print("selftest %s: a wrong %s passes" % (path, what))
                fails += 1
    return 1 if fails else 0


def text_names_library(d, text_path):
    """Why the text's first line does not name the JSON's library and version whole (or a
    library the record does not name), or None."""
    with open(text_path) as f:
        head = f.readline().rstrip("\n")
    lib, ver = d.get("library"), d.get("version")
    want = (lib or "library not named") + " " + (ver or "(version not in the records)")
    if not head.startswith(want):
        return "first line %r, want it to start %r" % (head, want)
    if lib is None and ("NCCL" in head or "RCCL" in head):
        return "first line %r names a library the record does not" % head
    return None


def record_text(path):
    """The record's text: a file, a gzipped file, or a folder's files in name order."""
    if os.path.isdir(path):
        return "".join(record_text(os.path.join(path, f)) for f in sorted(os.listdir(path)))
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


RING_LINE = re.compile(r"NCCL INFO +(Ring|Channel) \d+(/\d+)? ?:")
INDENTED = re.compile(r"[ \t]+[A-Za-z0-9][\w.-]*:\d+:\d+ \[\d+\] NCCL (INFO|WARN)")
LINK_FORM = re.compile(r"\bChannel \d+(/\d+)? : .*? via (\S+)")
# The NCCL 2.x minor version from which each transport family's link lines carry the
# connection index ("Channel 00/0 :" rather than "Channel 00 :"), from NCCL's format strings
# (src/transport/shm.cc, p2p.cc, net.cc of tags v2.7.3-1 .. v2.30.7-1): SHM never, P2P
# from 2.14, NET from 2.12. One NCCL prints forms whose version ranges meet.
SLASH_FROM = (("SHM", None), ("direct", None), ("P2P", 14), ("NET/", 12))


def forms_clash(found):
    """True when the (slash, via) link forms found need two NCCL versions."""
    lo, hi, seen = 7, 99, {}
    for slash, via in found:
        fam = next((f for f in SLASH_FROM if via.startswith(f[0])), None)
        if fam is None:
            continue
        seen.setdefault(fam[0], set()).add(bool(slash))
        if fam[1] is None:
            continue
        if slash:
            lo = max(lo, fam[1])
        else:
            hi = min(hi, fam[1] - 1)
    return lo > hi or any(len(v) == 2 for v in seen.values())


PRINTER = re.compile(r"([\w.-]+):\d+:\d+ \[\d+\] NCCL INFO (?:Channel \d+(?:/\d+)? : +(0)(?: +\d+)+ *$|Ring \d+ : \d+ -> (\d+) -> \d+ *$)", re.M)
RING_ORDER = re.compile(r"NCCL INFO +(Ring|Channel) \d+(/\d+)? ?: *\d+( +\d+)+ *$", re.M)
# a size stated: the title's "N ranks", a communicator's ", N ranks on", the job's "N
# communicators of N ranks", the fit's "plan on N ranks", a warning's "(of N)"
REDUCTIONS = ("sum", "prod", "max", "min", "avg")
# (not sendrecv: nccl-tests' sendrecv_perf runs each reduction and prints its name)
REDUCE_NOTHING = ("all_gather", "broadcast", "alltoall", "gather", "scatter")
SIZE_SAID = re.compile(r"(at least )?\b(\d+) ranks?\b(?! only)|\(of (at least )?(\d+)\)")
AT_LEAST = re.compile(r"communicator (\d+)[^:]*: the lines of \d+ ranks? only \(of at least (\d+)\)")


AT_LINE = re.compile(r"^(.*?):(\d+): (.*)$")
TREE_ENTRY = re.compile(r"\[(\d+)\] (-?\d+(?:/-?\d+)*)->(\d+)->(-?\d+)(?= |$)")
LINK = re.compile(r"Channel (\d+)(?:/\d+)? : (\d+)\[[^]]*\] -> (\d+)\[[^]]*\].* via ")
TESTS_LINE = re.compile(r"^\s*#?\s*(out-of-place\b.*in-place|\(B\)\s+\(elements\)|size\s+count\s+type"
                        r"|Rank\s+\d+\s.*\bdevice\b|Avg bus bandwidth|nThread \d)")


def tree_entries(line):
    """(channel, rank) of each whole entry of a Trees line."""
    if "Trees" not in line:
        return []
    return [(int(c), int(me)) for c, _down, me, _up in TREE_ENTRY.findall(line.split("Trees", 1)[1])]


def warnings_agree(d, rec_path, msgs):
    """A warning about line N says what the reader did with it: a line it says is not read
    gives nothing the reader reports (unless another line gives the same), the entries it
    says are read are there, and nccl-tests' own lines (with or without '#') are never
    "no log line"."""
    if os.path.isdir(rec_path):
        return []
    lines = record_text(rec_path).split("\n")
    trees = d.get("trees") or {}
    links = {(k.get("channel"), k.get("from"), k.get("to")) for k in d.get("links") or []
             if isinstance(k, dict)}
    sizes = {r.get("size") for t in d.get("tests") or [] for r in t.get("rows") or []}
    bad = []

    def used_tree(c, me):
        return str(me) in (trees.get(str(c)) or {})

    def elsewhere(n, pred):
        return any(pred(x) for i, x in enumerate(lines) if i != n - 1)

    for m in msgs:
        at = AT_LINE.match(m)
        if not at or not 0 < int(at.group(2)) <= len(lines):
            continue
        n, what, line = int(at.group(2)), at.group(3), lines[int(at.group(2)) - 1]
        # (a prefix that is "not read" is the text before NCCL's line, not the line)
        notread = "not read" in what and "the text is not read" not in what
        if "no log line" in what and TESTS_LINE.match(re.sub(r"^.*?<stdout>:", "", line)):
            bad.append("%r: line %d is nccl-tests' own: %r" % (m, n, line.strip()[:60]))
        whole = tree_entries(line)
        if notread and "Trees" in line:
            for c, me in whole:
                if used_tree(c, me) and not elsewhere(n, lambda x: (c, me) in tree_entries(x)):
                    bad.append("%r: says not read, but channel %d's rank %d is from it" % (m, c, me))
                    break
        if "entries before it are read" in what:
            for c, me in whole:
                if not used_tree(c, me):
                    bad.append("%r: says read, but channel %d's rank %d is not" % (m, c, me))
                    break
        k = LINK.search(line)
        if notread and k:
            key = tuple(int(v) for v in k.groups())
            def same(x):
                o = LINK.search(x)
                return o is not None and tuple(int(v) for v in o.groups()) == key
            if key in links and not elsewhere(n, same):
                bad.append("%r: says not read, but its link %s is used" % (m, key))
        row = re.match(r"^\s*(\d+)\s", line)
        if "row" in what and notread and row and float(row.group(1)) in sizes:
            if not elsewhere(n, lambda x: re.match(r"^\s*%s\s" % row.group(1), x)):
                bad.append("%r: says not read, but a row of size %s is used" % (m, row.group(1)))
    return bad


JOINED = re.compile(r"NCCL (?:INFO|WARN) .*?\S {2,}[\w.-]+:\d+:\d+ \[\d+\] NCCL")
LINK_SIDE = re.compile(r"Channel (\d+)/\d+ : (\d+)\[\d+\] -> (\d+)\[\d+\] \[(?:send|receive)\] via \S")


def codes_of(d):
    return [w.get("code") for w in d.get("warnings") or [] if isinstance(w, dict)]


def joined_read(d, rec_path, codes):
    """Lines a copy joined (NCCL lines on one line, padded apart): warned about once as
    joined, never as spliced, and every link they hold is read, a link wrapped onto the
    next line too."""
    text = record_text(rec_path)
    joined = [line for line in text.split("\n") if JOINED.search(line)]
    bad = []
    if codes.count("joined") != (1 if joined else 0):
        bad.append("%d joined lines, %d joined warnings (want one when any)"
                   % (len(joined), codes.count("joined")))
    if not joined:
        return bad
    if "spliced" in codes:
        bad.append("joined lines warned as spliced")
    links = {(k.get("channel"), k.get("from"), k.get("to")) for k in d.get("links") or []
             if isinstance(k, dict)}
    flat = text.replace("\n", "")
    want = {tuple(int(v) for v in m.groups()) for m in LINK_SIDE.finditer(flat)}
    # a connection's two sides are one link: either direction's key is read
    lost = [k for k in want if k not in links]
    if lost:
        bad.append("%d of %d links of joined lines not read: %s" % (len(lost), len(want), sorted(lost)[:4]))
    return bad


def text_promises(e, d, text_path, rec_path):
    """What the text owes whatever the record (the invariants over every record): why not,
    as a list."""
    bad = []
    with open(text_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for i, line in enumerate(text.split("\n")):
        if len(line) > 80:
            bad.append("text line %d is %d columns wide (80 at most): %r" % (i + 1, len(line), line))
    words = set(re.split(r"[\s,()]+", text))
    for h in e["hosts"]:
        if h not in words:
            bad.append("text does not name host %r" % h)
    if e["launcher"] and not re.search(r"\b%s\b" % re.escape(e["launcher"]), text):
        bad.append("text does not name the launcher %r" % e["launcher"])
    # "of at least N": a communicator's ranks are numbered from 0, so N is its largest rank
    # seen + 1 (the hand-written ranks_seen of the communicator the reader reported)
    msgs = [w.get("message", "") for w in d.get("warnings") or [] if isinstance(w, dict)]
    comms = d.get("communicators") or []
    for m in msgs:
        for k, n in AT_LEAST.findall(m):
            k, n = int(k), int(n)
            got = comms[k - 1] if 0 < k <= len(comms) else {}
            want = [w for w in e["communicators"]
                    if sorted(w["ranks_seen"]) == sorted(got.get("ranks_seen") or [])]
            if want and want[0]["ranks_seen"] and n != max(want[0]["ranks_seen"]) + 1:
                bad.append("%r: at least %d, want %d (the largest rank seen + 1)"
                           % (m, n, max(want[0]["ranks_seen"]) + 1))
    # a size is stated exactly only where the record proves it (a communicator's nranks
    # written by hand, or "ranks_exact": a size the launcher's command and the rows prove);
    # else "at least" the largest rank seen + 1; never 0 ranks
    sizes = {c["nranks"] for c in e["communicators"] if c["nranks"] is not None}
    if e.get("ranks_exact") is not None:
        sizes.add(e["ranks_exact"])
    tops = {max(c["ranks_seen"]) + 1 for c in e["communicators"] if c["ranks_seen"]}
    for line in text.split("\n"):
        if "ring order lists" in line or "channel " in line and " ring has " in line:
            continue  # a ring's length, not a size
        for m in SIZE_SAID.finditer(line):
            least = m.group(1) or m.group(3)
            n = int(m.group(2) or m.group(4))
            if n == 0:
                bad.append("%r: 0 ranks" % line)
            elif not least and n not in sizes:
                bad.append("%r: %d ranks stated exactly, but the record proves %s"
                           % (line, n, sorted(sizes) or "no size"))
            elif least and len(tops) == 1 and n != max(tops):
                bad.append("%r: at least %d, want %d (the largest rank seen + 1)"
                           % (line, n, max(tops)))
    # a table's collective agrees with its redop: a reduction (sum, prod, max, min, avg)
    # under a collective that reduces nothing is a contradiction the reader must resolve
    # from the rows' busbw/algbw or leave unnamed, and say so
    for i, t in enumerate(d.get("tests") or []):
        if isinstance(t, dict) and t.get("redop") in REDUCTIONS and t.get("collective") in REDUCE_NOTHING:
            bad.append("table %d: redop %s under %s, a collective that reduces nothing"
                       % (i + 1, t.get("redop"), t.get("collective")))
    # busbw 0 on every row with an algbw (>= 0.02: 2+ ranks' busbw prints >= 0.01) is a
    # 1-rank run's: said (one_rank_runs, "ran alone"), and rows of one size repeated are
    # separate runs (table_interleaved); and never said of a table whose busbw moves
    for i, t in enumerate(d.get("tests") or []):
        if not isinstance(t, dict):
            continue
        rows = [r for r in t.get("rows") or [] if isinstance(r, dict)]
        ms = [r.get(g) or {} for r in rows for g in ("oop", "ip")]
        ms = [m for m in ms if (m.get("algbw") or 0) >= 0.02]
        alone = bool(ms) and all(m.get("busbw") == 0 for m in ms)
        if bool(t.get("one_rank_runs")) != alone:
            bad.append("table %d: one_rank_runs %r, but its rows say %r"
                       % (i + 1, t.get("one_rank_runs"), alone))
        if alone and not any("ran alone" in m for m in msgs):
            bad.append("table %d: busbw 0 with algbw > 0, but no warning says each process ran alone"
                       % (i + 1))
        sizes = [r.get("size") for r in rows]
        if alone and len(set(sizes)) < len(sizes) and "table_interleaved" not in codes_of(d):
            bad.append("table %d: 1-rank runs with repeated sizes, but no table_interleaved" % (i + 1))
    bad += warnings_agree(d, rec_path, msgs)
    bad += joined_read(d, rec_path, codes_of(d))
    # a connection through NCCL's network transport ("via NET/...") is never of an unknown
    # class: the line itself says the hop is the network's
    for k in d.get("links") or []:
        if isinstance(k, dict) and str(k.get("via", "")).startswith("NET/") and k.get("class") == "unknown":
            bad.append("link %s %s -> %s via %s: class unknown" % (k.get("channel"), k.get("from"),
                                                                     k.get("to"), k.get("via")))
            break
    # a warning that no ring lines are in the record holds
    for m in msgs:
        if m.startswith("no ring lines") and RING_LINE.search(record_text(rec_path)):
            bad.append("warns %r, but the record has 'Ring NN :' / 'Channel NN :' lines" % m)
        if m.startswith("no ring-order line") and RING_ORDER.search(record_text(rec_path)):
            bad.append("warns %r, but the record has a ring-order line" % m)
    # mixed_forms holds only where one transport family's links come in both forms
    # ("Channel 00 :" and "Channel 00/0 :"): one NCCL prints P2P/SHM and NET links unlike
    # the printer of a ring order (rank 0, the first of its line) or of a neighbour line
    # (the middle rank of "Ring 00 : 7 -> 0 -> 1") is on its line's host (one communicator)
    if len(e["communicators"]) == 1:
        hosts = {r.get("rank"): r.get("host") for r in d.get("ranks") or []
                 if isinstance(r, dict)}
        for m in PRINTER.finditer(record_text(rec_path)):
            h, r = m.group(1), m.group(2) or m.group(3)
            if h in e["hosts"] and hosts.get(int(r)) != h:
                bad.append("rank %s printed a ring line on %s, but is placed on %r"
                           % (r, h, hosts.get(int(r))))
                break
    codes = [w.get("code") for w in d.get("warnings") or [] if isinstance(w, dict)]
    # text before a header that is only a paste's indentation (blanks) is no prefix at all
    rec_lines = None
    for w in d.get("warnings") or []:
        m = re.search(r":(\d+): ", str(w.get("message", ""))) if isinstance(w, dict) else None
        if not m or w.get("code") != "unreadable_prefix":
            continue
        if rec_lines is None:
            rec_lines = record_text(rec_path).split("\n")
        n = int(m.group(1))
        if 0 < n <= len(rec_lines) and INDENTED.match(rec_lines[n - 1]):
            bad.append("line %d: warns unreadable_prefix, but only blanks come before its "
                       "header" % n)
            break
    if "mixed_forms" in codes and "mixed_forms" not in e["warnings_expected"]:
        if not forms_clash(LINK_FORM.findall(record_text(rec_path))):
            bad.append("warns mixed_forms, but one NCCL version prints all its link forms")
    return bad


def corpus(list_path):
    """--corpus LIST: every record's checks in one run (see the usage above)."""
    fails, n, right, old_right, old_bad = 0, 0, 0, 0, []

    def fail(msg, details=()):
        nonlocal fails
        fails += 1
        print("FAIL: " + msg)
        for x in details:
            print("  " + x)

    with open(list_path) as f:
        entries = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for name, epath, rc, *outs in entries:
        e = json.load(open(epath))
        if e.get("record") != name:
            fail('expect/%s.json: its "record" is not %s' % (name, name))
        if rc == "-":
            continue
        n += 1
        jpath, tpath = outs
        try:
            d = json.load(open(jpath))
        except (OSError, ValueError) as err:
            d = None
            why = "no JSON from the reader (%s)" % err
        if rc != "0":
            old = ["exit %s" % rc]
        elif d is None:
            fail("%s: differs from expect/%s.json:" % (name, name), [why])
            old = ["no JSON"]
        else:
            bad = []
            check_new(e, d, bad)
            if bad:
                fail("%s: differs from expect/%s.json:" % (name, name), bad)
            else:
                right += 1
            old = check_old(e, d)
        try:
            if d is None:
                raise ValueError(why)
            text_bad = text_names_library(d, tpath)
        except (OSError, ValueError) as err:
            text_bad = "%s: %s" % (type(err).__name__, err)
        if text_bad:
            fail("%s: text: %s" % (name, text_bad))
        if d is not None and rc == "0":
            rec = os.path.join(os.path.dirname(os.path.dirname(epath)), name)
            promises = text_promises(e, d, tpath, rec)
            if promises:
                fail("%s: what every record's output owes:" % name, promises)
        if old:
            old_bad.append("%s: %s" % (name, "; ".join(old)))
        else:
            old_right += 1
    print("new contract: %d of %d records right" % (right, n))
    print("today's fields (nccl_version, nranks, nnodes, hosts, rings, trees, tests): %d of %d right"
          % (old_right, n))
    for x in old_bad:
        print("  old: " + x)
    return 1 if fails else 0


def main():
    if sys.argv[1] == "--selftest":
        return selftest(sys.argv[2:])
    if sys.argv[1] == "--corpus":
        return corpus(sys.argv[2])
    e = json.load(open(sys.argv[1]))
    try:
        d = json.load(open(sys.argv[2]))
    except (OSError, ValueError) as err:
        print("  no JSON from the reader (%s)" % err)
        print("OLD bad: no JSON")
        return 1
    bad = []
    check_new(e, d, bad)
    for b in bad:
        print("  " + b)
    old = check_old(e, d)
    print("OLD ok" if not old else "OLD bad: " + "; ".join(old))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

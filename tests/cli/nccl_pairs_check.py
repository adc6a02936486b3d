#!/usr/bin/env python3
"""nccl_pairs_check.py BIN RECORDS_DIR - every pair of records of tests/records whose
hand-written expectations (expect/<record>.json) show they are different jobs' is never read
as one record by `BIN nccl A B`: it is refused (exit 2, one line naming both files and "not
one job's record") or, when both hold rows of nccl-tests, compared ("nccl-tests runs
compared", or refused as not the same test). What shows two jobs, from the expectations alone: different libraries, x.y.z
versions or launchers (any MPI's rank tags are one kind), commIds and none in common, or
communicator sizes and none in common. Prints one FAIL line per wrong pair and a summary;
exits 0, or 1 on any failure."""
import json
import os
import subprocess
import sys

MPI = {"openmpi", "mpi"}


def kind(launcher):
    return "mpi" if launcher in MPI else launcher


def xyz(v):
    return None if v is None else ".".join(v.split(".")[:3])


def whys(a, b):
    """(kind, words) of every fact of the expectations that says two jobs."""
    out = []
    if a["library"] and b["library"] and a["library"] != b["library"]:
        out.append(("library", "libraries %s vs %s" % (a["library"], b["library"])))
    if a["version"] and b["version"] and xyz(a["version"]) != xyz(b["version"]):
        out.append(("version", "versions %s vs %s" % (a["version"], b["version"])))
    ia = {c["id"] for c in a["communicators"] if c["id"]}
    ib = {c["id"] for c in b["communicators"] if c["id"]}
    if ia and ib and not ia & ib:
        out.append(("commid", "commIds %s vs %s" % (sorted(ia), sorted(ib))))
    sa = {c["nranks"] for c in a["communicators"] if c["nranks"]}
    sb = {c["nranks"] for c in b["communicators"] if c["nranks"]}
    if sa and sb and not sa & sb:
        out.append(("size", "communicator sizes %s vs %s" % (sorted(sa), sorted(sb))))
    if a["launcher"] and b["launcher"] and kind(a["launcher"]) != kind(b["launcher"]):
        out.append(("launcher", "launchers %s vs %s" % (a["launcher"], b["launcher"])))
    return out


def main():
    binary, rdir = sys.argv[1], sys.argv[2]
    exp = {}
    for f in sorted(os.listdir(os.path.join(rdir, "expect"))):
        if f.endswith(".json"):
            e = json.load(open(os.path.join(rdir, "expect", f)))
            exp[e["record"]] = e
    names = sorted(exp)
    # every record with each kind of evidence it has against some other record: the first
    # such partner after it (in name order, round the end), each pair once
    todo = {}
    for i, a in enumerate(names):
        seen = set()
        for b in names[i + 1:] + names[:i]:
            for k, words in whys(exp[a], exp[b]):
                if k not in seen:
                    seen.add(k)
                    todo.setdefault(tuple(sorted((a, b))), words)
    fails = pairs = 0
    for (a, b), why in sorted(todo.items()):
        if True:
            pairs += 1
            pa, pb = os.path.join(rdir, a), os.path.join(rdir, b)
            r = subprocess.run([binary, "nccl", pa, pb], capture_output=True, text=True,
                               errors="replace", timeout=60)
            refused = (r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
                       and ("not one job's record" in r.stderr or "not the same test" in r.stderr))
            compared = r.returncode == 0 and r.stdout.startswith("nccl-tests runs compared")
            if not (refused or compared):
                fails += 1
                print("FAIL: %s + %s (%s): exit %d, read as one record: %s"
                      % (a, b, why, r.returncode, (r.stderr or r.stdout).split("\n")[0]))
    print("%d pairs of different jobs' records, %d read as one" % (pairs, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

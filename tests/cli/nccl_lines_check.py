#!/usr/bin/env python3
"""nccl_lines_check.py BIN RECORDS_DIR TMPDIR - no line of NCCL's is lost without a word.

Over every plain record of the corpus (tests/records/), three mutations a lab's copy makes:
  alone     a record's first NCCL INFO lines, each alone in a file: never called a record
            with "no NCCL ... lines" (it has one), whatever else is said;
  headless  a line "host:pid:tid [dev] NCCL INFO <text>" cut to "<text>" (its header lost):
            the JSON's warnings name that line ("FILE:N:");
  spliced   two neighbouring NCCL INFO link lines of different processes, A then B, written
            as a lab's terminal writes them when both print at once: "<A's header><B's
            line>" then "<A's text>" alone. The reader reads A's text as A's: the record's
            links are as many as the original's, and a warning names the headerless line.
Prints one "FAIL: ..." line per failure and a summary; exits 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys

HDR = re.compile(r"^(\S+:\d+:\d+ \[\d+\] NCCL INFO )(.*)$")
TEXT = re.compile(r"^(Ring \d+ :|Channel \d+|Trees \[|Tree \d+ :|comm 0x|Bootstrap :)")


def run(binary, path):
    p = subprocess.run([binary, "nccl", path, "--format", "json"], capture_output=True,
                       text=True, errors="replace", timeout=60)
    return p.returncode, p.stdout, p.stderr


def warned(out, path, n):
    try:
        d = json.loads(out)
    except ValueError:
        return False
    want = "%s:%d:" % (path, n)
    return any(w.get("message", "").startswith(want) for w in d.get("warnings", []))


def links(out):
    try:
        return len(json.loads(out).get("links", []))
    except ValueError:
        return -1


def main():
    binary, top, tmp = sys.argv[1:4]
    fails = tried = 0
    names = sorted(os.listdir(top))
    for name in names:
        src = os.path.join(top, name)
        if name in ("README.md", "expect") or not os.path.isfile(src) or name.endswith(".gz"):
            continue
        with open(src, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        hdr = [(i, HDR.match(l)) for i, l in enumerate(lines)]
        hdr = [(i, m) for i, m in hdr if m]
        out_path = os.path.join(tmp, name)
        for i, m in hdr[:2]:
            with open(out_path, "w") as f:
                f.write(lines[i] + "\n")
            rc, out, err = run(binary, out_path)
            tried += 1
            if "no NCCL" in err:
                fails += 1
                print("FAIL: alone: %s:%d: %s" % (name, i + 1, err.strip()[:120]))
        texts = [(i, m) for i, m in hdr if TEXT.match(m.group(2))]
        for i, m in texts[:3]:
            cut = lines[:i] + [m.group(2)] + lines[i + 1:]
            with open(out_path, "w") as f:
                f.write("\n".join(cut))
            rc, out, err = run(binary, out_path)
            tried += 1
            if not warned(out, out_path, i + 1):
                fails += 1
                print("FAIL: headless: %s:%d: no warning names the line (%r)"
                      % (name, i + 1, m.group(2)[:60]))
        pairs = [(a, b) for a, b in zip(hdr, hdr[1:])
                 if b[0] == a[0] + 1 and " via " in a[1].group(2) and " via " in b[1].group(2)
                 and a[1].group(1).split()[0] != b[1].group(1).split()[0]]
        if not pairs:
            continue
        rc0, out0, _ = run(binary, src)
        for (i, ma), (j, mb) in pairs[:2]:
            sp = lines[:i] + [ma.group(1) + lines[j], ma.group(2)] + lines[j + 1:]
            with open(out_path, "w") as f:
                f.write("\n".join(sp))
            rc, out, err = run(binary, out_path)
            tried += 1
            if links(out) != links(out0) or not warned(out, out_path, j + 1):
                fails += 1
                print("FAIL: spliced: %s:%d-%d: %d links (whole record: %d)%s"
                      % (name, i + 1, j + 1, links(out), links(out0),
                         "" if warned(out, out_path, j + 1) else ", no warning names line %d" % (j + 1)))
    print("nccl_lines_check: %d mutations, %d failures" % (tried, fails))
    return 1 if fails or tried < 50 else 0


if __name__ == "__main__":
    sys.exit(main())

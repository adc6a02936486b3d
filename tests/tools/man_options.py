#!/usr/bin/env python3
"""man_options.py - the options of every --help beside the man page's, section by section.

Usage: man_options.py MAN.scd HELPDIR
HELPDIR holds one file per section (interactive, present, trace, bench, ...), each the
--help text(s) of that part of collviz. A section's options in the man page are the
option entries (lines starting with "*-") under its heading: "# OPTIONS" is the
interactive program, "# PRESENTER" the presenter, "## NAME" a subcommand. A help's options
are the option column of its option lines and every [--option] of its usage lines; -h and
--help are left out (every part has them). Prints each difference as one line and exits 1
when there is any, so a new option cannot miss the man page, nor a removed one stay in it.
This script knows nothing of collviz's code: it reads the texts the program prints."""
import os
import re
import sys

OPT = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
SKIP = {"-h", "--help"}


def man_sections(path):
    sections, cur = {}, None
    for line in open(path, encoding="utf-8"):
        if line.startswith("# "):
            head = line[2:].strip()
            cur = ("interactive" if head.startswith("OPTIONS")
                   else "present" if head == "PRESENTER" else None)
        elif line.startswith("## "):
            cur = line[3:].strip()
        elif cur and line.startswith("*-"):
            entry = line.split("\t")[0]
            for m in re.finditer(r"\*([^*]+)\*", entry):
                sections.setdefault(cur, set()).update(OPT.findall(m.group(1)))
    return sections


def help_options(text):
    opts = set()
    for line in text.splitlines():
        s = line.lstrip()
        if s.startswith("usage:") or (line.startswith("    ") and s.startswith(("[", "collviz "))):
            opts.update(OPT.findall(" ".join(re.findall(r"\[([^\]]*)\]", s)) + " " +
                                    " ".join(t for t in s.split() if t.startswith("-"))))
        elif line.startswith(" ") and s.startswith("-"):
            column = re.split(r"\s{2,}", s)[0]
            opts.update(OPT.findall(column))
    return opts - SKIP


def main():
    man, helpdir = sys.argv[1], sys.argv[2]
    sections = man_sections(man)
    bad = 0
    for name in sorted(os.listdir(helpdir)):
        got = help_options(open(os.path.join(helpdir, name), encoding="utf-8").read())
        doc = sections.get(name, set()) - SKIP
        for o in sorted(got - doc):
            print(f"{name}: {o} is in --help but not in the man page")
            bad += 1
        for o in sorted(doc - got):
            print(f"{name}: {o} is in the man page but not in --help")
            bad += 1
    for name in sorted(set(sections) - set(os.listdir(helpdir))):
        print(f"{name}: a man page section with no --help to compare")
        bad += 1
    sys.exit(1 if bad else 0)


main()

# backend_names.py FILE... - the names of a backend (NCCL, MPI) that C code spells in
# identifiers, outside comments, string and character literals and #include lines: one line
# "FILE:LINE: NAME" each (tests/cli/test_backend_names.sh). Strings shown to users may name
# a backend; decisions read capabilities (backend.h) instead.
import re
import sys

NAME = re.compile(r"\b\w*(?:NCCL|MPI)\w*\b")


def code_only(text):
    """The text with comments and literals blanked, line breaks kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" ")
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


for path in sys.argv[1:]:
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = code_only(f.read()).split("\n")
    for no, line in enumerate(lines, 1):
        if re.match(r"\s*#\s*include", line):
            continue
        for m in NAME.finditer(line):
            print(f"{path}:{no}: {m.group(0)}")

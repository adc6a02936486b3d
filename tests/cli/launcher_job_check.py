#!/usr/bin/env python3
"""launcher_job_check.py FILE BACKEND RANKS ROWS: FILE holds exactly one `collviz bench
--format json` document (one process printed: rank 0's), measured on BACKEND with RANKS
ranks, with ROWS rows, each with #wrong 0. Says what differs and exits 1."""
import json
import sys

path, backend, ranks, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
text = open(path, encoding="utf-8").read()
try:
    doc, end = json.JSONDecoder().raw_decode(text.lstrip())
except ValueError as e:
    sys.exit(f"FAIL: not one JSON document ({e}): {text[:200]!r}")
if text.lstrip()[end:].strip():
    sys.exit(f"FAIL: more than one document (every process printed?): {text[end:end + 200]!r}")
bad = []
if doc.get("backend") != backend:
    bad.append(f"backend {doc.get('backend')!r}, want {backend!r}")
if doc.get("ranks") != ranks:
    bad.append(f"ranks {doc.get('ranks')!r}, want {ranks}")
got = doc.get("rows") or []
if len(got) != rows:
    bad.append(f"{len(got)} rows, want {rows}")
bad += [f"row {r.get('size')}: #wrong {r.get('wrong')}" for r in got if r.get("wrong") != 0]
if bad:
    sys.exit("FAIL: " + "; ".join(bad))

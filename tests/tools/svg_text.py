#!/usr/bin/env python3
"""svg_text.py - read an SVG written by collviz (src/ui/kit/svg.c) back into the text grid it
shows, from each <text>'s x, y and textLength (and each box-drawing <path>'s data-col,
data-row and data-ch), so tests can check what a picture shows and
that its geometry is consistent (every run's text is exactly as many cells as it spans).

usage: svg_text.py FILE.svg|FILE.html [INDEX]   prints the grid of the INDEX-th <svg> (0);
       exit 1 with a message when the document does not parse or a run is inconsistent."""
import sys
import xml.etree.ElementTree as ET

CELL_W, CELL_H = 10, 20


def grid(svg):
    w = int(svg.get("width")) // CELL_W
    h = int(svg.get("height")) // CELL_H
    rows = [[" "] * w for _ in range(h)]
    # Standalone SVGs carry the SVG namespace, inline ones (HTML5) do not.
    for t in (e for e in svg.iter() if e.tag.rsplit("}", 1)[-1] == "text"):
        x, y, n = int(t.get("x")), int(t.get("y")), int(t.get("textLength"))
        if x % CELL_W or n % CELL_W:
            raise ValueError("run at x=%d length %d is not on the cell grid" % (x, n))
        col, row, cells = x // CELL_W, y // CELL_H, n // CELL_W
        s = t.text or ""
        if len(s) != cells:
            raise ValueError("run %r at row %d col %d: %d characters for %d cells"
                             % (s, row, col, len(s), cells))
        for i, ch in enumerate(s):
            rows[row][col + i] = ch
    # Box-drawing cells are drawn as lines; each path names its cell and character.
    for p in (e for e in svg.iter() if e.tag.rsplit("}", 1)[-1] == "path"):
        if p.get("data-ch") is not None:
            rows[int(p.get("data-row"))][int(p.get("data-col"))] = p.get("data-ch")
    return "\n".join("".join(r).rstrip() for r in rows) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    path, idx = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 0
    with open(path, encoding="utf-8") as f:
        data = f.read()
    if path.endswith(".html"):
        # The n-th inline <svg> ... </svg> of an HTML handout.
        parts = data.split("<svg ")
        if idx + 1 >= len(parts):
            print("svg_text: no <svg> number %d in %s" % (idx, path), file=sys.stderr)
            return 1
        data = "<svg " + parts[idx + 1].split("</svg>")[0] + "</svg>"
    try:
        root = ET.fromstring(data)
        sys.stdout.write(grid(root))
    except (ET.ParseError, ValueError) as e:
        print("svg_text: %s: %s" % (path, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

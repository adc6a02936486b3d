#!/usr/bin/env python3
"""render_png.py - render a `tmux capture-pane -p -e` capture (text with ANSI colours) to a
PNG, so screenshots come from the real program and never go stale.

usage: render_png.py CAPTURE.ans OUT.png COLS ROWS

The capture is replayed through pyte (a VT terminal emulator, Debian's python3-pyte) and
each cell is drawn with Pillow in DejaVu Sans Mono (fonts-dejavu-core)."""
import sys

import pyte
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
SIZE = 16

# A dark theme close to common terminal defaults.
BG = (24, 26, 33)
FG = (220, 223, 228)
NAMED = {
    "black": (40, 42, 54), "red": (224, 88, 88), "green": (106, 190, 106),
    "brown": (215, 186, 90), "yellow": (215, 186, 90), "blue": (86, 140, 230),
    "magenta": (200, 120, 220), "cyan": (80, 190, 205), "white": (220, 223, 228),
    "brightblack": (110, 114, 126), "brightred": (255, 120, 120),
    "brightgreen": (140, 225, 140), "brightbrown": (245, 215, 120),
    "brightyellow": (245, 215, 120), "brightblue": (120, 170, 255),
    "brightmagenta": (230, 150, 245), "brightcyan": (120, 225, 235),
    "brightwhite": (255, 255, 255),
}


def colour(name, default):
    if name == "default":
        return default
    if name in NAMED:
        return NAMED[name]
    if len(name) == 6:
        try:
            return tuple(int(name[i:i + 2], 16) for i in (0, 2, 4))
        except ValueError:
            pass
    return default


def main():
    if len(sys.argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    screen = pyte.Screen(cols, rows)
    stream = pyte.Stream(screen)
    with open(src, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines[:rows]):
        stream.feed("\x1b[%d;1H" % (i + 1))
        stream.feed(line)

    regular = ImageFont.truetype(FONT_DIR + "DejaVuSansMono.ttf", SIZE)
    bold = ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Bold.ttf", SIZE)
    cw = int(round(regular.getlength("M")))
    ascent, descent = regular.getmetrics()
    ch = ascent + descent
    pad = 8
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * ch + 2 * pad), BG)
    draw = ImageDraw.Draw(img)
    for y in range(rows):
        row = screen.buffer[y]
        for x in range(cols):
            c = row[x]
            fg = colour(c.fg, FG)
            bg = colour(c.bg, BG)
            if c.bold and c.fg in NAMED and not c.fg.startswith("bright"):
                fg = colour("bright" + c.fg, fg)
            if c.reverse:
                fg, bg = bg, fg
            px, py = pad + x * cw, pad + y * ch
            if bg != BG:
                draw.rectangle([px, py, px + cw - 1, py + ch - 1], fill=bg)
            if c.data and c.data != " ":
                draw.text((px, py), c.data, font=bold if c.bold else regular, fill=fg)
            if c.underscore:
                draw.line([px, py + ch - 2, px + cw - 1, py + ch - 2], fill=fg)
    img.save(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

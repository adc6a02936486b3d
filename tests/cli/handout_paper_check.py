#!/usr/bin/env python3
"""handout_paper_check.py - read an exported PDF handout as a reader of a black-and-white
copy does, from poppler's output only (never from collviz's own words about itself):

  BBOX    pdftotext -bbox-layout of the PDF (words with their boxes, in points)
  PAGES   the prefix of pdftoppm -gray -r 72 of the same PDF (P5 PGM files PREFIX-NNN.pgm:
          one pixel a point)
  SHOWS   a folder of `collviz lesson show FILE --format json`, one per lesson, in order

and check, on every page:
  - no text under 6 pt (a word's box is 1.164 em high in DejaVu Sans: ascent + descent);
  - every slide is on a page under its deck number (the presenter's: 1..N over the lessons
    in order, counted here from the lessons) and its title, with "lesson L, slide S";
  - a slide on the parallelism screen shows its scheme's picture: the words only that
    scheme's picture has (a Gantt chart and its bubble for pp, what each rank keeps for
    ZeRO, the tokens and the all-to-all's blocks for MoE...), 0-based ranks;
  - every legend's rank swatches, sampled in grey: ranks side by side (r, r+1) differ in
    luminance by at least 3:1, and ranks two apart (same luminance) differ in their
    hatching. 3:1 is WCAG 2.1's contrast for graphical objects a reader must tell apart
    (SC 1.4.11, non-text contrast): the standard for "distinguishable" that needs no colour;
  - a slide whose scene points at something (highlight=) shows the marker (★) drawn dark;
  - (handouts) no sentence tells the reader to press a key.
Prints the problems found (at most 30) and exits 1 when there are any.
Usage: handout_paper_check.py BBOX PAGES SHOWS [--notes]"""
import glob
import html
import json
import os
import re
import sys

MIN_PT = 6.0
EM_BOX = 1.164  # DejaVu Sans: (ascent 0.928 + descent 0.236) em
NEIGHBOUR = 3.0  # WCAG 2.1 SC 1.4.11

# The words each scheme's paper picture has and no other's (the screen's labels).
SCHEME_WORDS = {
    "ddp": ["data parallel (DDP)", "rows 0-1", "Legend · data of"],
    "tp": ["tensor parallel (columns)", "column", "Legend · data of"],
    "pp": ["pipeline parallel (stages)", "ideal schedule (model)", "bubble (hatched)",
           "F0", "B0", "s0", "idle cells of", "Legend · stages"],
    "zero1": ["ZeRO stage 1", "What each rank keeps", "AdamW state", "shard 0 of"],
    "zero2": ["ZeRO stage 2", "What each rank keeps", "AdamW state", "shard 0 of"],
    "zero3": ["ZeRO stage 3", "What each rank keeps", "AdamW state", "shard 0 of"],
    "moe": ["mixture of experts", "tokens per expert", "the all-to-all of layer", "from r0",
            "to r1", "receives"],
}


def lum8(g):
    """WCAG relative luminance of an 8-bit grey."""
    c = g / 255.0
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def contrast(a, b):
    la, lb = sorted((lum8(a), lum8(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def read_pgm(path):
    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P5\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    w, h = int(m.group(1)), int(m.group(2))
    return w, h, data[m.end():]


def read_pages(bbox):
    """[page] -> list of lines, each a list of words (x0, y0, x1, y1, text)."""
    t = open(bbox, encoding="utf-8").read()
    pages = []
    for p in re.findall(r"<page [^>]*>(.*?)</page>", t, re.S):
        lines = []
        for ln in re.findall(r"<line [^>]*>(.*?)</line>", p, re.S):
            words = [(float(a), float(b), float(c), float(d), html.unescape(w))
                     for a, b, c, d, w in re.findall(
                         r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" '
                         r'yMax="([\d.]+)">([^<]*)</word>', ln)]
            if words:
                lines.append(words)
        pages.append(lines)
    return pages


def text_of(line):
    return " ".join(w[4] for w in line)


def norm(s):
    return re.sub(r"\s+", " ", s.replace("-", "").replace("\u00ad", "")).strip()


def scene_words(scene):
    return dict(kv.split("=", 1) for kv in scene.split() if "=" in kv)


class Check:
    def __init__(self, bbox, pages, shows, notes):
        self.pages = read_pages(bbox)
        self.prefix = pages
        self.notes = notes
        self.bad = []
        self.slides = []  # (deck no, lesson no, slide no, title, scene dict)
        for k, f in enumerate(sorted(glob.glob(os.path.join(shows, "*.json")))):
            les = json.load(open(f, encoding="utf-8"))
            for i, s in enumerate(les["slides"]):
                self.slides.append((len(self.slides) + 1, k + 1, i + 1, s["title"],
                                    scene_words(s.get("scene") or "")))
        self.images = {}

    def image(self, page):
        if page not in self.images:
            cands = glob.glob("%s-*%d.pgm" % (self.prefix, page))
            cands = [c for c in cands if int(re.search(r"-(\d+)\.pgm$", c).group(1)) == page]
            self.images[page] = read_pgm(cands[0]) if cands else None
        return self.images[page]

    def region(self, page, x0, y0, x1, y1):
        img = self.image(page)
        if not img:
            return []
        w, h, px = img
        out = []
        for y in range(max(0, int(y0)), min(h, int(y1))):
            out.append([px[y * w + x] for x in range(max(0, int(x0)), min(w, int(x1)))])
        return out

    def sizes(self):
        small = []
        for n, p in enumerate(self.pages, 1):
            for line in p:
                for w in line:
                    pt = (w[3] - w[1]) / EM_BOX
                    if pt < MIN_PT - 0.05:
                        small.append("page %d: %r is %.1f pt" % (n, w[4], pt))
        self.bad += small[:10]
        return sum(len(line) for p in self.pages for line in p)

    def headings(self):
        """deck no -> (page, line index) of its heading (a long title wraps: a heading is
        read with the two lines after it)."""
        at = {}
        for no, les, sl, title, _ in self.slides:
            want = norm("%d %s" % (no, title))
            own = "lesson %d, slide %d" % (les, sl)
            for n, p in enumerate(self.pages, 1):
                for li, line in enumerate(p):
                    if line[0][4] != str(no):
                        continue
                    t = " ".join(text_of(x) for x in p[li:li + 3])
                    if norm(t).startswith(want) and own in t:
                        at[no] = (n, li)
                        break
                if no in at:
                    break
            if no not in at:
                self.bad.append("slide %d %r (%s): no heading with its number" % (no, title, own))
        return at

    def slide_text(self, at, no):
        """The words from slide no's heading to the next slide's."""
        if no not in at:
            return ""
        p0, l0 = at[no]
        p1, l1 = at.get(no + 1, (len(self.pages), 10 ** 6))
        out = []
        for n in range(p0, p1 + 1):
            for li, line in enumerate(self.pages[n - 1]):
                if (n == p0 and li < l0) or (n == p1 and li >= l1):
                    continue
                out.append(text_of(line))
        return "\n".join(out)

    def schemes(self, at):
        seen = 0
        for no, les, sl, title, sc in self.slides:
            if sc.get("screen") != "parallel":
                continue
            seen += 1
            t = self.slide_text(at, no)
            scheme = sc.get("scheme", "ddp")
            for w in SCHEME_WORDS[scheme]:
                if w not in t:
                    self.bad.append("slide %d (%s): no %r in its picture" % (no, scheme, w))
            ranks = int(sc.get("ranks", "4"))
            if re.search(r"\b(rank|stage) %d\b" % ranks, t):
                self.bad.append("slide %d: a rank or stage numbered %d of %d (1-based?)" %
                                (no, ranks, ranks))
            if "Picture: " not in t or "frame " not in t and scheme != "moe":
                self.bad.append("slide %d: no caption in words" % no)
        return seen

    def swatches(self):
        """Every legend's rank swatches, sampled on the grey page."""
        legends = 0
        for n, p in enumerate(self.pages, 1):
            words = [w for line in p for w in line]
            for lg in words:
                if lg[4] != "Legend":
                    continue
                ranks = sorted((w for w in words if re.fullmatch(r"[rs]\d+", w[4]) and
                                abs(w[1] - lg[1]) < 2 and w[0] > lg[0]), key=lambda w: w[0])
                if len(ranks) < 2:
                    continue
                legends += 1
                blocks = []
                for w in ranks:
                    s = (w[3] - w[1]) / EM_BOX / 8.5  # the legend's scale on the page
                    mid = (w[1] + w[3]) / 2
                    blk = self.region(n, w[0] - 17 * s, mid - 3.5 * s, w[0] - 7 * s,
                                      mid + 3.5 * s)
                    flat = [v for row in blk for v in row]
                    if not flat:
                        self.bad.append("page %d: no pixels under %s's swatch" % (n, w[4]))
                        return legends
                    blocks.append((w[4], blk, sum(flat) / len(flat)))
                for a, b in zip(blocks, blocks[1:]):
                    c = contrast(a[2], b[2])
                    if c < NEIGHBOUR:
                        self.bad.append("page %d: swatches %s and %s are %.2f:1 in grey (< %g)"
                                        % (n, a[0], b[0], c, NEIGHBOUR))
                for a, b in zip(blocks, blocks[2:]):
                    if texture_diff(a[1], b[1]) < 8:
                        self.bad.append("page %d: swatches %s and %s hatch alike" %
                                        (n, a[0], b[0]))
        return legends

    def highlights(self, at):
        n = 0
        for no, les, sl, title, sc in self.slides:
            if sc.get("highlight", "none") == "none":
                continue
            n += 1
            if no not in at:
                continue
            if "\u2605" not in self.slide_text(at, no):
                self.bad.append("slide %d: points at %s but no marker is drawn" %
                                (no, sc["highlight"]))
                continue
            dark = False
            for pg in range(at[no][0], at.get(no + 1, (len(self.pages), 0))[0] + 1):
                for line in self.pages[pg - 1]:
                    for w in line:
                        if w[4].startswith("\u2605"):
                            blk = self.region(pg, w[0], w[1], w[0] + (w[3] - w[1]), w[3])
                            vals = [v for row in blk for v in row]
                            dark |= bool(vals) and contrast(min(vals), 255) >= NEIGHBOUR
            if not dark:
                self.bad.append("slide %d: its marker is not dark enough to print" % no)
        return n

    def keys(self):
        for n, p in enumerate(self.pages, 1):
            for line in p:
                t = text_of(line)
                if re.search(r"\b[Pp]ress(es|ing|ed)?\b", t) or re.search(r"\bwith [←→↑↓]", t):
                    self.bad.append("page %d: a key on paper: %r" % (n, t[:90]))


def texture_diff(a, b):
    """Mean absolute difference of two grey blocks, each less its own mean: hatching that
    differs (none, /, dots, \\) differs here, a mere change of fill does not."""
    fa = [v for row in a for v in row]
    fb = [v for row in b for v in row]
    m = min(len(fa), len(fb))
    if m == 0:
        return 0
    ma, mb = sum(fa) / len(fa), sum(fb) / len(fb)
    return sum(abs((fa[i] - ma) - (fb[i] - mb)) for i in range(m)) / m


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    c = Check(sys.argv[1], sys.argv[2], sys.argv[3], "--notes" in sys.argv[4:])
    words = c.sizes()
    at = c.headings()
    par = c.schemes(at)
    legends = c.swatches()
    hl = c.highlights(at)
    if not c.notes:
        c.keys()
    if len(c.slides) < 40 or par < 10 or legends < 20 or words < 1000:
        c.bad.append("too little read: %d slides, %d parallelism slides, %d legends, %d words"
                     % (len(c.slides), par, legends, words))
    for b in c.bad[:30]:
        print("  " + b)
    print("  read %d pages, %d words, %d slides (%d on the parallelism screen, %d pointing "
          "at something), %d legends" % (len(c.pages), words, len(c.slides), par, hl, legends))
    return 1 if c.bad else 0


if __name__ == "__main__":
    sys.exit(main())

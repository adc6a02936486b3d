#!/usr/bin/env python3
"""frame_writes.py - what a program wrote to its terminal, from a log of
`strace -f -ttt -y -xx -s 1000000 -e trace=write -o LOG`: only the write()s to a
/dev/pts/* descriptor count. The writes of the screen's life are those after the question
about synchronized output (CSI ? 2026 $ p) and before curses ends (its first write that
shows the cursor again, CSI ? 25 h, or leaves the alternate screen, CSI ? 1049 l), less
those that only set or reset modes (CSI ? Pn h|l: the mouse switched on and off), which
are not frames. Prints one line of key=value facts:

  writes      the screen's writes
  bracketed   those that start with CSI ? 2026 h and end with CSI ? 2026 l, one of each
  marks       writes holding CSI ? 2026 h or l anywhere (bracketed or not)
  seconds     from the first to the last of the screen's writes
  asked       1 when the question was written
  ask_to_frame_s  seconds from the question to the first of the screen's writes

usage: frame_writes.py LOG
"""
import re
import sys

LINE = re.compile(r'^\d+\s+([\d.]+)\s+write\(\d+<([^>]*)>(?:\(deleted\))?, "((?:\\x[0-9a-f]{2})*)"')
ASK = b"\x1b[?2026$p"
ON, OFF = b"\x1b[?2026h", b"\x1b[?2026l"
LEAVE = (b"\x1b[?25h", b"\x1b[?1049l")
MODES = re.compile(rb"^(\x1b\[\?[0-9;]+[hl])+$")


def unhex(s):
    return bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-f]{2})", s))


def main():
    writes = []
    with open(sys.argv[1], encoding="ascii", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m or not unhex(m.group(2)).startswith(b"/dev/pts/"):
                continue
            writes.append((float(m.group(1)), unhex(m.group(3))))
    facts = {"writes": 0, "bracketed": 0, "marks": 0, "seconds": 0.0, "asked": 0,
             "ask_to_frame_s": -1.0}
    t_ask = None
    screen = []
    for ts, data in writes:
        if t_ask is None:
            if ASK in data:
                t_ask = ts
                facts["asked"] = 1
            continue
        if any(m in data for m in LEAVE):
            break
        if not MODES.match(data):
            screen.append((ts, data))
    for ts, data in screen:
        facts["writes"] += 1
        if ON in data or OFF in data:
            facts["marks"] += 1
        if (data.startswith(ON) and data.endswith(OFF) and data.count(ON) == 1
                and data.count(OFF) == 1):
            facts["bracketed"] += 1
    if screen:
        facts["seconds"] = round(screen[-1][0] - screen[0][0], 3)
        facts["ask_to_frame_s"] = round(screen[0][0] - t_ask, 3)
    print(" ".join("%s=%s" % kv for kv in facts.items()))


if __name__ == "__main__":
    main()

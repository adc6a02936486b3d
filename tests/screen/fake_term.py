#!/usr/bin/env python3
"""fake_term.py - a terminal for the frame tests: runs a command on a pseudo-terminal of a
given size, answers (or not) its question about synchronized output, waits for a text on
the screen, presses keys, quits, and says what it saw.

usage: fake_term.py [--reply sync|da1|none] [--size COLSxROWS] [--wait TEXT]
                    [--keys "K K ..."] [--end q|TERM] [--raw FILE] -- COMMAND...

--reply: sync answers DECRQM for mode 2026 with "reset" (supported) and then DA1; da1 answers
only DA1, as tmux 3.3a does; none answers nothing at all; late answers as sync does, but
0.8 s after the question (a slow link, or a loaded machine's tmux), once the program has
stopped waiting for it. Keys: a word from KEYS below or a
single character; after each the terminal waits for the frame it draws (output, then 0.15 s
without more; 5 s at most).
--end q presses q, TERM sends SIGTERM (to the command under strace, not to strace). Prints one line of key=value facts: asked (the
DECRQM question was seen), ask_to_text_s (seconds from the question to the --wait text),
exit (the command's status, or -signal), restored (canonical mode and echo on again
after the command ended), keys (the number pressed). --raw FILE keeps every byte written.
"""
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import fcntl
import time

KEYS = {"SPACE": b" ", "RIGHT": b"\x1bOC", "LEFT": b"\x1bOD", "PGDN": b"\x1b[6~", "ENTER": b"\r"}
ASK = b"\x1b[?2026$p"
REPLIES = {"sync": b"\x1b[?2026;2$y\x1b[?62;22c", "da1": b"\x1b[?62;22c", "none": b"",
           "late": b"\x1b[?2026;2$y\x1b[?62;22c"}
LATE_S = 0.8  # --reply late: the answer comes this long after the question


def innermost(pid):
    """The command itself where it runs under another (strace): the first child's first
    child..., else pid."""
    while True:
        try:
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                kids = f.read().split()
        except OSError:
            return pid
        if not kids:
            return pid
        pid = int(kids[0])


def main():
    args = sys.argv[1:]
    opts = {"--reply": "sync", "--size": "120x36", "--wait": "", "--keys": "",
            "--end": "q", "--raw": ""}
    while args and args[0] != "--":
        if args[0] not in opts or len(args) < 2:
            sys.exit("fake_term.py: bad option %r" % args[0])
        opts[args[0]] = args[1]
        args = args[2:]
    cmd = args[1:]
    if not cmd or opts["--reply"] not in REPLIES:
        sys.exit(__doc__)
    cols, rows = (int(v) for v in opts["--size"].split("x"))

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("NO_COLOR", None)

    def child_setup():
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env,
                            preexec_fn=child_setup, close_fds=True)
    out = bytearray()
    facts = {"asked": 0, "ask_to_text_s": -1.0, "keys": 0}
    t_ask = None
    answered = False
    pending = b""  # an answer not yet given (--reply late)

    def pump(seconds, until=None, quiet=None):
        """Reads the output for up to seconds; stops early once until() is true or the
        output has been quiet for `quiet` seconds. Answers the question once."""
        nonlocal t_ask, answered, pending
        end = time.monotonic() + seconds
        last = time.monotonic()
        while time.monotonic() < end:
            if pending and time.monotonic() - t_ask >= LATE_S:
                os.write(master, pending)
                pending = b""
            if until and until():
                return True
            if quiet is not None and not pending and time.monotonic() - last >= quiet:
                return True
            r, _, _ = select.select([master], [], [], 0.05)
            if not r:
                if proc.poll() is not None:
                    return False
                continue
            try:
                data = os.read(master, 65536)
            except OSError:
                return False
            if not data:
                return False
            out.extend(data)
            last = time.monotonic()
            if not answered and ASK in out:
                answered = True
                t_ask = time.monotonic()
                facts["asked"] = 1
                if opts["--reply"] == "late":
                    pending = REPLIES["late"]
                elif REPLIES[opts["--reply"]]:
                    os.write(master, REPLIES[opts["--reply"]])
        return until() if until else False

    wait = opts["--wait"].encode()
    if wait:
        if not pump(20, until=lambda: wait in out):
            facts["error"] = "wait_text_not_seen"
        elif t_ask is not None:
            facts["ask_to_text_s"] = round(time.monotonic() - t_ask, 3)
    pump(1.0, quiet=0.4)
    for k in opts["--keys"].split():
        before = len(out)
        os.write(master, KEYS.get(k, k.encode()))
        facts["keys"] += 1
        # the key's frame: its first bytes, then the rest (one write, which the pty may
        # hand over in pieces) until 0.15 s pass without more
        pump(5, until=lambda: len(out) > before)
        pump(1.0, quiet=0.15)
    if opts["--end"] == "TERM":
        os.kill(innermost(proc.pid), signal.SIGTERM)
    else:
        os.write(master, b"q")
    end = time.monotonic() + 15
    while proc.poll() is None and time.monotonic() < end:
        pump(0.2)
    if proc.poll() is None:
        proc.kill()
        facts["error"] = "did_not_exit"
    proc.wait()
    pump(0.3, quiet=0.1)
    facts["exit"] = proc.returncode
    mode = termios.tcgetattr(slave)
    facts["restored"] = int(bool(mode[3] & termios.ICANON) and bool(mode[3] & termios.ECHO))
    if opts["--raw"]:
        with open(opts["--raw"], "wb") as f:
            f.write(out)
    print(" ".join("%s=%s" % kv for kv in facts.items()))


if __name__ == "__main__":
    main()

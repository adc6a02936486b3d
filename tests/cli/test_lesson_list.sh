#!/usr/bin/env bash
# test_lesson_list.sh - `collviz lesson list` names each lesson's id (what `collviz lesson
# ID` takes) and keeps its columns aligned in terminal columns even for a long title with
# wide or accented characters (issue 18); a lesson's file slug opens it like its id
# (lesson 05's file is allreduce-is-rs-plus-ag, its id allreduce-decomposed; the README's
# example) in the player. At 80 columns (a terminal's, or $COLUMNS) no line is wider:
# a lesson is then a block of lines with its title wrapped. Usage: test_lesson_list.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
HERE=$TOP
SOCK="collviz-test_lesson_list-$$"
cli_cleanup_extra='tmux -L "$SOCK" kill-server 2>/dev/null; tmux -L "$SOCK-2" kill-server 2>/dev/null'
export XDG_STATE_HOME=$tmp/state

mkdir -p "$tmp/l"
printf -- '---\nlesson: short\nminutes: 5\n---\n\n# Short\n\nText.\n' >"$tmp/l/01-a.md"
printf -- '---\nlesson: a-much-longer-lesson-id\ntitle: Größe – a very long title: 漢字 wide, and more words\n---\n\n# Long\n\nText.\n' \
    >"$tmp/l/02-a-long-file-name-for-a-lesson.md"
COLLVIZ_LESSONS=$tmp/l "$BIN" lesson list >"$tmp/out" 2>"$tmp/err" || fail "list failed: $(cat "$tmp/err")"
grep -qE '^file +id +title +length +progress$' "$tmp/out" || fail "no header: $(head -1 "$tmp/out")"
grep -qE '^01-a\.md +short +Short ' "$tmp/out" || fail "the id is not listed: $(sed -n 2p "$tmp/out")"
grep -qE '^02-a-long-file-name-for-a-lesson\.md +a-much-longer-lesson-id +Größe' "$tmp/out" ||
    fail "the long lesson's line: $(sed -n 3p "$tmp/out")"
# every column starts at the same terminal column on every line (漢字 is 2 columns each)
python3 - "$tmp/out" <<'PY' || fail "columns are misaligned: $(cat "$tmp/out")"
import sys, unicodedata
def cols(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
head = lines[0]
want = [cols(head[:head.index(w)]) for w in ("id", "title", "length", "progress")]
for l in lines[1:]:
    i = l.index("seen ")
    # the progress column: "seen" starts under "progress"
    assert cols(l[:i]) == want[3], (l, cols(l[:i]), want[3])
    assert cols(l[:l.index("short" if "short" in l else "a-much")]) == want[0]
PY

# At 80 columns (and 40: the long title) no line is wider than the terminal: a lesson
# whose table row would not fit is a block of lines, its title wrapped, every word kept.
for spec in "$HERE/lessons:80" "$tmp/l:40"; do
    dir=${spec%:*} w=${spec##*:}
    COLLVIZ_LESSONS=$dir COLUMNS=$w "$BIN" lesson list >"$tmp/narrow" 2>"$tmp/err" ||
        fail "list at $w columns failed: $(cat "$tmp/err")"
    python3 - "$tmp/narrow" "$w" "$dir" <<'PY' || fail "list at $w columns: $(cat "$tmp/narrow")"
import sys, unicodedata, glob, re, os
def cols(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
out = open(sys.argv[1], encoding="utf-8").read()
w = int(sys.argv[2])
for l in out.splitlines():
    assert cols(l) <= w, ("wider than %d" % w, l)
words = out.split()
for f in sorted(glob.glob(os.path.join(sys.argv[3], "[0-9]*.md"))):
    head = open(f, encoding="utf-8").read().split("\n---", 1)[0]
    lid = re.search(r"^lesson: *(.*)$", head, re.M).group(1).strip()
    m = re.search(r"^title: *(.*)$", head, re.M)
    assert any((l + " ").startswith(lid + " ") for l in out.splitlines()), ("no line starts with", lid)
    if m:  # every word of the title, in order, after the id
        rest = out[out.index(lid):].split()
        for t in m.group(1).strip().split():
            assert t in rest, (lid, t)
            rest = rest[rest.index(t) + 1:]
PY
done

# the slug opens lesson 05 in the player (a terminal: tmux)
tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 -s m \
    "LANG=C.UTF-8 COLLVIZ_LESSONS=$HERE/lessons XDG_STATE_HOME=$tmp/state $BIN lesson allreduce-is-rs-plus-ag --backend cpu --no-measure; echo EXITED:\$?; sleep 60"
ok=0
for _ in $(seq 1 100); do
    if tmux -L "$SOCK" capture-pane -p -t m 2>/dev/null | grep -qF "slide 1/"; then ok=1; break; fi
    sleep 0.1
done
[ $ok = 1 ] || fail "collviz lesson allreduce-is-rs-plus-ag did not open: $(tmux -L "$SOCK" capture-pane -p -t m | head -3)"
tmux -L "$SOCK" capture-pane -p -t m | grep -qF "All-reduce = reduce-scatter + all-gather" ||
    fail "the slug opened another lesson"
tmux -L "$SOCK" send-keys -t m q
# the list opens with its cursor on the lesson visited last (lesson 05, just now)
tmux -L "$SOCK" kill-server 2>/dev/null
SOCK=$SOCK-2 # a fresh server: the old one may still be shutting down
tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 -s m \
    "LANG=C.UTF-8 COLLVIZ_LESSONS=$HERE/lessons XDG_STATE_HOME=$tmp/state $BIN lesson --backend cpu --no-measure; echo EXITED:\$?; sleep 60"
ok=0
for _ in $(seq 1 100); do
    if tmux -L "$SOCK" capture-pane -p -t m 2>/dev/null | grep -qF "collviz lessons"; then ok=1; break; fi
    sleep 0.1
done
[ $ok = 1 ] || fail "the list did not come up"
tmux -L "$SOCK" capture-pane -p -t m | grep -qE "▶ +5\. All-reduce = reduce-scatter \+ all-gather" ||
    fail "the list's cursor is not on the last lesson: $(tmux -L "$SOCK" capture-pane -p -t m | grep -F '▶')"
tmux -L "$SOCK" send-keys -t m q
out=$("$BIN" lesson no-such-slug 2>&1 >/dev/null)
[ $? -eq 2 ] || fail "an unknown slug did not exit 2"
cli_finish test_lesson_list

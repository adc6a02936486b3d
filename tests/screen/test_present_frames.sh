#!/usr/bin/env bash
# A frame reaches the terminal in one write(): the presenter, the player and the notes view
# run on a pseudo-terminal (fake_term.py) under strace, which logs every write() to it
# (frame_writes.py reads the log). Where the terminal answers that it has synchronized
# output (DEC mode 2026), every write of the screen's life is one frame between CSI ? 2026 h
# and CSI ? 2026 l; where it answers only DA1 (as tmux 3.3a does) or nothing at all, no
# write holds either mark, and start-up goes on (the question's wait is 0.3 s; a silent
# terminal must not hold the screen back for seconds). Each key makes at most one write,
# and so does each second of the clock: writes <= keys + 2 per second + 3 (curses' own
# line-by-line output made about 40 per step). An answer that comes after the wait is not
# read as keys. Quitting with q or SIGTERM restores the terminal's modes.
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 path/to/collviz [path/to/asan/collviz]" >&2
    exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/../lesson/present/01-present.md
if ! command -v strace >/dev/null; then
    echo "FAIL: strace is not installed (tools/deps.sh installs it)"
    exit 1
fi
if ! strace -o /dev/null true 2>/dev/null; then
    echo "SKIP: strace cannot trace here (ptrace not permitted), so writes cannot be counted"
    exit 77
fi
tmp=$(mktemp -d)
chmod 700 "$tmp"
trap 'rm -rf "$tmp"' EXIT
export XDG_RUNTIME_DIR=$tmp XDG_STATE_HOME=$tmp/state XDG_DATA_HOME=$tmp/data

fail() {
    echo "FAIL (test_present_frames): $*"
    exit 1
}
# fact NAME "k=v k=v ...": the value of NAME
fact() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }

# run NAME BIN REPLY WAIT KEYS END -- ARGS...: the terminal's and the log's facts in $term
# and $log, every byte written in $tmp/NAME.raw
run() {
    local name=$1 bin=$2 reply=$3 wait=$4 keys=$5 end=$6
    shift 7
    term=$(python3 "$HERE/fake_term.py" --reply "$reply" --wait "$wait" --keys "$keys" \
        --end "$end" --raw "$tmp/$name.raw" -- strace -f -qq -ttt -y -xx -s 1000000 -e trace=write -e signal=none \
        -o "$tmp/$name.log" "$bin" "$@")
    log=$(python3 "$HERE/frame_writes.py" "$tmp/$name.log")
    echo "$name: $term; $log"
    [ "$(fact error "$term")" = "" ] || fail "$name: $(fact error "$term")"
    [ "$(fact asked "$log")" = 1 ] || fail "$name: the terminal was never asked about mode 2026"
}
# bounds NAME KEYS: at least one write per key and the first frame; at most one per key,
# two per second and three more
bounds() {
    local name=$1 keys=$2 w s max
    w=$(fact writes "$log")
    s=$(fact seconds "$log")
    max=$((keys + 2 * (${s%.*} + 1) + 3))
    [ "$w" -ge $((keys + 1)) ] || fail "$name: $w writes for $keys keys and the first frame"
    [ "$w" -le "$max" ] || fail "$name: $w writes in $s s for $keys keys (at most $max: one per frame)"
}
PRES="--present $FIX --backend cpu --no-measure --start 2"

# The presenter on a terminal with synchronized output: every write one bracketed frame.
run sync "$1" sync "slide 2/4" "SPACE SPACE SPACE" q -- $PRES
[ "$(fact exit "$term")" = 0 ] || fail "sync: exit $(fact exit "$term")"
[ "$(fact restored "$term")" = 1 ] || fail "sync: the terminal's modes were not restored"
bounds sync 3
[ "$(fact bracketed "$log")" = "$(fact writes "$log")" ] ||
    fail "sync: $(fact bracketed "$log") of $(fact writes "$log") writes are one frame in CSI ? 2026 h ... l"

# tmux 3.3a: DA1 answered, mode 2026 not: nothing bracketed, still one write per frame.
run da1 "$1" da1 "slide 2/4" "SPACE SPACE SPACE" q -- $PRES
bounds da1 3
[ "$(fact marks "$log")" = 0 ] || fail "da1: synchronized output used on a terminal without it"

# A terminal that answers nothing: the question's wait ends, nothing bracketed.
run none "$1" none "slide 2/4" "SPACE SPACE" q -- $PRES
bounds none 2
[ "$(fact marks "$log")" = 0 ] || fail "none: synchronized output used without an answer"
awk -v t="$(fact ask_to_text_s "$term")" 'BEGIN { exit !(t >= 0 && t < 3) }' ||
    fail "none: $(fact ask_to_text_s "$term") s from the question to the first slide (the wait is 0.3 s)"

# A terminal that answers after the wait (a slow link, a loaded machine's tmux): its answer,
# ESC [ ? 2026 ; 2 $ y ESC [ ? 62 ; 22 c, is not taken for keys (its digits chose the
# scatter on the room's screen; its [ halved the player's 64 MiB), and the keys after it
# still act (curses writes only what changed: what is looked for in the bytes is new text).
run late "$1" late "slide 2/4" "g 9 ENTER" q -- $PRES
[ "$(fact exit "$term")" = 0 ] || fail "late: exit $(fact exit "$term")"
[ "$(fact marks "$log")" = 0 ] || fail "late: synchronized output used on an answer that came too late"
grep -aqF "no slide 9 (1..4)" "$tmp/late.raw" || fail "late: g 9 Enter after the late answer did not act"
other=$(grep -aoE "(^|[^-])(broadcast|scatter|gather|reduce|all-gather|reduce-scatter|all-to-all) · algo=" "$tmp/late.raw")
[ -z "$other" ] || fail "late: the answer chose another collective: $other"
run late_player "$1" late "step 0/" "b" q -- --backend cpu --no-measure
grep -aqF "backends and hardware" "$tmp/late_player.raw" ||
    fail "late_player: b after the late answer did not open the backends"
sizes=$(grep -aoE "[0-9]+ MiB" "$tmp/late_player.raw" | sort -u | tr '\n' ' ')
[ "$sizes" = "64 MiB " ] || fail "late_player: the answer changed the size: $sizes(want 64 MiB alone)"

# SIGTERM: the terminal is restored and the program dies of the signal.
run term "$1" sync "slide 2/4" "SPACE" TERM -- $PRES
[ "$(fact exit "$term")" = -15 ] || fail "SIGTERM: exit $(fact exit "$term"), expected death by signal 15"
[ "$(fact restored "$term")" = 1 ] || fail "SIGTERM: the terminal's modes were not restored"

# The player and the notes view write their frames the same way.
run player "$1" sync "step 0/" "l l l" q -- --backend cpu --no-measure
bounds player 3
[ "$(fact bracketed "$log")" = "$(fact writes "$log")" ] ||
    fail "player: $(fact bracketed "$log") of $(fact writes "$log") writes are one bracketed frame"
[ "$(fact restored "$term")" = 1 ] || fail "player: the terminal's modes were not restored"
run notes "$1" sync "waiting for presenter" "" q -- notes --name frames
bounds notes 0
[ "$(fact bracketed "$log")" = "$(fact writes "$log")" ] ||
    fail "notes: $(fact bracketed "$log") of $(fact writes "$log") writes are one bracketed frame"

if [ $# -ge 2 ] && [ -x "$2" ]; then
    # (LeakSanitizer cannot run under ptrace; the other checks of ASan and UBSan do)
    ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 run asan "$2" sync "slide 2/4" "SPACE SPACE" q -- $PRES
    [ "$(fact exit "$term")" = 0 ] || fail "asan: exit $(fact exit "$term")"
    [ "$(fact bracketed "$log")" = "$(fact writes "$log")" ] || fail "asan: not one bracketed frame per write"
fi
echo "ok test_present_frames"

#!/usr/bin/env bash
# screenshots.sh - `make screenshots`: drive the real program in tmux at a fixed size,
# capture each screen with its colours (capture-pane -e) and render it to PNG with
# render_png.py (python3-pyte + python3-pil, DejaVu Sans Mono). Screenshots made this way
# never go stale: they are whatever the program draws today.
#
# usage: bash tests/screen/screenshots.sh path/to/collviz OUTDIR
set -u
if [ $# -ne 2 ] || [ ! -x "$1" ]; then
    echo "usage: $0 path/to/collviz OUTDIR" >&2
    exit 2
fi
BIN=$(readlink -f "$1")
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
COLS=120
ROWS=36
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf

# A python3 that has pyte and PIL (Debian's packages live under /usr/bin/python3 even when
# another python3 comes first in PATH); install the Debian packages when none has them.
find_python() {
    local py
    for py in python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null && "$py" -c 'import pyte, PIL' 2>/dev/null; then
            echo "$py"
            return 0
        fi
    done
    return 1
}
apt_install() {
    local sudo=
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    echo "screenshots: installing $* with apt-get" >&2
    $sudo apt-get install -y "$@" >&2
}
command -v tmux >/dev/null || apt_install tmux
PY=$(find_python) || { apt_install python3-pyte python3-pil && PY=$(find_python); } || {
    echo "screenshots: need python3 with pyte and PIL (python3-pyte, python3-pil)" >&2
    exit 1
}
[ -f "$FONT" ] || apt_install fonts-dejavu-core
[ -f "$FONT" ] || { echo "screenshots: no $FONT (fonts-dejavu-core)" >&2; exit 1; }

mkdir -p "$OUT"
STATE=$(mktemp -d)
SOCK="collviz-shots-$$"
tm() { tmux -L "$SOCK" "$@"; }
# Kill the current server and remove its socket file (kill-server can leave it behind).
tm_kill() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
}
trap 'tm_kill; rm -rf "$STATE"' EXIT

wait_for() { # TEXT SECONDS
    local end=$(($(date +%s) + $2))
    while [ "$(date +%s)" -le "$end" ]; do
        tm capture-pane -p -t shot | grep -qF -- "$1" && return 0
        sleep 0.2
    done
    echo "screenshots: '$1' did not appear within $2 s" >&2
    return 1
}

# shot NAME "ARGS" "WAIT-FOR TEXT" [KEYS [TEXT AFTER KEYS [SECONDS]]]
shot() {
    local name=$1 args=$2 ready=$3 keys=${4:-} after=${5:-} secs=${6:-30}
    tm_kill
    SOCK="collviz-shots-$$-$name"
    # the lesson player takes its options after "lesson"; its progress goes to a
    # throw-away folder, so a shot never resumes where a student left off
    local cmd="$BIN --backend cpu $args"
    case $args in lesson*) cmd="$BIN $args --backend cpu" ;; esac
    tm -f /dev/null new-session -d -x $COLS -y $ROWS -s shot \
        "env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_STATE_HOME=$STATE $cmd; sleep 600"
    tm set-option -t shot status off >/dev/null
    wait_for "$ready" 60 || return 1
    if [ -n "$keys" ]; then
        local k
        for k in $keys; do tm send-keys -t shot "$k"; done
        [ -n "$after" ] && { wait_for "$after" "$secs" || return 1; }
    fi
    sleep 0.5
    tm capture-pane -p -e -N -t shot >"$OUT/$name.ans"
    "$PY" "$HERE/render_png.py" "$OUT/$name.ans" "$OUT/$name.png" $COLS $ROWS || return 1
    rm -f "$OUT/$name.ans"
    tm send-keys -t shot q
    echo "screenshots: $OUT/$name.png"
}

fail=0
shot allreduce_ring_step3 "--collective all_reduce --step 3" "measured on cpu:" || fail=1
# The plot's title replaces the "sweeping i/n" line once the last size is in.
shot allreduce_end_measured "--collective all_reduce --step end" "measured on cpu:" s \
    "busbw GB/s vs size" 180 || fail=1
shot alltoall "--collective all_to_all --step 2" "measured on cpu:" || fail=1
shot broadcast_tree "--collective broadcast --algo tree --step 1" "measured on cpu:" || fail=1
shot help "--collective all_reduce --step 3" "measured on cpu:" "?" "help: keys" || fail=1
# The backends overlay as this machine sees it (auto: NCCL where it can run, else why not).
shot backends "--backend auto --collective all_reduce --step 3" "measured on " b \
    "backends and hardware" || fail=1
# The parallelism screen: each waits for the lecture-scale run's panel.
shot parallel_tp_forward "--scene 'screen=parallel scheme=tp step=5'" "same loss as 1 device" ||
    fail=1
shot parallel_pp_gantt "--scene 'screen=parallel scheme=pp step=9'" "measured, step 5 of 5" ||
    fail=1
shot parallel_ddp_measured "--scene 'screen=parallel scheme=ddp step=13'" \
    "same loss as 1 device" || fail=1
# The hierarchy screen after its measurements (memcpy, all-reduce on the CPU ranks), and its
# napkin-math page.
shot hierarchy_measured "--scene 'screen=hierarchy'" "how: all-reduce of" || fail=1
shot hierarchy_napkin "--scene 'screen=hierarchy step=1'" "Napkin math" || fail=1
# Real clusters' records (docs/records.md): a two-node EFA job's ring, a two-node
# nccl-tests table's busbw plot and fit, one NVSwitch node's record on the hierarchy.
REC="$HERE/../records"
shot topology_two_node "--no-measure --nccl-log $REC/efa-2node-t4-nccl2127-ompi.log" \
    "node crossings: 2" || fail=1
shot topology_nccltests "--no-measure --nccl-log $REC/nccltests-h100-2node16-allreduce.log" \
    "model: " || fail=1
shot hierarchy_record "--no-measure --nccl-log $REC/07-h800-8gpu-1proc-nvls-broadcast-nccl2183.log" \
    "channel 0" y "the record's links" || fail=1
# Presenter mode on the test fixture, and the speaker's notes terminal following it.
# Both run with a private XDG_RUNTIME_DIR so the notes socket is theirs alone.
shot_present() {
    local xdg
    xdg=$(mktemp -d) && chmod 700 "$xdg" || return 1
    local fix="$HERE/../lesson/present/01-present.md" envs="env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_RUNTIME_DIR=$xdg XDG_STATE_HOME=$xdg/state"
    tm_kill
    SOCK="collviz-shots-$$-present"
    tm -f /dev/null new-session -d -x $COLS -y $ROWS -s shot \
        "$envs $BIN --present $fix --backend cpu --no-measure; sleep 600"
    tm set-option -t shot status off >/dev/null
    tm new-session -d -x 100 -y 24 -s notes "$envs $BIN notes; sleep 600"
    tm set-option -t notes status off >/dev/null
    wait_for "slide 1/4" 30 || return 1
    local k
    for k in NPage NPage NPage NPage; do tm send-keys -t shot "$k"; done
    wait_for "slide 2/4 · step 3/6" 10 || return 1
    sleep 0.5
    tm capture-pane -p -e -N -t shot >"$OUT/present_allreduce.ans"
    "$PY" "$HERE/render_png.py" "$OUT/present_allreduce.ans" "$OUT/present_allreduce.png" $COLS $ROWS || return 1
    rm -f "$OUT/present_allreduce.ans"
    echo "screenshots: $OUT/present_allreduce.png"
    local end=$(($(date +%s) + 10))
    until tm capture-pane -p -t notes | grep -qF "NOTE-TWO"; do
        [ "$(date +%s)" -le $end ] || { echo "screenshots: notes did not follow" >&2; return 1; }
        sleep 0.2
    done
    tm capture-pane -p -e -N -t notes >"$OUT/present_notes.ans"
    "$PY" "$HERE/render_png.py" "$OUT/present_notes.ans" "$OUT/present_notes.png" 100 24 || return 1
    rm -f "$OUT/present_notes.ans"
    echo "screenshots: $OUT/present_notes.png"
    tm send-keys -t notes q
    tm send-keys -t shot q
    sleep 0.3
    rm -rf "$xdg"
}
shot_present || fail=1
# The lesson player: a slide beside its scene, and an exercise graded (the lecture's
# problem 1 from lessons/13, answered right).
shot lesson_slide "lesson $HERE/../../lessons/05-allreduce-is-rs-plus-ag.md" "slide 1/" n \
    "slide 2/" || fail=1
shot lesson_exercise "lesson $HERE/../../lessons/13-check-yourself.md" "slide 1/" \
    "n Enter 4 1 9 . 4 Space G B / s Enter" "right: 419.4" || fail=1
# A page of the PDF handout: lesson 05's "stop after step 3" slide, drawn for paper.
handout_shot() {
    local pdf page
    pdf=$(mktemp --suffix=.pdf)
    "$BIN" lesson export "$HERE/../../lessons/05-allreduce-is-rs-plus-ag.md" --format pdf \
        -o "$pdf" || return 1
    page=$(pdftotext -layout -f 1 -l 1 "$pdf" - | awk '/Inside the ring: stop after step 3/ {print $NF; exit}')
    [ -n "$page" ] || return 1
    pdftoppm -png -r 70 -singlefile -f "$page" -l "$page" "$pdf" "$OUT/handout_pdf_ring" || return 1
    rm -f "$pdf"
    echo "screenshots: $OUT/handout_pdf_ring.png"
}
handout_shot || fail=1
exit $fail

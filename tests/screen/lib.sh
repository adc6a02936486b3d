# lib.sh - helpers for the screen tests (sourced, not run): start the real binary in a
# detached tmux session of a fixed size on a private server (-L, one per test), send keys,
# capture the pane, and wait for text with a deadline instead of sleeping blindly.
#
# usage in a test:  . "$(dirname "$0")/lib.sh" "$1";  tm_start 120 40 "--backend cpu"
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 path/to/collviz" >&2
    exit 2
fi
BIN=$(readlink -f "$1")
TEST=$(basename "$0" .sh)
SOCK_BASE="collviz-$TEST-$$"
SOCK_N=0
SOCK="$SOCK_BASE-0"
if ! command -v tmux >/dev/null; then
    echo "FAIL: tmux is not installed"
    exit 1
fi

tm() { tmux -L "$SOCK" "$@"; }

# tm_sleep SECONDS: a pause without starting a process (read's timeout on a pipe nobody
# writes to); sleep(1) where that pipe cannot be had.
TM_SLEEP_FD=
{ exec {TM_SLEEP_FD}<> <(:); } 2>/dev/null || TM_SLEEP_FD=
tm_sleep() {
    if [ -n "$TM_SLEEP_FD" ]; then
        read -r -t "$1" -u "$TM_SLEEP_FD" _ 2>/dev/null
        return 0
    fi
    sleep "$1"
}

# The control client: one `tmux -C` attached to session main of the current server, kept
# for the session's life, through which tm_keys and tm_screen send their commands, so a
# key or a look at the screen starts no process (a tmux client per look was most of a
# screen test's own CPU time). The screen comes back through a file (capture-pane into a
# buffer, save-buffer to the file: the bytes capture-pane -p prints), since bash reads a
# pipe one byte at a time. Where the client cannot be had (a subshell, no session main),
# the same commands go through a tmux client of their own, as before.
TM_CM_SOCK= # the server the control client is attached to; empty: none
TM_CM_W=
TM_CM_R=
TM_CM_PID=
TM_CM_SEQ=0
TM_CM_TIMEOUT=${TM_CM_TIMEOUT:-30} # seconds tm_cm waits for a reply
TM_CM_OUTPUT=0                     # %output lines the control client has read
TM_CM_DIR="${TMUX_TMPDIR:-/tmp}/tmux-$UID" # tmux's own folder: the screen's file is $SOCK.screen
tm_cm_close() {
    [ -n "$TM_CM_SOCK" ] || return 0
    exec {TM_CM_W}>&- {TM_CM_R}<&-
    kill "$TM_CM_PID" 2>/dev/null
    wait "$TM_CM_PID" 2>/dev/null
    TM_CM_SOCK=
}
# Attach the control client to the current server's session main (main shell only).
tm_cm_open() {
    tm_cm_close
    [ "$BASHPID" = "$$" ] || return 1
    tm has-session -t main 2>/dev/null || return 1
    local pid line=
    # no-output from the attach on, so tmux never queues the pane's output for this client:
    # tmux 3.3a writes a command's reply after the output queued before it, and a
    # `refresh-client -f no-output` sent once attached drops the panes it followed but not
    # their queued output, so every reply after it waited forever (a script's 30 s stall
    # whenever the program drew while the client attached; tmux pull request 5049).
    coproc TM_CM_PROC { exec tmux -L "$SOCK" -C attach-session -f no-output -t main 2>/dev/null; }
    pid=$TM_CM_PROC_PID
    exec {TM_CM_W}>&"${TM_CM_PROC[1]}" {TM_CM_R}<&"${TM_CM_PROC[0]}"
    TM_CM_PID=$pid
    TM_CM_SOCK=$SOCK
    # attached once the session is announced: a command before that has no client
    # ("no current client")
    while [[ $line != "%session-changed "* ]]; do
        IFS= read -r -t 10 -u "$TM_CM_R" line || {
            tm_cm_close
            return 1
        }
    done
    tm_cm 'display-message -p open' || {
        tm_cm_close
        return 1
    }
}
# tm_cm COMMANDS: run a line of tmux commands on the control client; 0 when all of them
# succeeded, 1 when one failed (its message on stderr), 2 when there is no client (or it
# went away): the commands did not run; 3 when no reply came in TM_CM_TIMEOUT seconds: they
# may have run, so they are not sent again (a key would be pressed twice), and the client
# is closed (its replies are out of step). A marker command closes the line, and replies
# are read up to the marker's, so a reply a reader left behind (a subshell killed
# mid-read) is skipped, not taken.
tm_cm() {
    [ -n "$TM_CM_SOCK" ] && [ "$TM_CM_SOCK" = "$SOCK" ] || return 2
    kill -0 "$TM_CM_PID" 2>/dev/null || return 2
    local mark="tm-cm-$BASHPID-$((++TM_CM_SEQ))" line err=0 in=0 text= last= ok=0 st
    # (a client that went away between the check and the write: EPIPE, not SIGPIPE)
    trap '' PIPE
    printf '%s\ndisplay-message -p %s\n' "$1" "$mark" >&"$TM_CM_W" 2>/dev/null && ok=1
    trap - PIPE
    [ "$ok" = 1 ] || return 2
    while :; do
        IFS= read -r -t "$TM_CM_TIMEOUT" -u "$TM_CM_R" line
        st=$?
        [ "$st" = 0 ] || break
        case $line in
        "%output "*) TM_CM_OUTPUT=$((TM_CM_OUTPUT + 1)) ;;
        "%begin "*) in=1 text= last= ;;
        "%end "* | "%error "*)
            in=0
            [ "$last" = "$mark" ] && return "$err"
            if [ "${line%% *}" = "%error" ]; then
                err=1
                [ -n "$text" ] && printf '%s' "$text" >&2
            fi
            ;;
        *) [ "$in" = 1 ] && text+=$line$'\n' last=$line ;;
        esac
    done
    [ "$st" -gt 128 ] || return 2 # end of file: the client went away
    echo "tmux control client: no reply in ${TM_CM_TIMEOUT}s to: $1" >&2
    [ "$BASHPID" = "$$" ] && tm_cm_close
    return 3
}
# tm_cm_ok COMMANDS: tm_cm, opening the client first when this shell may (commands that
# had no reply, 3, are not sent again).
tm_cm_ok() {
    local rc
    tm_cm "$1"
    rc=$?
    if [ "$rc" = 2 ] && [ "$BASHPID" = "$$" ] && tm_cm_open; then
        tm_cm "$1"
        rc=$?
    fi
    return "$rc"
}
# TM_Q: a tmux word for each argument (single quotes, or double quotes where it holds one).
tm_cm_quote() {
    local a q= s
    for a in "$@"; do
        if [[ $a != *"'"* ]]; then
            s="'$a'"
        else
            s=${a//\\/\\\\}
            s=${s//\"/\\\"}
            s=${s//\$/\\\$}
            s="\"$s\""
        fi
        q+=" $s"
    done
    TM_Q=${q# }
}
# Kill server $1, remove its socket file (kill-server can leave it behind), and wait (up
# to 10 s) until the programs its panes ran have exited: a program saves its state as it
# exits on the hangup, and a test that starts the next one at once must not find that
# state written after it cleared it.
tm_kill() {
    local pids p kids end
    pids=$(tmux -L "$1" list-panes -a -F '#{pane_pid}' 2>/dev/null)
    for p in $pids; do
        kids=$(ps -o pid= --ppid "$p" 2>/dev/null)
        pids="$pids $kids"
    done
    [ "$TM_CM_SOCK" = "$1" ] && tm_cm_close
    tmux -L "$1" kill-server 2>/dev/null || true
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$1" "$TM_CM_DIR/$1.screen"
    end=$((EPOCHSECONDS + 10))
    for p in $pids; do
        # gone, or a zombie (exited; nobody has reaped it yet)
        while [ -n "$(ps -o stat= -p "$p" 2>/dev/null | grep -v Z)" ] &&
            [ "$EPOCHSECONDS" -le "$end" ]; do tm_sleep 0.05; done
    done
}
# Ends the current session's server; the next tm_start uses a fresh server name, so it
# never races with a server that is still shutting down.
tm_cleanup() {
    tm_kill "$SOCK"
    SOCK_N=$((SOCK_N + 1))
    SOCK="$SOCK_BASE-$SOCK_N"
}
tm_cleanup_all() {
    local i
    for i in $(seq 0 "$SOCK_N"); do tm_kill "$SOCK_BASE-$i"; done
}
trap tm_cleanup_all EXIT

# tm_start COLS ROWS "ARGS" [ENV...]: the program runs under sh; when it exits the pane
# prints EXITED:<status> on a line of its own (a killed program leaves the cursor mid-line,
# where the word could wrap) and, on the next line, the terminal modes that matter (icanon,
# echo), both in one write (a test that saw EXITED sees the modes), then idles.
tm_start() {
    local cols=$1 rows=$2 args=$3
    shift 3
    local envs="LANG=C.UTF-8 LC_ALL=C.UTF-8 $*"
    tm -f /dev/null new-session -d -x "$cols" -y "$rows" -s main \
        "env -u NO_COLOR $envs $BIN $args; s=\$?; m=\$(stty -a | tr ' ;' '\n\n' | grep -E '^-?(icanon|echo)\$' | tr '\n' ' '); printf '\r\nEXITED:%s\r\n%s\r\n' \"\$s\" \"\$m\"; sleep 600"
    tm set-option -t main status off >/dev/null
    tm_cm_open
}

tm_keys() {
    local rc
    tm_cm_quote "$@"
    tm_cm_ok "send-keys -t main $TM_Q"
    rc=$?
    [ "$rc" = 2 ] || return "$rc"
    tm send-keys -t main "$@"
}
# tm_look: the screen (capture-pane -p's bytes, less the newlines at the end, as $(...)
# leaves them) into TM_SCREEN, through the control client.
tm_look() {
    local f=$TM_CM_DIR/$SOCK.screen rc
    tm_cm_quote "$f"
    tm_cm_ok "capture-pane -t main -b tm-screen ; save-buffer -b tm-screen $TM_Q"
    rc=$?
    if [ "$rc" = 2 ]; then
        TM_SCREEN=$(tm capture-pane -p -t main)
        return
    fi
    TM_SCREEN=
    [ "$rc" = 0 ] && IFS= read -r -d '' TM_SCREEN <"$f"
    TM_SCREEN=${TM_SCREEN%"${TM_SCREEN##*[!$'\n']}"}
    return "$rc"
}
# tm_capture: the screen's bytes as capture-pane saves them, into TM_CAPTURE.
tm_capture() {
    local f=$TM_CM_DIR/$SOCK.screen rc
    tm_cm_quote "$f"
    tm_cm_ok "capture-pane -t main -b tm-screen ; save-buffer -b tm-screen $TM_Q"
    rc=$?
    if [ "$rc" = 2 ]; then
        TM_CAPTURE=$(tm capture-pane -p -t main)$'\n'
        return 0
    fi
    TM_CAPTURE=
    [ "$rc" = 0 ] || return "$rc"
    IFS= read -r -d '' TM_CAPTURE <"$f"
    return 0
}
# tm_screen: the screen once two captures 0.03 s apart agree (at most ten tries, then the
# last). tmux parses a large frame in pieces, so one capture taken just after a wait saw a
# frame's first line can hold the frame half drawn; a check on the screen is a check on a
# whole frame.
tm_screen() {
    local prev i
    tm_capture || return
    prev=$TM_CAPTURE
    for ((i = 0; i < 10; i++)); do
        tm_sleep 0.03
        tm_capture || return
        [ "$TM_CAPTURE" = "$prev" ] && break
        prev=$TM_CAPTURE
    done
    printf '%s' "$prev"
}
tm_screen_ansi() { tm capture-pane -p -e -t main; }
# The screen with runs of spaces squeezed to one, for matching rows of numbers.
tm_squeezed() { tm_screen | tr -s ' '; }

# The pause between two looks at the screen while waiting: short at first (a frame after a
# key usually lands within a few hundredths of a second), then doubling up to 0.1 s, so a
# wait ends soon after its condition holds without polling a slow screen hard. $1: the
# number of looks already taken.
tm_poll_pause() {
    case $1 in
    0) tm_sleep 0.01 ;;
    1) tm_sleep 0.02 ;;
    2) tm_sleep 0.04 ;;
    3) tm_sleep 0.08 ;;
    *) tm_sleep 0.1 ;;
    esac
}

# tm_wait TEXT [SECONDS [SCREEN]]: until the screen contains TEXT (fixed string); SCREEN is
# the function that prints it (default tm_screen). The capture that held TEXT is left in
# TM_SCREEN, for checks on that same frame without capturing again.
TM_SCREEN=
tm_wait() {
    local text=$1 secs=${2:-10} screen=${3:-tm_screen} n=0
    local end=$((EPOCHSECONDS + secs))
    while [ "$EPOCHSECONDS" -le "$end" ]; do
        if [ "$screen" = tm_screen ]; then
            tm_look
        else
            TM_SCREEN=$("$screen")
        fi
        [[ $TM_SCREEN == *"$text"* ]] && return 0
        tm_poll_pause $((n++))
    done
    return 1
}

# tm_wait_gone TEXT [SECONDS]: until the screen no longer contains TEXT.
tm_wait_gone() {
    local text=$1 secs=${2:-10} n=0
    local end=$((EPOCHSECONDS + secs))
    while [ "$EPOCHSECONDS" -le "$end" ]; do
        tm_look
        [[ $TM_SCREEN == *"$text"* ]] || return 0
        tm_poll_pause $((n++))
    done
    return 1
}

# The pid of collviz itself (the pane's shell is its parent).
tm_pid() {
    local sh
    sh=$(tm display-message -p -t main '#{pane_pid}')
    pgrep -P "$sh" | head -n 1
}

fail() {
    echo "FAIL ($TEST): $*"
    echo "---- screen ----"
    tm_screen 2>/dev/null || true
    echo "----------------"
    exit 1
}

# tm_settled: the squeezed screen once two captures 0.1 s apart agree (at most about 3 s,
# then the last one). A frame reaches tmux in one write, but tmux parses a large one in
# pieces: a capture taken just after tm_wait saw the frame's first line can hold a frame
# half drawn (the 200x60 test on a loaded machine counted 5 of 8 boxes).
tm_settled() {
    local prev now i
    prev=$(tm_squeezed)
    for ((i = 0; i < 30; i++)); do
        tm_sleep 0.1
        now=$(tm_squeezed)
        [ "$now" = "$prev" ] && break
        prev=$now
    done
    printf '%s\n' "$prev"
}

# tm_stable [SCREEN]: until two captures 0.1 s apart agree (at most about 3 s), before a
# capture that must hold a whole frame (the golden screens); SCREEN is the function that
# prints it (default tm_screen). A condition, where a fixed sleep was a guess.
tm_stable() {
    local screen=${1:-tm_screen} prev now i
    prev=$("$screen")
    for ((i = 0; i < 30; i++)); do
        tm_sleep 0.1
        now=$("$screen")
        [ "$now" = "$prev" ] && return 0
        prev=$now
    done
    return 0
}

# Count the occurrences of a fixed string in the settled, squeezed screen.
tm_count() { tm_settled | grep -oF -- "$1" | wc -l; }

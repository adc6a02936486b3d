#!/usr/bin/env bash
# test_echo_escape.sh - every text from outside reaches a terminal through the one escaping
# function (cv_safe_text: ESC as ^[, BEL as ^G, C1 U+009B as M-^[; issue 29, item 4). Each
# option that takes a value, of the visualizer, --present and every subcommand (read off
# their --help, so a new option is covered as it is added), is given a value holding an
# OSC title sequence, a C1 CSI and a raw 0x9b byte; so is each subcommand's first operand;
# and --nccl-log, serve --socket (its "listening on" line) and serve --tcp (its errors) by
# name. Nothing may write a raw control byte (other than newline and tab) to stdout or
# stderr. A command that starts serving or a screen is ended after a few seconds: what it
# printed by then counts. Each runs in a folder of its own (a value may be a file name to
# write), four at a time.
# Usage: test_echo_escape.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
BIN=$(readlink -f "$BIN")
chmod 700 "$tmp"
mkdir -m 700 "$tmp/run"
export XDG_STATE_HOME=$tmp/state XDG_RUNTIME_DIR=$tmp/run
EVIL=$(printf 'x\033]0;PWNED\007\302\23331m\2331m')
checked=0

# probe NAME ARGS...: run collviz ARGS (at most 20 s, no terminal, in a folder of its own),
# several at once (a start takes a second on a busy machine); check_all looks at them.
probe() {
    local name=$1 d
    shift
    checked=$((checked + 1))
    d=$tmp/p$checked
    mkdir -p "$d/work"
    printf '%s\n' "$name" >"$d/name"
    (cd "$d/work" && timeout -s TERM 20 "$BIN" "$@" </dev/null >"$d/out" 2>"$d/err"
        echo $? >"$d/rc") &
    [ "$(jobs -rp | wc -l)" -lt 4 ] || wait -n
}
check_all() {
    wait
    local d
    for d in "$tmp"/p*; do
        # one ended at the time limit has said something by then (what it listens on): an
        # empty output would be a check that looked at nothing (a start too slow)
        [ "$(cat "$d/rc")" != 124 ] || [ -s "$d/out" ] || [ -s "$d/err" ] ||
            fail "$(cat "$d/name"): printed nothing in 20 s"
        # C0 (but newline and tab), DEL, C1 written in UTF-8, or a byte that is not UTF-8
        # (a raw 0x9b is a CSI to a terminal in an 8-bit mode)
        if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$d/out" "$d/err" ||
            ! iconv -f UTF-8 -t UTF-8 "$d/out" >/dev/null 2>&1 ||
            ! iconv -f UTF-8 -t UTF-8 "$d/err" >/dev/null 2>&1; then
            fail "$(cat "$d/name"): a raw control byte reached the output: $(cat "$d/out" "$d/err" | LC_ALL=C grep -aoP '.{0,30}([\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\x9b).{0,10}' | head -1 | cat -v)"
        fi
    done
}

# The options of one --help text that take a value: "--name VALUE" (long names only).
value_options() {
    grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]* +[A-Z"][^ ]*' | sed -E 's/^ +(-[a-zA-Z], )?(--[a-z0-9-]+).*/\2/' | sort -u
}

# the visualizer's options (it refuses to start without a terminal, after its options)
for opt in $("$BIN" --help 2>&1 | value_options); do
    probe "collviz $opt" "$opt" "$EVIL"
done
probe "collviz --nccl-log" --nccl-log "$EVIL.log"
probe "collviz operand" "$EVIL"
# --present and its options
probe "--present" --present "$EVIL.md"
for opt in $("$BIN" --present x --help 2>&1 | value_options); do
    probe "--present $opt" --present "$EVIL.md" "$opt" "$EVIL"
done
# every subcommand: its operand, and each option with a value
for sub in trace bench train lesson svg notes model nccl serve; do
    probe "$sub operand" "$sub" "$EVIL"
    for opt in $("$BIN" "$sub" --help 2>&1 | value_options); do
        probe "$sub $opt" "$sub" "$opt" "$EVIL"
    done
done
for verb in check show variant grade list export; do
    probe "lesson $verb" lesson "$verb" "$EVIL.md"
done
# serve: its address in the "listening on" line and in its errors
probe "serve --socket (listening)" serve --socket "$EVIL.sock"
probe "serve --socket (error)" serve --socket "$tmp/nowhere/$EVIL/s.sock"
probe "serve --tcp host" serve --tcp "$EVIL:0"
probe "serve --tcp port" serve --tcp "127.0.0.1:$EVIL"
probe "--connect" --connect "tcp:$EVIL:1" --token x

check_all
[ "$checked" -gt 60 ] || fail "only $checked commands were probed: the option lists were not read"
echo "probed $checked commands"
cli_finish "test_echo_escape (no raw control byte from any echoed argument)"

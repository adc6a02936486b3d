#!/usr/bin/env bash
# test_serve_cli.sh - `collviz serve` and the UI's --connect/--mpi/--token refusals: each
# bad case is one line on stderr naming what is wrong and exit status 2, before any
# terminal is touched: a socket directory of mode 0777, a symlink in its place, a socket
# that is not 0600, a TCP job without --token and with a wrong one, conflicting options, a
# bad --stall, serve launched as several processes without the mpi backend, --mpi with a
# launch command that fails. A TCP serve binds 127.0.0.1 and prints a 64-hex-digit token.
# Usage: test_serve_cli.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
chmod 700 "$tmp"
pids=()
# the serve jobs still running, and the folders the checks made unreadable
cli_cleanup_extra='for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null; done; chmod -R u+rwx "$tmp"'
# one_line WANT CMD...: exit 2, exactly one line on stderr containing WANT, nothing on stdout
one_line() {
    local want=$1
    shift
    "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ $rc -eq 2 ] || fail "$*: exit $rc, want 2 ($(cat "$tmp/err"))"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$*: not one line: $(cat "$tmp/err")"
    grep -qF -- "$want" "$tmp/err" || fail "$*: '$(cat "$tmp/err")' lacks '$want'"
    [ -s "$tmp/out" ] && fail "$*: wrote to stdout: $(cat "$tmp/out")"
    return 0
}
wait_for() { for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }

# A job on a private socket.
mkdir -m 700 "$tmp/priv"
"$BIN" serve --socket "$tmp/priv/job.sock" >"$tmp/serve.out" 2>"$tmp/serve.err" &
pids+=($!)
wait_for "$tmp/priv/job.sock" || fail "serve never listened: $(cat "$tmp/serve.err")"
[ "$(stat -c %a "$tmp/priv/job.sock")" = 600 ] || fail "socket mode $(stat -c %a "$tmp/priv/job.sock"), want 600"

# the directory opened to everyone
chmod 777 "$tmp/priv"
one_line "is not private" "$BIN" --connect "unix:$tmp/priv/job.sock"
chmod 700 "$tmp/priv"
# a symlink in place of the directory
ln -s "$tmp/priv" "$tmp/link"
one_line "is not a directory" "$BIN" --connect "$tmp/link/job.sock"
# the socket opened to the group
chmod 660 "$tmp/priv/job.sock"
one_line "not our private socket" "$BIN" --connect "$tmp/priv/job.sock"
chmod 600 "$tmp/priv/job.sock"
# serve refuses a directory that is not private
mkdir -m 777 "$tmp/open"
one_line "is not private" "$BIN" serve --socket "$tmp/open/job.sock"

# TCP: localhost, a token, and the token is required
"$BIN" serve --tcp 127.0.0.1:0 >"$tmp/tcp.out" 2>"$tmp/tcp.err" &
pids+=($!)
wait_for_line() { for _ in $(seq 100); do grep -q token "$tmp/tcp.out" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
wait_for_line || fail "TCP serve printed no token: $(cat "$tmp/tcp.err")"
addr=$(sed -n 's/^collviz serve: listening on \(tcp:[^ ]*\) .*/\1/p' "$tmp/tcp.out")
token=$(sed -n 's/^collviz serve: token //p' "$tmp/tcp.out")
case "$addr" in tcp:127.0.0.1:[0-9]*) ;; *) fail "TCP serve not on 127.0.0.1: '$addr'" ;; esac
echo "$token" | grep -qE '^[0-9a-f]{64}$' || fail "token is not 64 hex digits: '$token'"
"$BIN" serve --tcp 0 >"$tmp/tcp0.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$tmp/tcp0.out" 2>/dev/null && break; sleep 0.1; done
grep -q "listening on tcp:127.0.0.1:" "$tmp/tcp0.out" || fail "--tcp PORT did not bind localhost: $(cat "$tmp/tcp0.out")"
one_line "needs --token" "$BIN" --connect "$addr"
one_line "wrong token" "$BIN" --connect "$addr" --token 0000
for _ in $(seq 50); do grep -q "wrong token" "$tmp/tcp.err" && break; sleep 0.1; done
grep -q "closed the connection: wrong token" "$tmp/tcp.err" || fail "serve did not log the wrong token: $(cat "$tmp/tcp.err")"

# options
one_line "exclude each other" "$BIN" --connect "$tmp/priv/job.sock" --mpi "mpirun -np 2"
one_line "--token goes with --connect" "$BIN" --token abc
one_line "has its own backend" "$BIN" --connect "$tmp/priv/job.sock" --backend cpu
one_line "empty launch command" "$BIN" --mpi ""
if "$BIN" serve --help | grep -q "cpu, nccl or mpi"; then
    one_line "the screens do not run as MPI ranks; start the job with --mpi" "$BIN" --backend mpi
fi
one_line "serve --stall: bad value 'x'" "$BIN" serve --stall x
one_line "exclude each other" "$BIN" serve --socket "$tmp/priv/x.sock" --tcp 0
one_line "bad address" "$BIN" --connect "tcp:nowhere"
one_line "--backend cpu runs in one process: under Open MPI's mpirun's 4 processes (OMPI_COMM_WORLD_SIZE=4)" env OMPI_COMM_WORLD_SIZE=4 "$BIN" serve --backend cpu
# --mpi with a launcher that fails at once: its last words, and nothing left running
mkdir -m 700 "$tmp/xdg"
one_line "the job ended before it listened" env XDG_RUNTIME_DIR="$tmp/xdg" "$BIN" --mpi "false"
[ -z "$(ls -A "$tmp/xdg/collviz")" ] || fail "--mpi left files: $(ls "$tmp/xdg/collviz")"

cli_finish "test_serve_cli (serve and --connect refuse in one line each)"

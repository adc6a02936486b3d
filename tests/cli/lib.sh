# lib.sh - what every CLI test script starts with (sourced, not run), as tests/screen/lib.sh
# is for the screen tests: the binaries, a private temporary folder removed at exit, the
# failure counter and its fail(), a UTF-8 locale, and the checks several scripts make.
#
# usage in a test:  . "$(dirname "$0")/lib.sh" "$@"      (BIN [ASAN_BIN], as run.sh passes)
#                   . "$(dirname "$0")/lib.sh" --no-bin  (a script that runs no collviz)
# then end with:    cli_finish NAME
set -u
CLI_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$CLI_HERE/../.." && pwd)
if [ "${1:-}" = --no-bin ]; then
    BIN=
    ASAN_BIN=
else
    BIN=${1:?usage: $(basename "$0") BIN [ASAN_BIN]}
    ASAN_BIN=${2:-}
fi
fails=0
tmp=$(mktemp -d)
# A script that needs more at exit sets cli_cleanup_extra to a command.
cli_cleanup_extra=
trap 'eval "$cli_cleanup_extra"; rm -rf "$tmp"' EXIT
export LANG=C.UTF-8 LC_ALL=C.UTF-8

fail() { # message: one failure more, said on one line
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# The binaries to run a check with: BIN, and the ASan+UBSan build when there is one.
cli_bins() {
    echo "$BIN"
    [ -n "$ASAN_BIN" ] && [ -x "$ASAN_BIN" ] && echo "$ASAN_BIN"
}

# expect_usage_error WANT ARGS...: collviz ARGS exits 2 with exactly one line on stderr,
# containing WANT, and nothing on stdout - bad input's promise - on every binary.
expect_usage_error() {
    local want=$1 b rc
    shift
    while read -r b; do
        "$b" "$@" >"$tmp/ue.out" 2>"$tmp/ue.err"
        rc=$?
        [ "$rc" -eq 2 ] || fail "$(basename "$b") $*: exit $rc, want 2 ($(head -1 "$tmp/ue.err"))"
        [ "$(wc -l <"$tmp/ue.err")" -eq 1 ] ||
            fail "$(basename "$b") $*: stderr is not one line: $(cat "$tmp/ue.err")"
        grep -qF -- "$want" "$tmp/ue.err" || fail "$(basename "$b") $*: stderr lacks '$want': $(cat "$tmp/ue.err")"
        [ -s "$tmp/ue.out" ] && fail "$(basename "$b") $*: wrote to stdout: $(head -c 200 "$tmp/ue.out")"
    done < <(cli_bins)
}

# json_expect NAME FILE EXPR: FILE is one JSON document and the Python expression EXPR over
# it (as d) is true.
json_expect() {
    python3 - "$2" "$3" <<'PYEOF' || fail "$1: $3 is not true of $(head -c 300 "$2")"
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PYEOF
}

# json_assert NAME FILE PYTHON: the Python statements PYTHON run with d = FILE's JSON and
# close(got, want, what, rel=1e-9), which says what differs; an assert that fails, an
# exception or an exit status not 0 is one failure naming NAME.
json_assert() {
    python3 - "$2" "$3" <<'PYEOF' || fail "$1: values (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
def close(got, want, what, rel=1e-9):
    if not abs(got - want) <= rel * abs(want):
        print("  %s: got %r, want %r" % (what, got, want))
        sys.exit(1)
exec(sys.argv[2])
PYEOF
}

# json_expect_later NAME FILE EXPR: as json_expect, kept for json_expect_now, which
# evaluates every kept check in one python3 run (python starts slowly: a script with
# hundreds of checks).
json_expect_later() {
    printf '%s\t%s\t%s\n' "$2" "$1" "$3" >>"$tmp/json_later"
}

# json_expect_now [PYTHON]: evaluate the kept checks, after PYTHON (definitions the
# expressions may call); each one false, or raising, is one failure naming it.
json_expect_now() {
    [ -s "$tmp/json_later" ] || return 0
    python3 - "$tmp/json_later" "${1:-}" >"$tmp/json_later.out" <<'PYEOF' ||
import json, sys
g = {"json": json}
exec(sys.argv[2], g)
for line in open(sys.argv[1]):
    path, name, expr = line.rstrip("\n").split("\t", 2)
    try:
        g["d"] = json.load(open(path))
        ok = eval(expr, g)
        why = "" if ok else open(path).read(300).replace("\n", " ")
    except Exception as e:
        ok, why = False, "%s: %s" % (type(e).__name__, e)
    if not ok:
        print("%s\t%s\t%s" % (name, expr, why))
PYEOF
        fail "json_expect_now: python3 failed ($(tail -1 "$tmp/json_later.out"))"
    local name expr why
    while IFS=$'\t' read -r name expr why; do
        fail "$name: $expr is not true of $why"
    done <"$tmp/json_later.out"
    rm -f "$tmp/json_later" "$tmp/json_later.out"
}

# cli_take_fails STATUS FILE WHAT: FILE is the output of one python3 run that made many
# checks (python starts slowly): each line "FAIL: ..." is one failure, every other line is
# printed. STATUS, the run's exit status, must be 1 when it printed a FAIL line and 0 when
# not; anything else (a crash) is one failure more, naming WHAT.
cli_take_fails() {
    local rc=$1 out=$2 what=$3 line nfail=0
    while IFS= read -r line; do
        case $line in
        "FAIL: "*)
            fail "${line#FAIL: }"
            nfail=$((nfail + 1))
            ;;
        *) echo "$line" ;;
        esac
    done <"$out"
    [ "$rc" -eq $((nfail > 0)) ] || fail "$what: exit $rc after $nfail failure(s): $(tail -1 "$out")"
}

# cli_finish NAME: the closing line and the exit status (0 when nothing failed).
cli_finish() {
    if [ "$fails" -eq 0 ]; then
        echo "$1: ok"
        exit 0
    fi
    echo "$1: $fails failure(s)"
    exit 1
}

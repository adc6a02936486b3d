#!/usr/bin/env bash
# test_deps.sh - tools/deps.sh, the set-up step of `make run` and `make test`: --check lists
# what is missing (exit 0 when nothing is); it installs only the missing packages through
# apt-get (sudo -n when not root) and says so in one line; with no apt-get, or not root and
# no sudo, it prints the exact command to run and exits 2. The package system is replaced by
# stubs on a PATH of our own, so nothing is installed.
# Usage: test_deps.sh [BIN [ASAN_BIN]] (the binaries are not used)
. "$(dirname "$0")/lib.sh" --no-bin
DEPS=$(cd "$(dirname "$0")/../.." && pwd)/tools/deps.sh

# A bin folder with the few tools the script needs, and stubs for the package system.
mkbin() { # dir: the basics only
    mkdir -p "$1"
    for t in bash env cat; do ln -sf "$(command -v $t)" "$1/$t"; done
}
# dpkg-query stub: every package installed except those listed in $tmp/missing.
stub_dpkg() { # dir
    cat >"$1/dpkg-query" <<EOF
#!$(command -v bash)
p=\${@: -1}
while read -r m; do [ "\$m" = "\$p" ] && { echo -n "unknown ok not-installed"; exit 0; }; done <"$tmp/missing"
echo -n "install ok installed"
EOF
    chmod +x "$1/dpkg-query"
}
stub_id() { # dir uid
    printf '#!%s\necho %s\n' "$(command -v bash)" "$2" >"$1/id"
    chmod +x "$1/id"
}
stub_apt() { # dir: records every call in $tmp/apt.log
    printf '#!%s\necho "apt-get $*" >>"%s/apt.log"\n' "$(command -v bash)" "$tmp" >"$1/apt-get"
    chmod +x "$1/apt-get"
}
run_deps() { # dir args... -> $tmp/out, $tmp/err, rc
    env -i PATH="$1" CUDA_HOME=/nonexistent "$(command -v bash)" "$DEPS" "${@:2}" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# --- the real system: --check answers (this machine runs the tests, so nothing is missing)
bash "$DEPS" --check >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "--check on this machine: exit $rc: $(cat "$tmp/out")"
grep -q "optional (not installed by this step): CUDA toolkit" "$tmp/out" ||
    fail "--check: no optional line: $(cat "$tmp/out")"

# --- --check with two packages missing: lists them, exit 1, installs nothing ----------
b=$tmp/b1
mkbin "$b"
stub_dpkg "$b"
stub_id "$b" 0
stub_apt "$b"
printf 'tmux\nlibcjson-dev\n' >"$tmp/missing"
run_deps "$b" --check
[ "$rc" -eq 1 ] || fail "--check with missing packages: exit $rc"
[ "$(cat "$tmp/out")" = "collviz deps: missing: tmux libcjson-dev" ] ||
    fail "--check output: $(cat "$tmp/out")"
[ ! -e "$tmp/apt.log" ] || fail "--check ran apt-get: $(cat "$tmp/apt.log")"

# --- as root, apt present: installs exactly the missing ones, one line says so --------
run_deps "$b"
[ "$rc" -eq 0 ] || fail "install as root: exit $rc: $(cat "$tmp/err")"
grep -qx "collviz deps: installing tmux libcjson-dev" "$tmp/out" ||
    fail "install line: $(cat "$tmp/out")"
grep -qx "apt-get install -y -qq --no-install-recommends tmux libcjson-dev" "$tmp/apt.log" ||
    fail "apt-get calls: $(cat "$tmp/apt.log")"
rm -f "$tmp/apt.log"

# --- nothing missing: no apt-get call at all ---------------------------------------------
: >"$tmp/missing"
run_deps "$b"
[ "$rc" -eq 0 ] || fail "nothing missing: exit $rc"
[ ! -e "$tmp/apt.log" ] || fail "nothing missing, yet apt-get ran: $(cat "$tmp/apt.log")"
grep -q "installing" "$tmp/out" && fail "nothing missing, yet: $(cat "$tmp/out")"

# --- no apt-get on PATH: the exact command, exit 2 ---------------------------------------
printf 'tmux\n' >"$tmp/missing"
b=$tmp/b2
mkbin "$b"
stub_dpkg "$b"
stub_id "$b" 0
run_deps "$b"
[ "$rc" -eq 2 ] || fail "no apt-get: exit $rc (want 2)"
grep -qx "  apt-get install -y --no-install-recommends tmux" "$tmp/err" ||
    fail "no apt-get: command not printed: $(cat "$tmp/err")"
grep -q "no apt-get" "$tmp/err" || fail "no apt-get: reason not said: $(cat "$tmp/err")"

# --- not root and no sudo: the command with sudo, exit 2 ---------------------------------
b=$tmp/b3
mkbin "$b"
stub_dpkg "$b"
stub_id "$b" 1000
stub_apt "$b"
run_deps "$b"
[ "$rc" -eq 2 ] || fail "no sudo: exit $rc (want 2)"
grep -qx "  sudo apt-get install -y --no-install-recommends tmux" "$tmp/err" ||
    fail "no sudo: command not printed: $(cat "$tmp/err")"
[ ! -e "$tmp/apt.log" ] || fail "no sudo, yet apt-get ran: $(cat "$tmp/apt.log")"

# --- no dpkg (not Debian): says it cannot check, names the packages, lets the build go on --
b=$tmp/b4
mkbin "$b"
stub_id "$b" 0
run_deps "$b"
[ "$rc" -eq 0 ] || fail "no dpkg-query: exit $rc (want 0: the build says what is missing)"
grep -q "no dpkg-query (not Debian?): not checked;.* libcjson-dev" "$tmp/err" ||
    fail "no dpkg-query: message: $(cat "$tmp/err")"
run_deps "$b" --check
[ "$rc" -eq 1 ] || fail "no dpkg-query, --check: exit $rc (want 1)"

# --- bad option: one line, exit 2 --------------------------------------------------------
bash "$DEPS" --bogus >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "'--bogus'" "$tmp/err" || fail "bad option: exit $rc: $(cat "$tmp/err")"

[ "$fails" -eq 0 ] && echo "test_deps: ok"
[ "$fails" -eq 0 ]

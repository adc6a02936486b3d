#!/usr/bin/env bash
# The UI's options: a bad value is one line on stderr naming it and exit status 2, before
# the terminal is touched; an explicitly requested NCCL backend that cannot run says why
# and exits 2; good options start the UI on the scene they describe.
. "$(dirname "$0")/lib.sh" "$1"

bad() { # expected-substring args...
    local want=$1
    shift
    local err rc
    err=$("$BIN" "$@" 2>&1 </dev/null >/dev/null)
    rc=$?
    [ "$rc" -eq 2 ] || fail "'$*': exit status $rc, want 2"
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'$*': want one line, got: $err"
    case "$err" in
    *"$want"*) ;;
    *) fail "'$*': message '$err' lacks '$want'" ;;
    esac
}
bad "--ranks: bad ranks '0'" --ranks 0
bad "--ranks: bad ranks '17'" --ranks 17
bad "--ranks: bad ranks 'four'" --ranks four
bad "--size: bad size '12Q'" --size 12Q
bad "--size: bad size '2'" --size 2
bad "--collective: unknown collective 'allfoo'" --collective allfoo
bad "--algo: unknown algorithm 'star'" --algo star
bad "algorithm tree does not exist for all-to-all" --collective all_to_all --algo tree
bad "--step: bad step 'x'" --step x
bad "--op: unknown op 'mean'" --op mean
bad "root 5 out of range" --collective broadcast --root 5
bad "--backend: unknown backend 'mpi4'" --backend mpi4
bad "unknown option '--bogus'" --bogus
bad "needs a value" --ranks
bad "--scene: unknown key 'foo'" --scene "foo=1"
bad "unexpected argument 'extra'" --ranks 4 extra

# --backend nccl: on a machine where NCCL cannot run, one line and exit 2; where it can,
# the UI starts on it.
tm_start 100 30 "--backend nccl --no-measure"
if tm_wait "EXITED:" 15 && ! tm_screen | grep -qF "step 0/"; then
    tm_screen | grep -qF "EXITED:2" || fail "--backend nccl unavailable: exit status is not 2"
    tm_screen | grep -qE "^collviz: --backend nccl: unavailable - .+" ||
        fail "--backend nccl unavailable: no 'unavailable - <reason>' line"
    msg="nccl unavailable here, reported"
else
    tm_wait "backend: nccl" 5 || fail "--backend nccl started but the title does not say nccl"
    tm_keys q
    tm_wait "EXITED:0" 15 || fail "q did not exit (nccl)"
    msg="nccl available here, UI ran on it"
fi

# Order does not matter, and the scene options are applied.
tm_cleanup
tm_start 100 30 "--root 5 --ranks 8 --collective reduce --algo tree --step end --no-measure"
tm_wait "reduce · algo=tree · W=8 · count=1 · op=sum · root=5" 10 ||
    fail "the scene from the options is not shown"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit"
tm_cleanup
tm_start 100 30 "--scene 'collective=all_gather ranks=3 step=end' --no-measure"
tm_wait "all-gather · algo=ring · W=3" 10 || fail "--scene was not applied"
[ "$(tm_count " 0 1 2 ")" -eq 3 ] || fail "all-gather on 3 ranks should end with 0 1 2 everywhere"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit (--scene)"
echo "ok: bad options exit 2 with one line; $msg; scene options applied"

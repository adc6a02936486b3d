#!/usr/bin/env bash
# test_lesson_keys.sh - `collviz lesson check` fails a lesson whose narration tells the
# student to press a key the lesson player does not bind on that slide (issue 18): a
# parallelism key on a collectives scene, a scene key on a slide without a scene, a key
# nobody binds, a backticked name that is no key; and passes the same keys where they work
# (o on a collectives scene, g on the parallelism screen, n/H/Enter anywhere, "press a
# key"). The shipped lessons pass. Usage: test_lesson_keys.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
HERE=$TOP
export XDG_STATE_HOME=$tmp/state

mkdir -p "$tmp/good" "$tmp/bad"
cat >"$tmp/good/01-good.md" <<'L'
# Keys that work

Press `o` to cycle the operation, pressing 7 and 6 switches collectives, and `[` and `]`
halve and double the size: press `[`, `]` or `s`. Press Enter to answer, press a key.

```scene
collective: reduce
```

---

# The pipeline

Press `g` for the other schedule, press `O` and N for the scheme, press 0 to come back.

```scene
screen: parallel
scheme: pp
```

---

# No scene here

Press n for the next slide, H for a hint? Press `H`. Pressing Esc closes the help.
L
cat >"$tmp/bad/01-bad.md" <<'L'
# Wrong keys

Press `g` to switch the schedule (a parallelism key on a collectives scene).

```scene
collective: reduce
```

---

# No scene

Now press o and `[` here.

---

# Not keys

Press `Ctrl-Z` to stop, press `u` to widen.

```scene
collective: all_reduce
```
L

check() { # bin
    local b=$1 out
    out=$("$b" lesson check "$tmp/good" 2>&1)
    [ $? -eq 0 ] || fail "$b: a lesson whose keys all work fails: $out"
    out=$("$b" lesson check "$tmp/bad" 2>"$tmp/err")
    [ $? -eq 2 ] || fail "$b: a lesson asking for unbound keys passes"
    grep -q "01-bad.md:3: .*key g, which the player does not bind" "$tmp/err" ||
        fail "$b: no error for g on a collectives scene: $(cat "$tmp/err")"
    grep -q "01-bad.md:13: .*key o, which does nothing on a slide without a scene" "$tmp/err" ||
        fail "$b: no error for o without a scene"
    grep -q "01-bad.md:13: .*key \[, which does nothing" "$tmp/err" ||
        fail "$b: no error for [ without a scene"
    grep -q '01-bad.md:19: "press `Ctrl-Z`": no such key' "$tmp/err" ||
        fail "$b: no error for a backticked non-key"
    grep -q "01-bad.md:19: .*key u, which the player does not bind" "$tmp/err" ||
        fail "$b: no error for u"
    [ "$(wc -l <"$tmp/err")" -eq 5 ] || fail "$b: wanted 5 errors: $(cat "$tmp/err")"
    out=$("$b" lesson check "$HERE/lessons" 2>&1)
    [ $? -eq 0 ] || fail "$b: the shipped lessons fail: $out"
}
while read -r b; do check "$b"; done < <(cli_bins)
cli_finish test_lesson_keys

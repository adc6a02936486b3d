#!/usr/bin/env bash
# test_lesson_dir.sh - `collviz lesson` run from any folder finds the lessons (issue 31):
# $COLLVIZ_LESSONS when set, else the first of ./lessons, lessons/ next to the program,
# ../share/collviz/lessons from the program's folder (where `make install` puts them), the
# source tree's lessons/ - each shown here by a folder holding one lesson of its own, found
# from a folder with none. A $COLLVIZ_LESSONS without lessons is one line naming it, exit 2.
# `make install DESTDIR=...` installs the lessons where the installed program looks.
# Usage: test_lesson_dir.sh BIN [ASAN_BIN]
. "$(dirname "$0")/lib.sh" "$@"
export XDG_STATE_HOME=$tmp/state
unset COLLVIZ_LESSONS
lesson() { # DIR ID: a folder holding one lesson, ID
    mkdir -p "$1"
    printf -- '---\nlesson: %s\nminutes: 5\n---\n\n# One\n\nText.\n' "$2" >"$1/01-one.md"
}
ids() { "$@" lesson list 2>&1 | awk 'NR > 1 { print $2 }' | tr '\n' ' '; }

for bin in $(cli_bins); do
    rm -rf "$tmp/p" "$tmp/away"
    mkdir -p "$tmp/p/bin" "$tmp/away"
    cp "$bin" "$tmp/p/bin/collviz"
    # from a folder with no lessons/: the source tree's lessons (15 of them)
    n=$(cd "$tmp/away" && "$tmp/p/bin/collviz" lesson list | tail -n +2 | grep -c '^[0-9][0-9]-')
    [ "$n" -ge 15 ] || fail "$bin: from another folder: $n lessons, not the source tree's"
    # ../share/collviz/lessons from the program's folder comes before the source tree
    lesson "$tmp/p/share/collviz/lessons" shared-one
    [ "$(cd "$tmp/away" && ids "$tmp/p/bin/collviz")" = "shared-one " ] ||
        fail "$bin: ../share/collviz/lessons not found: $(cd "$tmp/away" && ids "$tmp/p/bin/collviz")"
    # lessons/ next to the program before that
    lesson "$tmp/p/bin/lessons" beside-one
    [ "$(cd "$tmp/away" && ids "$tmp/p/bin/collviz")" = "beside-one " ] ||
        fail "$bin: lessons/ next to the program not found first"
    # ./lessons before that; $COLLVIZ_LESSONS before everything
    lesson "$tmp/away/lessons" here-one
    [ "$(cd "$tmp/away" && ids "$tmp/p/bin/collviz")" = "here-one " ] || fail "$bin: ./lessons not first"
    lesson "$tmp/env" env-one
    [ "$(cd "$tmp/away" && COLLVIZ_LESSONS=$tmp/env ids "$tmp/p/bin/collviz")" = "env-one " ] ||
        fail "$bin: \$COLLVIZ_LESSONS not first"
    # a folder with no lesson: one line naming it, exit 2, for the list and the player
    mkdir -p "$tmp/empty"
    out=$(COLLVIZ_LESSONS=$tmp/empty "$bin" lesson list 2>&1)
    rc=$?
    [ "$rc" = 2 ] || fail "$bin: list of an empty folder: exit $rc"
    [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -qF "$tmp/empty" ||
        fail "$bin: list of an empty folder: not one line naming it: $out"
    out=$(COLLVIZ_LESSONS=$tmp/empty "$bin" lesson 2>&1 </dev/null)
    rc=$?
    [ "$rc" = 2 ] || fail "$bin: the player on an empty folder: exit $rc"
    [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -qF "$tmp/empty" ||
        fail "$bin: the player on an empty folder: not one line naming it: $out"
done

# make install puts the lessons at PREFIX/share/collviz/lessons: ../share/collviz/lessons
# from PREFIX/bin, where the installed program looks
# (only when BIN is built: -q says so; this test never builds)
if make -q -s -C "$TOP" "$BIN" 2>/dev/null; then
    make -s -C "$TOP" install DESTDIR="$tmp/inst" PREFIX=/usr >/dev/null 2>&1
fi
if [ -x "$tmp/inst/usr/bin/collviz" ]; then
    for f in "$TOP"/lessons/[0-9]*.md; do
        cmp -s "$f" "$tmp/inst/usr/share/collviz/lessons/$(basename "$f")" ||
            fail "make install: $(basename "$f") not in share/collviz/lessons"
    done
    [ -d "$tmp/inst/usr/bin/../share/collviz/lessons" ] || fail "make install: not ../share from bin"
else
    echo "note: make install did not run here (no man page tool?): its check skipped"
fi
cli_finish test_lesson_dir

#!/usr/bin/env bash
# The presenter reloads a lesson edited during the talk (mtime polled once a second),
# keeping its place; a version that no longer validates leaves the last good one on the
# screen and shows the error in the footer; fixing the file brings the new version.
. "$(dirname "$0")/lib.sh" "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
chmod 700 "$dir"
trap 'tm_cleanup_all; rm -rf "$dir"' EXIT
mkdir "$dir/run" "$dir/talk"
chmod 700 "$dir/run"
cp "$HERE/../lesson/present/01-present.md" "$dir/talk/01-present.md"
L=$dir/talk/01-present.md

tm_start 120 40 "--present $dir/talk --backend cpu --no-measure" "XDG_RUNTIME_DIR=$dir/run" \
    "XDG_STATE_HOME=$dir/state"
tm_wait "slide 1/4" 5 || fail "did not start on the folder"
tm_keys n n
tm_wait "slide 3/4 · step 1/3" 5 || fail "not on slide 3"
tm_keys Right
tm_wait "slide 3/4 · step 2/3" 5 || fail "not at step 2"

# An edit: the new title appears within ~2 s, at the same slide and step.
sed -i 's/^# Reduce-scatter alone$/# Reduce-scatter, edited live/' "$L"
tm_wait "Reduce-scatter, edited live" 3 || fail "the edit did not show within 3 s"
tm_screen | grep -qF "slide 3/4 · step 2/3" || fail "reload lost the position"
tm_screen | grep -qF "reloaded" || fail "no reload notice"

# A broken edit: the last good version stays, the error is in the footer.
sed -i 's/^collective: reduce_scatter$/collective: reduce_nothing/' "$L"
tm_wait "reload failed" 3 || fail "no reload error in the footer"
tm_screen | grep -qF "01-present.md:" || fail "the error does not name file:line"
tm_screen | grep -qF "Reduce-scatter, edited live" || fail "the last good version is gone"
tm_keys NPage
tm_wait "slide 3/4 · step 3/3" 3 || fail "the talk does not go on with the last good version"

# Fixed (and a slide added): the new version, the error gone.
sed -i 's/^collective: reduce_nothing$/collective: reduce_scatter/' "$L"
printf '\n---\n\n# Added during class\n\nOne more thought.\n' >>"$L"
tm_wait "slide 3/5" 3 || fail "the fixed file was not reloaded"
tm_wait_gone "reload failed" 3 || fail "the reload error stayed"
tm_keys End
tm_wait "Added during class" 3 || fail "the added slide is not there"
tm_keys q
tm_wait "EXITED:0" 5 || fail "q did not quit"
echo "ok: reload on edit keeps the position; a broken edit keeps the last good version and shows the error"

#!/usr/bin/env bash
# NO_COLOR (and --no-color) give a screen without colour escape codes that still shows
# everything; without them the same screen is coloured (so the check can fail). --ascii
# replaces box drawing and arrows.
. "$(dirname "$0")/lib.sh" "$1"

# SGR parameters that set a colour: 30-37/40-47/90-97/100-107, 38;... and 48;...
colours() {
    python3 -c '
import re, sys
n = 0
for m in re.finditer(r"\x1b\[([0-9;]*)m", sys.stdin.read()):
    ps = [int(p) for p in m.group(1).split(";") if p]
    for p in ps:
        if 30 <= p <= 37 or 40 <= p <= 47 or 90 <= p <= 97 or 100 <= p <= 107 or p in (38, 48):
            n += 1
print(n)'
}

tm_start 100 30 "--backend cpu --no-measure --step end"
tm_wait "step 6/6" || fail "the screen never came up"
c=$(tm_screen_ansi | colours)
[ "$c" -gt 0 ] || fail "the normal screen has no colours (the check below would prove nothing)"

for how in "NO_COLOR=1" "--no-color"; do
    tm_cleanup
    if [ "$how" = "NO_COLOR=1" ]; then
        tm_start 100 30 "--backend cpu --no-measure --step end" NO_COLOR=1
    else
        tm_start 100 30 "--backend cpu --no-measure --step end --no-color"
    fi
    tm_wait "step 6/6" || fail "the screen never came up ($how)"
    tm_wait "✓ animation = cpu ranks" 20 || fail "no badge ($how)"
    c=$(tm_screen_ansi | colours)
    [ "$c" -eq 0 ] || fail "$how: $c colour codes on screen"
    [ "$(tm_count " 6 10 14 18 ")" -eq 4 ] || fail "$how: values missing"
    tm_keys q
    tm_wait "EXITED:0" 10 || fail "q did not exit ($how)"
done

tm_cleanup
tm_start 100 30 "--backend cpu --no-measure --step 3 --ascii"
tm_wait "step 3/6" || fail "the screen never came up (--ascii)"
tm_wait "OK animation = cpu ranks" 20 || fail "no ASCII badge"
tm_screen | grep -qF "r0 -> r1" || fail "no ASCII arrow"
tm_screen | LC_ALL=C grep -q $'[\x80-\xff]' && fail "--ascii screen has non-ASCII characters"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit (--ascii)"
echo "ok: NO_COLOR / --no-color are monochrome, --ascii is ASCII"

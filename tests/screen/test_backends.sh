#!/usr/bin/env bash
# The backends and hardware overlay (b) and the panel's nccl line. With the default
# --backend auto on a machine without a GPU, a student sees on the main screen why NCCL is
# not used ("nccl: unavailable — <reason>") and keeps the CPU ranks; b lists every backend:
# the CPU ranks in use with the CPU model, cores and memory, and NCCL unavailable with the
# CUDA reason (or "not built" in a build without the toolkit). Where nvidia-smi lists a GPU
# the NCCL assertions are skipped (what NCCL says there depends on the GPUs). The overlay
# takes no other keys, Esc and b close it, and it opens on the parallelism screen too.
. "$(dirname "$0")/lib.sh" "$1"

have_gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    have_gpu=1
fi

# The overlay's own text: the columns of its box, from its title row to its bottom edge
# (the screen around it has an nccl line of its own in the panel).
overlay() {
    tm_screen | python3 -c '
import sys
rows = sys.stdin.read().split("\n")
for y, row in enumerate(rows):
    x = row.find("backends and hardware (")
    if x < 0:
        continue
    x0 = row.rfind("┌", 0, x)
    x0 = row.rfind("+", 0, x) if x0 < 0 else x0
    x1 = x0 + 1
    while x1 < len(row) and row[x1] not in "┐+":
        x1 += 1
    for r in rows[y:]:
        print(r[x0:x1 + 1])
        if r[x0:x0 + 1] in ("└", "+") and r is not rows[y]:
            break
    break
'
}

tm_start 120 36 "--no-measure"
tm_wait "step 0/6" || fail "the screen never came up"
tm_wait "✓ animation = " 20 || fail "the check did not finish"
if [ "$have_gpu" = 0 ]; then
    tm_wait "✓ animation = cpu ranks (bit for bit)" 5 || fail "the badge does not say bit for bit"
    # The main screen says why NCCL is not the backend, in the measured panel.
    tm_screen | grep -qE "│ nccl: (unavailable — |not built)" ||
        fail "the panel does not say why nccl is not used"
fi
tm_keys b
tm_wait "backends and hardware (b or Esc closes)" 5 || fail "b did not open the overlay"
scr=$(overlay)
[ -n "$scr" ] || fail "cannot find the overlay's box"
grep -qE "cpu: (in use|built, not in use)" <<<"$scr" || fail "the overlay has no cpu line"
grep -qE "CPU: [^ ]" <<<"$scr" || fail "the overlay does not name the CPU"
grep -qE "[0-9]+ cores? online.*, [0-9.]+ [KMGT]iB memory" <<<"$scr" ||
    fail "the overlay lacks cores and memory"
if [ "$have_gpu" = 0 ]; then
    grep -qE "cpu: in use" <<<"$scr" || fail "without a GPU the cpu backend is not in use"
    grep -qE "[0-9]+ ranks = 4 CPU threads on [0-9]+ cores?" <<<"$scr" ||
        fail "the overlay lacks the CPU ranks line"
    line=$(grep -E "nccl: " <<<"$scr" | grep -E "nccl: (unavailable|not built)" | head -n 1)
    [ -n "$line" ] || fail "the overlay has no nccl line saying unavailable / not built"
    if grep -q "nccl: not built" <<<"$line"; then
        echo "note: this binary was built without NCCL"
    else
        grep -q "unavailable" <<<"$line" || fail "nccl line does not say unavailable: $line"
    fi
    grep -qi "cuda" <<<"$line" || fail "the nccl line does not name the CUDA reason: $line"
else
    echo "SKIP: the nccl assertions (nvidia-smi lists a GPU)"
fi
# While open it takes no other keys; Esc closes it.
tm_keys 5
sleep 0.3
tm_screen | grep -qF "backends and hardware" || fail "a key other than Esc/b/?/q closed it"
tm_screen | grep -qF "all-reduce ·" || fail "a key reached the screen under the overlay"
tm_keys Escape
tm_wait_gone "backends and hardware" 5 || fail "Esc did not close the overlay"
tm_keys b
tm_wait "backends and hardware" 5 || fail "b did not reopen the overlay"
tm_keys b
tm_wait_gone "backends and hardware" 5 || fail "b did not close the overlay"
# The help lists it (the one key table).
tm_keys '?'
tm_wait "help: keys" 5 || fail "? did not open the help"
tm_screen | grep -qF "backends, GPUs, NCCL" || fail "the help does not list b"
tm_keys b # from the help straight to the overlay
tm_wait "backends and hardware" 5 || fail "b did not switch from the help to the overlay"
tm_screen | grep -qF "help: keys" && fail "the help stayed open under the overlay"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q inside the overlay did not quit"

# --backend cpu: NCCL was not tried, so nothing calls it unavailable; the parallelism
# screen opens the overlay too.
tm_cleanup
tm_start 100 30 "--backend cpu --no-measure"
tm_wait "step 0/6" || fail "--backend cpu: the screen never came up"
tm_screen | grep -qF "unavailable" && fail "--backend cpu: the panel calls nccl unavailable"
tm_keys p
tm_wait "parallelism" 10 || fail "p did not open the parallelism screen"
tm_keys b
tm_wait "backends and hardware" 5 || fail "b did not open the overlay on the parallelism screen"
overlay | grep -qE "cpu: in use" || fail "--backend cpu: cpu is not in use"
overlay | grep -qE "nccl: (built, not opened|not built)" ||
    fail "--backend cpu: the nccl line does not say it was not opened"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not exit"
echo "ok: backends overlay (cpu in use, nccl status and reason), panel nccl line, keys"

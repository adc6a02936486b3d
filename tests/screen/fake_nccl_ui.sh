#!/usr/bin/env bash
# The TUI on the NCCL backend, with the binary of the fakegpu build (tests/fakegpu: CUDA and
# NCCL emulated on the host) and 4 emulated devices - run by tests/run.sh when `make test`
# built it, since no GPU is at hand. With the default --backend auto the program picks NCCL
# (2+ devices), checks the animation against NCCL's display-scale result (✓), measures an
# all-reduce with #wrong 0 (with the user's NCCL_ALGO shown beside the figures),
# and b lists the devices with their peer matrix; the
# parallelism screen trains at lecture scale on the devices, with NCCL's bytes labelled as
# the ring model's, and falls back to CPU ranks (saying why) with more ranks than devices. With
# FAKEGPU_CORRUPT=1 (one wrong element per NCCL call) the same screen must show the
# mismatch and a #wrong above 0: the checks are able to fail. Timings here are host time
# and are not asserted.
# Every measurement is of 4 MiB (--size), not the lecture's 64 MiB: the emulation moves the
# bytes on the host under ASan, and what is checked here (which backend, #wrong, the labels,
# the link) is the same at any size; at 64 MiB they took 40 of its 58 s of CPU.
. "$(dirname "$0")/lib.sh" "$1"

tm_start 150 44 "--size 4M" FAKEGPU_DEVICES=4 NCCL_ALGO=Ring
tm_wait "step 0/6" 20 || fail "the screen never came up"
tm_screen | grep -qF "backend: nccl" || fail "auto did not pick nccl with 4 devices"
tm_wait "✓ animation = nccl" 30 || fail "the animation was not checked against NCCL"
tm_wait "#wrong 0" 120 || fail "no measurement with #wrong 0"
tm_screen | grep -qF "emulated GPUs, nccl's own collective" ||
    fail "the panel does not say the times are of NCCL's own collective on emulated GPUs"
tm_screen | grep -qF "NCCL_ALGO=Ring (user-set)" ||
    fail "the user's NCCL_ALGO is not shown next to the figures"
tm_keys b
tm_wait "peer access" 5 || fail "b did not list the devices' peer access"
[ "$(tm_screen | grep -cF "fakegpu (host emulation, not a GPU)")" -ge 4 ] ||
    fail "the overlay does not name the 4 emulated devices as such"
# Every GPU fact there says it is the emulation's: versions, driver, compute capability.
# The overlay's lines wrap: join them (a continuation is indented deeper) before matching.
tm_screen | python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
top = next(i for i, l in enumerate(lines) if "┌ backends and hardware" in l)
s = lines[top].index("┌")
e = lines[top].index("┐", s)
facts = []
for l in lines[top + 1:]:
    if l[s:s + 1] == "└":
        break
    inner = l[s + 1:e]
    if inner.startswith("     ") and facts:
        facts[-1] += " " + inner.strip()
    else:
        facts.append(inner.strip())
need = [r"NCCL [0-9.]+ emulated \(built against [0-9.]+\), CUDA runtime [0-9.]+ emulated, "
        r"driver supports CUDA [0-9.]+ emulated$", r"peer access emulated "]
need += [r"GPU %d: fakegpu .*, [0-9]+ GiB emulated, sm_[0-9]+ emulated, PCI \S+ emulated$" % g
         for g in range(4)]
bad = [n for n in need if not any(re.search(n, f) for f in facts)]
for n in bad:
    print("overlay: no line matching", n)
sys.exit(1 if bad else 0)
' || fail "the overlay's GPU facts (versions, driver, sm_, PCI, peer access) do not all say emulated"
tm_keys Escape p
tm_wait "measured on nccl" 10 || fail "the parallelism screen does not train on the devices"
tm_wait "same loss as 1 device" 120 || fail "no lecture-scale run on the devices"
tm_screen | grep -qF "✓ same loss as 1 device" || fail "the NCCL run's loss differs from one device"
tm_screen | grep -qF "busiest rank: 24 MiB ring model" ||
    fail "NCCL's collective bytes are not labelled as the ring model's"
# Where the run happened is said where it ran (issue 12: "cpu ranks" was hard-coded in the
# help and the pipeline's bubble footnote): the help, then the pipeline on the devices.
tm_keys '?'
tm_wait "help: keys" 5 || fail "? did not open the help"
tm_screen | grep -qF "measured on nccl at lecture scale" || fail "the help does not say the run was on nccl"
tm_screen | grep -qF "cpu ranks" && fail "the help says cpu ranks for a run on nccl"
tm_keys Escape n n
tm_wait "(idle share of the span, nccl" 120 ||
    fail "the pipeline's measured bubble does not say it ran on nccl"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit with status 0"
tm_cleanup

# 2 devices: the collectives screen animates 4 ranks but measures 2, labelling the other
# boxes and saying why the animation is not checked; the parallelism screen's 4 ranks
# train on CPU ranks, saying why; at 2 ranks they go to the devices.
tm_start 150 44 "--size 4M" FAKEGPU_DEVICES=2
tm_wait "step 0/6" 20 || fail "the 2-device run never came up"
tm_wait "W=2" 60 || fail "the measured world size was not capped at the 2 devices"
tm_screen | grep -qF "measured on nccl: all-reduce 4 MiB, W=2" || fail "no W=2 measurement"
[ "$(tm_screen | grep -oF "(animation only)" | wc -l)" -eq 2 ] ||
    fail "ranks 2 and 3 are not labelled as animation only"
tm_screen | grep -qF "not checked: W=4 but nccl runs 2 ranks" ||
    fail "the badge does not say why the 4-rank animation is not checked"
tm_keys p
tm_wait "measured on cpu ranks (more ranks than GPUs)" 10 ||
    fail "4 ranks on 2 devices did not fall back to CPU ranks, saying why"
tm_keys - -
tm_wait "measured on nccl" 10 || fail "2 ranks on 2 devices did not train on the devices"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit with status 0"
tm_cleanup

tm_start 150 44 "--size 4M" FAKEGPU_DEVICES=4 FAKEGPU_CORRUPT=1
tm_wait "step 0/6" 20 || fail "the corrupted run never came up"
tm_wait "1 element differ" 30 || fail "a wrong NCCL result was not shown as a mismatch"
end=$(($(date +%s) + 120))
until tm_screen | grep -qE "#wrong [1-9]"; do
    tm_screen | grep -qF "#wrong 0" && fail "a corrupted all-reduce measured #wrong 0"
    [ "$(date +%s)" -le "$end" ] || fail "no #wrong above 0 on the corrupted run"
    sleep 0.2
done
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
tm_cleanup

# The hierarchy screen's NCCL figure names the link NCCL reported in its INFO log - the
# emulation's copy in host memory, SHM/fakegpu - and so stands beside PCIe. Before a
# measurement it says when it will know; with the user's own NCCL_DEBUG the log is theirs
# and not read. The private log (under XDG_RUNTIME_DIR here) is gone when the program ends,
# and nothing of NCCL's INFO reached the terminal.
xdg=$(mktemp -d)
joined() { tm_screen | tr -s ' \n' '  '; }
tm_start 150 44 "--size 4M --no-measure --scene screen=hierarchy" FAKEGPU_DEVICES=2 XDG_RUNTIME_DIR="$xdg"
tm_wait "step 0/1" 20 || fail "the hierarchy screen never came up on emulated devices"
tm_wait "NCCL all-reduce busbw: not measured yet" 10 || fail "the NCCL figure is not waiting"
joined | grep -qF "link: read after the first NCCL measurement" ||
    fail "before a measurement the NCCL figure does not say when its link is known"
[ "$(ls "$xdg")" != "" ] || fail "no private NCCL log under XDG_RUNTIME_DIR"
tm_keys m
tm_wait "NCCL all-reduce busbw: " 10 || fail "no NCCL figure"
tm_wait "link: SHM/fakegpu (through host shared memory), 1 channel (NCCL INFO log)" 60 joined ||
    fail "the NCCL figure does not name the link NCCL reported"
tm_screen | grep -qE "NCCL (INFO|WARN) [A-Z]" && fail "NCCL's INFO log reached the terminal"
tm_screen | python3 -c '
import sys
lines = sys.stdin.read().splitlines()
at = lambda s: next(i for i, l in enumerate(lines) if s in l)
fig, pcie, ib = at("this machine, NCCL all-reduce busbw: "), at("PCIe 7.0 x16"), at("InfiniBand ")
sys.exit(0 if pcie < fig < ib else 1)
' || fail "the NCCL figure over SHM does not stand beside PCIe"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
[ "$(ls -A "$xdg")" = "" ] || fail "the private NCCL log was left behind: $(ls -A "$xdg")"
rmdir "$xdg"
tm_cleanup

# The user's NCCL_DEBUG without NCCL_DEBUG_FILE: NCCL (and the emulation) would print on
# stdout, over the screen; the UI sends that log to a file of a private folder in $TMPDIR
# and names it at exit.
ndbg=$(mktemp -d)
tm_start 150 44 "--size 4M --scene screen=hierarchy" FAKEGPU_DEVICES=2 NCCL_DEBUG=VERSION TMPDIR="$ndbg"
tm_wait "step 0/1" 20 || fail "the hierarchy screen never came up with NCCL_DEBUG=VERSION"
tm_wait "link: not read (NCCL_DEBUG is set by you)" 60 joined ||
    fail "with the user's NCCL_DEBUG the link line does not say it is not read"
tm_screen | grep -qF "NCCL version" && fail "NCCL's log was printed over the screen"
tm_keys q
tm_wait "EXITED:0" 10 || fail "q did not quit"
nlog=$(tm_screen | sed -n "s/^collviz: NCCL's log (your NCCL_DEBUG=VERSION) is in //p" | head -1)
[ -n "$nlog" ] || fail "the exit does not name the file of NCCL's log: $(tm_screen | grep -v '^$' | tail -3)"
case "$nlog" in "$ndbg"/collviz-nccl-debug-*/nccl.log) ;; *) fail "NCCL's log is not in a private folder of \$TMPDIR: $nlog" ;; esac
grep -q "^NCCL version" "$nlog" || fail "NCCL's version line is not in $nlog"
rm -rf "$ndbg"
tm_cleanup

echo "ok: the TUI on emulated NCCL devices: ✓ check, #wrong 0, device list; corrupted results shown as wrong; the link NCCL reported"

#!/usr/bin/env bash
# tools/deps.sh - the one list of Debian packages collviz needs to build and test, and the
# step `make run`, `make test` (through `make deps`) and .ci/run take first: it installs only
# the packages that are missing, says in one line what it installs, and reports the optional
# parts (CUDA toolkit, NCCL) in one line without installing them. MPI (libopenmpi-dev,
# openmpi-bin) is required, so that every CI run tests the mpi backend across processes.
#
#   tools/deps.sh           install what is missing (apt-get, through `sudo -n` when not root)
#   tools/deps.sh --check   only list what is missing; exit 0 when nothing is, 1 otherwise
#
# When it cannot install (no apt-get, not root and no usable sudo, or apt-get fails) it prints
# the exact command to run and exits 2.
set -u

# clang: the libFuzzer target (needs libclang-rt-14-dev); clang-format: `make format-check`;
# libopenmpi-dev openmpi-bin: the mpi backend (mpicc, mpirun); scdoc, man-db: the man page
# and `man -l`; pmccabe: the function-length check (tests/cli/test_function_length.sh);
# libcairo2-dev libpango1.0-dev: the handouts' pictures and PDF; poppler-utils: the PDF
# tests (pdfinfo, pdftotext, pdftoppm); strace: counting a frame's write()s
# (tests/screen/test_present_frames.sh); cppcheck: `make lint`; ccache: nvcc in
# tests/cli/test_build_config.sh (its kernels are the same every run).
REQUIRED="build-essential pkg-config libncurses-dev libcmocka-dev libopenblas-dev tmux python3
locales libmd4c-dev libmd4c-html0-dev libmuparser-dev libcjson-dev clang libclang-rt-14-dev
clang-format libopenmpi-dev openmpi-bin scdoc man-db pmccabe libcairo2-dev libpango1.0-dev
poppler-utils strace cppcheck ccache"
# Optional, for `make bench` only (never installed by this step, never needed to build or
# test): python3-torch, PyTorch's gloo DDP as the yardstick of `collviz train ddp`
# (bench/train_bench.sh installs it when it runs as root; bench/premerge.sh uses it when
# present, through /usr/bin/python3 where the python3 first on PATH cannot import it).
BENCH_OPTIONAL="python3-torch"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

check=0
case "${1:-}" in
"") ;;
--check) check=1 ;;
*)
    echo "tools/deps.sh: unknown option '$1' (use --check or nothing)" >&2
    exit 2
    ;;
esac

# A package counts as present when dpkg says "install ok installed". Without dpkg-query
# (not Debian) nothing can be checked: say so, name the Debian packages, and let the build
# find out (--check fails: it cannot answer).
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "collviz deps: no dpkg-query (not Debian?): not checked; the build needs the" \
        "equivalents of:" $REQUIRED >&2
    [ "$check" -eq 1 ] && exit 1
    exit 0
fi
missing=""
for p in $REQUIRED; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
    [ "$st" = "install ok installed" ] || missing="$missing $p"
done
missing=${missing# }

optional() { # one line: what the optional parts are, found or not (never installed)
    local cuda nccl
    if [ -x "$CUDA_HOME/bin/nvcc" ]; then cuda="CUDA toolkit: $CUDA_HOME"; else cuda="CUDA toolkit: no"; fi
    if [ -f "$CUDA_HOME/include/nccl.h" ]; then nccl="NCCL: yes"; else nccl="NCCL: no"; fi
    local p bench=""
    for p in $BENCH_OPTIONAL; do
        if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ]; then
            bench="$bench $p: yes"
        else
            bench="$bench $p: no"
        fi
    done
    echo "collviz deps: optional (not installed by this step): $cuda, $nccl; for make bench:$bench"
}

if [ "$check" -eq 1 ]; then
    if [ -z "$missing" ]; then
        echo "collviz deps: all required packages are installed"
        optional
        exit 0
    fi
    echo "collviz deps: missing: $missing"
    exit 1
fi

optional
if [ -z "$missing" ]; then
    exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n "
cmd="${sudo:+sudo }apt-get install -y --no-install-recommends $missing"
cannot() { # why
    echo "collviz deps: cannot install the missing packages ($1); run:" >&2
    echo "  $cmd" >&2
    exit 2
}
command -v apt-get >/dev/null 2>&1 || cannot "no apt-get"
if [ -n "$sudo" ]; then
    command -v sudo >/dev/null 2>&1 || cannot "not root and no sudo"
    sudo -n true >/dev/null 2>&1 || cannot "not root and sudo asks for a password"
fi

echo "collviz deps: installing $missing"
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists once, only when apt cannot find a missing package without it.
if ! ${sudo}apt-get install -s -qq $missing >/dev/null 2>&1; then
    ${sudo}apt-get update -qq >/dev/null || cannot "apt-get update failed"
fi
${sudo}apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
    cannot "apt-get install failed"
exit 0

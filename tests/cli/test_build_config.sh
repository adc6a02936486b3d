#!/usr/bin/env bash
# test_build_config.sh - the Makefile's promises about build folders, in throw-away ones:
# the GPU emulation (FAKEGPU=1) is refused outside a folder named fakegpu and `make install`
# refuses a binary that carries it; a build folder remembers its configuration, so building
# it again with HAVE_NCCL= after a NCCL (emulated, and real when nvcc exists) build relinks
# without NCCL (checked with nm and ldd), prints "built backends: cpu" (and mpi when built), and a new CFLAGS
# recompiles; a binary with the test hooks (CV_TEST_HOOKS) is not installed either; a build
# with neither NCCL nor MPI succeeds with the CPU ranks alone; a NCCL build does not link
# cuBLAS (it is opened on use). Usage: test_build_config.sh [BIN [ASAN_BIN]] (the binaries are not used)
. "$(dirname "$0")/lib.sh" --no-bin
cd "$(dirname "$0")/../.."
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# Fast builds: no optimisation; the library and the program only (no tests).
M=(make --no-print-directory -j2 CFLAGS=-O0 CUDA_HOME="$CUDA_HOME")

nccl_syms() { nm "$1" 2>/dev/null | grep -c ' [TtU] ncclAllReduce$'; }

# --- FAKEGPU=1 outside a fakegpu folder: refused before anything is built ------------------
"${M[@]}" BUILD="$tmp/plain" FAKEGPU=1 >"$tmp/out" 2>&1 && fail "FAKEGPU=1 BUILD=$tmp/plain accepted"
grep -q "FAKEGPU=1 builds the test-only GPU emulation.*BUILD=$tmp/plain refused" "$tmp/out" ||
    fail "FAKEGPU=1 in a plain folder: message: $(tail -2 "$tmp/out")"
[ ! -e "$tmp/plain/collviz" ] || fail "FAKEGPU=1 in a plain folder built a binary"

if ! [ -f "$CUDA_HOME/include/nccl.h" ] || ! [ -f "$CUDA_HOME/include/cublas_v2.h" ]; then
    echo "SKIP: the emulated NCCL build then HAVE_NCCL= (no nccl.h or cublas_v2.h)"
else
    B=$tmp/fakegpu
    # --- the emulated build: NCCL inside, install refused --------------------------------
    if "${M[@]}" BUILD="$B" FAKEGPU=1 >"$tmp/out" 2>&1; then
        [ "$(nccl_syms "$B/collviz")" -ge 1 ] || fail "FAKEGPU build: no ncclAllReduce in nm"
        grep -q "built backends: cpu nccl (on fakegpu" "$tmp/out" ||
            fail "FAKEGPU build: backends line: $(grep 'built backends' "$tmp/out")"
        "${M[@]}" BUILD="$B" FAKEGPU=1 install DESTDIR="$tmp/dest" PREFIX=/usr >"$tmp/out" 2>&1 &&
            fail "make install of an emulated build succeeded"
        grep -q "carries the GPU emulation (tests/fakegpu): refusing to install it" "$tmp/out" ||
            fail "install refusal message: $(tail -2 "$tmp/out")"
        [ ! -e "$tmp/dest/usr/bin/collviz" ] || fail "the emulated binary was installed"

        # --- the same folder without NCCL: rebuilt, relinked, nothing of NCCL left -----------
        if "${M[@]}" BUILD="$B" HAVE_NCCL= >"$tmp/out" 2>&1; then
            grep -Eq "built backends: cpu( mpi)? \(nccl skipped" "$tmp/out" ||
                fail "HAVE_NCCL= rebuild: backends line: $(grep 'built backends' "$tmp/out")"
            [ "$(nccl_syms "$B/collviz")" -eq 0 ] || fail "HAVE_NCCL= rebuild: ncclAllReduce still in nm"
            grep -aq 'collviz-fakegpu:''host-emulation' "$B/collviz" &&
                fail "HAVE_NCCL= rebuild: the emulation is still linked in"
            grep -q "^HAVE_NCCL = $" "$B/config.mk" || fail "config.mk: $(grep HAVE_NCCL "$B/config.mk")"
            "${M[@]}" BUILD="$B" HAVE_NCCL= install DESTDIR="$tmp/dest" PREFIX=/usr >"$tmp/out" 2>&1 ||
                fail "install of the rebuilt CPU binary: $(tail -2 "$tmp/out")"
            [ -x "$tmp/dest/usr/bin/collviz" ] || fail "install: no $tmp/dest/usr/bin/collviz"
            # Unchanged configuration: nothing to do. New CFLAGS: everything recompiles.
            [ "$("${M[@]}" BUILD="$B" HAVE_NCCL= -n "$B/collviz" | grep -c -- '-c ')" -eq 0 ] ||
                fail "same configuration recompiles"
            [ "$(make -n BUILD="$B" HAVE_NCCL= CFLAGS=-O1 "$B/collviz" | grep -c -- '-c src/main.c')" -eq 1 ] ||
                fail "a new CFLAGS does not recompile src/main.c"
        else
            fail "HAVE_NCCL= rebuild failed: $(tail -3 "$tmp/out")"
        fi
    else
        fail "FAKEGPU build failed: $(tail -3 "$tmp/out")"
    fi
fi

# --- NCCL older than README's minimum (2.13): the backend refuses to build, saying so ------
if [ -f "$CUDA_HOME/include/cuda_runtime_api.h" ]; then
    mkdir -p "$tmp/oldnccl"
    printf '#define NCCL_VERSION(X, Y, Z) ((X)*10000 + (Y)*100 + (Z))\n#define NCCL_VERSION_CODE 21205\n' \
        >"$tmp/oldnccl/nccl.h"
    cc -fsyntax-only -DHAVE_NCCL -I"$tmp/oldnccl" -isystem "$CUDA_HOME/include" -Isrc \
        src/backend/nccl/nccl_backend.c >"$tmp/out" 2>&1 && fail "nccl_backend.c built against NCCL 2.12.5"
    grep -q "needs NCCL >= 2.13" "$tmp/out" || fail "NCCL 2.12: no version message: $(head -3 "$tmp/out")"
else
    echo "SKIP: the NCCL minimum-version check (no CUDA runtime headers)"
fi

# --- a build with the test hooks (-DCV_TEST_HOOKS, as make test's ASan one): not installed --
B=$tmp/hooks
if "${M[@]}" BUILD="$B" HAVE_NCCL= CFLAGS="-O0 -DCV_TEST_HOOKS" >"$tmp/out" 2>&1; then
    "${M[@]}" BUILD="$B" HAVE_NCCL= CFLAGS="-O0 -DCV_TEST_HOOKS" install DESTDIR="$tmp/dest2" \
        >"$tmp/out" 2>&1 && fail "make install of a build with the test hooks succeeded"
    grep -q "has the test hooks (CV_TEST_HOOKS): refusing to install it" "$tmp/out" ||
        fail "install refusal (hooks): $(tail -2 "$tmp/out")"
    [ ! -e "$tmp/dest2" ] || fail "the test-hooks binary was installed"
else
    fail "the test-hooks build failed: $(tail -3 "$tmp/out")"
fi

# --- the real NCCL build (nvcc, one GPU architecture to keep it short) then HAVE_NCCL= ------
if [ -x "$CUDA_HOME/bin/nvcc" ] && [ -f "$CUDA_HOME/include/nccl.h" ]; then
    B=$tmp/real
    G="NVCC_GENCODE=-gencode arch=compute_90,code=sm_90"
    # nvcc through ccache (tools/deps.sh) when there is one: the kernels are the same every
    # run, and compiling them was most of this script's CPU time (33 s of nvcc, 2 s cached).
    C=()
    command -v ccache >/dev/null && C=("NVCC=ccache $CUDA_HOME/bin/nvcc")
    if "${M[@]}" BUILD="$B" HAVE_NCCL=1 "$G" "${C[@]}" >"$tmp/out" 2>&1; then
        ldd "$B/collviz" | grep -q libnccl || fail "NCCL build: libnccl not in ldd"
        # cuBLAS is opened when a GPU device is made, never at start (its loading alone
        # costs each start half a second of CPU)
        ldd "$B/collviz" | grep -q libcublas && fail "NCCL build: libcublas linked (ldd), not opened on use"
        if "${M[@]}" BUILD="$B" HAVE_NCCL= "$G" "${C[@]}" >"$tmp/out" 2>&1; then
            ldd "$B/collviz" | grep -q libnccl && fail "HAVE_NCCL= after a NCCL build: libnccl still in ldd"
            [ "$(nccl_syms "$B/collviz")" -eq 0 ] || fail "HAVE_NCCL= after a NCCL build: ncclAllReduce in nm"
            grep -Eq "built backends: cpu( mpi)? \(nccl skipped" "$tmp/out" ||
                fail "HAVE_NCCL= after a NCCL build: $(grep 'built backends' "$tmp/out")"
        else
            fail "HAVE_NCCL= after a NCCL build failed: $(tail -3 "$tmp/out")"
        fi
    else
        fail "NCCL build failed: $(tail -3 "$tmp/out")"
    fi
else
    echo "SKIP: the real NCCL build then HAVE_NCCL= (no nvcc or nccl.h)"
fi

# --- neither CUDA nor MPI (a machine with neither): the build succeeds with the CPU ranks
# alone, says so, and --backend mpi is refused in one line -------------------------------
B="$tmp/cpu_only"
if "${M[@]}" BUILD="$B" HAVE_NCCL= HAVE_MPI= >"$tmp/out" 2>&1; then
    grep -Eq "built backends: cpu \(" "$tmp/out" ||
        fail "HAVE_NCCL= HAVE_MPI=: backends line: $(grep 'built backends' "$tmp/out")"
    "$B/collviz" bench all_reduce --backend mpi >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "not built" "$tmp/err" ||
        fail "HAVE_MPI= build, --backend mpi: exit $rc: $(cat "$tmp/err")"
else
    fail "the build without NCCL and MPI failed: $(grep -m3 -E 'error|Error' "$tmp/out")"
fi

[ "$fails" -eq 0 ] && echo "test_build_config: ok"
[ "$fails" -eq 0 ]
